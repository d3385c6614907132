"""Benchmark: how tight is the certified pessimistic δ(ε) of the subsampled Gaussian?

For three SGM configurations (σ, p, N) and ε ∈ {0.5, 1, 2} it prints, in one run:

- **truth**: the midpoint of a *certified* bracket [δ_opt, δ_pess] of dpcompare's engine at a very fine
  grid (``tolerance=REF_TOL``: pessimistic split and optimistic merge, each with its a-priori floating-point
  error bound, tradeoff/compose.py); the truth lies in the bracket by proof, so the bracket's half
  width is the reference's own error (printed). With ``--cross-check`` it also computes dp-accounting's
  pessimistic PLD at a 10× finer grid (1e-5), an independent implementation, and prints its distance
  to the certified bracket (≈ 30 s more for the first configuration).
- **ours**: ``composition.sgm_certified.certified_delta(σ, p, N, ε, tolerance=τ)`` — the pessimistic side only,
  grid chosen from the tolerance asked for, error bound and tail bound included — its excess over the
  truth (max over ε) and its time. τ is the accuracy dp-accounting's default grid delivers, estimated
  the way its user could, without the truth: Richardson's |δ(1e-4) − δ(2e-4)|/3 (its error is ∝ h²);
  the time of that extra dp-accounting run is not counted on either side;
- **default**: ``SubsampledGaussian(σ, p, N).delta(ε)`` with no grid given — the grid chosen from the question
  (composition/sgm_accuracy.py, ``delta_to_accuracy``: certified width min(1e-3·δ, 1.5e-7)) — its excess
  and time (caches cleared first);
- **dp-accounting**: its pessimistic (connect-the-dots) PLD at its default grid 1e-4, self-composed,
  ``get_delta_for_epsilon`` — excess and time (the baseline of the issue);
- the ratios ours/dp-accounting of excess and time (targets: ≤ 2 and ≤ 2).

Excess = reported δ − truth; its uncertainty is the reference half width (printed).

Usage:
    python benchmarks/bench_tightness.py            # ~1 min on 2 cores
    python benchmarks/bench_tightness.py --json
    python benchmarks/bench_tightness.py --quick    # smoke test: coarser reference, 2 configurations
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dpcompare.composition import sgm_certified as acc
from dpcompare.mechanisms.sgm import SubsampledGaussian

CONFIGS = [(0.7, 0.05, 300), (2.0, 0.2, 50), (1.0, 0.02, 1000)]
EPS = np.array([0.5, 1.0, 2.0])
#: the tolerance of the certified reference bracket
REF_TOL = 2e-9


def _dp_accounting(sigma: float, p: float, steps: int, h: float) -> tuple[np.ndarray, float]:
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    t0 = time.perf_counter()
    pld = pld_lib.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=1.0, sampling_prob=p, value_discretization_interval=h,
        pessimistic_estimate=True, use_connect_dots=True,
    )
    composed = pld.self_compose(steps)
    d = np.array([composed.get_delta_for_epsilon(float(e)) for e in EPS])
    return d, time.perf_counter() - t0


def _ours(sigma: float, p: float, steps: int, tol: float) -> tuple[np.ndarray, float, float]:
    acc.pessimistic_side.cache_clear()
    acc.tail_bound.cache_clear()
    t0 = time.perf_counter()
    d = acc.certified_delta(sigma, p, steps, EPS, tolerance=tol)
    h = acc.discretization_for_tolerance(sigma, p, steps, tol)
    return np.asarray(d), time.perf_counter() - t0, h


def _default(sigma: float, p: float, steps: int) -> tuple[np.ndarray, float]:
    for f in (acc.pessimistic_side, acc.compose_subsampled_gaussian, acc.tail_bound):
        f.cache_clear()
    t0 = time.perf_counter()
    d = SubsampledGaussian(sigma, p, steps).delta(EPS)
    return np.asarray(d), time.perf_counter() - t0


def run(configs, ref_tol: float, cross_check: bool) -> list[dict]:
    rows = []
    for sigma, p, steps in configs:
        t0 = time.perf_counter()
        ref = SubsampledGaussian(sigma, p, steps, tolerance=ref_tol)
        lo, hi = ref.delta_bounds(EPS)
        ref_seconds = time.perf_counter() - t0
        truth, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        dpa, t_dpa = _dp_accounting(sigma, p, steps, 1e-4)
        dpa2, _ = _dp_accounting(sigma, p, steps, 2e-4)
        tol = max(float(np.max(np.abs(dpa2 - dpa))) / 3.0, 1e-10)
        ours, t_ours, h_ours = _ours(sigma, p, steps, tol)
        dflt, t_dflt = _default(sigma, p, steps)
        row = {
            "sigma": sigma, "p": p, "steps": steps, "eps": EPS.tolist(),
            "truth": truth.tolist(), "truth_halfwidth": float(np.max(half)), "reference_seconds": ref_seconds,
            "ours": ours.tolist(), "ours_excess": float(np.max(ours - truth)), "ours_seconds": t_ours,
            "ours_tolerance": tol, "ours_discretization": h_ours,
            "ours_certified": bool(np.all(ours >= lo)),
            "dp_accounting": dpa.tolist(), "dp_accounting_excess": float(np.max(dpa - truth)),
            "dp_accounting_seconds": t_dpa,
            "default": dflt.tolist(), "default_excess": float(np.max(dflt - truth)), "default_seconds": t_dflt,
            "default_certified": bool(np.all(dflt >= lo)),
        }
        row["excess_ratio"] = row["ours_excess"] / row["dp_accounting_excess"] if row["dp_accounting_excess"] > 0 else float("inf")
        row["time_ratio"] = t_ours / t_dpa
        if cross_check:
            fine, t_fine = _dp_accounting(sigma, p, steps, 1e-5)
            row["dp_accounting_1e-5"] = fine.tolist()
            row["dp_accounting_1e-5_outside_certified"] = float(np.max(np.maximum(lo - fine, fine - hi)))
            row["dp_accounting_1e-5_seconds"] = t_fine
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cross-check", action="store_true")
    args = ap.parse_args()
    configs = CONFIGS[1:] if args.quick else CONFIGS
    rows = run(configs, 2e-8 if args.quick else REF_TOL, args.cross_check)
    if args.json:
        print(json.dumps({"reference_tolerance": REF_TOL, "rows": rows}))
        return
    print(f"pessimistic δ(ε) at ε ∈ {EPS.tolist()}: excess over the truth (max over ε) and time")
    print(f"{'(σ, p, N)':>18} | {'truth δ(1)':>12} {'±ref':>8} | {'tolerance':>9} {'ours excess':>11} {'time s':>7} | "
          f"{'dp-acc excess':>13} {'time s':>7} | {'excess ratio':>12} {'time ratio':>10} | {'default excess':>14} {'time s':>7}")
    for r in rows:
        print(
            f"{str((r['sigma'], r['p'], r['steps'])):>18} | {r['truth'][1]:12.9f} {r['truth_halfwidth']:8.1e} | "
            f"{r['ours_tolerance']:9.1e} {r['ours_excess']:11.2e} {r['ours_seconds']:7.2f} | {r['dp_accounting_excess']:13.2e} "
            f"{r['dp_accounting_seconds']:7.2f} | {r['excess_ratio']:12.2f} {r['time_ratio']:10.2f} | "
            f"{r['default_excess']:14.2e} {r['default_seconds']:7.2f}"
        )
        if "dp_accounting_1e-5" in r:
            print(f"{'':>18}   dp-accounting at 1e-5: {r['dp_accounting_1e-5_outside_certified']:.2e} outside the certified "
                  f"bracket ({r['dp_accounting_1e-5_seconds']:.1f} s)")


if __name__ == "__main__":
    main()
