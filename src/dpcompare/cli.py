"""The ``dpcompare`` command (DESIGN.md §3).

- ``dpcompare compare A B [--hyperprior jeffreys|uquadratic|beta(a,b)] [--tolerance T] [--json]``
- ``dpcompare describe A [--delta 1e-5] [--json]``
- ``dpcompare gaussian (--psi X | --sigma S [--sensitivity D] | --mu M | --auc A | --epsilon E) [--delta D] [--json]``
- ``dpcompare plot KIND SPEC… -o FILE.(png|svg|pdf)`` and ``dpcompare report SPEC… -o FILE.html``: the output
  file is computed in memory first and then written whole (temporary file in the same directory + rename).

Conventions every command follows:

1. All computation happens before anything is printed, so a failure leaves stdout empty.
2. ``--json`` writes exactly one JSON object to stdout (non-finite numbers become ``null``), and
   nothing else; human output is a rich table.
3. A user error — a bad spec, a bad parameter, any ``ValueError`` from the library, or a usage
   error of the command line itself — prints one line ``error: …`` to stderr and exits with 2,
   never a traceback. Anything else is a bug: one line, exit 1, and the traceback only when the
   environment variable ``DPCOMPARE_DEBUG`` is set.
"""

from __future__ import annotations

import enum
import importlib
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any, Optional

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .spec import MECHANISMS, parse, parse_hyperprior

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1

_SPEC_HELP = "Mechanism specs: " + "; ".join(e.usage() for e in MECHANISMS.entries()) + "."

