"""DP-SGD parameter sweeps ([BCP] §5, Figures 5–7): a grid of configurations calibrated to one (ε, δ),
each compared with a baseline in both directions and scored with the risk metrics.

Grid file (TOML)::

    [target]                      # required
    epsilon = 8.0
    delta = 1e-5
    tol = 1e-3                    # optional calibration tolerance

    [baseline]                    # required: two or three of sigma / sampling_rate / steps
    sampling_rate = 0.01          # (σ is calibrated to the target when absent)
    steps = 500

    [grid]                        # exactly two of sigma / sampling_rate / steps, each a list;
    sampling_rate = [0.04, 0.1]   # the third is calibrated: σ from (p, N), or N from (σ, p)
    steps = [534, 1000]

    [metrics]                     # optional
    fpr = 1e-3                    # TPR at this FPR
    pi = 0.5                      # Bayes error at this prior
    kappa = 1e-3                  # reconstruction baseline κ (Hayes et al. 2023)

    [[accuracy]]                  # optional, user-supplied accuracy per point (Pareto front, [BCP] Fig 5)
    sampling_rate = 0.04
    steps = 534
    accuracy = 0.71

Results stream to a CSV file, one row per finished point (flushed and fsynced), so an interrupted sweep
resumes where it stopped: rows already present are skipped by their ``point`` key; a half-written last line
(a run killed mid-write) is detected and cut off before appending; a file with a different header is never
overwritten. A ``.parquet`` results file (optional extra ``dpcompare[parquet]``) is rewritten atomically
after each point (temporary file + rename), so it too is always complete and resumable.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

AXES = ("sigma", "sampling_rate", "steps")
SECTIONS = {
    "target": {"epsilon": float, "delta": float, "tol": float},
    "baseline": {"sigma": float, "sampling_rate": float, "steps": int},
    "grid": {"sigma": list, "sampling_rate": list, "steps": list},
    "metrics": {"fpr": float, "pi": float, "kappa": float},
}
COLUMNS = (
    "point", "sigma", "sampling_rate", "steps", "epsilon",
    "delta_base_to_point", "delta_base_to_point_lower", "delta_base_to_point_upper", "delta_base_to_point_pi",
    "delta_point_to_base", "delta_point_to_base_lower", "delta_point_to_base_upper",
    "advantage", "tpr_at_fpr", "bayes_error", "rero_bound", "accuracy", "seconds", "reason",
)
#: a row whose ``reason`` is not empty is an infeasible point: the calibration was refused (why: ``reason``),
#: its numeric columns are empty, and the sweep went on


@dataclass(frozen=True)
class SweepConfig:
    epsilon: float
    delta: float
    tol: float
    baseline: dict[str, float]
    grid: dict[str, list[float]]
    fpr: float = 1e-3
    pi: float = 0.5
    kappa: float = 1e-3
    accuracy: dict[str, float] = field(default_factory=dict)

    @property
    def free_axis(self) -> str:
        return next(a for a in AXES if a not in self.grid)

    def points(self) -> list[dict[str, float]]:
        a, b = [ax for ax in AXES if ax in self.grid]
        return [{a: x, b: y} for x in self.grid[a] for y in self.grid[b]]


def point_key(point: dict[str, float]) -> str:
    """Stable key of a grid point: 'sampling_rate=0.04;steps=534' (axes in AXES order, repr of numbers)."""
    return ";".join(f"{ax}={_fmt(point[ax])}" for ax in AXES if ax in point)


def _fmt(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def _type_ok(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, kind)


def parse_grid(text: str, source: str = "grid file") -> SweepConfig:
    """Parse and validate a grid file; every error is a ValueError naming the key and value."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML ({exc})") from None
    unknown = set(doc) - set(SECTIONS) - {"accuracy"}
    if unknown:
        raise ValueError(f"{source}: unknown section(s) {sorted(unknown)}; allowed: {sorted([*SECTIONS, 'accuracy'])}")
    for name in ("target", "baseline", "grid"):
        if name not in doc:
            raise ValueError(f"{source}: missing section [{name}]")
    for name, keys in SECTIONS.items():
        sec = doc.get(name, {})
        if not isinstance(sec, dict):
            raise ValueError(f"{source}: [{name}] must be a table")
        for k, v in sec.items():
            if k not in keys:
                raise ValueError(f"{source}: unknown key {name}.{k}; allowed: {sorted(keys)}")
            if not _type_ok(v, keys[k]):
                raise ValueError(f"{source}: {name}.{k} must be {keys[k].__name__}, got {v!r}")
    t = doc["target"]
    for k in ("epsilon", "delta"):
        if k not in t:
            raise ValueError(f"{source}: missing target.{k}")
    eps, delta, tol = float(t["epsilon"]), float(t["delta"]), float(t.get("tol", 1e-3))
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"{source}: target.epsilon must be > 0, got {eps!r}")
    if not 0 < delta < 1:
        raise ValueError(f"{source}: target.delta must be in (0, 1), got {delta!r}")
    if not 0 < tol < eps:
        raise ValueError(f"{source}: target.tol must be in (0, epsilon), got {tol!r}")
    base = {k: float(v) for k, v in doc["baseline"].items()}
    if "sampling_rate" not in base or "steps" not in base:
        raise ValueError(f"{source}: [baseline] needs sampling_rate and steps, got {sorted(base)}")
    grid: dict[str, list[float]] = {}
    for k, vals in doc["grid"].items():
        if not vals:
            raise ValueError(f"{source}: grid.{k} is empty")
        for v in vals:
            kind = int if k == "steps" else float
            if not _type_ok(v, kind):
                raise ValueError(f"{source}: grid.{k} must hold {kind.__name__} values, got {v!r}")
        grid[k] = [float(v) for v in vals]
    if len(grid) != 2:
        raise ValueError(f"{source}: [grid] must list exactly two of {list(AXES)}, got {sorted(grid)}")
    if "sampling_rate" not in grid and "sigma" in grid:
        raise ValueError(f"{source}: [grid] with sigma and steps would need p calibrated; give sampling_rate and one of sigma/steps")
    for v in grid.get("sampling_rate", []) + [base["sampling_rate"]]:
        if not 0 < v <= 1:
            raise ValueError(f"{source}: sampling_rate must be in (0, 1], got {v!r}")
    for v in grid.get("steps", []) + [base["steps"]]:
        if v < 1:
            raise ValueError(f"{source}: steps must be >= 1, got {v!r}")
    for v in grid.get("sigma", []) + ([base["sigma"]] if "sigma" in base else []):
        if not v > 0:
            raise ValueError(f"{source}: sigma must be > 0, got {v!r}")
    m = doc.get("metrics", {})
    fpr, pi, kappa = float(m.get("fpr", 1e-3)), float(m.get("pi", 0.5)), float(m.get("kappa", 1e-3))
    for k, v in (("fpr", fpr), ("pi", pi), ("kappa", kappa)):
        if not 0 < v < 1:
            raise ValueError(f"{source}: metrics.{k} must be in (0, 1), got {v!r}")
    acc: dict[str, float] = {}
    entries = doc.get("accuracy", [])
    if not isinstance(entries, list):
        raise ValueError(f"{source}: accuracy must be an array of tables [[accuracy]]")
    axes = [ax for ax in AXES if ax in grid]
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ValueError(f"{source}: accuracy[{i}] must be a table")
        extra = set(e) - set(axes) - {"accuracy"}
        if extra:
            raise ValueError(f"{source}: unknown key(s) {sorted(extra)} in accuracy[{i}]; allowed: {axes + ['accuracy']}")
        for k in [*axes, "accuracy"]:
            if k not in e:
                raise ValueError(f"{source}: accuracy[{i}] is missing {k}")
            if not _type_ok(e[k], float):
                raise ValueError(f"{source}: accuracy[{i}].{k} must be a number, got {e[k]!r}")
        acc[point_key({k: float(e[k]) for k in axes})] = float(e["accuracy"])
    return SweepConfig(eps, delta, tol, base, grid, fpr, pi, kappa, acc)


