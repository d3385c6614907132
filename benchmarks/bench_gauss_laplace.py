"""Benchmark: Δ-divergence of Gaussian μ=1 vs Laplace b=1, dpcompare against [BCP] App. B.3.

In one run it times
  1. the paper's method (``baseline_b3.py``: uniform π grid of ceil(1/tol) points, one
     ``minimize_scalar`` per π, multiprocessing Pool over all cores), tol = 1e-4 by default;
  2. ``dpcompare.comparison.delta_divergences`` on the closed-form mechanisms: both directions from one
     certified sweep (the headline row), then ``delta_divergence`` called once per direction; min over
     ``--repeat`` runs, mechanisms rebuilt every run;
  3. the same with only oracle access, like B.3: ``TradeoffOracle`` on the very callables B.3 uses,
     then ``delta_divergence`` on the certified pairs (sampling included in the time);
and prints each Δ, its absolute error against the mpmath reference (``tests/reference_values.py``,
30 digits), whether the certified bracket contains the reference, and the speed-up over B.3.

Target: dpcompare ≥ 10 000× faster than B.3 at its tolerance 1e-3, error ≤ 1e-12.
B.3 is timed once (it takes seconds); dpcompare is the minimum over ``--repeat`` runs.

Usage:
    python benchmarks/bench_gauss_laplace.py            # B.3 at tol 1e-3 once (~5–10 s on 2 cores)
    python benchmarks/bench_gauss_laplace.py --quick    # smoke test: B.3 at tol = 1e-2
    python benchmarks/bench_gauss_laplace.py --json     # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import numpy as np  # noqa: E402
import scipy  # noqa: E402

import baseline_b3  # noqa: E402
import dpcompare as dc  # noqa: E402
from dpcompare.comparison import delta_divergence, delta_divergences  # noqa: E402
from dpcompare.mechanisms.oracle import TradeoffOracle  # noqa: E402
from reference_values import gauss_laplace_reference  # noqa: E402

TARGET_SPEEDUP = 10_000.0  # target: ≥ 10 000× B.3 at its tolerance 1e-3
TARGET_ERROR = 1e-12
# a bracket "contains" the reference up to the rounding of double-precision Bayes errors
BRACKET_SLACK = 1e-15


def _min_time(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _row(method, seconds, r_gl, r_lg, ref):
    row = {
        "method": method,
        "seconds": seconds,
        "delta_gl": r_gl if isinstance(r_gl, float) else r_gl.value,
        "delta_lg": r_lg if isinstance(r_lg, float) else r_lg.value,
    }
    row["err_gl"] = abs(row["delta_gl"] - ref.delta_gl)
    row["err_lg"] = abs(row["delta_lg"] - ref.delta_lg)
    if not isinstance(r_gl, float):
        row["bracket_gl"] = [r_gl.lower, r_gl.upper]
        row["bracket_lg"] = [r_lg.lower, r_lg.upper]
        row["bracket_contains_exact"] = bool(
            r_gl.lower - BRACKET_SLACK <= ref.delta_gl <= r_gl.upper + BRACKET_SLACK
            and r_lg.lower - BRACKET_SLACK <= ref.delta_lg <= r_lg.upper + BRACKET_SLACK
        )
    else:
        row["bracket_gl"] = row["bracket_lg"] = None
        row["bracket_contains_exact"] = None
    return row


def run(tol: float, repeat: int, oracle_points: int, n_jobs: int) -> dict:
    ref = gauss_laplace_reference(1.0, 1.0)

    # 1. the paper's method
    b3 = baseline_b3.delta_divergences(tol=tol, mu=1.0, n_jobs=n_jobs)
    label = f"B.3 (paper): grid tol={tol:g}, minimize_scalar, Pool({b3['processes']})"
    rows = [_row(label, b3["seconds"], b3["delta_gl"], b3["delta_lg"], ref)]

    # 2. dpcompare, closed forms
    def closed():
        g, lap = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
        return delta_divergence(g, lap), delta_divergence(lap, g)

    closed()  # warm-up (imports, first-call caches of scipy)
    t_closed, (c_gl, c_lg) = _min_time(closed, repeat)

    # 2a. both directions from one sweep (delta_divergences), as B.3 gets both from one grid of R
    def closed_both():
        return delta_divergences(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))

    closed_both()
    t_both, (d_gl, d_lg) = _min_time(closed_both, repeat)
    rows.append(_row("dpcompare delta_divergences (closed forms, one sweep)", t_both, d_gl, d_lg, ref))
    rows.append(_row("dpcompare delta_divergence × 2 (closed forms)", t_closed, c_gl, c_lg, ref))

    # 2b. the whole comparison (both directions, crossings, verdict) in one sweep
    def whole():
        c = dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))
        return c.delta_ab, c.delta_ba

    whole()
    t_whole, (w_gl, w_lg) = _min_time(whole, repeat)
    rows.append(_row("dpcompare compare (both Δ, crossings, verdict)", t_whole, w_gl, w_lg, ref))

    # 3. dpcompare with oracle access only (the B.3 callables)
    fg, fl = partial(baseline_b3.f_gauss, mu=1.0), partial(baseline_b3.f_lap, mu=1.0)

    def oracle():
        g = TradeoffOracle(fg, name="f_gauss", points=oracle_points)
        lap = TradeoffOracle(fl, name="f_lap", points=oracle_points)
        return delta_divergence(g, lap), delta_divergence(lap, g)

    oracle()
    t_oracle, (o_gl, o_lg) = _min_time(oracle, max(1, min(repeat, 5)))
    rows.append(_row(f"dpcompare TradeoffOracle({oracle_points} pts) on the B.3 callables", t_oracle, o_gl, o_lg, ref))

    for row in rows:
        row["speedup_vs_b3"] = b3["seconds"] / row["seconds"]
    main = rows[1]
    return {
        "benchmark": "gauss(mu=1) vs laplace(b=1): Delta-divergence, both directions",
        "reference": {
            "delta_gl": ref.delta_gl,
            "delta_lg": ref.delta_lg,
            "delta_gl_30_digits": ref.delta_gl_str,
            "delta_lg_30_digits": ref.delta_lg_str,
            "pi_gl": ref.pi_gl,
            "pi_lg": ref.pi_lg,
            "source": "tests/reference_values.py (mpmath, 30 digits)",
        },
        "b3_tol": tol,
        "b3_grid_points": b3["grid_points"],
        "repeat": repeat,
        "rows": rows,
        "target": {"speedup": TARGET_SPEEDUP, "max_error": TARGET_ERROR},
        "target_met": bool(
            main["speedup_vs_b3"] >= TARGET_SPEEDUP and max(main["err_gl"], main["err_lg"]) <= TARGET_ERROR
        ),
        "environment": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "dpcompare": dc.__version__,
            "machine": platform.machine(),
        },
    }


def print_table(res: dict) -> None:
    ref = res["reference"]
    print("Δ-divergence, Gaussian μ=1 vs Laplace b=1 (both directions); exact (mpmath 30 digits):")
    print(f"  Δ(G‖L) = {ref['delta_gl_30_digits']}  at π = {ref['pi_gl']:.6g}")
    print(f"  Δ(L‖G) = {ref['delta_lg_30_digits']}  at π = {ref['pi_lg']:.6g}")
    print()
    head = ("method", "time [s]", "Δ(G‖L)", "|err|", "Δ(L‖G)", "|err|", "bracket∋exact", "speed-up")
    lines = []
    for r in res["rows"]:
        ok = {None: "n/a", True: "yes", False: "NO"}[r["bracket_contains_exact"]]
        lines.append(
            (
                r["method"],
                f"{r['seconds']:.4g}",
                f"{r['delta_gl']:.12f}",
                f"{r['err_gl']:.1e}",
                f"{r['delta_lg']:.12f}",
                f"{r['err_lg']:.1e}",
                ok,
                f"{r['speedup_vs_b3']:.0f}×",
            )
        )
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    print(fmt.format(*head))
    print("  ".join("-" * w for w in widths))
    for l in lines:
        print(fmt.format(*l))
    print()
    main = res["rows"][1]
    print(
        f"target: ≥{res['target']['speedup']:.0f}× faster than B.3 at error ≤ {res['target']['max_error']:g} → "
        f"{main['speedup_vs_b3']:.0f}×, max error {max(main['err_gl'], main['err_lg']):.1e}: "
        f"{'MET' if res['target_met'] else 'NOT MET'}"
    )
    env = res["environment"]
    print(
        f"(B.3 grid {res['b3_grid_points']} points on {env['cpus']} CPUs, one run; dpcompare: min of "
        f"{res['repeat']} runs; Python {env['python']}, numpy {env['numpy']}, scipy {env['scipy']})"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout and nothing else")
    ap.add_argument("--quick", action="store_true", help="smoke test: B.3 at tol=1e-2, 3 repetitions")
    ap.add_argument("--tol", type=float, default=None, help="B.3 grid tolerance (default 1e-3; 1e-2 with --quick)")
    ap.add_argument("--repeat", type=int, default=None, help="dpcompare repetitions, min taken (default 20; 3 with --quick)")
    ap.add_argument("--oracle-points", type=int, default=4096, help="samples of f per TradeoffOracle (default 4096)")
    ap.add_argument("--jobs", type=int, default=-1, help="B.3 processes (default -1: all cores, as in the paper)")
    args = ap.parse_args(argv)
    tol = args.tol if args.tol is not None else (1e-2 if args.quick else 1e-3)
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 20)
    if not (0 < tol < 1):
        ap.error(f"--tol must be in (0, 1), got {tol}")
    if repeat < 1:
        ap.error(f"--repeat must be >= 1, got {repeat}")
    res = run(tol, repeat, args.oracle_points, args.jobs)
    res["quick"] = bool(args.quick)
    if args.json:
        print(json.dumps(res))
    else:
        print_table(res)
        if args.quick:
            print("(--quick: smoke test only; the speed-up is not meaningful at this tolerance)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