app = typer.Typer(
    name="dpcompare",
    help=(
        "Compare differential-privacy mechanisms beyond a single (epsilon, delta) pair: Bayes error "
        "functions, Blackwell dominance and the certified Delta-divergence. " + _SPEC_HELP
    ),
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        from . import __version__

        print(f"dpcompare {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Compare differential-privacy mechanisms beyond a single (epsilon, delta) pair."""


# ---------------------------------------------------------------------------------------------- output
def _jsonable(x: Any) -> Any:
    """Plain JSON types; NaN and ±inf become None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return str(x)


def _emit_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(_jsonable(obj), allow_nan=False) + "\n")
    sys.stdout.flush()


def _console() -> Console:
    # created per call so it writes to the current sys.stdout (tests capture it)
    return Console(file=sys.stdout, highlight=False)


def _num(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    f = float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "∞" if f > 0 else "-∞"
    return f"{f:.{digits}g}"


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
    from .compare import compare

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


# ---------------------------------------------------------------------------------------------- describe
_DESCRIBE_ROWS = (
    ("epsilon", "ε at δ = {delta}", "smallest ε with δ(ε) ≤ δ (∞: none)"),
    ("advantage", "advantage (TV)", "best attack's TPR − FPR = δ(0)"),
    ("fixed_point", "fixed point α*", "best attack's FPR = FNR: f(α*) = α*"),
    ("minimax_bayes_error", "minimax Bayes error R*", "best attack's error at prior π = ½"),
    ("auc", "AUC", "area under the best attack's ROC curve"),
    ("gdp_mu", "GDP μ", "tightest μ-GDP bound (-: none known)"),
)
_DESCRIBE_HIDDEN = {"mechanism", "delta", "exact"}


def _describe_table(d: dict[str, Any]) -> Table:
    exact = d.get("exact")
    note = "exact" if exact else "numeric: the pessimistic side of a certified bracket"
    t = Table(title=f"{escape(str(d.get('mechanism', '')))}  ({note})", title_justify="left")
    t.add_column("view")
    t.add_column("value", justify="right")
    t.add_column("meaning")
    shown = set(_DESCRIBE_HIDDEN)
    for key, label, meaning in _DESCRIBE_ROWS:
        if key not in d:
            continue
        shown.add(key)
        value = d[key]
        text = "∞" if key == "epsilon" and value is None else _num(value)
        t.add_row(label.format(delta=_num(d.get("delta"), 3)), text, meaning)
    for key, value in d.items():  # views added later show up without a change here
        if key not in shown and not isinstance(value, (dict, list)):
            t.add_row(key.replace("_", " "), _num(value) if isinstance(value, (int, float)) else escape(str(value)), "")
    return t


@app.command("describe")
def describe_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec, e.g. 'gaussian(mu=1)'.", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to report ε.")] = 1e-5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """The scalar views of A: ε at δ, advantage, fixed point, minimax Bayes error, AUC, GDP μ."""
    mech = parse(a)
    result = mech.describe(delta)
    if as_json:
        _emit_json(result)
        return
    _console().print(_describe_table(result))


# ---------------------------------------------------------------------------------------------- gaussian
_GAUSSIAN_SOURCE = {
    "psi": "given ψ",
    "sigma": "ψ = sensitivity/σ",
    "mu": "ψ = μ (Lemma 6)",
    "auc": "ψ = √2·Φ⁻¹(AUC) (eq 4.9)",
    "epsilon": "largest ψ with δ(ε; ψ) ≤ δ (Cor 14, analytic Gaussian mechanism)",
}


def _parse_orders(text: str) -> list[float]:
    """``"2,4,8"`` → [2.0, 4.0, 8.0]; every order must be a finite number > 1."""
    out: list[float] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            a = float(part)
        except ValueError:
            raise ValueError(f"--orders must be a comma-separated list of numbers > 1, got {part!r}") from None
        if not (math.isfinite(a) and a > 1):
            raise ValueError(f"--orders must be Rényi orders > 1, got {part}")
        out.append(a)
    if not out:
        raise ValueError("--orders must list at least one Rényi order > 1")
    return out


def _gaussian_tables(d: dict[str, Any]) -> list[Any]:
    delta = _num(d["delta"], 3)
    head = f"[bold]Gaussian mechanism[/], ψ = {_num(d['psi'], 8)}: {escape(_GAUSSIAN_SOURCE[d['source']])}"
    if d.get("epsilon_target") is not None:
        head += f"; target (ε, δ) = ({_num(d['epsilon_target'])}, {delta})"

    m = Table(title="the mechanism (seed 001)", title_justify="left")
    m.add_column("view")
    m.add_column("value", justify="right")
    m.add_column("meaning")
    m.add_row("ψ = Δ/σ", _num(d["psi"], 8), "sensitivity index (Def 6)")
    m.add_row(f"σ at Δ = {_num(d['sensitivity'])}", _num(d["sigma"], 8), "noise standard deviation")
    m.add_row("μ-GDP", _num(d["mu"], 8), "tightest GDP μ = ψ (Lemma 6)")
    m.add_row("AUC", _num(d["auc"], 8), "best attack's ROC area Φ(ψ/√2)")
    m.add_row("advantage", _num(d["advantage"], 8), "max TPR − FPR = 2Φ(ψ/2) − 1")
    m.add_row("fixed point α*", _num(d["fixed_point"], 8), "FPR = FNR of the best attack")
    m.add_row("minimax Bayes error R*", _num(d["minimax_bayes_error"], 8), "best attack's error at prior ½")

    e = Table(title=f"ε at δ = {delta}", title_justify="left")
    e.add_column("conversion")
    e.add_column("ε", justify="right")
    e.add_column("best α", justify="right")
    e.add_column("note")
    e.add_row("privacy profile (eq 6.7)", _num(d["epsilon"], 8), "", "exact: the smallest valid ε")
    for key, label in (
        ("epsilon_rdp_asoodeh", "RDP improved A (Cor 12)"),
        ("epsilon_rdp_balle", "RDP improved B (Cor 13)"),
        ("epsilon_rdp", "RDP standard (Cor 11)"),
    ):
        e.add_row(label, _num(d[key], 8), _num(d[key + "_order"], 5), f"valid, α ∈ (1, {_num(d['alpha_max'])}]")
    if d["epsilon_classical_valid"]:
        note = "valid (ε < 1)"
    else:
        note = "unproven (ε ≥ 1), " + ("holds here" if d["epsilon_classical_holds"] else "FAILS here")
    e.add_row("classical (eq 3.5)", _num(d["epsilon_classical"], 8), "", note)

    r = Table(title="RDP (Lemma 7)", title_justify="left")
    r.add_column("order α", justify="right")
    r.add_column("ρ(α) = αψ²/2", justify="right")
    for row in d["rdp"]:
        r.add_row(_num(row["alpha"], 6), _num(row["rho"], 8))
    return [head, m, e, r]


@app.command("gaussian")
def gaussian_cmd(
    psi: Annotated[Optional[float], typer.Option("--psi", metavar="X", help="Sensitivity index ψ = Δ/σ.")] = None,
    sigma: Annotated[Optional[float], typer.Option("--sigma", metavar="S", help="Noise standard deviation σ (with --sensitivity).")] = None,
    sensitivity: Annotated[
        Optional[float], typer.Option("--sensitivity", metavar="D", help="L2 sensitivity Δ (default 1); σ = Δ/ψ is shown for it.")
    ] = None,
    mu: Annotated[Optional[float], typer.Option("--mu", metavar="M", help="μ of μ-GDP (ψ = μ).")] = None,
    auc: Annotated[Optional[float], typer.Option("--auc", metavar="A", help="AUC of the best attack's ROC curve, in (0.5, 1).")] = None,
    epsilon: Annotated[
        Optional[float], typer.Option("--epsilon", metavar="E", help="Target ε (with --delta): the largest ψ that meets (ε, δ).")
    ] = None,
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which ε is reported (and the target δ with --epsilon).")] = 1e-5,
    orders: Annotated[
        str, typer.Option("--orders", metavar="A1,A2,…", help="Rényi orders at which to show ρ(α) = αψ²/2.")
    ] = "1.5,2,4,8,16,32,64",
    alpha_max: Annotated[
        float, typer.Option("--alpha-max", metavar="A", help="RDP conversions optimise α over (1, A].")
    ] = 64.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Every equivalent view of a Gaussian mechanism from one of --psi, --sigma [--sensitivity], --mu,
    --auc or --epsilon [--delta]: ψ, σ, μ-GDP, ε at δ by the privacy profile and by each RDP conversion
    (with its best order), RDP at chosen orders, AUC, advantage, fixed point α* and minimax Bayes error R*."""
    from .gaussian import Source, resolve_psi, views

    if sensitivity is not None and not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"--sensitivity must be a finite number > 0, got {sensitivity:g}")
    if not (math.isfinite(delta) and 0 < delta < 1):
        raise ValueError(f"--delta must be in (0, 1), got {delta:g}" + (
            ": every mechanism is (0, 1)-DP, so δ >= 1 says nothing" if delta >= 1 else
            ": the Gaussian mechanism is not (ε, 0)-DP for any finite ε" if delta <= 0 else ""))
    if not (math.isfinite(alpha_max) and alpha_max > 1):
        raise ValueError(f"--alpha-max must be a finite number > 1, got {alpha_max:g}")
    order_list = _parse_orders(orders)
    p, source = resolve_psi(psi=psi, sigma=sigma, sensitivity=sensitivity, mu=mu, auc=auc, epsilon=epsilon,
                            delta=delta, prefix="--")
    v = views(p, delta=delta, sensitivity=1.0 if sensitivity is None else sensitivity, orders=order_list,
              alpha_max=alpha_max, source=source, epsilon_target=epsilon if source is Source.EPSILON else None)
    result = v.to_dict()
    if as_json:
        _emit_json(result)
        return
    con = _console()
    for i, part in enumerate(_gaussian_tables(result)):
        if i:
            con.print()
        con.print(part)


# ---------------------------------------------------------------------------------------------- plot, report
class PlotKind(str, enum.Enum):
    """The figures of ``dpcompare plot`` (dpcompare.plot)."""

    BAYES = "bayes"  # Bayes error functions with the Δ rulers (seed 000 Fig 3)
    DIFFERENCE = "difference"  # R_A − R_B with ±Δ and the crossings
    TRADEOFF = "tradeoff"  # trade-off functions with the κ-shift (seed 000 Def 1, Fig 2)
    PROFILE = "profile"  # privacy profiles on a log δ axis (seed 000 Fig 1)
    ROC = "roc"  # ROC with the AUC shaded (seed 001 Fig 3); --log for log-log axes
    WEIGHTED = "weighted"  # hyper-prior weighted Bayes errors with the density inset (seed 000 Fig 4)


def _output_path(path: str, formats: tuple[str, ...]) -> tuple[str, str]:
    """(path, format) after checking what can be checked before computing: the suffix names one of
    ``formats``, the directory exists and the path is not a directory."""
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in formats:
        allowed = ", ".join("." + f for f in formats)
        raise ValueError(f"-o must end in {allowed}, got {path!r}")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"-o {path!r}: directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"-o {path!r} is a directory")
    return path, suffix


def _write_output(path: str, data: bytes) -> None:
    from .plot import atomic_write

    try:
        atomic_write(path, data)
    except OSError as exc:  # permissions, full disk: the user's to fix; nothing partial is left
        raise ValueError(f"cannot write {path!r}: {exc.strerror or exc}") from None


@app.command("plot")
def plot_cmd(
    kind: Annotated[PlotKind, typer.Argument(metavar="KIND", help="bayes | difference | tradeoff | profile | roc | weighted.", show_default=False)],
    specs: Annotated[list[str], typer.Argument(metavar="SPEC", help="One or more mechanism specs; the first is A, the reference of the Δ rulers.", show_default=False)],
    output: Annotated[str, typer.Option("-o", "--output", metavar="FILE", help="Output file: .png, .svg or .pdf.", show_default=False)],
    hyperprior: Annotated[Optional[str], typer.Option("--hyperprior", metavar="PRIOR", help="weighted: jeffreys (default) | uquadratic | beta(a,b).")] = None,
    log: Annotated[bool, typer.Option("--log", help="roc: log-log axes with the TPR at FPR 1e-3 and 1e-2 marked.")] = False,
    label: Annotated[Optional[list[str]], typer.Option("--label", metavar="TEXT", help="Legend name of each mechanism, in order (repeat the option).")] = None,
    dpi: Annotated[Optional[float], typer.Option("--dpi", metavar="N", help="Resolution of a .png (default 150).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Draw one figure of the mechanisms and write it to FILE (written whole or not at all)."""
    from . import plot as P

    path, fmt = _output_path(output, ("png", "svg", "pdf"))
    if hyperprior is not None and kind is not PlotKind.WEIGHTED:
        raise ValueError(f"--hyperprior applies to 'plot weighted' only, not to 'plot {kind.value}'")
    if log and kind is not PlotKind.ROC:
        raise ValueError(f"--log applies to 'plot roc' only, not to 'plot {kind.value}'")
    if dpi is not None and not (math.isfinite(dpi) and 10 <= dpi <= 1200):
        raise ValueError(f"--dpi must be in [10, 1200], got {dpi:g}")
    mechs = [parse(s) for s in specs]
    if kind in (PlotKind.DIFFERENCE, PlotKind.WEIGHTED) and len(mechs) < 2:
        raise ValueError(f"'plot {kind.value}' compares mechanisms: give at least two specs, got {len(mechs)}")
    if label is not None and len(label) != len(mechs):
        raise ValueError(f"--label must be given once per mechanism ({len(mechs)}), got {len(label)}")
    draw = {
        PlotKind.BAYES: lambda: P.bayes_error(mechs, labels=label),
        PlotKind.DIFFERENCE: lambda: P.bayes_error_difference(mechs, labels=label),
        PlotKind.TRADEOFF: lambda: P.tradeoff(mechs, labels=label),
        PlotKind.PROFILE: lambda: P.privacy_profile(mechs, labels=label),
        PlotKind.ROC: lambda: P.roc(mechs, labels=label, log=log),
        PlotKind.WEIGHTED: lambda: P.weighted_bayes_error(
            mechs, parse_hyperprior(hyperprior) if hyperprior is not None else "jeffreys", labels=label),
    }[kind]
    data = P.render(draw(), fmt, dpi=dpi)
    _write_output(path, data)
    if as_json:
        _emit_json({"output": path, "kind": kind.value, "format": fmt, "bytes": len(data),
                    "mechanisms": [m.spec for m in mechs]})
        return
    _console().print(f"wrote {escape(path)} ({kind.value}, {len(mechs)} mechanism{'s' if len(mechs) != 1 else ''}, {len(data) / 1024:.0f} KiB)")


@app.command("report")
def report_cmd(
    specs: Annotated[list[str], typer.Argument(metavar="SPEC", help="Two or more mechanism specs: A B [C …].", show_default=False)],
    output: Annotated[str, typer.Option("-o", "--output", metavar="FILE", help="Output file: .html (one self-contained file).", show_default=False)],
    delta: Annotated[Optional[list[float]], typer.Option("--delta", metavar="D", help="δ at which ε is reported (repeat; default 1e-5 and 1e-6).")] = None,
    fpr: Annotated[Optional[list[float]], typer.Option("--fpr", metavar="X", help="FPR at which the TPR is reported (repeat; default 1e-3 and 1e-2).")] = None,
    hyperprior: Annotated[Optional[list[str]], typer.Option("--hyperprior", metavar="PRIOR", help="Hyper-priors of the weighted figures (repeat; default jeffreys and uquadratic).")] = None,
    title: Annotated[Optional[str], typer.Option("--title", metavar="TEXT", help="Title of the report.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Write one self-contained HTML report comparing A, B, …: the verdict in one sentence, the views of
    each mechanism, every Δ, the figures (inline SVG) and how the numbers were computed."""
    from .report import DEFAULT_DELTAS, DEFAULT_FPRS, DEFAULT_HYPERPRIORS, build_report

    path, _ = _output_path(output, ("html", "htm"))
    if len(specs) < 2:
        raise ValueError(f"report compares mechanisms: give at least two specs, got {len(specs)}")
    mechs = [parse(s) for s in specs]
    priors = [parse_hyperprior(h) for h in hyperprior] if hyperprior else list(DEFAULT_HYPERPRIORS)
    deltas = list(delta) if delta else list(DEFAULT_DELTAS)
    fprs = list(fpr) if fpr else list(DEFAULT_FPRS)
    for name, values in (("--delta", deltas), ("--fpr", fprs)):
        for v in values:
            if not (math.isfinite(v) and 0 < v < 1):
                raise ValueError(f"{name} must be in (0, 1), got {v:g}")
    command = ["report", *specs, "-o", output]
    for d in delta or ():
        command += ["--delta", f"{d:g}"]
    for x in fpr or ():
        command += ["--fpr", f"{x:g}"]
    for h in hyperprior or ():
        command += ["--hyperprior", h]
    if title is not None:
        command += ["--title", title]
    rep = build_report(mechs, deltas=deltas, fprs=fprs, hyperpriors=priors, title=title, command=command)
    data = rep.html.encode("utf-8")
    _write_output(path, data)
    if as_json:
        _emit_json({"output": path, "bytes": len(data), **rep.to_dict()})
        return
    con = _console()
    con.print(f"[bold]Verdict[/]: {escape(rep.verdict)}")
    con.print(f"wrote {escape(path)} ({len(rep.figures)} figures, {len(data) / 1024:.0f} KiB, {rep.seconds:.1f} s)")


# ---------------------------------------------------------------------------------------------- calibrate (issue 5)
@app.command("calibrate")
def calibrate_cmd(
    epsilon: Annotated[float, typer.Option("--epsilon", metavar="E", help="Target ε (> 0).", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="Target δ in (0, 1).", show_default=False)],
    sampling_rate: Annotated[float, typer.Option("--sampling-rate", metavar="P", help="Poisson sampling rate p in (0, 1].", show_default=False)],
    steps: Annotated[Optional[float], typer.Option("--steps", metavar="N", help="Number of DP-SGD steps (1.4e6 accepted): find σ.", show_default=False)] = None,
    sigma: Annotated[Optional[float], typer.Option("--sigma", metavar="S", help="Noise multiplier: find the most steps instead (give --steps or --sigma).", show_default=False)] = None,
    tol: Annotated[float, typer.Option("--tol", metavar="T", help="Tolerance: target − T ≤ ε ≤ target (with --steps).")] = 1e-3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Noise multiplier σ of DP-SGD (Poisson-subsampled Gaussian, N steps) for a target (ε, δ), with the
    certified ε it achieves: never above the target, at most --tol below it. With --sigma instead of
    --steps: the largest number of steps whose certified ε is at most the target."""
    from .dpsgd.calibrate import sigma_for_epsilon, steps_for_sigma

    if (steps is None) == (sigma is None):
        raise ValueError("give exactly one of --steps (to find sigma) or --sigma (to find the number of steps)")
    if sigma is not None:
        r = steps_for_sigma(sigma, epsilon, delta, sampling_rate)
        d = r.to_dict()
        d["spec"] = r.spec
        rows = (("steps", "steps N (largest)"), ("epsilon", "achieved ε (≤ target)"), ("target_epsilon", "target ε"),
                ("delta", "δ"), ("sampling_rate", "sampling rate p"), ("sigma", "noise multiplier σ"),
                ("evaluations", "accountant calls"))
    else:
        c = sigma_for_epsilon(epsilon, delta, sampling_rate, steps, tol=tol)
        d = c.to_dict()
        d["spec"] = c.spec
        rows = (("sigma", "noise multiplier σ"), ("epsilon", "achieved ε (≤ target)"), ("target_epsilon", "target ε"),
                ("delta", "δ"), ("sampling_rate", "sampling rate p"), ("steps", "steps N"),
                ("tolerance", "tolerance"), ("discretization", "grid spacing"), ("evaluations", "accountant calls"))
    if as_json:
        _emit_json(d)
        return
    t = Table(title="DP-SGD calibration (certified ε, PLD accounting)", title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    for key, label in rows:
        t.add_row(label, _num(d[key], 10 if key in ("sigma", "epsilon") else 6))
    _console().print(t)
    _console().print(f"spec: {escape(d['spec'])}")


@app.command("sweep")
def sweep_cmd(
    grid: Annotated[str, typer.Argument(metavar="GRID.toml", help="Grid file (see dpcompare.dpsgd.sweep).", show_default=False)],
    output: Annotated[str, typer.Option("-o", "--output", metavar="RESULTS.csv|.parquet", help="Results file, CSV or Parquet (appended; resumed if it exists).", show_default=False)],
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", metavar="tcp://HOST:PORT", help="Run on a Dask distributed cluster (pip install 'dpcompare[distributed]').")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="K", help="Local worker processes (default: all cores).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON summary on stdout and nothing else.")] = False,
) -> None:
    """Sweep DP-SGD configurations calibrated to one (ε, δ): Δ from a baseline in both directions and risk
    metrics per point, streamed to a CSV or Parquet file as each point finishes (an interrupted sweep resumes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from .dpsgd.sweep import load_grid, pareto_efficient, read_results, run_sweep

    cfg = load_grid(grid)
    path, _ = _output_path(output, ("csv", "parquet"))
    if scheduler is not None and not scheduler.startswith(("tcp://", "tls://", "inproc://", "ws://", "wss://")):
        raise ValueError(f"--scheduler must look like tcp://HOST:PORT, got {scheduler!r}")
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    notes: list[str] = []
    err = Console(file=sys.stderr, highlight=False)
    progress = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("left"), TimeRemainingColumn(), console=err, transient=True, disable=as_json)
    with progress:
        task = progress.add_task("sweep", total=len(cfg.points()))

        def on_row(row: dict[str, Any], done: int, total: int) -> None:
            progress.update(task, completed=done)

        summary = run_sweep(cfg, path, scheduler=scheduler, workers=workers, on_row=on_row, notes=notes)
    rows = read_results(path)
    summary["pareto_efficient"] = pareto_efficient(rows)
    summary["max_delta_base_to_point"] = max((float(r["delta_base_to_point"]) for r in rows), default=None)
    summary["notes"] = notes
    if as_json:
        _emit_json(summary)
        return
    con = _console()
    for n in notes:
        con.print(escape(n))
    con.print(f"wrote {escape(path)}: {summary['computed']} point(s) computed, {summary['skipped']} already done, "
              f"{summary['seconds']:.1f} s ({_num(summary['points_per_second'], 3)} points/s, {summary['backend']})")
    if summary["max_delta_base_to_point"] is not None:
        con.print(f"max Δ(baseline‖point) = {_num(summary['max_delta_base_to_point'], 4)}")
    if summary["pareto_efficient"]:
        con.print("Pareto-efficient (accuracy vs excess vulnerability): " + escape(", ".join(summary["pareto_efficient"])))


# ---------------------------------------------------------------------------------------------- entry point
def _error(message: str) -> None:
    line = " ".join(str(message).split()) or "unknown error"
    sys.stderr.write(f"error: {line}\n")
    sys.stderr.flush()


def _exception_classes(name: str) -> tuple[type[BaseException], ...]:
    """``name`` from typer's vendored click (typer ≥ 0.20) and from click itself (older typer)."""
    found: list[type[BaseException]] = []
    for modname in ("typer.exceptions", "typer._click.exceptions", "click.exceptions"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        cls = getattr(mod, name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException) and cls not in found:
            found.append(cls)
    return tuple(found)


_NO_ARGS = _exception_classes("NoArgsIsHelpError")
_USAGE = _exception_classes("UsageError")
_CLICK = _exception_classes("ClickException")
_ABORT = _exception_classes("Abort")
_EXIT = _exception_classes("Exit")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script passes it to ``sys.exit``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rv = app(args=args, prog_name="dpcompare", standalone_mode=False)
    except _NO_ARGS as exc:  # bare `dpcompare`: help on stderr, exit 2 as click does
        text = exc.format_message()  # type: ignore[attr-defined]
        if text:
            sys.stderr.write(text + "\n")
        return EXIT_USER_ERROR
    except _USAGE as exc:
        ctx = getattr(exc, "ctx", None)
        cmd = ctx.command_path if ctx is not None else "dpcompare"
        _error(f"{exc.format_message()} (see '{cmd} --help')")
        return EXIT_USER_ERROR
    except _CLICK as exc:
        _error(exc.format_message())  # type: ignore[attr-defined]
        return getattr(exc, "exit_code", 0) or EXIT_USER_ERROR
    except _ABORT:
        _error("aborted")
        return 130
    except _EXIT as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except ValueError as exc:
        _error(str(exc))
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `dpcompare … | head`: the reader left, nothing to report
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_INTERNAL_ERROR
    except Exception as exc:  # a bug, not a user error
        if os.environ.get("DPCOMPARE_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {exc}); set DPCOMPARE_DEBUG=1 for the traceback")
        return EXIT_INTERNAL_ERROR
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