def load_grid(path: str) -> SweepConfig:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read grid file {path!r}: {exc.strerror or exc}") from None
    return parse_grid(text, path)


# ---------------------------------------------------------------------------------------------- evaluation
@functools.lru_cache(maxsize=4)
def _baseline(epsilon: float, delta: float, tol: float, sigma: float | None, p: float, steps: int):
    from ..mechanisms.sgm import SubsampledGaussian
    from .calibrate import sigma_for_epsilon

    if sigma is None:
        sigma = sigma_for_epsilon(epsilon, delta, p, steps, tol=tol).sigma
    return SubsampledGaussian(sigma, p, steps)


def evaluate_point(cfg: SweepConfig, point: dict[str, float], fft_threads: int | None = None) -> dict[str, Any]:
    """Calibrate one grid point to (ε, δ) and measure it against the baseline (runs in a worker process).

    ``fft_threads``: threads for the composition FFT while this point is evaluated
    (composition.sgm_certified.fft_workers_scope); parallel sweeps pass 1 so that K processes on K cores do not
    each start K threads."""
    from ..composition.sgm_certified import fft_workers_scope

    with fft_workers_scope(fft_threads):
        return _evaluate_point(cfg, point)


def _evaluate_point(cfg: SweepConfig, point: dict[str, float]) -> dict[str, Any]:
    import time

    from ..comparison import delta_divergences
    from ..mechanisms.sgm import SubsampledGaussian
    from . import risk
    from .calibrate import sigma_for_epsilon, steps_for_sigma

    t0 = time.perf_counter()
    b = cfg.baseline
    base = _baseline(cfg.epsilon, cfg.delta, cfg.tol, b.get("sigma"), b["sampling_rate"], int(b["steps"]))
    p = point["sampling_rate"]
    try:
        if "steps" in point:
            n = int(point["steps"])
            c = sigma_for_epsilon(cfg.epsilon, cfg.delta, p, n, tol=cfg.tol)
            sigma, eps = c.sigma, c.epsilon
        else:
            sigma = point["sigma"]
            s = steps_for_sigma(sigma, cfg.epsilon, cfg.delta, p)
            if s.at_limit:
                raise ValueError(f"more than {s.steps:.0e} steps meet the target: no finite answer to compare")
            n, eps = s.steps, s.epsilon
    except ValueError as exc:  # an infeasible point: recorded with its reason, the sweep goes on
        return {"point": point_key(point), "sampling_rate": p, "sigma": point.get("sigma", ""),
                "steps": int(point["steps"]) if "steps" in point else "", "accuracy": cfg.accuracy.get(point_key(point), ""),
                "seconds": time.perf_counter() - t0, "reason": str(exc) or type(exc).__name__}
    m = SubsampledGaussian(sigma, p, n)
    ab, ba = delta_divergences(base, m)
    row = {
        "point": point_key(point), "sigma": sigma, "sampling_rate": p, "steps": n, "epsilon": eps,
        "delta_base_to_point": ab.value, "delta_base_to_point_lower": ab.lower,
        "delta_base_to_point_upper": ab.upper, "delta_base_to_point_pi": ab.pi,
        "delta_point_to_base": ba.value, "delta_point_to_base_lower": ba.lower, "delta_point_to_base_upper": ba.upper,
        "advantage": risk.advantage(m), "tpr_at_fpr": float(risk.tpr_at_fpr(m, cfg.fpr)),
        "bayes_error": float(risk.bayes_error(m, cfg.pi)), "rero_bound": float(risk.reconstruction_bound(m, cfg.kappa)),
        "accuracy": cfg.accuracy.get(point_key(point), ""), "reason": "",
    }
    row["seconds"] = time.perf_counter() - t0
    return row


