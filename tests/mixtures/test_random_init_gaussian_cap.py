"""mixtures/random_init.py: ε(δ) of a clipped loss is capped by the certified G_{√T·c/σ} bound (Example D.2).

Found by the deep API fuzz (seed 20261127): ``RandomInit(clipped, a=1.1524…, sigma=10).epsilon(5e-324)`` was ∞
(the pessimistic pair's far tail sits at ℓ = +∞), though each step is the Gaussian mechanism G_{c/σ}."""

from __future__ import annotations

import math

import dpcompare as dc
from dpcompare.mixtures import Loss, RandomInit, Sensitivity


def test_epsilon_at_the_smallest_delta_is_finite_and_below_the_gaussian_bound():
    m = RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=1.152408715480133, clip=1.0, sigma=10.0))
    eps = m.epsilon(5e-324)
    gauss = dc.Gaussian(mu=0.1).epsilon(5e-324)  # G_{c/σ}, c = 1, σ = 10: the reference the cap comes from
    assert math.isfinite(eps)
    assert eps <= gauss * (1 + 1e-12)
    # where the pair is finer than the Gaussian bound it still answers (the random initialisation amplifies)
    assert m.epsilon(1e-5) < dc.Gaussian(mu=0.1).epsilon(1e-5)
