"""Benchmark (issue 5): calibrate one DP-SGD configuration — σ for (ε, δ) = (8, 1e-5) at p = 0.01, N = 1000.

Compared in one run, at equal or tighter ε tolerance (1e-3):
  - dpcompare.dpsgd.sigma_for_epsilon (certified PLD, target − 1e-3 ≤ ε ≤ target);
  - Opacus get_noise_multiplier(accountant="prv" and "rdp", epsilon_tolerance=1e-3) (if opacus is installed);
  - dp-accounting mechanism_calibration.calibrate_dp_mechanism with its PLD accountant (tolerance on σ,
    set to 1e-5 so that its ε tolerance is tighter than 1e-3).
Each returned σ is also re-evaluated with dpcompare's certified ε so the answers can be compared.
Prints a table (and --json one JSON object); ratios are time / fastest baseline.

    python benchmarks/bench_dpsgd_calibrate.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="N = 100, no dp-accounting search, no Opacus RDP (smoke run)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    eps, delta, p, n, tol = 8.0, 1e-5, 0.01, (100 if args.quick else 1000), 1e-3

    import dpcompare.accounting.sgm  # noqa: F401 - imports outside the timings, as for the baselines
    import dpcompare.gaussian  # noqa: F401
    from dpcompare.dpsgd import certified_epsilon, sigma_for_epsilon

    rows = []
    c, t = _time(lambda: sigma_for_epsilon(eps, delta, p, n, tol=tol))
    rows.append({"method": "dpcompare (certified PLD)", "sigma": c.sigma, "own_epsilon": c.epsilon, "seconds": t})

    import dp_accounting
    from dp_accounting import mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant

    def dpa():
        return mechanism_calibration.calibrate_dp_mechanism(
            pld_privacy_accountant.PLDAccountant,
            lambda s: dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(s)), n),
            eps, delta, mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0), tol=1e-5)

    if not args.quick:
        s, t = _time(dpa)
        acc = pld_privacy_accountant.PLDAccountant()
        acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(s)), n))
        rows.append({"method": "dp-accounting calibrate_dp_mechanism (PLD)", "sigma": s,
                     "own_epsilon": acc.get_epsilon(delta), "seconds": t})

    try:
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:
        get_noise_multiplier = None
    if get_noise_multiplier is not None:
        for accountant in ("prv",) if args.quick else ("prv", "rdp"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s, t = _time(lambda: get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=p,
                                                          steps=n, accountant=accountant, epsilon_tolerance=tol))
            rows.append({"method": f"opacus get_noise_multiplier ({accountant})", "sigma": s, "own_epsilon": None, "seconds": t})
    for r in rows:
        r["certified_epsilon"] = certified_epsilon(r["sigma"], p, n, delta)
    base = min((r["seconds"] for r in rows[1:]), default=rows[0]["seconds"])
    for r in rows:
        r["time_vs_fastest_baseline"] = r["seconds"] / base
    out = {"epsilon": eps, "delta": delta, "sampling_rate": p, "steps": n, "tolerance": tol, "rows": rows}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"calibrate sigma: (eps, delta) = ({eps:g}, {delta:g}), p = {p:g}, N = {n}, eps tolerance {tol:g}")
    print(f"{'method':45s} {'sigma':>12s} {'own eps':>10s} {'certified eps':>14s} {'seconds':>9s} {'ratio':>7s}")
    for r in rows:
        own = "-" if r["own_epsilon"] is None else f"{r['own_epsilon']:.5f}"
        print(f"{r['method']:45s} {r['sigma']:12.7f} {own:>10s} {r['certified_epsilon']:14.5f} {r['seconds']:9.3f} "
              f"{r['time_vs_fastest_baseline']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
