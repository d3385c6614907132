"""Benchmark: ε(δ; ψ) of the Gaussian mechanism for 10⁴ (ψ, δ) pairs — dpcompare vs dp-accounting vs autodp.

In one run it times, on the same seeded pairs (ψ log-uniform in [0.05, 50], δ log-uniform in
[1e-12, 1e-2]):
  1. ``dpcompare.gaussian.epsilon(psi, delta)`` — one vectorised call (monotone Newton in log space,
     [SI] eq 6.7; min over ``--repeat`` runs), and the same function called once per pair;
  2. dp-accounting's analytic routine ``dp_accounting.gaussian_mechanism.get_epsilon_gaussian(σ, δ)``
     (Balle & Wang 2018, Brent in log space), one call per pair, σ = 1/ψ;
  3. autodp's ``autodp.dp_bank.get_eps_ana_gaussian(σ, δ)`` (same method, scipy ``root_scalar``),
     one call per pair;
and prints each time, the speed-up ratios and the maximum disagreement |ε_ours − ε_theirs|
(absolute, and relative to max(1, ε)). Target: faster than both, disagreement ≤ 1e-6 —
checked with the per-pair loop, so the comparison does not rest on vectorisation alone.

A second, smaller table arbitrates accuracy on the full range the issue names (ψ ∈ [1e-4, 100],
δ ∈ [1e-300, 0.5]): ε from mpmath (60 digits, ``findroot`` on eq 7.1) against each method.

Usage:
    python benchmarks/bench_gaussian_epsilon.py             # 10⁴ pairs, 200 mpmath references
    python benchmarks/bench_gaussian_epsilon.py --quick     # smoke test: 500 pairs, 20 references
    python benchmarks/bench_gaussian_epsilon.py --json      # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))  # the working tree, even where an older copy is installed

import numpy as np  # noqa: E402
import scipy  # noqa: E402

from dpcompare.gaussian import epsilon as dpc_epsilon  # noqa: E402

TARGET_DISAGREEMENT = 1e-6


def _pairs(n: int, seed: int, psi_range: tuple[float, float], delta_range: tuple[float, float]):
    rng = np.random.default_rng(seed)
    psi = np.exp(rng.uniform(math.log(psi_range[0]), math.log(psi_range[1]), n))
    delta = np.exp(rng.uniform(math.log(delta_range[0]), math.log(delta_range[1]), n))
    return psi, delta


def _loop(fn, psi: np.ndarray, delta: np.ndarray) -> tuple[float, np.ndarray, int]:
    """Time one call per pair; failures (exceptions, non-finite) become NaN and are counted."""
    out = np.empty_like(psi)
    fails = 0
    t0 = time.perf_counter()
    for i, (p, d) in enumerate(zip(psi.tolist(), delta.tolist())):
        try:
            v = float(fn(1.0 / p, d))
        except Exception:  # noqa: BLE001 - a baseline's failure is a measured outcome
            v = math.nan
        if not math.isfinite(v):
            fails += 1
            v = math.nan
        out[i] = v
    return time.perf_counter() - t0, out, fails


def _baselines():
    from autodp import dp_bank
    from dp_accounting import gaussian_mechanism

    return {
        "dp-accounting get_epsilon_gaussian": gaussian_mechanism.get_epsilon_gaussian,
        "autodp get_eps_ana_gaussian": dp_bank.get_eps_ana_gaussian,
    }


def _disagreement(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float, int]:
    ok = np.isfinite(theirs)
    if not np.any(ok):
        return math.nan, math.nan, 0
    diff = np.abs(ours[ok] - theirs[ok])
    k = int(np.argmax(diff))
    rel = diff / np.maximum(1.0, np.abs(ours[ok]))
    return float(diff[k]), float(rel.max()), int(np.flatnonzero(ok)[k])


def _mp_epsilon(psi: float, delta: float) -> float:
    """ε with δ(ε; ψ) = δ at 60 digits: bisection + findroot on log δ(ε) (eq 7.1), independent of dpcompare."""
    import mpmath as mp

    mp.mp.dps = 60
    p, target = mp.mpf(psi), mp.log(mp.mpf(delta))

    def logd(e):
        e = mp.mpf(e)
        return mp.log(mp.ncdf(p / 2 - e / p) - mp.exp(e) * mp.ncdf(-p / 2 - e / p)) - target

    if logd(0) <= 0:
        return 0.0
    lo, hi = mp.mpf(0), mp.mpf(1)
    while logd(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(60):  # bisection to a tight bracket, then the secant/Anderson solver
        mid = (lo + hi) / 2
        if logd(mid) > 0:
            lo = mid
        else:
            hi = mid
    return float(mp.findroot(logd, (lo, hi), solver="anderson"))


def run(n: int, n_ref: int, repeat: int, seed: int) -> dict:
    psi, delta = _pairs(n, seed, (0.05, 50.0), (1e-12, 1e-2))
    dpc_epsilon(psi[:10], delta[:10])  # warm-up
    best = math.inf
    ours = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours = np.asarray(dpc_epsilon(psi, delta))
        best = min(best, time.perf_counter() - t0)
    rows = [{"method": "dpcompare.gaussian.epsilon (vectorised)", "seconds": best, "failures": 0,
             "max_abs_disagreement": 0.0, "max_rel_disagreement": 0.0}]
    # the same function called once per pair, like the baselines (apples to apples)
    secs, scalar, fails = _loop(lambda sigma, d: dpc_epsilon(1.0 / sigma, d), psi, delta)
    dmax, rmax, _ = _disagreement(ours, scalar)
    rows.append({"method": "dpcompare.gaussian.epsilon (one call per pair)", "seconds": secs, "failures": fails,
                 "max_abs_disagreement": dmax, "max_rel_disagreement": rmax})
    for name, fn in _baselines().items():
        fn(1.0, 1e-5)  # warm-up
        secs, theirs, fails = _loop(fn, psi, delta)
        dmax, rmax, k = _disagreement(ours, theirs)
        rows.append({"method": name, "seconds": secs, "failures": fails, "max_abs_disagreement": dmax,
                     "max_rel_disagreement": rmax, "worst_pair": {"psi": float(psi[k]), "delta": float(delta[k]),
                                                                  "ours": float(ours[k]), "theirs": float(theirs[k])}})
    for r in rows:
        r["speedup_of_dpcompare"] = r["seconds"] / rows[0]["seconds"]  # over the vectorised call
        r["speedup_of_dpcompare_per_pair"] = r["seconds"] / rows[1]["seconds"]  # over the per-pair loop
        r["seconds_per_pair"] = r["seconds"] / n

    # accuracy arbitration on the full range, against mpmath
    rpsi, rdelta = _pairs(n_ref, seed + 1, (1e-4, 100.0), (1e-300, 0.5))
    ref = np.array([_mp_epsilon(float(p), float(d)) for p, d in zip(rpsi, rdelta)])
    acc = []
    mine = np.asarray(dpc_epsilon(rpsi, rdelta))
    acc.append(("dpcompare.gaussian.epsilon", mine, 0))
    for name, fn in _baselines().items():
        _, theirs, fails = _loop(fn, rpsi, rdelta)
        acc.append((name, theirs, fails))
    accuracy = []
    for name, vals, fails in acc:
        ok = np.isfinite(vals)
        err = np.abs(vals[ok] - ref[ok]) / np.maximum(1.0, ref[ok]) if np.any(ok) else np.array([math.nan])
        accuracy.append({"method": name, "max_rel_error_vs_mpmath": float(err.max()), "failures": int(fails),
                         "pairs": int(n_ref)})

    # target: the per-pair dpcompare loop is faster than each baseline, and they agree to 1e-6
    main_ok = all(r["seconds"] > rows[1]["seconds"] and r["max_abs_disagreement"] <= TARGET_DISAGREEMENT
                  for r in rows[2:])
    return {
        "benchmark": "Gaussian mechanism: epsilon(delta; psi) for many (psi, delta) pairs",
        "pairs": n,
        "psi_range": [0.05, 50.0],
        "delta_range": [1e-12, 1e-2],
        "seed": seed,
        "repeat": repeat,
        "rows": rows,
        "accuracy": accuracy,
        "accuracy_range": {"psi": [1e-4, 100.0], "delta": [1e-300, 0.5]},
        "target": {"faster_than_both": True, "max_disagreement": TARGET_DISAGREEMENT},
        "target_met": bool(main_ok),
        "environment": {"cpus": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
                        "scipy": scipy.__version__, "machine": platform.machine()},
    }


def print_table(res: dict) -> None:
    print(f"ε(δ; ψ) of the Gaussian mechanism for {res['pairs']} (ψ, δ) pairs: ψ ∈ [{res['psi_range'][0]:g}, "
          f"{res['psi_range'][1]:g}], δ ∈ [{res['delta_range'][0]:g}, {res['delta_range'][1]:g}] (log-uniform, "
          f"seed {res['seed']})")
    print("(× vectorised / × per-pair: the row's time over dpcompare's vectorised call / per-pair loop;"
          " Δε: against the vectorised dpcompare answer)")
    head = ("method", "time [s]", "µs/pair", "× vectorised", "× per-pair", "max |Δε|", "max |Δε|/max(1,ε)",
            "failures")
    lines = [(r["method"], f"{r['seconds']:.4g}", f"{1e6 * r['seconds_per_pair']:.3g}",
              f"{r['speedup_of_dpcompare']:.1f}×", f"{r['speedup_of_dpcompare_per_pair']:.1f}×",
              f"{r['max_abs_disagreement']:.1e}",
              f"{r['max_rel_disagreement']:.1e}", str(r["failures"])) for r in res["rows"]]
    _print_rows(head, lines)
    print()
    a = res["accuracy_range"]
    print(f"accuracy against mpmath (60 digits) on {res['accuracy'][0]['pairs']} pairs, ψ ∈ [{a['psi'][0]:g}, "
          f"{a['psi'][1]:g}], δ ∈ [{a['delta'][0]:g}, {a['delta'][1]:g}]:")
    _print_rows(("method", "max |ε − ε_mp|/max(1,ε)", "failures"),
                [(r["method"], f"{r['max_rel_error_vs_mpmath']:.1e}", str(r["failures"])) for r in res["accuracy"]])
    print()
    t = res["target"]
    print(f"target: faster than both, disagreement ≤ {t['max_disagreement']:g}: "
          f"{'MET' if res['target_met'] else 'NOT MET'}")
    env = res["environment"]
    print(f"(dpcompare: min of {res['repeat']} runs; baselines: one call per pair, one run; Python {env['python']}, "
          f"numpy {env['numpy']}, scipy {env['scipy']}, {env['cpus']} CPUs)")


def _print_rows(head, lines) -> None:
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    print(fmt.format(*head))
    print("  ".join("-" * w for w in widths))
    for l in lines:
        print(fmt.format(*l))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout and nothing else")
    ap.add_argument("--quick", action="store_true", help="smoke test: 500 pairs, 20 mpmath references")
    ap.add_argument("--pairs", type=int, default=None, help="number of (ψ, δ) pairs (default 10000; 500 with --quick)")
    ap.add_argument("--references", type=int, default=None, help="mpmath references (default 200; 20 with --quick)")
    ap.add_argument("--repeat", type=int, default=5, help="dpcompare repetitions, min taken (default 5)")
    ap.add_argument("--seed", type=int, default=20240611, help="random seed of the pairs")
    args = ap.parse_args(argv)
    n = args.pairs if args.pairs is not None else (500 if args.quick else 10_000)
    n_ref = args.references if args.references is not None else (20 if args.quick else 200)
    if n < 1:
        ap.error(f"--pairs must be >= 1, got {n}")
    if n_ref < 1:
        ap.error(f"--references must be >= 1, got {n_ref}")
    if args.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {args.repeat}")
    res = run(n, n_ref, args.repeat, args.seed)
    res["quick"] = bool(args.quick)
    if args.json:
        sys.stdout.write(json.dumps(res) + "\n")
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
