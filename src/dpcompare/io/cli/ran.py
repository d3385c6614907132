"""``dpcompare ran RUN``: the certified guarantee of the batching that ran beside the Poisson number usually
reported for it, with a verdict in words (:mod:`dpcompare.dpsgd.ran`)."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..render import emit_json, num
from .app import _console, app


def _pair(b) -> str:
    lo, hi = b
    return num(hi) if lo == hi else f"[{num(lo)}, {num(hi)}]"


def ran_table(r) -> Table:
    """The side-by-side table (the privacy card prints the same rows)."""
    t = Table(title=escape("what you ran / what you reported (certified [lower, upper])"), title_justify="left")
    t.add_column("view")
    t.add_column(escape(r.ran.label), justify="right")
    t.add_column(escape(r.reported.label), justify="right")
    for k, a, b in r.rows():
        t.add_row(escape(k), escape(a), escape(b))
    return t


def print_ran(r) -> None:
    con = _console()
    con.print(ran_table(r))
    con.print(f"verdict: {escape(r.verdict)}")
    for n in r.notes:
        con.print(f"note: {escape(n)}")


@app.command("ran")
def ran_cmd(
    run: Annotated[str, typer.Argument(metavar="RUN", help="e.g. 'sgm(noise_multiplier=1.1, batch_size=256, "
                                       "dataset_size=60000, epochs=10, sampling=shuffle)'.", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to report ε.")] = 1e-5,
    fpr: Annotated[float, typer.Option("--fpr", metavar="A", help="false-positive rate of the TPR row.")] = 1e-3,
    plot_out: Annotated[Optional[str], typer.Option("--plot", metavar="FILE", help="Also draw the ROC curves of both "
                                                    "(.png, .svg or .pdf).")] = None,
    html_out: Annotated[Optional[str], typer.Option("--html", metavar="FILE", help="Also write the comparison as one "
                                                    "HTML report.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """What you ran vs what you reported: the certified guarantee of RUN's batching (sampling=shuffle,
    balls_in_bins, fixed, poisson) beside the Poisson number usually reported, and a verdict."""
    from ...dpsgd.ran import ran_versus_reported
    from ..files import output_path, write_output
    from ..ran_section import ran_figure, ran_html
    from ..spec_training import parse_training

    if plot_out is not None:
        _, fmt = output_path(plot_out, ("png", "svg", "pdf"))
    if html_out is not None:
        output_path(html_out, ("html",))
    r = ran_versus_reported(parse_training(run), delta=delta, fpr=fpr)  # everything computed before anything is printed
    if plot_out is not None:
        from .. import plot

        write_output(plot_out, plot.render(ran_figure(r), fmt))
    if html_out is not None:
        import html

        from ..privacy_card import _CSS

        page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>What you ran / what you "
                f"reported</title><style>{_CSS}</style></head><body><h1>{html.escape(r.ran.spec)}</h1>{ran_html(r)}</body></html>\n")
        write_output(html_out, page.encode("utf-8"))
    if as_json:
        emit_json({**r.to_dict(), **({"plot": plot_out} if plot_out else {}), **({"html": html_out} if html_out else {})})
        return
    print_ran(r)
    for path in (plot_out, html_out):
        if path is not None:
            _console().print(f"wrote {escape(path)}")
