"""The ``compare`` command(s) of the dpcompare CLI."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table


from ..spec import parse, parse_hyperprior
from .app import _console, _emit_json, _num, app

# ---------------------------------------------------------------------------------------------- compare
_DIRECTION_MEANING = (
    ("Δ(A‖B)", "regret of choosing B over A: how much lower the best attack's Bayes error can be on B than on A"),
    ("Δ(B‖A)", "regret of choosing A over B: how much lower the best attack's Bayes error can be on A than on B"),
    ("Δ↔", "max of both directions = sup over π of |R_A(π) − R_B(π)| (a metric)"),
)


def _compare_tables(d: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    head = f"[bold]A[/] = {escape(d['a'])}\n[bold]B[/] = {escape(d['b'])}"
    if d.get("hyperprior"):
        head += f"\nhyper-prior on the adversary's prior π: {escape(str(d['hyperprior']))} (Δ weighted by its density)"
    out.append(head)

    t = Table(title="Δ-divergence (Bayes-error regret)", title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("Δ", justify="right", no_wrap=True)
    t.add_column("certified bracket", justify="center", no_wrap=True)
    t.add_column("attained at π", justify="right", no_wrap=True)
    for key, (label, _) in zip(("delta_ab", "delta_ba"), _DIRECTION_MEANING):
        r = d[key]
        at = _num(r.get("pi"), 4) if r["value"] > 0 else "- (Δ = 0)"
        if r["value"] > 0 and r.get("eps") is not None:
            at += f" (ε = {_num(r['eps'], 4)})"
        t.add_row(label, _num(r["value"]), f"[{_num(r['lower'])}, {_num(r['upper'])}]", at)
    sb = d.get("symmetric_bounds")
    bracket = f"[{_num(sb[0])}, {_num(sb[1])}]" if sb else ""
    t.add_row("Δ↔ symmetric", _num(d["symmetric"]), bracket, "")
    out.append(t)
    legend = Table.grid(padding=(0, 1))
    legend.add_column(no_wrap=True)
    legend.add_column()
    for label, text in _DIRECTION_MEANING:
        legend.add_row(f" {label}", escape(text))
    out.append(legend)

    verdict = d["verdict"]
    text = d.get("verdict_text") or verdict
    tol = d.get("tolerance")
    tol_txt = f" Tolerance: Δ ≤ {_num(tol, 3)} counts as 0." if tol is not None else ""
    cert = "" if d.get("verdict_certified", True) else (
        " Not certified: a Δ bracket straddles the tolerance, so the verdict rests on the estimate."
    )
    out.append(f"[bold]Verdict[/]: {escape(verdict)} — {escape(text)}.{tol_txt}{cert}")
    cross = d.get("crossings") or []
    if cross:
        pts = ", ".join(_num(c, 4) for c in cross)
        out.append(f"[bold]Crossings[/]: the Bayes error functions R_A and R_B cross at π ≈ {pts}.")
    else:
        out.append("[bold]Crossings[/]: none — R_A − R_B does not change sign.")
    summary = d.get("summary")
    if summary and not summary.startswith(text):
        out.append(f"[bold]In words[/]: {escape(summary)}")
    return out


@app.command("compare")
def compare_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="First mechanism spec, e.g. 'gaussian(mu=1)'.", show_default=False)],
    b: Annotated[str, typer.Argument(metavar="B", help="Second mechanism spec, e.g. 'laplace(b=1)'.", show_default=False)],
    hyperprior: Annotated[
        Optional[str],
        typer.Option("--hyperprior", metavar="PRIOR", help="Weight the adversary's prior: jeffreys | uquadratic | beta(a,b)."),
    ] = None,
    tolerance: Annotated[
        Optional[float],
        typer.Option("--tolerance", metavar="T", help="Δ at or below T counts as 0 in the Blackwell verdict (default: the library's)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Compare A and B: Δ(A‖B), Δ(B‖A), symmetric Δ, Blackwell verdict and crossing priors."""
    from ...compare import compare

    ma, mb = parse(a), parse(b)
    h = parse_hyperprior(hyperprior) if hyperprior is not None else None
    kwargs: dict[str, Any] = {"hyperprior": h}
    if tolerance is not None:
        kwargs["tol"] = tolerance
    result = compare(ma, mb, **kwargs).to_dict()
    if as_json:
        _emit_json(result)
        return
    parts = _compare_tables(result)
    con = _console()
    for i, part in enumerate(parts):
        if i:
            con.print()
        con.print(part)


