"""The ``dpsgd`` command(s) of the dpcompare CLI."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
import re
import sys
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table


from ..files import output_path
from ..render import emit_json, num
from .app import EXACT_FLOAT, _console, app

# ---------------------------------------------------------------------------------------------- calibrate
class _BracketProgress:
    """Progress of a calibration on stderr: the certified σ (or N) bracket narrowing, shown only once the work
    has taken more than ``delay`` seconds and only on a terminal (a pipe or a test sees nothing)."""

    def __init__(self, what: str, *, enabled: bool, delay: float = 1.0) -> None:
        import time

        self.what, self.delay, self.t0 = what, delay, time.perf_counter()
        self.console = Console(file=sys.stderr, highlight=False)
        self.enabled = enabled and self.console.is_terminal
        self.status: Any = None
        self.calls = 0

    def __call__(self, feasible: float | None, infeasible: float | None) -> None:
        import time

        self.calls += 1
        if not self.enabled:
            return
        if self.status is None:
            if time.perf_counter() - self.t0 < self.delay:
                return
            self.status = self.console.status("", spinner="dots")
            self.status.start()
        known = [float(x) for x in (feasible, infeasible) if x is not None]
        lo, hi = (min(known), max(known)) if len(known) == 2 else (None, None)
        bracket = f"in [{num(lo, 8)}, {num(hi, 8)}]" if lo is not None else "not bracketed yet"
        text = (f"calibrating {self.what}: boundary {bracket}; certified so far: "
                f"{num(feasible, 8) if feasible is not None else 'none'} ({self.calls} accountant calls, "
                f"{time.perf_counter() - self.t0:.0f} s)")
        self.status.update(escape(text))

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def _pair(option: str, text: str, names: tuple[str, str]) -> tuple[str, float]:
    """'A,B' → (A, float(B)) splitting at the last comma (A may itself contain commas, e.g. a spec)."""
    head, sep, tail = text.rpartition(",")
    if not sep or not head.strip() or not tail.strip():
        raise ValueError(f"{option} expects {names[0]},{names[1]}, got {text!r}")
    try:
        value = float(tail)
    except ValueError:
        raise ValueError(f"{option}: {names[1]} must be a number, got {tail.strip()!r}") from None
    return head.strip(), value


def _number(option: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{option} must be a number, got {text!r}") from None


def _rate_and_steps(sampling_rate: float | None, batch_size: float | None, dataset_size: float | None,
                    steps: float | None, epochs: float | None, sampling: str) -> tuple[float, float | None]:
    """(p, N or None) from the trainer's words, with the spec language's rules (``dpcompare.TrainingConfig``:
    p = batch_size/dataset_size, steps = ⌈epochs/p⌉ in exact rational arithmetic); errors name the options."""
    from ...dpsgd.training import TrainingConfig

    mode = sampling.strip().lower()
    if mode != "poisson":
        allowed = "poisson, fixed, shuffle"
        if mode not in ("fixed", "shuffle"):
            raise ValueError(f"--sampling must be one of {allowed}, got {sampling!r}")
        raise ValueError(f"--sampling {mode}: calibrate certifies Poisson sampling only; give the run to 'dpcompare "
                         f"describe \"sgm(noise_multiplier=…, batch_size=…, dataset_size=…, epochs=…, sampling={mode})\"' "
                         "to read its certified ε at a noise multiplier")
    if (batch_size is None) != (dataset_size is None):
        raise ValueError("--batch-size and --dataset-size go together (p = batch size / dataset size)")
    if batch_size is not None and sampling_rate is not None:
        raise ValueError("give the sampling rate once: --sampling-rate, or --batch-size with --dataset-size")
    if batch_size is None and sampling_rate is None:
        raise ValueError("give the sampling rate: --sampling-rate P, or --batch-size B with --dataset-size N")
    if epochs is not None and steps is not None:
        raise ValueError("give the training length once: --steps or --epochs")

    def config(**kw: Any) -> TrainingConfig:
        rate = {"batch_size": batch_size, "dataset_size": dataset_size} if batch_size is not None else \
            {"sampling_rate": sampling_rate}
        try:
            return TrainingConfig(1.0, **rate, **kw)
        except ValueError as exc:
            msg = str(exc)
            for key in ("batch_size", "dataset_size", "sampling_rate", "epochs"):
                msg = re.sub(rf"\b{key}\b", "--" + key.replace("_", "-"), msg)
            raise ValueError(msg) from None

    if epochs is not None:
        c = config(epochs=epochs)
        return c.sampling_rate, float(c.steps)
    if batch_size is not None:
        return config(steps=1).sampling_rate, steps
    return float(sampling_rate), steps  # type: ignore[arg-type]


@app.command("calibrate")
def calibrate_cmd(
    sampling_rate: Annotated[Optional[float], typer.Option("--sampling-rate", metavar="P", help="Poisson sampling rate p in (0, 1] (or --batch-size with --dataset-size).", show_default=False)] = None,
    batch_size: Annotated[Optional[float], typer.Option("--batch-size", metavar="B", help="Expected batch size: p = B/N with --dataset-size N (the spec language's batch_size).", show_default=False)] = None,
    dataset_size: Annotated[Optional[float], typer.Option("--dataset-size", metavar="N", help="Number of training examples (with --batch-size).", show_default=False)] = None,
    epochs: Annotated[Optional[float], typer.Option("--epochs", metavar="E", help="Training length in epochs: steps = ⌈E/p⌉ (instead of --steps).", show_default=False)] = None,
    sampling: Annotated[str, typer.Option("--sampling", metavar="MODE", help="Batch sampling: poisson (the only mode calibrate certifies; describe fixed and shuffle runs with 'dpcompare describe').")] = "poisson",
    epsilon: Annotated[Optional[float], typer.Option("--epsilon", metavar="E", help="Target: certified ε ≤ E at --delta.", show_default=False)] = None,
    delta: Annotated[Optional[float], typer.Option("--delta", metavar="D", click_type=EXACT_FLOAT, help="δ in (0, 1) for --epsilon.", show_default=False)] = None,
    advantage: Annotated[Optional[float], typer.Option("--advantage", metavar="A", help="Target: membership advantage (max TPR − FPR) ≤ A.", show_default=False)] = None,
    tpr_at_fpr: Annotated[Optional[str], typer.Option("--tpr-at-fpr", metavar="TPR,FPR", help="Target: TPR of the best membership test at FPR ≤ TPR, e.g. 0.05,0.01.", show_default=False)] = None,
    bayes_error: Annotated[Optional[str], typer.Option("--bayes-error", metavar="R,PRIOR", help="Target: the adversary's Bayes error at prior PRIOR ≥ R, e.g. 0.45,0.5.", show_default=False)] = None,
    delta_from: Annotated[Optional[str], typer.Option("--delta-from", metavar="SPEC,D", help="Target: Δ(SPEC‖SGM) ≤ D, the excess vulnerability over a baseline mechanism, e.g. 'gaussian(mu=1),0.01'.", show_default=False)] = None,
    steps: Annotated[Optional[float], typer.Option("--steps", metavar="N", help="Number of DP-SGD steps (1.4e6 accepted): find σ.", show_default=False)] = None,
    sigma: Annotated[Optional[float], typer.Option("--sigma", "--noise-multiplier", metavar="S", help="Noise multiplier σ (noise std ÷ clipping norm): find the most steps instead (any target).", show_default=False)] = None,
    tol: Annotated[float, typer.Option("--tol", metavar="T", help="--epsilon with --steps: target − T ≤ ε ≤ target; risk targets: relative tolerance on σ.")] = 1e-3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Noise multiplier σ of DP-SGD (Poisson-subsampled Gaussian, N steps) for ONE target — (ε, δ), advantage,
    TPR at an FPR, Bayes error at a prior, or Δ from a baseline — certified: the reported value is the
    pessimistic one and meets the target. With --sigma instead of --steps: the largest number of steps whose
    certified ε (or risk) meets the target."""
    from ...dpsgd.calibrate import sigma_for_epsilon, sigma_for_risk, steps_for_sigma

    targets = {"--epsilon": epsilon, "--advantage": advantage, "--tpr-at-fpr": tpr_at_fpr, "--bayes-error": bayes_error,
               "--delta-from": delta_from}
    given = [k for k, v in targets.items() if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one target: --epsilon (with --delta), --advantage, --tpr-at-fpr, --bayes-error "
                         f"or --delta-from (got {', '.join(given) if given else 'none'})")
    sampling_rate, steps = _rate_and_steps(sampling_rate, batch_size, dataset_size, steps, epochs, sampling)
    if (steps is None) == (sigma is None):
        raise ValueError("give exactly one of --steps or --epochs (to find the noise multiplier) or --sigma / "
                         "--noise-multiplier (to find the number of steps)")
    if given[0] == "--epsilon" and delta is None:
        raise ValueError("--epsilon needs --delta")
    if given[0] != "--epsilon" and delta is not None:
        raise ValueError(f"--delta belongs to --epsilon; {given[0]} does not take it")
    if steps is not None and not (math.isfinite(steps) and steps == int(steps) and steps >= 1):
        raise ValueError(f"--steps must be a whole number >= 1, got {steps:g}")
    n_steps = int(steps) if steps is not None else None
    what = "steps N" if sigma is not None else "sigma"
    progress = _BracketProgress(what, enabled=True)
    try:
        if given[0] == "--epsilon" and sigma is not None:
            r = steps_for_sigma(sigma, epsilon, delta, sampling_rate, progress=progress)
            d = r.to_dict()
            rows = (("steps", "steps N (largest)"), ("epsilon", "achieved ε (≤ target)"), ("target_epsilon", "target ε"),
                    ("delta", "δ"), ("sampling_rate", "sampling rate p"), ("sigma", "noise multiplier σ"),
                    ("accountant", "certified by"), ("evaluations", "accountant calls"))
            title = "DP-SGD steps for a noise multiplier (certified ε)"
        elif given[0] == "--epsilon":
            r = sigma_for_epsilon(epsilon, delta, sampling_rate, n_steps, tol=tol, progress=progress)
            d = r.to_dict()
            rows = (("sigma", "noise multiplier σ"), ("epsilon", "achieved ε (≤ target)"), ("target_epsilon", "target ε"),
                    ("delta", "δ"), ("sampling_rate", "sampling rate p"), ("steps", "steps N"),
                    ("tolerance", "tolerance"), ("discretization", "grid spacing"), ("accountant", "certified by"),
                    ("evaluations", "accountant calls"))
            title = "DP-SGD calibration (certified ε)"
        else:
            kw: dict[str, Any] = {}
            if given[0] == "--advantage":
                metric, target = "advantage", advantage
            elif given[0] == "--tpr-at-fpr":
                metric, (a, target) = "tpr", _pair("--tpr-at-fpr", tpr_at_fpr, ("TPR", "FPR"))
                target, kw["fpr"] = _number("--tpr-at-fpr TPR", a), target
            elif given[0] == "--bayes-error":
                metric, (a, prior) = "bayes_error", _pair("--bayes-error", bayes_error, ("R", "PRIOR"))
                target, kw["prior"] = _number("--bayes-error R", a), prior
            else:
                from ..spec import parse

                metric, (spec, target) = "delta", _pair("--delta-from", delta_from, ("SPEC", "D"))
                kw["baseline"] = parse(spec)
            label = {"advantage": "advantage (≤ target)", "tpr": f"TPR at FPR {kw.get('fpr', 0):g} (≤ target)",
                     "bayes_error": f"Bayes error at prior {kw.get('prior', 0):g} (≥ target)",
                     "delta": "Δ(baseline‖SGM) (≤ target)"}[metric]
            if sigma is not None:  # the most steps that meet the risk target (dpsgd/risk_steps.py)
                from ...dpsgd.risk_steps import steps_for_risk

                r = steps_for_risk(metric, target, sigma, sampling_rate, progress=progress, **kw)
                rows = (("steps", "steps N (largest)"), ("value", label), ("target", "target"),
                        ("steps_above", "steps that miss the target"), ("sampling_rate", "sampling rate p"),
                        ("sigma", "noise multiplier σ"), ("evaluations", "accountant calls"))
                title = f"DP-SGD steps for a risk target ({metric}, certified side)"
            else:
                r = sigma_for_risk(metric, target, sampling_rate, n_steps, rtol=tol, progress=progress, **kw)
                rows = (("sigma", "noise multiplier σ"), ("value", label), ("target", "target"),
                        ("sigma_below", "σ just below (misses the target)"), ("sampling_rate", "sampling rate p"),
                        ("steps", "steps N"), ("evaluations", "accountant calls"))
                title = f"DP-SGD calibration to a risk target ({metric}, certified side)"
            d = r.to_dict()
    finally:
        progress.close()
    d["spec"] = r.spec
    if as_json:
        emit_json(d)
        return
    t = Table(title=title, title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    for key, label in rows:
        v = d.get(key)
        if key == "steps" and d.get("at_limit"):
            t.add_row(label, f"more than {v:.0e} (the largest count searched)")
        elif isinstance(v, str):
            t.add_row(label, escape(v))
        else:
            t.add_row(label, "—" if v is None else num(v, 10 if key in ("sigma", "epsilon", "value") else 6))
    _console().print(t)
    if d.get("at_limit"):
        _console().print(f"even {d['steps']:.0e} steps meet the target: the answer is more than that, not that number")
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

    from ...dpsgd.sweep import SweepInterrupted, load_grid, pareto_efficient, read_results, run_sweep

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

        try:
            summary = run_sweep(cfg, path, scheduler=scheduler, workers=workers, on_row=on_row, notes=notes)
        except SweepInterrupted as stop:
            progress.stop()
            err.print(escape(stop.message))
            raise typer.Exit(130) from None
    rows = read_results(path)
    summary["pareto_efficient"] = pareto_efficient(rows)
    summary["max_delta_base_to_point"] = max((float(r["delta_base_to_point"]) for r in rows if not r.get("reason")),
                                             default=None)
    summary["notes"] = notes
    if as_json:
        emit_json(summary)
        return
    con = _console()
    for n in notes:
        con.print(escape(n))
    con.print(f"wrote {escape(path)}: {summary['computed']} point(s) computed, {summary['skipped']} already done, "
              f"{summary['seconds']:.1f} s ({num(summary['points_per_second'], 3)} points/s, {summary['backend']})")
    if summary["infeasible"]:
        con.print(f"{summary['infeasible']} infeasible point(s): recorded with their reason (column 'reason')")
    if summary["max_delta_base_to_point"] is not None:
        con.print(f"max Δ(baseline‖point) = {num(summary['max_delta_base_to_point'], 4)}")
    if summary["pareto_efficient"]:
        con.print("Pareto-efficient (accuracy vs excess vulnerability): " + escape(", ".join(summary["pareto_efficient"])))


