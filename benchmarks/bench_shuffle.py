"""Benchmark: the shuffle model at n = 10⁶ users, dpcompare ([MIX] Thm 4.2) against the clones bound.

In one run, for each ε₀ it times

  1. ``dpcompare.mixtures.Shuffled(eps0, n)``: building the certified (pessimistic, optimistic)
     discrete pairs of Thm 4.2, then the trade-off f(α) on a 1001-point α grid, the privacy profile
     δ(ε) on an ``--grid``-point ε grid, and ε at δ = 1e-6 — all views of the same object;
  2. the baseline, Feldman–McMillan–Talwar's numerical method (``dpcompare.mixtures.FMTBound``,
     step 1): δ(ε) on the same ε grid, and ε at δ = 1e-6 by root finding. It has no trade-off view.

and prints the times, their ratio, both ε and the width of dpcompare's certified δ bracket.

Target (issue): trade-off and δ(ε) for n = 10⁶ in under 10 s on 2 cores.

Scaling mode (targets: n = 10⁶ ≤ 0.1 s; n = 10⁹ ≤ 10 s and ≤ 1 GB, certified): for each
n, a fresh process builds ``Shuffled(1, n)`` (Thm 4.2) and computes ε at δ = 1e-6; the script
reports the time of that work (after a warm-up) and the process's peak RSS, for this tree and for a
baseline tree (default /work/main/src, i.e. main before this change) in the same run. Each child runs
under an address-space limit (``--limit-gb``, default 4), so the baseline's O(n) arrays end in a
MemoryError instead of taking the machine down.

Usage:
    python benchmarks/bench_shuffle.py --scaling                       # n = 1e4, 1e6, 1e8, 1e9
    python benchmarks/bench_shuffle.py --scaling --baseline-src PATH   # another baseline tree
    python benchmarks/bench_shuffle.py                 # n = 1e6, eps0 = 1
    python benchmarks/bench_shuffle.py --eps0 0.5 4    # other ε₀
    python benchmarks/bench_shuffle.py --quick         # n = 1e5, smaller grids (smoke test)
    python benchmarks/bench_shuffle.py --json          # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

from dpcompare.mixtures import FMTBound, Shuffled

TARGET_SECONDS = 10.0
DELTA = 1e-6


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench(eps0: float, n: int, grid: int) -> dict[str, object]:
    alphas = np.linspace(0.0, 1.0, 1001)
    eps_grid = np.linspace(0.0, eps0, grid)

    # 1. dpcompare: one object, every view
    t_build, mech = _timed(lambda: (lambda m: (m.pairs(), m)[1])(Shuffled(eps0, n)))
    t_f, f = _timed(lambda: mech.tradeoff(alphas))
    t_d, (d_lo, d_hi) = _timed(lambda: mech.delta_bounds(eps_grid))
    t_e, eps_fdp = _timed(lambda: float(mech.epsilon(DELTA)))
    total_fdp = t_build + t_f + t_d + t_e
    lo_at, hi_at = (float(v) for v in mech.delta_bounds(eps_fdp))

    # 2. baseline: Feldman–McMillan–Talwar numerical method
    t_fb, fmt = _timed(lambda: FMTBound(eps0, n))
    t_fd, d_fmt = _timed(lambda: np.array([fmt.delta(float(e)) for e in eps_grid]))
    t_fe, eps_fmt = _timed(lambda: fmt.epsilon(DELTA))
    total_fmt = t_fb + t_fd + t_fe

    plan = mech.plan
    return {
        "eps0": eps0,
        "n": n,
        "grid": grid,
        "fdp": {
            "build_s": t_build,
            "tradeoff_s": t_f,
            "delta_grid_s": t_d,
            "epsilon_s": t_e,
            "total_s": total_fdp,
            "epsilon": eps_fdp,
            "delta_bracket_at_epsilon": [lo_at, hi_at],
            "exact": plan.exact,
            "atoms": plan.atoms,
            "block": plan.block,
            "f_at_0.5": float(f[500]),
        },
        "fmt": {
            "setup_s": t_fb,
            "delta_grid_s": t_fd,
            "epsilon_s": t_fe,
            "total_s": total_fmt,
            "epsilon": eps_fmt,
        },
        "speedup_total": total_fmt / total_fdp,
        "fdp_delta_le_fmt_on_grid": bool(np.all(d_hi <= d_fmt * (1 + 1e-9) + 1e-15)),
        "under_target": total_fdp < TARGET_SECONDS,
    }


def _print_table(res: dict[str, object]) -> None:
    print(f"shuffle model, n = {res['n']:,}, δ = {DELTA:g}; {res['machine']}")
    print(f"target: trade-off + δ(ε) under {TARGET_SECONDS:g} s\n")
    head = f"{'ε₀':>4}  {'method':<34} {'time [s]':>9} {'ε at δ':>10}  notes"
    print(head)
    print("-" * len(head))
    for r in res["rows"]:
        f, b = r["fdp"], r["fmt"]
        note = (
            f"build {f['build_s']:.2f} s, f on 1001 α {f['tradeoff_s']:.3f} s, δ on {r['grid']} ε {f['delta_grid_s']:.3f} s; "
            f"δ bracket at ε: [{f['delta_bracket_at_epsilon'][0]:.4g}, {f['delta_bracket_at_epsilon'][1]:.4g}]"
        )
        print(f"{r['eps0']:>4g}  {'dpcompare Shuffled (Thm 4.2)':<34} {f['total_s']:>9.2f} {f['epsilon']:>10.6g}  {note}")
        note = f"δ on {r['grid']} ε {b['delta_grid_s']:.2f} s, ε by root finding {b['epsilon_s']:.2f} s; no trade-off view"
        print(f"{r['eps0']:>4g}  {'clones (Feldman–McMillan–Talwar)':<34} {b['total_s']:>9.2f} {b['epsilon']:>10.6g}  {note}")
        verdict = "yes" if r["under_target"] else "NO"
        print(
            f"      speed-up {r['speedup_total']:.2f}x; under {TARGET_SECONDS:g} s: {verdict}; "
            f"f-DP δ ≤ clones δ on the grid: {r['fdp_delta_le_fmt_on_grid']}\n"
        )


_CHILD = r"""
import json, resource, sys, time
limit = int(float(sys.argv[2]) * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from dpcompare.mixtures import Shuffled
Shuffled(1.0, 2000).pairs()                      # warm-up: imports, first scipy calls
n = int(float(sys.argv[1]))
t0 = time.perf_counter()
try:
    m = Shuffled(1.0, n)
    eps = float(m.epsilon(1e-6))
    lo, hi = (float(v) for v in m.delta_bounds(eps))
    out = {"ok": True, "epsilon": eps, "delta_bracket": [lo, hi]}
except (MemoryError, ValueError) as exc:
    out = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:120]}"}
