"""The ``dpsgd`` command(s) of the dpcompare CLI."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table


from ..files import output_path
from .app import _console, _emit_json, _num, app

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
    from ...dpsgd.calibrate import sigma_for_epsilon, steps_for_sigma

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

    from ...dpsgd.sweep import load_grid, pareto_efficient, read_results, run_sweep

    cfg = load_grid(grid)
    path, _ = output_path(output, ("csv", "parquet"))
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


