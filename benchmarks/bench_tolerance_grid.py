"""Benchmark: ``certified_delta(σ, p, N, ε, tolerance=τ)`` — the grid for a requested tolerance chosen at the ε
asked (Richardson's estimate of the default grid's excess, ``sgm_accuracy.delta_for_tolerance``) against the
worst-case grid of ``sgm_grid.discretization_for_tolerance`` (the excess bound K·√N·h²/s at every ε).

Both answers are certified upper ends of δ(ε); the tolerance is a target for their excess over the truth. For
each row it prints, in one process (caches cleared before each timed call):

- **worst-case grid** (before): ``certified_delta(σ, p, N, ε, discretization=discretization_for_tolerance(…))``,
  i.e. what ``tolerance=τ`` composed before — its grid, time (wall / CPU of the process) and δ;
- **at the ε asked** (now): ``certified_delta(σ, p, N, ε, tolerance=τ)`` — its grid, time and δ;
- **reference**: the lower end of a certified bracket (both sides) on a grid for τ/20
  (``SubsampledGaussian(…, tolerance=τ/20).delta_bounds``), so δ − reference ≥ the true excess of each answer
  (an upper bound of it: the reference's own width is included);
- the time ratio now/before (CPU), and max(δ_now − δ_before) (how much higher the answer is; ≤ τ is the aim).

τ per row: dp-accounting's excess at its default grid (``docs/edges.md``'s default-accuracy table), the accuracy a
caller comparing with it would ask for.

Usage:
    python benchmarks/bench_tolerance_grid.py           # ~2 min on 2 loaded cores
    python benchmarks/bench_tolerance_grid.py --json
    python benchmarks/bench_tolerance_grid.py --quick   # smoke test: one row, one ε, reference at τ/2
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dpcompare.composition import sgm_certified as cert
from dpcompare.composition.sgm_grid import discretization_for_tolerance
from dpcompare.mechanisms.sgm import SubsampledGaussian

#: (σ, p, N, ε values, τ): (1, 0.2, 50) at the ε where δ ≈ 1e-3 and 1e-5, (0.7, 0.05, 300) at ε = 0.5, 1, 2 and at
#: δ ≈ 1e-3, 1e-5
ROWS = [
    (1.0, 0.2, 50, (7.1, 10.0), 1.4e-9),
    (0.7, 0.05, 300, (0.5, 1.0, 2.0), 4.9e-8),
    (0.7, 0.05, 300, (3.2, 5.0), 4.9e-8),
]


def _clear() -> None:
    from dpcompare.composition import sgm_accuracy, sgm_compose

    for f in (sgm_compose.pessimistic_side, sgm_compose.tail_bound, cert.compose_subsampled_gaussian,
              sgm_accuracy.pessimistic_side, sgm_accuracy.tail_bound):
        if hasattr(f, "cache_clear"):
            f.cache_clear()


def _timed(fn):
    _clear()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return np.asarray(out, dtype=float), time.perf_counter() - t0, time.process_time() - c0


def run(rows, ref_divisor: float = 20.0) -> list[dict]:
    out = []
    for sigma, p, steps, eps, tol in rows:
        e = np.array(eps, dtype=float)
        h_old = discretization_for_tolerance(sigma, p, steps, tol)
        old, t_old, c_old = _timed(lambda: cert.certified_delta(sigma, p, steps, e, h_old))
        new, t_new, c_new = _timed(lambda: cert.certified_delta(sigma, p, steps, e, tolerance=tol))
        try:
            from dpcompare.composition.sgm_accuracy import delta_for_tolerance

            _clear()
            ans = delta_for_tolerance(sigma, p, steps, e, tol)
            h_new = None if ans is None else ans.discretization
        except ImportError:  # before this version: tolerance= composed the worst-case grid
            h_new = h_old
        ref_lo, ref_hi = SubsampledGaussian(sigma, p, steps, tolerance=tol / ref_divisor).delta_bounds(e)
        out.append({
            "sigma": sigma, "p": p, "steps": steps, "eps": e.tolist(), "tolerance": tol,
            "reference_lower": np.asarray(ref_lo).tolist(), "reference_width": float(np.max(ref_hi - ref_lo)),
            "before_h": h_old, "before_seconds": t_old, "before_cpu": c_old, "before_delta": old.tolist(),
            "before_excess_bound": float(np.max(old - ref_lo)),
            "now_h": h_new, "now_seconds": t_new, "now_cpu": c_new, "now_delta": new.tolist(),
            "now_excess_bound": float(np.max(new - ref_lo)),
            "now_minus_before": float(np.max(new - old)),
            "certified": bool(np.all(old >= ref_lo) and np.all(new >= ref_lo)),
            "cpu_ratio": c_new / c_old if c_old > 0 else float("nan"),
            "wall_ratio": t_new / t_old if t_old > 0 else float("nan"),
        })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="smoke test: the first row at its first ε")
    a = ap.parse_args()
    rows = [(*ROWS[0][:3], ROWS[0][3][:1], ROWS[0][4])] if a.quick else ROWS
    res = run(rows, 2.0 if a.quick else 20.0)
    if a.json:
        print(json.dumps({"rows": res}, indent=1))
        return
    print("certified_delta(tolerance=τ): worst-case grid (before) vs the grid chosen at the ε asked (now)")
    print(f"{'(σ, p, N)':>17} {'ε':>15} {'τ':>8} | {'h before':>9} {'wall/CPU s':>11} {'excess ≤':>9} | "
          f"{'h now':>9} {'wall/CPU s':>11} {'excess ≤':>9} | {'CPU ratio':>9} {'now−before':>10} {'ref width':>9}")
    for r in res:
        print(f"{str((r['sigma'], r['p'], r['steps'])):>17} {str(r['eps']):>15} {r['tolerance']:8.1e} | "
              f"{r['before_h']:9.2e} {r['before_seconds']:5.2f}/{r['before_cpu']:5.2f} {r['before_excess_bound']:9.1e} | "
              f"{r['now_h']:9.2e} {r['now_seconds']:5.2f}/{r['now_cpu']:5.2f} {r['now_excess_bound']:9.1e} | "
              f"{r['cpu_ratio']:9.2f} {r['now_minus_before']:10.1e} {r['reference_width']:9.1e}")
    print("excess ≤: δ minus the lower end of a certified reference bracket (tolerance τ/20); all certified:",
          all(r["certified"] for r in res))


if __name__ == "__main__":
    main()
