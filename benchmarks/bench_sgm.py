"""Benchmark: the seed-000 §5 comparison of two DP-SGD runs, certified, against dp-accounting.

M = SGM(σ = 2, p = 9e-4, N = 1.4e6), M̃ = SGM(σ = 3, p = 9e-4, Ñ = 3.4e6). In one run it times
  1. dpcompare end to end: build both ``SubsampledGaussian`` mechanisms (automatic discretisation,
     certified pessimistic and optimistic compositions), symmetrise, and compute the certified
     brackets of Δ(M‖M̃) and Δ(M̃‖M) (numerical error bounds included);
  2. the baseline named in the issue: dp-accounting's pessimistic PLDs at its default discretisation
     1e-4 (both adjacency directions, dense ``self_compose``), converted to pairs, Δ both directions;
  3. optionally (``--prv``, ~20 s and 1 GB) Microsoft's prv-accountant δ(ε) bracket at ε = 1 for M (eps_error 0.02), as an independent
     check of one profile value against our pessimistic/optimistic δ.
and prints time, bracket width, peak memory (process RSS high-water mark after the dpcompare part;
``--tracemalloc`` adds the traced allocation peak of a second run), each Δ's distance to the certified
bracket, and time ratios.

Targets (issue): end to end < 30 s on 2 cores, bracket width ≤ 1e-4.

Usage:
    python benchmarks/bench_sgm.py            # full run (~10 s)
    python benchmarks/bench_sgm.py --quick    # smoke test: 100× fewer steps
    python benchmarks/bench_sgm.py --json     # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
import tracemalloc

import numpy as np
import scipy

import dpcompare as dc
from dpcompare.accounting import pld_pair, subsampled_gaussian_composed
from dpcompare.comparison import delta_bracket
from dpcompare.composition.sgm_certified import compose_subsampled_gaussian
from dpcompare.mechanisms import FromPair
from dpcompare.mechanisms.sgm import SubsampledGaussian
from dpcompare.tradeoff import delta_between_pairs

TARGET_SECONDS = 30.0
TARGET_WIDTH = 1e-4


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _distance(x: float, lo: float, hi: float) -> float:
    """How far x lies outside [lo, hi] (0 inside)."""
    return max(lo - x, x - hi, 0.0)


def _traced_peak(spec_a, spec_b) -> float:
    """Peak of Python-traced allocations (numpy arrays included) of a second, untimed dpcompare run
    (tracemalloc slows Python loops several-fold, so it is kept out of the timed run)."""
    compose_subsampled_gaussian.cache_clear()
    tracemalloc.start()
    a, b = SubsampledGaussian(*spec_a), SubsampledGaussian(*spec_b)
    delta_bracket(a, b), delta_bracket(b, a)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(peak)


def run(quick: bool, prv: bool, traced: bool = False) -> dict:
    p = 9e-4
    steps_a, steps_b = (14_000, 34_000) if quick else (1_400_000, 3_400_000)
    spec_a, spec_b = (2.0, p, steps_a), (3.0, p, steps_b)

    # 1. dpcompare, end to end (fresh caches); peak RSS is the process high-water mark after this part
    compose_subsampled_gaussian.cache_clear()
    t0 = time.perf_counter()
    a, b = SubsampledGaussian(*spec_a), SubsampledGaussian(*spec_b)
    ab, ba = delta_bracket(a, b), delta_bracket(b, a)
    t_ours = time.perf_counter() - t0
    rss_ours = _rss_mb()
    traced_peak = _traced_peak(spec_a, spec_b) if traced else float("nan")
    ours = {
        "method": "dpcompare certified (auto discretisation)",
        "seconds": t_ours,
        "delta_ab": [ab.lower, ab.upper],
        "delta_ba": [ba.lower, ba.upper],
        "width_ab": ab.width,
        "width_ba": ba.width,
        "numerical_error": ab.numerical_error,
        "discretization": [a.composition.discretization, b.composition.discretization],
        "fft_len": [a.composition.reports[0].fft_len, b.composition.reports[0].fft_len],
        "peak_rss_mb": rss_ours,
        "tracemalloc_peak_mb": traced_peak / 2**20 if traced else None,
    }

    # 2. baseline: dp-accounting at its default discretisation
    t0 = time.perf_counter()
    pa = FromPair(pld_pair(subsampled_gaussian_composed(*spec_a, discretization=1e-4)))
    pb = FromPair(pld_pair(subsampled_gaussian_composed(*spec_b, discretization=1e-4)))
    (ap, _), (bp, _) = pa.pairs(), pb.pairs()
    d_ab, d_ba = delta_between_pairs(ap, bp)[0], delta_between_pairs(bp, ap)[0]
    t_dpa = time.perf_counter() - t0
    base = {
        "method": "dp-accounting PLD, discretization 1e-4 (baseline)",
        "seconds": t_dpa,
        "delta_ab": d_ab,
        "delta_ba": d_ba,
        "outside_bracket_ab": _distance(d_ab, ab.lower, ab.upper),
        "outside_bracket_ba": _distance(d_ba, ba.lower, ba.upper),
        "peak_rss_mb": _rss_mb(),
    }
    res = {
        "benchmark": f"SGM(σ=2,p=9e-4,N={steps_a}) vs SGM(σ=3,p=9e-4,N={steps_b}): Δ both directions",
        "quick": quick,
        "rows": [ours, base],
        "ratio_time_dpcompare_over_dp_accounting": t_ours / t_dpa,
        "target": {"seconds": TARGET_SECONDS, "bracket_width": TARGET_WIDTH},
        "target_met": bool(t_ours < TARGET_SECONDS and max(ab.width, ba.width) <= TARGET_WIDTH),
        "environment": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "dpcompare": dc.__version__,
        },
    }
    if prv:
        res["prv_check"] = _prv_check(a, spec_a)
    return res


def _prv_check(mech: SubsampledGaussian, spec: tuple[float, float, int]) -> dict:
    """prv-accountant's δ(ε=1) bracket for M next to ours (independent implementation, Gopi et al. 2021)."""
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    sigma, p, steps = spec
    t0 = time.perf_counter()
    acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=p),
                        max_self_compositions=steps, eps_error=0.02, delta_error=1e-9)
    lo, est, hi = acc.compute_delta(epsilon=1.0, num_self_compositions=[steps])
    t_prv = time.perf_counter() - t0
    pess, opt = mech.composition.pessimistic, mech.composition.optimistic  # remove adjacency, like prv
    ours = [float(opt.delta(1.0)), float(pess.delta(1.0))]
    return {"epsilon": 1.0, "prv_delta": [lo, est, hi], "prv_seconds": t_prv, "dpcompare_delta": ours,
            "overlap": bool(max(lo, ours[0]) <= min(hi, ours[1]))}


