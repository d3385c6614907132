"""Two source trees' ``compare(Gaussian(μ=1), Laplace(b=1), tol=1e-3)`` (the B.3 job) timed side by side in one process.

Separate processes on a shared machine see different loads; here both trees' packages are imported at once (copied
to a temporary directory as ``dpc_old`` and ``dpc_new``: every import inside the package is relative) and their
calls alternate, rounds of 10 calls each, so both see the same machine. Reported: the minimum CPU
(``time.process_time``) and wall time of one call per tree and the ratio new/old of the CPU minima. Before timing,
both trees' Δ brackets and crossings are printed (they should agree where the change keeps every double).

    git archive <old-commit> src | tar -x -C /tmp/old
    python benchmarks/bench_b3_ab.py /tmp/old/src            # against this tree's src
    python benchmarks/bench_b3_ab.py /tmp/old/src /other/src  # or two given trees

``--quick``: 2 rounds of 2 calls (a smoke run, not a measurement); ``--rounds N`` (default 60); ``--fresh``: build
both mechanisms in every call, as ``bench_targets.py``'s B.3 row does (their construction is then timed too), and
print the medians beside the minima; ``--steps``: then also the steps of the compare, each called alone in both trees
in turn (the seeds, the first grid, each mechanism's R bracket and both on the first grid, ``LineGeometry``, both
directions' interval bounds, the crossings; three calls per sample, wall time), their minima and medians.
"""
import gc
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

args = [a for a in sys.argv[1:] if not a.startswith("--")]
QUICK = "--quick" in sys.argv
FRESH = "--fresh" in sys.argv
STEPS = "--steps" in sys.argv
ROUNDS = 2 if QUICK else int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 60
if "--rounds" in sys.argv:
    args.remove(str(ROUNDS))
if not 1 <= len(args) <= 2:
    sys.exit("usage: bench_b3_ab.py OLD_SRC [NEW_SRC] [--rounds N] [--quick] [--fresh] [--steps]")
trees = {"old": Path(args[0]), "new": Path(args[1]) if len(args) == 2 else Path(__file__).resolve().parents[1] / "src"}

tmp = Path(tempfile.mkdtemp(prefix="b3ab"))
try:
    for name, src in trees.items():
        shutil.copytree(src / "dpcompare", tmp / f"dpc_{name}", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(tmp))
    import dpc_new  # noqa: E402
    import dpc_old  # noqa: E402

    mods = {"old": dpc_old, "new": dpc_new}
    pairs = {k: (m.Gaussian(mu=1.0), m.Laplace(b=1.0)) for k, m in mods.items()}
    for k, m in mods.items():
        c = m.compare(*pairs[k], tol=1e-3)
        print(f"{k}: Δ(A‖B) [{c.delta_ab.lower!r}, {c.delta_ab.upper!r}]  Δ(B‖A) [{c.delta_ba.lower!r}, "
              f"{c.delta_ba.upper!r}]  crossings {c.crossings}")
    n = 2 if QUICK else 10
    cpu: dict[str, list[float]] = {k: [] for k in mods}
    wall: dict[str, list[float]] = {k: [] for k in mods}
    gc.disable()
    for r in range(ROUNDS):
        for k, m in (list(mods.items()) if r % 2 == 0 else list(mods.items())[::-1]):  # (which goes first alternates)
            a, b = pairs[k]
            for _ in range(n):
                t0, w0 = time.process_time(), time.perf_counter()
                if FRESH:
                    m.compare(m.Gaussian(mu=1.0), m.Laplace(b=1.0), tol=1e-3)
                else:
                    m.compare(a, b, tol=1e-3)
                cpu[k].append(time.process_time() - t0)
                wall[k].append(time.perf_counter() - w0)
    gc.enable()
    print("  ".join(f"{k} CPU {min(cpu[k]) * 1e6:.0f} µs (wall {min(wall[k]) * 1e6:.0f} µs)" for k in mods)
          + f"  ratio new/old CPU {min(cpu['new']) / min(cpu['old']):.3f}")
    if FRESH:
        med = {k: statistics.median(cpu[k]) for k in mods}
        print("  ".join(f"{k} median CPU {med[k] * 1e6:.0f} µs" for k in mods) + f"  ratio {med['new'] / med['old']:.3f}")
    if STEPS:
        import importlib

        def steps(m) -> dict:
            ps = importlib.import_module(m.__name__ + ".comparison.prior_sweep")
            g, lap = pairs["old" if m is dpc_old else "new"]
            seeds = ps.crossing_seeds(g, lap)
            x = ps.initial_grid(g, lap, False, seeds)
            lo, hi = ps._both_bounds(g, lap, x)
            gm, grid = ps.LineGeometry(x), ps.Grid(x, lo[0], hi[0], lo[1], hi[1])
            return {"seeds": lambda: ps.crossing_seeds(g, lap), "first grid": lambda: ps.initial_grid(g, lap, False, seeds),
                    "Gaussian R": lambda: g._bayes_error_directed(x), "Laplace R": lambda: lap._bayes_error_directed(x),
                    "both R brackets": lambda: ps._both_bounds(g, lap, x), "LineGeometry": lambda: ps.LineGeometry(x),
                    "interval bounds": lambda: ps.interval_upper(x, lo, hi, lo[::-1], gm),
                    "crossings": lambda: ps.crossings(g, lap, grid)}

        fs = {k: steps(m) for k, m in mods.items()}
        t_step: dict[str, dict[str, list[float]]] = {s: {k: [] for k in mods} for s in fs["old"]}
        gc.disable()
        for r in range(ROUNDS * 3):
            for name in t_step:
                for k in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    f = fs[k][name]
                    w0 = time.perf_counter()
                    f(), f(), f()
                    t_step[name][k].append((time.perf_counter() - w0) / 3)
        gc.enable()
        for name, t in t_step.items():
            lo_, ln_ = min(t["old"]), min(t["new"])
            mo, mn = statistics.median(t["old"]), statistics.median(t["new"])
            print(f"{name:16s} old min {lo_ * 1e6:6.1f} med {mo * 1e6:6.1f} µs | new min {ln_ * 1e6:6.1f} med {mn * 1e6:6.1f} µs"
                  f" | ratio min {ln_ / lo_:.3f} med {mn / mo:.3f}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
