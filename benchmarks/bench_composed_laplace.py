"""Certified Δ between a composed Laplace mechanism and a composed Gaussian (dpcompare emergent).

Baseline (same run): Δ(Laplace^⊗N ‖ G_{μ√Ñ}) with the Gaussian in closed form, which makes
``delta_divergence`` run its certified branch and bound (comparison/prior_sweep.py) against the numeric pairs.
Ours: the Gaussian as certified discrete pairs too (``Composed(Gaussian(μ), Ñ)``, what ``emergent`` does),
so Δ is an exact merge of breakpoints. Both are certified; the table shows both brackets and the time
ratio. Also: the cost of composing Laplace N times (grid + FFT), for growing N.

    python benchmarks/bench_composed_laplace.py
"""

from __future__ import annotations

import math
import time

import dpcompare as dc
from dpcompare.composition.closed_form import compose_laplace
from dpcompare.mechanisms.composed import Composed


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    print("Δ(Laplace(b=1)^N ‖ G_1^Ñ), N = 40, Ñ = 30")
    lap = Composed(dc.Laplace(b=1.0), steps=40)
    lap.pairs()
    closed = dc.Gaussian(mu=math.sqrt(30))
    base, t_base = _timed(lambda: dc.delta_divergence(lap, closed))
    paired = Composed(dc.Gaussian(mu=1.0), steps=30)
    ours, t_ours = _timed(lambda: (paired.pairs(), dc.delta_divergence(lap, paired))[1])
    print(f"  baseline (closed-form Gaussian, branch and bound): {t_base:7.3f} s  [{base.lower:.6e}, {base.upper:.6e}]")
    print(f"  ours (Gaussian as certified pairs, exact merge):   {t_ours:7.3f} s  [{ours.lower:.6e}, {ours.upper:.6e}]")
    print(f"  ratio baseline/ours: {t_base / t_ours:.1f}x")
    print("composing Laplace(b=10) N times (both sides, grid + FFT):")
    for n in (10**3, 10**4, 10**5):
        c, t = _timed(lambda n=n: compose_laplace.__wrapped__(0.1, n))
        print(f"  N = {n:>7,}: {t:6.2f} s, FFT length {c.reports[0].fft_len:>9,}, error bound η = {c.numerical_error:.2e}")


if __name__ == "__main__":
    main()