# ---------------------------------------------------------------------------------------------- results file
#: Parquet column types (everything else is float64); ``accuracy`` is null where none was supplied
_PARQUET_TYPES = {"point": "string", "steps": "int64", "reason": "string"}


def _results_format(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext == ".csv":
        return "csv"
    if ext == ".parquet":
        return "parquet"
    raise ValueError(f"results file must end in .csv or .parquet, got {path!r}")


def prepare_results(path: str) -> tuple[set[str], list[str]]:
    """Open (or create) the results file for appending: (keys already done, notes for the user).

    CSV: a header different from COLUMNS raises ValueError (the file is never overwritten). A last line
    without its newline — a run killed mid-write — is cut off (and reported); its point is computed again.
    Parquet: the file is only ever replaced atomically (:func:`append_row`), so it is complete or absent;
    a left-over temporary file of a killed run is removed (and reported); an unreadable file or one with
    other columns raises ValueError and is never overwritten.
    """
    if _results_format(path) == "parquet":
        return _prepare_parquet(path)
    notes: list[str] = []
    header = ",".join(COLUMNS) + "\n"
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(header)
            fh.flush()
            os.fsync(fh.fileno())
        return set(), notes
    with open(path, "rb") as fh:
        data = fh.read()
    if not data.startswith(header.encode()):
        first = data.split(b"\n", 1)[0].decode("utf-8", "replace")[:80]
        raise ValueError(f"results file {path!r} exists with a different header ({first!r}…); refusing to "
                         "overwrite it: choose another -o or move it away")
    if not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as fh:
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())
        notes.append(f"repaired {path}: removed a half-written last line ({len(data) - cut} bytes); that point is recomputed")
        data = data[:cut]
    done = set()
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    for i, r in enumerate(rows):
        if None in r or any(v is None for v in r.values()):
            raise ValueError(f"results file {path!r}: row {i + 2} has the wrong number of fields; fix or move the file")
        done.add(r["point"])
    if done:
        notes.append(f"resuming {path}: {len(done)} point(s) already done")
    return done, notes


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError("Parquet results need pyarrow: pip install 'dpcompare[parquet]' (or write .csv)") from None
    return pa, pq


