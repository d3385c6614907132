"""Benchmark: the optimistic merge of step 3 (``tradeoff/grid_merge.py``: the group-per-iteration loop, with
the regular groups of long fast runs solved at once by ``tradeoff/grid_chain.py`` where an up-front test says
it pays) against the group loop alone (``chain=False``), optionally against the merge of another source tree
(``--before DIR``: its ``src/dpcompare/tradeoff/grid_merge.py``, e.g. ``git archive main src``), and against
the per-atom loop the group loop replaced (kept as the reference in ``tests/tradeoff/test_grid_merge.py``;
``--atom``), on one-step DP-SGD partitions: ``describe``'s SGM(σ = 1, p = 0.01, N = 10³), the [BCP] Theorem 3
pair SGM(2, 9e-4, 1.4·10⁶) / SGM(3, 9e-4, 3.4·10⁶), each on its default grid (4 cells per grid interval), and
a spread of SGM(σ, p) at fixed grid spacings h (``--spread``: SGM(0.5, 0.2) at h = 1e-2, 1e-3, 1e-4;
SGM(1, 0.01) at 1e-3, 1e-4, 1e-5; SGM(2, 0.001) at 1e-4, 2e-5, 5e-6; SGM(3, 9e-4) at 1e-4, 1e-5), and
``--sweep``: SGM(σ, p), σ ∈ {0.6, 0.8, 1, 1.5, 2, 3}, p ∈ {1e-3, 0.01, 0.05, 0.2}, on the default grid of
N = 10³ steps and on 0.3× that.

For each partition it prints the cell count, the median CPU time (``time.process_time``, the versions
alternating, ``--repeat`` rounds) of each version and the ratio group loop / default (> 1: the default is
faster), the share of groups the chain took, and the largest relative difference of the landed masses against
the group loop (the two make the same greedy decisions and differ in rounding; where the chain is not used
they are bit for bit equal).

Usage:
    python benchmarks/bench_greedy_merge.py [--repeat 7] [--spread] [--sweep] [--only TEXT] [--before /tmp/before/]
                                            [--atom] [--json]
    python benchmarks/bench_greedy_merge.py --quick --json      # smoke test: a small partition, 1 round
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "tradeoff"))

import numpy as np  # noqa: E402

from dpcompare.composition.sgm_grid import default_discretization  # noqa: E402
from dpcompare.composition.sgm_step import sgm_partition  # noqa: E402
from dpcompare.tradeoff.grid import merge_atoms  # noqa: E402
from dpcompare.tradeoff import grid_merge as gm  # noqa: E402

JOBS = {
    "describe sgm: SGM(1, 0.01, 1e3)": (1.0, 0.01, 1000, None),
    "Theorem 3: SGM(2, 9e-4, 1.4e6)": (2.0, 9e-4, 1_400_000, None),
    "Theorem 3: SGM(3, 9e-4, 3.4e6)": (3.0, 9e-4, 3_400_000, None),
}
SPREAD = {f"SGM({s:g}, {p:g}), h = {h:g}": (s, p, 1, h) for s, p, hs in (
    (0.5, 0.2, (1e-2, 1e-3, 1e-4)), (1.0, 0.01, (1e-3, 1e-4, 1e-5)), (2.0, 1e-3, (1e-4, 2e-5, 5e-6)),
    (3.0, 9e-4, (1e-4, 1e-5))) for h in hs}  # (coarser grids than these leave SGM's tail no partner to land on)
#: ``--sweep``: SGM(σ, p) on the default grid of N = 10³ steps and on 0.3× that (the grid is refused or larger than
#: 1.5·10⁶ cells for the combinations left out)
SWEEP = {f"SGM({s:g}, {p:g}), h = {f:g}·default": (s, p, 1000, None, f) for s in (0.6, 0.8, 1.0, 1.5, 2.0, 3.0)
         for p in (1e-3, 1e-2, 0.05, 0.2) for f in (1.0, 0.3)}


def _atoms(sigma: float, p: float, steps: int, h: float | None = None, factor: float = 1.0):
    """The atoms ``grid.optimistic_step`` hands to the merge: the low tail, the cells, the high tail (on the
    grid h, or ``factor`` × the default grid of ``steps`` steps when h is None)."""
    h = default_discretization(sigma, p, steps) * factor if h is None else h
    part = sgm_partition(sigma, p, h)
    lam, lp = merge_atoms(part)
    return lam, lp, (part.h, part.offset, part.k_lo, part.k_hi)


def _load_before(tree: str):
    """The ``grid_merge`` module of another source tree (its relative imports resolve to this tree's
    ``dpcompare.tradeoff``, whose ``grid`` it shares)."""
    path = Path(tree) / "src" / "dpcompare" / "tradeoff" / "grid_merge.py"
    spec = importlib.util.spec_from_file_location("dpcompare.tradeoff._before_grid_merge", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _rel_diff(a, b) -> float:
    fin = np.isfinite(a)
    if not np.array_equal(fin, np.isfinite(b)):
        return float("inf")
    return float(np.max(np.abs(np.expm1(b[fin] - a[fin])), initial=0.0))


def _chain_share(lam, lp, args) -> float:
    """Groups the chain took / groups of the walk (counted by wrapping ``solve_chain``)."""
    taken = [0]
    real = gm.solve_chain

    def spy(*a):
        r = real(*a)
        taken[0] += r[0].size
        return r

    gm.solve_chain = spy
    try:
        out, _ = gm.greedy_merge(lam, lp, *args)
    finally:
        gm.solve_chain = real
    return taken[0] / max(1, int(np.isfinite(out).sum()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--spread", action="store_true", help="also the SGM(σ, p) × h spread")
    ap.add_argument("--sweep", action="store_true", help="also SGM(σ, p) on default and 0.3× default grids (48)")
    ap.add_argument("--only", default=None, help="only the partitions whose name contains this")
    ap.add_argument("--before", default=None, help="a source tree whose grid_merge is timed too")
    ap.add_argument("--atom", action="store_true", help="also the per-atom reference loop (slow)")
    ap.add_argument("--quick", action="store_true", help="one small partition (SGM(2, 0.001), h = 1e-4), one round")
    a = ap.parse_args()
    jobs = {"quick: SGM(2, 0.001), h = 1e-4": (2.0, 1e-3, 1, 1e-4)} if a.quick else dict(JOBS)
    if a.spread and not a.quick:
        jobs.update(SPREAD)
    if a.sweep and not a.quick:
        jobs.update(SWEEP)
    if a.only:
        jobs = {k: v for k, v in jobs.items() if a.only in k}
    if a.quick:
        a.repeat, a.atom = 1, True
    versions = {"default": lambda lam, lp, args: gm.greedy_merge(lam, lp, *args),
                "loop": lambda lam, lp, args: gm.greedy_merge(lam, lp, *args, chain=False)}
    if a.before:
        before = _load_before(a.before)
        versions["before"] = lambda lam, lp, args: before.greedy_merge(lam, lp, *args)
    if a.atom:
        from test_grid_merge import reference_greedy_merge

        versions["atom"] = lambda lam, lp, args: reference_greedy_merge(lam.tolist(), lp.tolist(), *args)
    rows = []
    for name, job in jobs.items():
        lam, lp, args = _atoms(*job)
        if lam.size > 1_500_000:
            continue
        try:
            outs = {k: f(lam, lp, args) for k, f in versions.items()}
        except RuntimeError as e:  # (a grid too coarse for the mechanism: optimistic_step refuses it too)
            print(f"{name}: {e}", file=sys.stderr)
            continue
        times: dict[str, list[float]] = {k: [] for k in versions}
        for _ in range(a.repeat):
            for k, f in versions.items():
                c0 = time.process_time()
                f(lam, lp, args)
                times[k].append(time.process_time() - c0)
        row = {"job": name, "cells": int(lam.size), "chain_share": _chain_share(lam, lp, args)}
        for k in versions:
            row[f"{k}_cpu"] = statistics.median(times[k])
            row[f"{k}_vs_loop_rel_diff"] = _rel_diff(outs["loop"][0], outs[k][0])
            row[f"{k}_snap"] = outs[k][1]
        if a.atom:  # (the keys of the first version of this script: the per-atom loop against the default)
            row.update(old_cpu=row["atom_cpu"], new_cpu=row["default_cpu"],
                       max_rel_diff=_rel_diff(outs["atom"][0], outs["default"][0]))
        rows.append(row)
    if a.json:
        print(json.dumps({"load": os.getloadavg(), "repeat": a.repeat, "rows": rows}))
        return
    print(f"load average {tuple(round(x, 2) for x in os.getloadavg())}; median of {a.repeat} alternating rounds, CPU [ms]")
    names = list(versions)
    head = " ".join(f"{k:>8}" for k in names)
    atom = "atom" in versions
    print(f"{'partition':34} {'cells':>7} {head} {'loop/def':>8} {'chain %':>7} {'rel diff def':>12}"
          + (f" {'atom vs loop':>12}" if atom else ""))
    for r in rows:
        cols = " ".join(f"{1e3 * r[k + '_cpu']:>8.1f}" for k in names)
        print(f"{r['job']:34} {r['cells']:>7} {cols} {r['loop_cpu'] / r['default_cpu']:>7.2f}× "
              f"{100 * r['chain_share']:>6.1f}% {r['default_vs_loop_rel_diff']:>12.1e}"
              + (f" {r['atom_vs_loop_rel_diff']:>12.1e}" if atom else ""))
    print("rel diff: the largest relative difference of a landed mass from the group loop's (chain=False)")


if __name__ == "__main__":
    main()
