"""The ``plotting`` command(s) of the dpcompare CLI."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import enum
import math
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape


from ..files import output_path, write_output
from ..spec import parse, parse_hyperprior
from ..render import emit_json
from .app import _console, app

# ---------------------------------------------------------------------------------------------- plot, report
class PlotKind(str, enum.Enum):
    """The figures of ``dpcompare plot`` (the keys of :data:`dpcompare.io.plot.KINDS`)."""

    BAYES = "bayes"  # Bayes error functions with the Δ rulers ([BCP] Fig 3)
    DIFFERENCE = "difference"  # R_A − R_B with ±Δ and the crossings
    TRADEOFF = "tradeoff"  # trade-off functions with the κ-shift ([BCP] Def 1, Fig 2)
    PROFILE = "profile"  # privacy profiles on a log δ axis ([BCP] Fig 1)
    ROC = "roc"  # ROC with the AUC shaded ([SI] Fig 3); --log for log-log axes
    WEIGHTED = "weighted"  # hyper-prior weighted Bayes errors with the density inset ([BCP] Fig 4)
    HEATMAP = "heatmap"  # pairwise Δ(X‖Y) of k mechanisms (readable where k curves are not)


@app.command("plot")
def plot_cmd(
    kind: Annotated[PlotKind, typer.Argument(metavar="KIND", help="bayes | difference | tradeoff | profile | roc | weighted | heatmap.", show_default=False)],
    specs: Annotated[list[str], typer.Argument(metavar="SPEC", help="One or more mechanism specs; the first is A, the reference of the Δ rulers.", show_default=False)],
    output: Annotated[str, typer.Option("-o", "--output", metavar="FILE", help="Output file: .png, .svg or .pdf.", show_default=False)],
    hyperprior: Annotated[Optional[str], typer.Option("--hyperprior", metavar="PRIOR", help="weighted: jeffreys (default) | uquadratic | beta(a,b).")] = None,
    log: Annotated[bool, typer.Option("--log", help="roc: log-log axes with the TPR at FPR 1e-3 and 1e-2 marked.")] = False,
    label: Annotated[Optional[list[str]], typer.Option("--label", metavar="TEXT", help="Legend name of each mechanism, in order (repeat the option).")] = None,
    dpi: Annotated[Optional[float], typer.Option("--dpi", metavar="N", help="Resolution of a .png (default 150).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Draw one figure of the mechanisms and write it to FILE (written whole or not at all)."""
    from .. import plot as P

    path, fmt = output_path(output, ("png", "svg", "pdf"))
    if hyperprior is not None and kind is not PlotKind.WEIGHTED:
        raise ValueError(f"--hyperprior applies to 'plot weighted' only, not to 'plot {kind.value}'")
    if log and kind is not PlotKind.ROC:
        raise ValueError(f"--log applies to 'plot roc' only, not to 'plot {kind.value}'")
    if dpi is not None and not (math.isfinite(dpi) and 10 <= dpi <= 1200):
        raise ValueError(f"--dpi must be in [10, 1200], got {dpi:g}")
    mechs = [parse(s) for s in specs]
    if kind in (PlotKind.DIFFERENCE, PlotKind.WEIGHTED, PlotKind.HEATMAP) and len(mechs) < 2:
        raise ValueError(f"'plot {kind.value}' compares mechanisms: give at least two specs, got {len(mechs)}")
    if label is not None and len(label) != len(mechs):
        raise ValueError(f"--label must be given once per mechanism ({len(mechs)}), got {len(label)}")
    options: dict[str, Any] = {"labels": label}
    if kind is PlotKind.ROC:
        options["log"] = log
    if kind is PlotKind.WEIGHTED and hyperprior is not None:
        options["hyperprior"] = parse_hyperprior(hyperprior)
    fig = P.figure(kind.value, mechs, **options)
    data = P.render(fig, fmt, dpi=dpi)
    write_output(path, data)
    if as_json:
        emit_json({"output": path, "kind": kind.value, "format": fmt, "bytes": len(data),
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
    from ..report import DEFAULT_DELTAS, DEFAULT_FPRS, DEFAULT_HYPERPRIORS, build_report

    path, _ = output_path(output, ("html", "htm"))
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
    from ..privacy_card import ran_section  # training runs on non-Poisson batches: what ran vs the Poisson report
    from ..ran_section import ran_html

    ran = [r for r in (ran_section(m) for m in mechs) if r is not None]
    page = rep.html
    if ran:
        page = page.replace("</body></html>", "".join(ran_html(r) for r in ran) + "</body></html>", 1)
    data = page.encode("utf-8")
    write_output(path, data)
    if as_json:
        emit_json({"output": path, "bytes": len(data), **rep.to_dict(),
                    **({"ran_vs_reported": [r.to_dict() for r in ran]} if ran else {})})
        return
    con = _console()
    con.print(f"[bold]Verdict[/]: {escape(rep.verdict)}")
    nf = len(rep.figures)
    con.print(f"wrote {escape(path)} ({nf} figure{'s' if nf != 1 else ''}, {len(data) / 1024:.0f} KiB, {rep.seconds:.1f} s)")


