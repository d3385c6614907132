"""Benchmark (issues 5, 14 "Speed", 17): calibrate σ of DP-SGD to (ε, δ) = (8, 1e-5), |ε − 8| ≤ 1e-3, in one run
against the peers, as ratios.

Configurations:
  A. p = 0.01, N = 1000 (the speed table's row "σ calibration");
  B. the Opacus configuration: batch 256, dataset 60 000, 10 epochs → p = 256/60000,
     N = ⌈10·60000/256⌉ = 2344.

Methods (each timed ``--repeat`` times, median reported; dpcompare's caches are cleared before every run):
  - dpcompare.dpsgd.sigma_for_epsilon (certified: target − 1e-3 ≤ ε_hi ≤ target);
  - Opacus get_noise_multiplier(accountant="rdp" and "prv", epsilon_tolerance=1e-3);
  - dp-accounting mechanism_calibration.calibrate_dp_mechanism with its PLD accountant (σ tolerance 1e-5,
    so that its ε tolerance is tighter than 1e-3) — timed once (it is slow).
Every returned σ is re-evaluated with dpcompare's certified ε at the automatic grid ("certified ε"): a value
above 8 means that σ is *not* certified (8, 1e-5)-DP by our accountant; "over-noise" is σ/σ_ours − 1.

    python benchmarks/bench_dpsgd_calibrate.py [--quick | --rdp-only] [--repeat K] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import warnings


def _timed(fn, repeat: int, before=None):
    times, out = [], None
    for _ in range(repeat):
        if before is not None:
            before()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def _configs(quick: bool):
    if quick:
        return [("A (quick: N = 100)", 0.01, 100)]
    return [("A: p = 0.01, N = 1000", 0.01, 1000),
            ("B: Opacus batch 256, n 60000, 10 epochs", 256 / 60000, math.ceil(10 * 60000 / 256))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one small configuration, no peers (smoke run)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rdp-only", action="store_true", help="peers: Opacus RDP only (PRV and dp-accounting take minutes)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    eps, delta, tol = 8.0, 1e-5, 1e-3

    import dpcompare.composition.sgm_certified as sgm  # imports outside the timings, as for the baselines
    import dpcompare.gaussian  # noqa: F401
    from dpcompare.dpsgd import certified_epsilon, sigma_for_epsilon
    from dpcompare.dpsgd import rdp_bound

    def clear():  # every cache of the engine (pair, sides, tail bound): each run is cold
        for f in vars(sgm).values():
            if callable(getattr(f, "cache_clear", None)):
                f.cache_clear()
        rdp_bound._rdp_orders_cached.cache_clear()

    get_noise_multiplier = None
    if not args.quick:  # (importing torch takes seconds: the smoke run skips the peers)
        try:
            from opacus.accountants.utils import get_noise_multiplier
        except ImportError:
            pass
    sigma_for_epsilon(eps, delta, 0.02, 10, tol=tol)  # warm-up (first FFT plans, numpy paths)

    out = {"epsilon": eps, "delta": delta, "tolerance": tol, "repeat": args.repeat, "configs": []}
    for name, p, n in _configs(args.quick):
        rows = []
        c, t = _timed(lambda: sigma_for_epsilon(eps, delta, p, n, tol=tol), args.repeat, clear)
        rows.append({"method": "dpcompare sigma_for_epsilon (certified)", "sigma": c.sigma, "own_epsilon": c.epsilon,
                     "seconds": t})
        if get_noise_multiplier is not None:
            for accountant in ("rdp",) if args.rdp_only else ("rdp", "prv"):
                def run(acc=accountant):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        return get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=p, steps=n,
                                                    accountant=acc, epsilon_tolerance=tol)
                s, t = _timed(run, args.repeat if accountant == "rdp" else 1)
                rows.append({"method": f"opacus get_noise_multiplier ({accountant})", "sigma": s, "own_epsilon": None,
                             "seconds": t})
        if not args.quick and not args.rdp_only:
            import dp_accounting
            from dp_accounting import mechanism_calibration
            from dp_accounting.pld import pld_privacy_accountant

            def event(s):
                return dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(s)), n)

            s, t = _timed(lambda: mechanism_calibration.calibrate_dp_mechanism(
                pld_privacy_accountant.PLDAccountant, event, eps, delta,
                mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0), tol=1e-5), 1)
            acc = pld_privacy_accountant.PLDAccountant()
            acc.compose(event(s))
            rows.append({"method": "dp-accounting calibrate_dp_mechanism (PLD)", "sigma": s,
                         "own_epsilon": acc.get_epsilon(delta), "seconds": t})
        ours = rows[0]
        for r in rows:
            r["certified_epsilon"] = certified_epsilon(r["sigma"], p, n, delta)
            r["over_noise"] = r["sigma"] / ours["sigma"] - 1.0
            r["time_ratio_vs_ours"] = r["seconds"] / ours["seconds"]
        out["configs"].append({"name": name, "sampling_rate": p, "steps": n, "rows": rows})
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"calibrate sigma to (eps, delta) = ({eps:g}, {delta:g}), |eps - 8| <= {tol:g}; median of {args.repeat} "
          "runs (PRV and dp-accounting: 1)")
    for cfg in out["configs"]:
        print(f"\n{cfg['name']}  (p = {cfg['sampling_rate']:.6g}, N = {cfg['steps']})")
        print(f"{'method':44s} {'sigma':>11s} {'own eps':>9s} {'certified eps':>13s} {'over-noise':>10s} "
              f"{'seconds':>8s} {'time / ours':>11s}")
        for r in cfg["rows"]:
            own = "-" if r["own_epsilon"] is None else f"{r['own_epsilon']:.5f}"
            print(f"{r['method']:44s} {r['sigma']:11.7f} {own:>9s} {r['certified_epsilon']:13.5f} "
                  f"{100 * r['over_noise']:9.2f}% {r['seconds']:8.3f} {r['time_ratio_vs_ours']:11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
