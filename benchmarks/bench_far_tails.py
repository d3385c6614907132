"""Benchmark: the certified ε of the subsampled Gaussian in the far tail (δ = 1e-10, 1e-12) against
dp-accounting's pessimistic ε, both at their default settings, in one run.

For each (σ, p, N) and δ it prints ours (``SubsampledGaussian(σ, p, N).epsilon(δ)``: certified, with the
per-threshold floating-point error bound η(ε) of tradeoff/compose.py step 7′), dp-accounting's
(pessimistic connect-the-dots PLD at its default grid 1e-4, self-composed, ``get_epsilon_for_delta``; not
certified: no floating-point error bound), the ratio ours/theirs and the excess ours/theirs − 1 (target
≤ 1 %), and both times.

Usage:
    python benchmarks/bench_far_tails.py          # a few minutes on 2 cores
    python benchmarks/bench_far_tails.py --json
    python benchmarks/bench_far_tails.py --quick  # smoke test: (1.12, 0.5, 2) at δ = 1e-10 only
"""

from __future__ import annotations

import argparse
import json
import time

CONFIGS = [(1.0, 1e-3, 10), (0.5, 1e-4, 1000), (0.3, 1e-3, 10), (1.12, 0.5, 2)]
DELTAS = [1e-10, 1e-12]


def ours(sigma: float, p: float, n: int, delta: float) -> tuple[float, float]:
    from dpcompare.mechanisms.sgm import SubsampledGaussian

    t = time.perf_counter()
    eps = SubsampledGaussian(sigma, p, n).epsilon(delta)
    return float(eps), time.perf_counter() - t


def theirs(sigma: float, p: float, n: int, delta: float) -> tuple[float, float]:
    from dpcompare.accounting.dp_accounting import subsampled_gaussian_composed

    t = time.perf_counter()
    pld = subsampled_gaussian_composed(sigma, p, n, discretization=1e-4, pessimistic=True)
    return float(pld.get_epsilon_for_delta(delta)), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    configs = CONFIGS[-1:] if args.quick else CONFIGS
    deltas = DELTAS[:1] if args.quick else DELTAS
    rows = []
    for sigma, p, n in configs:
        for d in deltas:
            e_ours, t_ours = ours(sigma, p, n, d)
            e_dpa, t_dpa = theirs(sigma, p, n, d)
            rows.append(dict(sigma=sigma, p=p, steps=n, delta=d, ours=e_ours, dp_accounting=e_dpa, ratio=e_ours / e_dpa,
                             excess=e_ours / e_dpa - 1.0, seconds_ours=t_ours, seconds_dp_accounting=t_dpa))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'(σ, p, N)':>22} {'δ':>7} {'ours':>10} {'dp-acc pess':>11} {'ratio':>7} {'excess':>8} {'t ours':>7} {'t dp-acc':>8}")
    for r in rows:
        print(f"{str((r['sigma'], r['p'], r['steps'])):>22} {r['delta']:>7.0e} {r['ours']:>10.4f} {r['dp_accounting']:>11.4f} "
              f"{r['ratio']:>7.4f} {100 * r['excess']:>7.2f}% {r['seconds_ours']:>6.1f}s {r['seconds_dp_accounting']:>7.1f}s")


if __name__ == "__main__":
    main()
