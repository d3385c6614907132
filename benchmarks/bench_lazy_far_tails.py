"""Benchmark: ε(1e-5), cold, of the mechanisms composed by the certified FFT engine other than the subsampled
Gaussian, with the far-tail passes (tradeoff/compose.py step 6″) built for every composition (before: the
pessimistic side built by ``_build_side``, patched in) and built on demand (after: ``lazy_pessimistic_side``), in
one process, interleaved (before, after, before, …), CPU time (``time.process_time``), medians.

Each timing is cold: the composition caches are cleared first (the one-step laws of random allocation are kept
warm in both: they do not depend on the passes). It prints both ε (before and after are both certified; they may
differ in the last digits: the passes recompute the far-tail atoms) and the CPU ratio before/after.

Usage:
    python benchmarks/bench_lazy_far_tails.py            # about a minute on 2 cores
    python benchmarks/bench_lazy_far_tails.py --json
    python benchmarks/bench_lazy_far_tails.py --quick    # smoke test: small configurations, one repeat
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

DELTA = 1e-5


def _jobs(quick: bool):
    from dpcompare.composition.gaussian_mixture import mixture_of_gaussians_pair, truncated_subsampled_gaussian_pair
    from dpcompare.mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
    from dpcompare.mechanisms.fixed_batch import FixedBatchGaussian
    from dpcompare.mechanisms.gaussian_mixture import ComposedGaussianMixture

    mix = mixture_of_gaussians_pair(1.0, [0, 1], [0.5, 0.5])
    rare = mixture_of_gaussians_pair(1.0, [0, 1], [0.99, 0.01])
    if quick:
        return {
            "ComposedGaussianMixture(σ=1, sens (0, 1), N=10)": lambda: ComposedGaussianMixture(mix, 10).epsilon(DELTA),
            "BallsInBinsGaussian(σ=1, k=10, E=2)": lambda: BallsInBinsGaussian(1.0, dataset_size=100, batch_size=10, epochs=2).epsilon(DELTA),
        }
    trunc = truncated_subsampled_gaussian_pair(60000, 0.004, 300, 1.0)
    return {
        "ComposedGaussianMixture(σ=1, sens (0, 1) w.p. (0.99, 0.01), N=1000)":
            lambda: ComposedGaussianMixture(rare, 1000).epsilon(DELTA),
        "ComposedGaussianMixture(truncated Poisson n=60000, q=0.004, B=300, σ=1; N=1000)":
            lambda: ComposedGaussianMixture(trunc, 1000).epsilon(DELTA),
        "BallsInBinsGaussian(σ=1.1, k=235, E=10)":
            lambda: BallsInBinsGaussian(1.1, dataset_size=60000, batch_size=256, epochs=10).epsilon(DELTA),
        "BallsInBinsGaussian(σ=0.8, k=100, E=5)":
            lambda: BallsInBinsGaussian(0.8, dataset_size=10000, batch_size=100, epochs=5).epsilon(DELTA),
        "ShuffledGaussian(σ=2, k=100, E=5).epsilon_lower":
            lambda: ShuffledGaussian(2.0, dataset_size=10000, batch_size=100, epochs=5).epsilon_lower(DELTA),
        "FixedBatchGaussian(σ=1.1, b=256, n=60000, N=2350) (control: no passes)":
            lambda: FixedBatchGaussian(1.1, dataset_size=60000, batch_size=256, steps=2350).epsilon(DELTA),
    }


def _clear() -> None:
    from dpcompare.composition import gaussian_mixture as gm
    from dpcompare.composition import random_allocation as ra
    from dpcompare.composition import wor

    gm.compose_mixture.cache_clear()
    ra.compose_random_allocation.cache_clear()
    wor.compose_without_replacement.cache_clear()


def _eager(part, steps, h, *, workers=None, extra_error=0.0, cells_per_threshold=False):
    """The side as built before: with the passes (``_build_side``), η = report's error + 64u + extra."""
    from dpcompare.composition import sgm_compose as sc
    from dpcompare.tradeoff import Rounding

    w = sc.fft_workers() if workers is None else workers
    pair, rep = sc._build_side(part, steps, h, Rounding.PESSIMISTIC, w, cells_per_threshold)
    return sc.PessimisticSide(pair, rep.numerical_error + 64 * 2.0**-53 + extra_error, rep)


def _run(job, before: bool) -> tuple[float, float]:
    from dpcompare.composition import random_allocation as ra
    from dpcompare.composition import sgm_compose as sc

    lazy = sc.lazy_pessimistic_side
    if before:
        sc.lazy_pessimistic_side = ra.lazy_pessimistic_side = _eager
    try:
        _clear()
        c0 = time.process_time()
        eps = float(job())
        return eps, time.process_time() - c0
    finally:
        sc.lazy_pessimistic_side = ra.lazy_pessimistic_side = lazy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    load0 = os.getloadavg()
    rows = []
    for name, job in _jobs(args.quick).items():
        job()  # warm: imports, the one-step laws (same for both)
        tb, ta = [], []
        for _ in range(repeat):
            eb, t = _run(job, True)
            tb.append(t)
            ea, t = _run(job, False)
            ta.append(t)
        b, a = statistics.median(tb), statistics.median(ta)
        rows.append(dict(job=name, eps_before=eb, eps_after=ea, cpu_before=b, cpu_after=a, ratio=b / a if a > 0 else None))
    out = dict(delta=DELTA, repeat=repeat, load_start=load0, load_end=os.getloadavg(), rows=rows)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"ε({DELTA:g}), cold, CPU medians of {repeat} interleaved runs; load {load0} → {out['load_end']}")
    print("| job | ε before | ε after | CPU before | CPU after | before / after |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['job']} | {r['eps_before']:.10g} | {r['eps_after']:.10g} | {r['cpu_before']:.3f} s | "
              f"{r['cpu_after']:.3f} s | {r['ratio']:.2f}× |")


if __name__ == "__main__":
    main()
