"""``dpcompare ran RUN``: the certified guarantee of the batching that ran beside the Poisson number usually
reported for it, with a verdict in words (:mod:`dpcompare.dpsgd.ran`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..render import emit_json, num
from .app import _console, app


def _pair(b) -> str:
    lo, hi = b
    return num(hi) if lo == hi else f"[{num(lo)}, {num(hi)}]"


def ran_table(r) -> Table:
    """The side-by-side table (also used by the report and the privacy card)."""
    t = Table(title=escape("what you ran / what you reported (certified [lower, upper])"), title_justify="left")
    t.add_column("view")
    t.add_column(escape(r.ran.label), justify="right")
    t.add_column(escape(r.reported.label), justify="right")
    t.add_row(f"ε at δ = {num(r.delta, 3)}", _pair(r.ran.epsilon), _pair(r.reported.epsilon))
    t.add_row("advantage (TV)", _pair(r.ran.advantage), _pair(r.reported.advantage))
    t.add_row(f"TPR at FPR = {num(r.fpr, 3)}", _pair(r.ran.tpr), _pair(r.reported.tpr))
    t.add_row("μ-GDP upper bound", num(r.ran.gdp_mu), num(r.reported.gdp_mu))
    t.add_row("adjacency", r.ran.adjacency, r.reported.adjacency)
    t.add_row("Δ(reported‖ran): run less private by", _pair(r.delta_reported_ran[:2]), "")
    t.add_row("Δ(ran‖reported): run more private by", _pair(r.delta_ran_reported[:2]), "")
    return t


@app.command("ran")
def ran_cmd(
    run: Annotated[str, typer.Argument(metavar="RUN", help="e.g. 'sgm(noise_multiplier=1.1, batch_size=256, "
                                       "dataset_size=60000, epochs=10, sampling=shuffle)'.", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to report ε.")] = 1e-5,
    fpr: Annotated[float, typer.Option("--fpr", metavar="A", help="false-positive rate of the TPR row.")] = 1e-3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """What you ran vs what you reported: the certified guarantee of RUN's batching (sampling=shuffle,
    balls_in_bins, fixed, poisson) beside the Poisson number usually reported, and a verdict."""
    from ...dpsgd.ran import ran_versus_reported

    r = ran_versus_reported(run, delta=delta, fpr=fpr)  # everything computed before anything is printed
    if as_json:
        emit_json(r.to_dict())
        return
    con = _console()
    con.print(ran_table(r))
    con.print()
    con.print(f"verdict: {escape(r.verdict)}")
    for n in r.notes:
        con.print(f"note: {escape(n)}")
