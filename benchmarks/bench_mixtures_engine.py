"""Benchmark: the mixtures jobs that used the old private engine (mixtures/_grid.py, _discretize.py),
now on the one engine (tradeoff/grid.py + tradeoff/compose.py), against the same jobs on a baseline
tree in the same run.

Jobs (each: build the certified pairs, then ε at δ = 1e-5, f on 1001 α and δ on 101 ε — every view
reads both pairs, so a smaller pair is part of the gain):

- ``random_init`` one step ([MIX] Thm 5.1): clipped least squares (Example D.2), least squares
  (Example D.1), logistic (Example D.3);
- ``random_init`` T steps (heuristic): logistic T = 3 (the README example), clipped T = 10;
- ``as_pairs`` of a closed-form mechanism (algebra.py: Gaussian μ = 1 and Laplace b = 1, ×10) and
  the specs that go through it: ``subsample(gaussian(mu=1), w=0.01)``,
  ``mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))``.

Every job runs in a fresh process per tree (PYTHONPATH = the tree's src), after one warm-up run in
that process; the time is the median of ``--repeat`` runs (short jobs: as many runs as fill ~1 s, ≤ 50). Trees alternate, job by job. The ε each
tree computes is printed next to the times (the ported code must agree to the printed digits).

Usage:
    python benchmarks/bench_mixtures_engine.py                          # baseline = commit d144db9
    python benchmarks/bench_mixtures_engine.py --baseline-rev <commit>  # another baseline commit
    python benchmarks/bench_mixtures_engine.py --baseline-src PATH      # a baseline src/ directory
    python benchmarks/bench_mixtures_engine.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DELTA = 1e-5

JOBS = {
    "random_init clipped, T=1": "RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=0.5, clip=1.0))",
    "random_init least squares, T=1": "RandomInit(Sensitivity(Loss.LEAST_SQUARES, a=0.5, sigma=2.0))",
    "random_init logistic, T=1": "RandomInit(Sensitivity(Loss.LOGISTIC, bound=2.0))",
    "random_init logistic, T=3": "RandomInit(Sensitivity(Loss.LOGISTIC, bound=1, sigma=2), steps=3, heuristic=True)",
    "random_init clipped, T=10": "RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=0.5, clip=1.0), steps=10, heuristic=True)",
    "as_pairs gaussian+laplace x10": "AS_PAIRS",
    "subsample(gaussian(mu=1), w=0.01)": "dc.parse('subsample(gaussian(mu=1), w=0.01)')",
    "mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))": "dc.parse('mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))')",
}

CHILD = r"""
import json, statistics, sys, time
import numpy as np
import dpcompare as dc
from dpcompare.mixtures import RandomInit, Sensitivity, Loss
from dpcompare.mixtures.algebra import as_pairs

expr, repeat, delta = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
alphas, eps = np.linspace(0, 1, 1001), np.linspace(0, 5, 101)

def run():
    if expr == "AS_PAIRS":
        for _ in range(10):
            for m in (dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)):
                pess, opt = as_pairs(m)
                pess.tradeoff(alphas); opt.tradeoff(alphas); pess.delta(eps); opt.delta(eps)
        return float(pess.epsilon(delta))
    m = eval(expr)
    m.pairs()
    m.tradeoff_bounds(alphas); m.delta_bounds(eps)
    return float(m.epsilon(delta))

t0 = time.process_time()
run()  # warm-up (imports, first-call caches); short jobs are repeated for at least ~1 s in all
repeat = max(repeat, min(50, int(1.0 / max(time.process_time() - t0, 1e-3))))
times, value = [], None
for _ in range(repeat):
    t0 = time.process_time()
    value = run()
    times.append(time.process_time() - t0)
print(json.dumps({"seconds": statistics.median(times), "epsilon": value}))
"""


def _baseline_src(rev: str, tmp: str) -> str:
    """Extract ``src/`` of commit ``rev`` of this repository into ``tmp``."""
    archive = os.path.join(tmp, "base.tar")
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", archive, rev, "src"], check=True)
    with tarfile.open(archive) as tf:
        tf.extractall(tmp, filter="data")
    return os.path.join(tmp, "src")


def _child(src: str, expr: str, repeat: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", CHILD, expr, str(repeat), str(DELTA)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline-rev", default="d144db9", help="baseline commit (default d144db9: main before the port)")
    ap.add_argument("--baseline-src", default=None, help="a baseline src/ directory instead of a commit")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3, help="processes per tree and job, alternating (the fastest counts)")
    ap.add_argument("--only", default=None, help="job names separated by ';' (default: every job)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    names = list(JOBS) if args.only is None else args.only.split(";")
    unknown = [name for name in names if name not in JOBS]
    if unknown:
        ap.error(f"--only: unknown job(s) {unknown}; the jobs are {list(JOBS)}")
    jobs = {name: JOBS[name] for name in names}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = args.baseline_src or _baseline_src(args.baseline_rev, tmp)
        for name, expr in jobs.items():
            bs, ns = [], []
            for _ in range(args.rounds):  # alternate the trees; the fastest round is the least disturbed
                bs.append(_child(base, expr, args.repeat))
                ns.append(_child(str(ROOT / "src"), expr, args.repeat))
            b, n = min(bs, key=lambda r: r["seconds"]), min(ns, key=lambda r: r["seconds"])
            rows.append({"job": name, "baseline_s": b["seconds"], "this_s": n["seconds"], "speedup": b["seconds"] / n["seconds"],
                         "epsilon_baseline": b["epsilon"], "epsilon_this": n["epsilon"]})
    if args.json:
        print(json.dumps({"baseline": args.baseline_src or args.baseline_rev, "delta": DELTA, "rows": rows}))
        return
    print(f"baseline: {args.baseline_src or args.baseline_rev}; fastest of {args.rounds} alternating processes per tree, each the "
          f"median of ≥ {args.repeat} runs after a warm-up; ε at δ = {DELTA:g}")
    print(f"{'job (CPU s)':45s} {'baseline':>9s} {'this':>9s} {'speed-up':>9s}  {'ε baseline':>12s} {'ε this':>12s}")
    for r in rows:
        print(f"{r['job']:45s} {r['baseline_s']:8.3f}s {r['this_s']:8.3f}s {r['speedup']:8.2f}×  "
              f"{r['epsilon_baseline']:12.6g} {r['epsilon_this']:12.6g}")


if __name__ == "__main__":
    main()
