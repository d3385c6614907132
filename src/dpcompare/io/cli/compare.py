"""The ``compare`` command(s) of the dpcompare CLI."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ...comparison.comparison import MAX_TOLERANCE
from ..render import emit_json, num
from ..spec import parse, parse_hyperprior
from .app import _print_parts, app

if TYPE_CHECKING:
    from rich.table import Table

    from ...comparison import Comparison, DeltaResult

# ---------------------------------------------------------------------------------------------- compare
_DIRECTION_MEANING = (
    ("Δ(A‖B)", "regret of choosing B over A: how much lower the best attack's Bayes error can be on B than on A"),
    ("Δ(B‖A)", "regret of choosing A over B: how much lower the best attack's Bayes error can be on A than on B"),
    ("Δ↔", "max of both directions = sup over π of |R_A(π) − R_B(π)| (a metric)"),
)


def _delta_row(t: "Table", label: str, r: "DeltaResult") -> None:
    """One Δ: its value (≈ 0 when it is below the numerical error: the bracket holds 0 and ends at ≤ 1e-9),
    its certified bracket, and the prior where it is attained (none for a Δ of 0)."""
    if r.value == 0 or r.negligible:
        value, at = ("0" if r.value == 0 else "≈ 0"), "-"
    else:
        value, at = num(r.value), num(r.pi, 4)
        if math.isfinite(r.eps):
            at += f" (ε = {num(r.eps, 4)})"
    t.add_row(label, value, f"[{num(r.lower)}, {num(r.upper)}]", at)


def _zero_note(results: "list[DeltaResult]") -> list[str]:
    if any(r.value != 0 and r.negligible for r in results):
        return ["≈ 0: below the numerical error (the certified bracket contains 0), so no prior attains it."]
    return []


def _delta_table(title: str) -> "Table":
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("Δ", justify="right", no_wrap=True)
    t.add_column("certified bracket", justify="center", no_wrap=True)
    t.add_column("attained at π", justify="right", no_wrap=True)
    return t


def _compare_tables(c: "Comparison") -> list[Any]:
    """Render a Comparison (the object itself: no dict round trip). rich is imported here, for human output only."""
    from rich.markup import escape
    from rich.table import Table

    out: list[Any] = [f"[bold]A[/] = {escape(c.a.spec)}\n[bold]B[/] = {escape(c.b.spec)}"]
    t = _delta_table("Δ-divergence (Bayes-error regret)")
    _delta_row(t, _DIRECTION_MEANING[0][0], c.delta_ab)
    _delta_row(t, _DIRECTION_MEANING[1][0], c.delta_ba)
    lo, hi = c.symmetric_bounds
    t.add_row("Δ↔ symmetric", num(c.symmetric), f"[{num(lo)}, {num(hi)}]", "")
    out.append(t)
    out += _zero_note([c.delta_ab, c.delta_ba])
    legend = Table.grid(padding=(0, 1))
    legend.add_column(no_wrap=True)
    legend.add_column()
    for label, text in _DIRECTION_MEANING:
        legend.add_row(f" {label}", escape(text))
    out.append(legend)

    text = c.verdict_text
    cert = "" if c.verdict_certified else (
        " Not certified: a Δ bracket straddles the tolerance, so the verdict rests on the estimate."
    )
    unweighted = "" if c.weighted is None else " The verdict comes from the unweighted curves."
    tol = "" if "within the tolerance" in text else f" Tolerance: Δ ≤ {num(c.tolerance, 3)} counts as 0."
    out.append(f"[bold]Verdict[/]: {escape(c.verdict)} — {escape(text)}.{tol}{cert}{unweighted}")
    if c.crossings:
        pts = ", ".join(num(x, 4) for x in c.crossings)
        out.append(f"[bold]Crossings[/]: the Bayes error functions R_A and R_B cross at π ≈ {pts}.")
    else:
        out.append("[bold]Crossings[/]: none — R_A − R_B does not change sign.")
    w = c.weighted
    if w is not None:
        name = escape(w.hyperprior.name)
        tw = _delta_table(f"Hyper-prior {name}: density-weighted Δ^Ψ = max_π Ψ(π)(R_X − R_Y)(π)")
        _delta_row(tw, "Δ^Ψ(A‖B)", w.delta_ab)
        _delta_row(tw, "Δ^Ψ(B‖A)", w.delta_ba)
        out.append(tw)
        out += _zero_note([w.delta_ab, w.delta_ba])
        out.append("Δ^Ψ is weighted by a density: it is not a probability and can exceed 1. It does not change the verdict.")
        tr = Table(title=f"Expected regret under {name} (probability scale)", title_justify="left")
        tr.add_column("", no_wrap=True)
        tr.add_column("value", justify="right", no_wrap=True)
        tr.add_column("certified bracket", justify="center", no_wrap=True)
        for label, r in (("E_Ψ[(R_A − R_B)₊] (choosing B)", w.regret_ab), ("E_Ψ[(R_B − R_A)₊] (choosing A)", w.regret_ba)):
            tr.add_row(label, num(r.value, 4), f"[{num(r.lower, 4)}, {num(r.upper, 4)}]")
        out.append(tr)
    out.append(f"[bold]In words[/]: {escape(c.sentence())}")
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
        typer.Option("--tolerance", metavar="T", help="Δ at or below T counts as 0 in the verdict, 0 <= T < 0.5 (default 1e-9); a verdict reached within T says so."),
    ] = None,
    accuracy: Annotated[
        Optional[float],
        typer.Option("--accuracy", metavar="W", help="Certified width wanted for each Δ (with --hyperprior: each Δ^Ψ) of numeric (composed) mechanisms, 0 < W < 1 (default: max(1e-3·Δ, 1e-6); with --hyperprior the default grids); the grid is refined to reach it."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Compare A and B: Δ(A‖B), Δ(B‖A), symmetric Δ, Blackwell verdict and crossing priors."""
    from ...comparison import compare

    ma, mb = parse(a), parse(b)
    h = parse_hyperprior(hyperprior) if hyperprior is not None else None
    kwargs: dict[str, Any] = {"hyperprior": h}
    if tolerance is not None:
        if not 0.0 <= tolerance < MAX_TOLERANCE:  # NaN fails too
            raise ValueError(f"--tolerance must be in [0, {MAX_TOLERANCE:g}) (Δ lies in [0, ½]), got {tolerance:g}")
        kwargs["tol"] = tolerance
    if accuracy is not None:
        if not 0.0 < accuracy < 1.0:  # NaN fails too
            raise ValueError(f"--accuracy must be in (0, 1) (an absolute width of Δ's bracket), got {accuracy:g}")
        kwargs["accuracy"] = accuracy
    result = compare(ma, mb, **kwargs)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_parts(_compare_tables(result))