def print_table(res: dict) -> None:
    ours, base = res["rows"]
    print(res["benchmark"])
    print(f"{'method':<50} {'time [s]':>9} {'Δ(M‖M̃)':>28} {'Δ(M̃‖M)':>28} {'peak RSS [MB]':>14}")
    print(f"{ours['method']:<50} {ours['seconds']:>9.2f} "
          f"{'[%.4e, %.4e]' % tuple(ours['delta_ab']):>28} {'[%.4e, %.4e]' % tuple(ours['delta_ba']):>28} "
          f"{ours['peak_rss_mb']:>14.0f}")
    print(f"{base['method']:<50} {base['seconds']:>9.2f} {base['delta_ab']:>28.4e} {base['delta_ba']:>28.4e} "
          f"{base['peak_rss_mb']:>14.0f}")
    print()
    print(f"bracket width: Δ(M‖M̃) {ours['width_ab']:.2e}, Δ(M̃‖M) {ours['width_ba']:.2e} "
          f"(target ≤ {res['target']['bracket_width']:g}); numerical error bound included: {ours['numerical_error']:.1e}")
    print(f"discretisation h = {ours['discretization'][0]:.3e} / {ours['discretization'][1]:.3e}, "
          f"FFT lengths {ours['fft_len'][0]} / {ours['fft_len'][1]}"
          + (f"; tracemalloc peak {ours['tracemalloc_peak_mb']:.0f} MB" if ours["tracemalloc_peak_mb"] else ""))
    print(f"dp-accounting@1e-4 lies outside the certified bracket by {base['outside_bracket_ab']:.2e} (Δ(M‖M̃)) "
          f"and {base['outside_bracket_ba']:.2e} (Δ(M̃‖M))")
    print(f"time ratio dpcompare / dp-accounting: {res['ratio_time_dpcompare_over_dp_accounting']:.2f}")
    if "prv_check" in res:
        c = res["prv_check"]
        print(f"prv-accountant δ(ε=1) of M: [{c['prv_delta'][0]:.6e}, {c['prv_delta'][2]:.6e}] in {c['prv_seconds']:.1f} s; "
              f"dpcompare [{c['dpcompare_delta'][0]:.6e}, {c['dpcompare_delta'][1]:.6e}]; overlap: {c['overlap']}")
    print(f"target met (< {res['target']['seconds']:g} s, width ≤ {res['target']['bracket_width']:g}): {res['target_met']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke test: 100x fewer steps")
    ap.add_argument("--json", action="store_true", help="print one JSON object and nothing else")
    ap.add_argument("--prv", action="store_true", help="also cross-check δ(ε=1) with prv-accountant")
    ap.add_argument("--tracemalloc", action="store_true", help="also measure the traced allocation peak (extra run)")
    args = ap.parse_args(argv)
    res = run(args.quick, args.prv, args.tracemalloc)
    if args.json:
        print(json.dumps(res))
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
