"""The log-space rounding allowance of the Chernoff tail bound (tradeoff/compose.py step 9, ``TailBound``), against
the moment generating function evaluated in mpmath at 60 digits.

At exponents t up to 1e4 and losses up to ±60 the terms t·ℓ reach 6e5, and their rounding is *absolute* in log
space (≈ u·6e5 ≈ 7e-11): a fixed allowance of 64u (7e-15) left the computed log M(t) below the exact one at most
large t; the allowance now grows with the exponents (≤ 8u·Vₜ + (n + 8)u + 2u|log M|)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.tradeoff import Rounding
from dpcompare.tradeoff.compose import TailBound, _lse_rows
from dpcompare.tradeoff.grid import U, GridStep


def _step(seed: int) -> GridStep:
    rng = np.random.default_rng(seed)
    h, k_lo, size = 0.37, -160, 321  # losses −59.2 … 59.2
    log_q = rng.uniform(-300.0, 0.0, size)
    log_q[-k_lo] = 0.0
    g = (k_lo + np.arange(size)) * h
    log_p = log_q - g
    total = max(float(np.sum(np.exp(log_p))), float(np.sum(np.exp(log_q))))
    return GridStep(h, 0.0, k_lo, log_p - math.log(total), 0.0, 0.0, Rounding.PESSIMISTIC, 0.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_log_mgf_allowance_covers_rounding(seed):
    mpmath = pytest.importorskip("mpmath", reason="the exact moment generating function is evaluated in mpmath")
    step = _step(seed)
    tb = TailBound.from_step(step, 10)
    g, lp = step.losses, step.log_p
    worst_old = 0.0
    with mpmath.workdps(60):
        for i in range(0, tb.t.size, 4):  # every 4th exponent (71 of 281; the larger ones matter)
            t = float(tb.t[i])
            tm = mpmath.mpf(t)
            exact_q = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(a)) + mpmath.mpf(float(b)) * (1 + tm)) for a, b in zip(lp, g)))
            exact_p = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(a)) - mpmath.mpf(float(b)) * tm) for a, b in zip(lp, g)))
            assert tb.log_m_q[i] >= exact_q and tb.log_m_p[i] >= exact_p, (t, float(exact_q - tb.log_m_q[i]))
            # the former allowance: the row's logsumexp + log(1 + 64u)
            a = ((lp + g) + t * g)[None, :]
            old = float(_lse_rows(a)[0]) + math.log1p(64 * U)
            worst_old = max(worst_old, float(exact_q - mpmath.mpf(old)))
    # at these exponents the rounding exceeds 64u by orders of magnitude: the test would catch a fixed allowance
    assert worst_old > 0.0


def test_tail_bound_epsilon_is_certified_against_exact_delta():
    """ε from the bound, read back: the exact δ(ε) of the two-atom step (randomised response, N = 3, computed in
    closed form) is ≤ δ at the certified ε, for δ down to 1e-250."""
    e0 = math.log(3.0)
    st = GridStep(e0, 0.0, -1, np.array([math.log(0.75), -np.inf, math.log(0.25)]), 0.0, 0.0, Rounding.EXACT, 0.0)
    tb = TailBound.from_step(st, 3)
    for delta in (1e-3, 1e-12, 1e-250):
        eps = tb.epsilon(delta)
        # composed losses (3 − 2k)·e0 with Q-probability C(3,k)·0.75^{3−k}·0.25^k: δ(ε) = Σ_{ℓ>ε} q(1 − e^{ε−ℓ})
        exact = sum(math.comb(3, k) * 0.75 ** (3 - k) * 0.25**k * max(0.0, 1.0 - math.exp(eps - (3 - 2 * k) * e0))
                    for k in range(4) if (3 - 2 * k) * e0 > eps)
        assert exact <= delta
