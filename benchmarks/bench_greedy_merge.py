"""Benchmark: the optimistic merge of step 3 (``tradeoff/grid_merge.py``, the regular groups of a fast run
solved at once by ``tradeoff/grid_chain.py``) against the group-per-iteration loop (``chain=False``) and the
per-atom loop it replaced (kept as the reference in ``tests/tradeoff/test_grid_merge.py``), on the
one-step partitions of the DP-SGD jobs the speed targets name: ``describe``'s SGM(σ = 1, p = 0.01, N = 10³)
and the [BCP] Theorem 3 pair SGM(2, 9e-4, 1.4·10⁶) / SGM(3, 9e-4, 3.4·10⁶), each on its default grid
(4 cells per grid interval).

For each partition it prints the cell count, the median CPU time (``time.process_time``, alternating the
three, ``--repeat`` rounds) of each version and the ratios, the peak traced memory of each (``tracemalloc``;
the reference includes the two list copies its caller made), and the largest relative difference of the
landed masses against the atom loop and against the group loop (all make the same greedy decisions and
differ in rounding).

Usage:
    python benchmarks/bench_greedy_merge.py [--repeat 7] [--json]
    python benchmarks/bench_greedy_merge.py --quick --json      # smoke test: a coarse partition, 1 round
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "tradeoff"))

import numpy as np  # noqa: E402

from dpcompare.composition.sgm_grid import default_discretization  # noqa: E402
from dpcompare.composition.sgm_step import sgm_partition  # noqa: E402
from dpcompare.tradeoff.grid_merge import greedy_merge  # noqa: E402
from test_grid_merge import reference_greedy_merge  # noqa: E402

JOBS = {
    "describe sgm: SGM(1, 0.01, 1e3)": (1.0, 0.01, 1000),
    "Theorem 3: SGM(2, 9e-4, 1.4e6)": (2.0, 9e-4, 1_400_000),
    "Theorem 3: SGM(3, 9e-4, 3.4e6)": (3.0, 9e-4, 3_400_000),
}


def _atoms(sigma: float, p: float, steps: int, h: float | None = None):
    """The atoms ``grid.optimistic_step`` hands to the merge: the low tail, the cells, the high tail."""
    h = default_discretization(sigma, p, steps) if h is None else h
    part = sgm_partition(sigma, p, h)
    lam, lp = [], []
    for tp, tq in (part.tail_lo,):
        if np.isfinite(tp) and np.isfinite(tq):
            lam.append(tq - tp)
            lp.append(tp)
    ok = np.isfinite(part.log_p) & np.isfinite(part.log_q)
    lam.extend(part.log_q[ok] - part.log_p[ok])
    lp.extend(part.log_p[ok])
    tp, tq = part.tail_hi
    if np.isfinite(tp) and np.isfinite(tq):
        lam.append(tq - tp)
        lp.append(tp)
    return np.array(lam), np.array(lp), (part.h, part.offset, part.k_lo, part.k_hi)


def _old(lam, lp, args):
    return reference_greedy_merge(lam.tolist(), lp.tolist(), *args)


def _new(lam, lp, args):
    return greedy_merge(lam, lp, *args)


def _loop(lam, lp, args):
    return greedy_merge(lam, lp, *args, chain=False)


def _peak(f, *a) -> float:
    tracemalloc.start()
    f(*a)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one small partition (SGM(1, 0.01), h = 0.001), one round")
    a = ap.parse_args()
    jobs = {"quick: SGM(1, 0.01), h = 0.001": (1.0, 0.01, 10, 0.001)} if a.quick else JOBS
    if a.quick:
        a.repeat = 1
    rows = []
    for name, job in jobs.items():
        lam, lp, args = _atoms(*job)
        o1, _ = _old(lam, lp, args)
        o2, _ = _new(lam, lp, args)
        o3, _ = _loop(lam, lp, args)
        fin = np.isfinite(o1)
        diff = float(np.max(np.abs(np.expm1(o2[fin] - o1[fin])))) if np.array_equal(fin, np.isfinite(o2)) else float("inf")
        fin3 = np.isfinite(o3)
        diff3 = float(np.max(np.abs(np.expm1(o2[fin3] - o3[fin3])))) if np.array_equal(fin3, np.isfinite(o2)) else float("inf")
        t_old, t_new, t_loop = [], [], []
        for _ in range(a.repeat):
            for f, ts in ((_old, t_old), (_new, t_new), (_loop, t_loop)):
                c0 = time.process_time()
                f(lam, lp, args)
                ts.append(time.process_time() - c0)
        rows.append({"job": name, "cells": int(lam.size), "old_cpu": statistics.median(t_old),
                     "new_cpu": statistics.median(t_new), "old_peak_mb": _peak(_old, lam, lp, args),
                     "new_peak_mb": _peak(_new, lam, lp, args), "max_rel_diff": diff,
                     "loop_cpu": statistics.median(t_loop), "loop_peak_mb": _peak(_loop, lam, lp, args),
                     "max_rel_diff_loop": diff3})
    if a.json:
        print(json.dumps({"load": os.getloadavg(), "rows": rows}))
        return
    print(f"load average {tuple(round(x, 2) for x in os.getloadavg())}; median of {a.repeat} alternating rounds, CPU")
    print(f"{'partition':34} {'cells':>7} {'per-atom [s]':>12} {'group loop [s]':>14} {'chain [s]':>9} "
          f"{'×atom':>6} {'×loop':>6} {'peak MB atom/loop/chain':>23} {'rel diff atom':>13} {'rel diff loop':>13}")
    for r in rows:
        print(f"{r['job']:34} {r['cells']:>7} {r['old_cpu']:>12.3f} {r['loop_cpu']:>14.3f} {r['new_cpu']:>9.3f} "
              f"{r['old_cpu'] / r['new_cpu']:>5.2f}× {r['loop_cpu'] / r['new_cpu']:>5.2f}× "
              f"{r['old_peak_mb']:>7.1f}/{r['loop_peak_mb']:.1f}/{r['new_peak_mb']:<7.1f} "
              f"{r['max_rel_diff']:>13.1e} {r['max_rel_diff_loop']:>13.1e}")


if __name__ == "__main__":
    main()
