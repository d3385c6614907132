"""Benchmark: the certified Theorem 3 pair of [BCP], both directions — this tree against a
baseline tree of dpcompare, in one run.

M = SGM(σ = 2, p = 9e-4, N = 1.4e6), M̃ = SGM(σ = 3, p = 9e-4, Ñ = 3.4e6): build both mechanisms
(automatic discretisation, certified pessimistic and optimistic compositions) and the certified
brackets of Δ(M‖M̃) and Δ(M̃‖M). Each measurement is a fresh child process (cold caches, imports done
before the clock starts), alternating between the two trees; it reports wall time, the process's peak
RSS (``resource.getrusage``), the RSS after the imports, and the bracket widths. Medians over ``--repeat``.

The baseline tree is a ``src`` directory of another dpcompare version, e.g. today's main:

    git archive d144db9 src | tar -x -C /tmp/base
    python benchmarks/bench_sgm_speed.py --baseline /tmp/base/src [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OURS = os.path.join(os.path.dirname(HERE), "src")

CHILD = r"""
import json, resource, time
import dpcompare
from dpcompare.comparison import delta_bracket
from dpcompare.mechanisms.sgm import SubsampledGaussian
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
t0 = time.perf_counter()
a, b = SubsampledGaussian(2.0, 9e-4, 1_400_000), SubsampledGaussian(3.0, 9e-4, 3_400_000)
ab, ba = delta_bracket(a, b), delta_bracket(b, a)
t = time.perf_counter() - t0
print(json.dumps({"file": dpcompare.__file__, "seconds": t,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                  "import_rss_mb": rss0, "ab": [ab.lower, ab.upper], "ba": [ba.lower, ba.upper],
                  "width": max(ab.width, ba.width)}))
"""


def measure(src: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if not res["file"].startswith(src):
        raise RuntimeError(f"child imported {res['file']}, not the tree under {src}")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="src directory of the baseline dpcompare tree")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs: dict[str, list[dict]] = {"baseline": [], "this tree": []}
    for _ in range(args.repeat):
        runs["baseline"].append(measure(os.path.abspath(args.baseline)))
        runs["this tree"].append(measure(OURS))
    summary = {}
    for name, rs in runs.items():
        summary[name] = {
            "seconds": statistics.median(r["seconds"] for r in rs),
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in rs),
            "import_rss_mb": statistics.median(r["import_rss_mb"] for r in rs),
            "width": max(r["width"] for r in rs),
            "ab": rs[-1]["ab"],
            "ba": rs[-1]["ba"],
            "all_seconds": [r["seconds"] for r in rs],
        }
    ratio = summary["baseline"]["seconds"] / summary["this tree"]["seconds"]
    if args.json:
        print(json.dumps({"summary": summary, "speedup": ratio, "cpus": os.cpu_count()}))
        return 0
    print("certified Theorem 3 pair (σ=2 vs 3, p=9e-4, N=1.4e6 vs 3.4e6), both directions; "
          f"medians of {args.repeat} fresh processes, {os.cpu_count()} cores")
    print(f"{'tree':<10} {'time [s]':>9} {'peak RSS [MB]':>14} {'(after imports)':>16} {'max width':>10}  Δ(M‖M̃) bracket")
    for name, s in summary.items():
        print(f"{name:<10} {s['seconds']:>9.2f} {s['peak_rss_mb']:>14.0f} {s['import_rss_mb']:>16.0f} {s['width']:>10.2e}  "
              f"[{s['ab'][0]:.6e}, {s['ab'][1]:.6e}]")
    print(f"speed-up: {ratio:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
