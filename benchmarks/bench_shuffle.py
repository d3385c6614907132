"""Benchmark: the shuffle model at n = 10⁶ users, dpcompare (seed 002 Thm 4.2) against the clones bound.

In one run, for each ε₀ it times

  1. ``dpcompare.mixtures.Shuffled(eps0, n)``: building the certified (pessimistic, optimistic)
     discrete pairs of Thm 4.2, then the trade-off f(α) on a 1001-point α grid, the privacy profile
     δ(ε) on an ``--grid``-point ε grid, and ε at δ = 1e-6 — all views of the same object;
  2. the baseline, Feldman–McMillan–Talwar's numerical method (``dpcompare.mixtures.FMTBound``,
     step 1): δ(ε) on the same ε grid, and ε at δ = 1e-6 by root finding. It has no trade-off view.

and prints the times, their ratio, both ε and the width of dpcompare's certified δ bracket.

Target (issue): trade-off and δ(ε) for n = 10⁶ in under 10 s on 2 cores.

Usage:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps0", type=float, nargs="+", default=[1.0])
    ap.add_argument("--n", type=float, default=1e6, help="number of users (default 1e6)")
    ap.add_argument("--grid", type=int, default=51, help="points of the ε grid for δ(ε)")
    ap.add_argument("--quick", action="store_true", help="n = 1e5, 11-point ε grid")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
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
