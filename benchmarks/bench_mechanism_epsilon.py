"""Benchmark: scalar ``Gaussian.epsilon`` and ``Laplace.epsilon`` in a 10⁴-call loop, two source trees.

Each tree runs in its own subprocess (``PYTHONPATH=<tree>/src``) on the same seeded inputs
(μ or 1/b log-uniform in [0.05, 20], δ log-uniform in [1e-12, 1e-2]); the table gives the time per
call for each tree and the ratio baseline/candidate (> 1: the candidate is faster). Minimum of
``--repeat`` runs per tree. The default baseline is /work/main; to compare with a fixed commit,
export it first: ``git archive 2cef12d src | tar -x -C /tmp/base2cef`` and pass ``--baseline /tmp/base2cef``.

Usage:
    python benchmarks/bench_mechanism_epsilon.py [--baseline DIR] [--candidate DIR] [--n 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = r"""
import json, math, sys, time
import numpy as np
import dpcompare as dc
n, repeat = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(12)
par = np.exp(rng.uniform(math.log(0.05), math.log(20.0), n))
dl = np.exp(rng.uniform(math.log(1e-12), math.log(1e-2), n))
out = {"file": dc.__file__}
for name, make in (("Gaussian.epsilon", lambda x: dc.Gaussian(mu=float(x))),
                   ("Laplace.epsilon", lambda x: dc.Laplace(b=1.0 / float(x)))):
    mechs = [make(x) for x in par]
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        vals = [m.epsilon(float(d)) for m, d in zip(mechs, dl)]
        best = min(best, time.perf_counter() - t0)
    out[name] = {"seconds": best, "per_call_us": 1e6 * best / n, "checksum": float(np.sum(vals))}
print(json.dumps(out))
"""


def run(tree: Path, n: int, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    res = subprocess.run([sys.executable, "-c", _CHILD, str(n), str(repeat)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, default=Path("/work/main"))
    ap.add_argument("--candidate", type=Path, default=HERE.parent)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    base, cand = run(a.baseline, a.n, a.repeat), run(a.candidate, a.n, a.repeat)
    rows = []
    for key in ("Gaussian.epsilon", "Laplace.epsilon"):
        b, c = base[key], cand[key]
        rows.append({"call": key, "baseline_us": b["per_call_us"], "candidate_us": c["per_call_us"],
                     "speedup": b["seconds"] / c["seconds"],
                     "checksum_diff": abs(b["checksum"] - c["checksum"])})
    if a.json:
        print(json.dumps({"n": a.n, "baseline": str(a.baseline), "candidate": str(a.candidate), "rows": rows}))
        return
    print(f"{a.n} scalar calls; baseline {a.baseline}, candidate {a.candidate}")
    print(f"{'call':<18} {'baseline µs':>12} {'candidate µs':>13} {'speed-up':>9} {'|Σε diff|':>11}")
    for r in rows:
        print(f"{r['call']:<18} {r['baseline_us']:12.1f} {r['candidate_us']:13.1f} {r['speedup']:9.2f} {r['checksum_diff']:11.3g}")


if __name__ == "__main__":
    main()
