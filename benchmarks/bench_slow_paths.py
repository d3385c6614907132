"""Benchmark: the calls the deep API fuzz found over its 30 s budget, timed on this tree and on a baseline tree in
one run, each in a fresh process (wall and CPU seconds of the call alone, after ``import dpcompare``), with the answer.

The baseline is another source tree of dpcompare (``--before SRC``, e.g. the previous version extracted with
``git archive <commit> src | tar -x -C /tmp/before``); without it only this tree is timed. ``--dp-accounting`` also
times dp-accounting's PLD accountant on the 10⁶-step job (its default grid 1e-4, pessimistic; run under a 4 GB
address-space limit and the ``--timeout``, and reported as such where it does not finish).

Usage:
    python benchmarks/bench_slow_paths.py --before /tmp/before/src           # several minutes on 2 cores
    python benchmarks/bench_slow_paths.py --json
    python benchmarks/bench_slow_paths.py --quick                            # smoke test: one short call
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

CALLS = {
    "sgm_tiny_p_bounds": "dc.SubsampledGaussian(1, 1e-8, 1000).delta_bounds(1e-3)",
    "sgm_tiny_p_delta": "dc.SubsampledGaussian(1, 1e-8, 1000).delta(1e-3)",
    "sgm_tiny_p_small_sigma": "dc.SubsampledGaussian(0.0367, 9.9e-8, 18).delta_bounds(0.0417)",
    "sgm_1e7_eps": "dc.SubsampledGaussian(2, 9e-4, 10**7, discretization=4e-5).epsilon(1e-4)",
    "sgm_1e6_delta": "dc.SubsampledGaussian(2.0, 0.9, 1000000).delta(0.001)",
    "levy_shuffle_gauss": ("dc.levy_distance(dc.parse('shuffle_pair(eps0=1e-06, n=2)'), "
                           "Composed(dc.Gaussian(mu=15.11), steps=1000), max_points=30000)"),
}
QUICK = {"sgm_tiny_p_route": "dc.SubsampledGaussian(2.0, 1e-7, 100).delta_bounds(1e-3)"}

_RUNNER = r"""
import json, sys, time
import numpy as np
import dpcompare as dc
from dpcompare.mechanisms.composed import Composed
dc.Gaussian(mu=1.0).delta(1.0)  # warm the lazy imports shared by every call
t, c = time.perf_counter(), time.process_time()
r = eval(sys.argv[1])
wall, cpu = time.perf_counter() - t, time.process_time() - c
if hasattr(r, "lower") and hasattr(r, "upper"):
    r = [float(r.lower), float(r.upper)]
elif isinstance(r, tuple) or hasattr(r, "pessimistic"):
    r = [float(np.asarray(x)) for x in r][:2]
else:
    r = float(np.asarray(r))
print(json.dumps({"wall": wall, "cpu": cpu, "answer": r}))
"""

_DPA = r"""
import json, resource, time
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
from dp_accounting.pld import privacy_loss_distribution as pld
t, c = time.perf_counter(), time.process_time()
d = pld.from_gaussian_mechanism(2.0, sampling_prob=0.9, value_discretization_interval=1e-4, pessimistic_estimate=True,
                                use_connect_dots=True).self_compose(10**6)
r = d.get_delta_for_epsilon(0.001)
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "answer": float(r)}))
"""


def run(code: str, src: str | None, timeout: float, *args: str) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    try:
        out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(r: dict | None) -> str:
    if r is None:
        return "—"
    if "error" in r:
        return r["error"][:28]
    return f"{r['wall']:7.2f} {r['cpu']:7.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="src directory of the baseline tree")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dp-accounting", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--only", nargs="*", help="names of the calls to time (default: all)")
    args = ap.parse_args()
    calls = QUICK if args.quick else {k: v for k, v in CALLS.items() if not args.only or k in args.only}
    rows = []
    for name, expr in calls.items():
        now = run(_RUNNER, SRC, args.timeout, expr)
        before = run(_RUNNER, args.before, args.timeout, expr) if args.before else None
        ratio = (before["cpu"] / now["cpu"]) if before and "cpu" in before and "cpu" in now and now["cpu"] > 0 else None
        rows.append(dict(name=name, call=expr, now=now, before=before, cpu_ratio=ratio))
    if args.dp_accounting and not args.quick:
        rows.append(dict(name="dp_accounting_1e6", call="dp-accounting PLD (2.0, 0.9, 10⁶), δ(0.001)",
                         now=run(_DPA, None, args.timeout), before=None, cpu_ratio=None))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'call':<24} {'before wall   cpu':>17} {'now wall   cpu':>16} {'cpu ×':>6}  answer now (before)")
    for r in rows:
        ratio = f"{r['cpu_ratio']:6.1f}" if r["cpu_ratio"] else "     —"
        ans = r["now"].get("answer", "")
        ans_b = r["before"].get("answer", "") if r["before"] else ""
        print(f"{r['name']:<24} {_fmt(r['before']):>17} {_fmt(r['now']):>16} {ratio}  {ans} ({ans_b})")


if __name__ == "__main__":
    main()