def _parquet_schema():
    pa, _ = _pyarrow()
    kinds = {"string": pa.string(), "int64": pa.int64()}
    return pa.schema([(c, kinds.get(_PARQUET_TYPES.get(c, ""), pa.float64())) for c in COLUMNS])


def _read_parquet_rows(path: str) -> list[dict[str, Any]]:
    _, pq = _pyarrow()
    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
        raise ValueError(f"results file {path!r} is not a readable Parquet file ({type(exc).__name__}); refusing "
                         "to overwrite it: choose another -o or move it away") from None
    if table.schema.names != list(COLUMNS):
        raise ValueError(f"results file {path!r} has other columns ({table.schema.names[:4]}…); refusing to "
                         "overwrite it: choose another -o or move it away")
    return table.to_pylist()


def _prepare_parquet(path: str) -> tuple[set[str], list[str]]:
    notes: list[str] = []
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
        notes.append(f"removed {tmp}: the temporary file of an interrupted write (the results file is intact)")
    if not os.path.exists(path):
        _write_parquet(path, [])
        return set(), notes
    done = {r["point"] for r in _read_parquet_rows(path)}
    if done:
        notes.append(f"resuming {path}: {len(done)} point(s) already done")
    return done, notes


def _write_parquet(path: str, rows: list[dict[str, Any]]) -> None:
    """Write all rows to ``path + '.tmp'``, fsync, then rename over ``path`` (atomic on POSIX)."""
    pa, pq = _pyarrow()
    clean = [{k: (None if r.get(k, "") == "" else r[k]) for k in COLUMNS} for r in rows]
    table = pa.Table.from_pylist(clean, schema=_parquet_schema())
    tmp = path + ".tmp"
    pq.write_table(table, tmp)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_results(path: str) -> list[dict[str, Any]]:
    """All rows of a results file (CSV values are strings, Parquet values typed; missing accuracy: '' / None)."""
    if _results_format(path) == "parquet":
        return _read_parquet_rows(path)
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def append_row(path: str, row: dict[str, Any]) -> None:
    """Add one finished point durably: a CSV line (flushed, fsynced), or an atomic rewrite of the Parquet file
    (Parquet files cannot be appended to; a sweep's results are small, so the rewrite costs milliseconds)."""
    if _results_format(path) == "parquet":
        _write_parquet(path, [*_read_parquet_rows(path), row])
        return
    buf = io.StringIO()
    csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n").writerow({k: row.get(k, "") for k in COLUMNS})
    with open(path, "a", encoding="utf-8", newline="") as fh:
        fh.write(buf.getvalue())
        fh.flush()
        os.fsync(fh.fileno())