out["seconds"] = time.perf_counter() - t0
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def _scaling_row(src: str, n: float, limit_gb: float) -> dict[str, object]:
    import subprocess

    env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, repr(n), repr(limit_gb)], capture_output=True, text=True, env=env, timeout=900
    )
    if proc.returncode != 0:
        return {"ok": False, "error": (proc.stderr.strip().splitlines() or ["killed"])[-1][:120], "seconds": None, "peak_rss_mb": None}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def scaling(ns: list[float], baseline_src: str, limit_gb: float) -> dict[str, object]:
    import subprocess

    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    commit = subprocess.run(["git", "-C", baseline_src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    rows = []
    for n in ns:
        rows.append({"n": n, "new": _scaling_row(here, n, limit_gb), "baseline": _scaling_row(baseline_src, n, limit_gb)})
    return {"baseline_src": baseline_src, "baseline_commit": commit, "limit_gb": limit_gb, "rows": rows}


def _print_scaling(res: dict[str, object]) -> None:
    print(f"shuffle(eps0=1, n): build + ε(1e-6), fresh process each, address space ≤ {res['limit_gb']:g} GiB")
    print(f"baseline: {res['baseline_src']} (commit {res['baseline_commit']})\n")
    head = f"{'n':>8}  {'tree':<9} {'time [s]':>9} {'peak RSS [MB]':>14} {'ε at 1e-6':>12}  {'δ bracket at ε':<28} speed-up"
    print(head)
    print("-" * len(head))
    for r in res["rows"]:
        new, base = r["new"], r["baseline"]
        for name, x in (("this", new), ("baseline", base)):
            if x["ok"]:
                br = f"[{x['delta_bracket'][0]:.4g}, {x['delta_bracket'][1]:.4g}]"
                cols = f"{x['seconds']:>9.3f} {x['peak_rss_mb']:>14.0f} {x['epsilon']:>12.6g}  {br:<28}"
            else:
                cols = f"{'-':>9} {'-' if x['peak_rss_mb'] is None else format(x['peak_rss_mb'], '.0f'):>14} {'-':>12}  {x['error'][:60]}"
            ratio = ""
            if name == "baseline" and new["ok"] and base["ok"]:
                ratio = f"{base['seconds'] / new['seconds']:.1f}x"
            print(f"{r['n']:>8.0e}  {name:<9} {cols} {ratio}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scaling", action="store_true", help="time and peak memory per n, this tree vs a baseline tree")
    ap.add_argument("--ns", type=float, nargs="+", default=[1e4, 1e6, 1e8, 1e9], help="n values of --scaling")
    ap.add_argument("--baseline-src", default="/work/main/src", help="source tree of the baseline (--scaling)")
    ap.add_argument("--limit-gb", type=float, default=4.0, help="address-space limit of each child (--scaling)")
    ap.add_argument("--eps0", type=float, nargs="+", default=[1.0])
    ap.add_argument("--n", type=float, default=1e6, help="number of users (default 1e6)")
    ap.add_argument("--grid", type=int, default=51, help="points of the ε grid for δ(ε)")
    ap.add_argument("--quick", action="store_true", help="n = 1e5, 11-point ε grid")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.scaling:
        res = scaling(args.ns, args.baseline_src, args.limit_gb)
        print(json.dumps(res) if args.json else "", end="\n" if args.json else "")
        if not args.json:
            _print_scaling(res)
        return 0
    n = int(1e5) if args.quick else int(args.n)
    grid = 11 if args.quick else args.grid
    if n < 2 or any(e <= 0 for e in args.eps0) or grid < 2:
        print("error: need n >= 2, eps0 > 0 and --grid >= 2", file=sys.stderr)
        return 2
    # warm-up (imports, first calls into scipy.stats) outside the timed region, for both methods
    Shuffled(1.0, 2000).pairs()
    FMTBound(1.0, 2000).epsilon(DELTA)
    rows = [bench(e, n, grid) for e in args.eps0]
    res = {
        "quick": bool(args.quick),
        "n": n,
        "delta": DELTA,
        "target_s": TARGET_SECONDS,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "rows": rows,
    }
    if args.json:
        print(json.dumps(res))
    else:
        _print_table(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