def _local_results(cfg: SweepConfig, todo: list[dict[str, float]], workers: int) -> Iterable[dict[str, Any]]:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if workers <= 1:
        for pt in todo:
            yield evaluate_point(cfg, pt)
        return
    from .._malloc import retain_freed_memory_if_asked  # opt-in: DPCOMPARE_TUNE_MALLOC=1

    ex = ProcessPoolExecutor(max_workers=workers, initializer=retain_freed_memory_if_asked)
    try:
        futs = [ex.submit(evaluate_point, cfg, pt, 1) for pt in todo]
        for f in as_completed(futs):
            yield f.result()
    except BaseException:  # Ctrl-C, an error, or the consumer stopped: drop the queued points, do not wait
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def _dask_results(cfg: SweepConfig, todo: list[dict[str, float]], scheduler: str) -> Iterable[dict[str, Any]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("--scheduler needs Dask: pip install 'dpcompare[distributed]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"cannot connect to Dask scheduler {scheduler!r}: {exc}") from None
    try:
        futs = [client.submit(evaluate_point, cfg, pt, 1, pure=False) for pt in todo]
        for f in as_completed(futs):
            yield f.result()
    finally:
        client.close()


def run_sweep(
    cfg: SweepConfig, output: str, *, scheduler: str | None = None, workers: int | None = None,
    on_row: Callable[[dict[str, Any], int, int], None] | None = None, notes: list[str] | None = None,
) -> dict[str, Any]:
    """Run (or resume) a sweep, appending each finished point to ``output``. Returns a summary."""
    import time

    created = not os.path.exists(output)
    done, msgs = prepare_results(output)
    if notes is not None:
        notes.extend(msgs)
    todo = [pt for pt in cfg.points() if point_key(pt) not in done]
    total = len(cfg.points())
    t0 = time.perf_counter()
    workers = workers if workers is not None else (os.cpu_count() or 1)
    it = _dask_results(cfg, todo, scheduler) if scheduler else _local_results(cfg, todo, min(workers, max(1, len(todo))))
    finished = 0
    try:
        for row in it:
            append_row(output, row)
            finished += 1
            if on_row is not None:
                on_row(row, len(done) + finished, total)
    except KeyboardInterrupt:
        if created and finished == 0 and os.path.exists(output):
            os.remove(output)  # nothing was computed: leave no file behind
        raise SweepInterrupted(output, len(done) + finished, total, created and finished == 0) from None
    secs = time.perf_counter() - t0
    infeasible = sum(1 for r in read_results(output) if r.get("reason"))
    return {"output": output, "points": total, "skipped": len(done), "computed": finished, "seconds": secs,
            "points_per_second": finished / secs if secs > 0 else None, "backend": "dask" if scheduler else "local",
            "infeasible": infeasible}


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: every finished point is in the results file (whole rows); rerunning resumes."""

    def __init__(self, output: str, saved: int, total: int, removed: bool) -> None:
        super().__init__(output)
        self.output, self.saved, self.total, self.removed = output, saved, total, removed

    @property
    def message(self) -> str:
        if self.removed:
            return f"interrupted before any point finished; no results file was left ({self.output})"
        return (f"interrupted: {self.saved} of {self.total} points are saved in {self.output}; run the same command "
                "again to resume (saved points are skipped)")


def pareto_efficient(rows: list[dict[str, Any]]) -> list[str]:
    """Keys of the points not dominated in (accuracy ↑, excess vulnerability Δ(base‖point) ↓) — [BCP] Fig 5."""
    pts = [(r["point"], float(r["accuracy"]), float(r["delta_base_to_point"])) for r in rows
           if r.get("accuracy") not in ("", None) and not r.get("reason")]
    out = []
    for k, a, d in pts:
        if not any((a2 >= a and d2 <= d) and (a2 > a or d2 < d) for _, a2, d2 in pts):
            out.append(k)
    return out
