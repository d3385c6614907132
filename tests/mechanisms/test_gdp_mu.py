"""The tightest μ-GDP bound (``gdp_mu``) of every mechanism that reports one (mechanisms/gdp.py).

Independent references: the privacy-profile route of ``reference_values.tightest_gdp_mu`` (μ* =
sup_ε μ_ε with δ_{G_{μ_ε}}(ε) = δ_M(ε), Dong et al. 2022 Cor 2.13) in mpmath, and the definition
f ≥ G_μ checked on a grid of α.
"""

from __future__ import annotations

import math
from functools import partial

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr, ndtri

import dpcompare as dc
import reference_values as rv

ALPHA = np.concatenate([np.logspace(-15, np.log10(0.5), 400), 1 - np.logspace(-15, np.log10(0.5), 400)[::-1]])


def gdp_curve(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1−α) − μ), with Φ⁻¹(1−α) = −Φ⁻¹(α) (1 − α rounds to 1 below α ≈ 1e-16)."""
    return ndtr(-ndtri(alpha) - mu)


@pytest.mark.parametrize("eps", [0.01, 0.5, 2.0, 5.0, 8.0, 10.0, 30.0])
def test_randomized_response_matches_profile_route(eps):
    # rr(eps) for eps = 2, 5, 8, 10 used to report "no GDP bound" (f(0) rounded to 1 − 2e-16) and
    # eps = 30 a μ 0.32 too small (the grid stopped at α = 1e-12, above α* = 9e-14)
    ref, _ = rv.tightest_gdp_mu(partial(rv.rr_delta, eps0=eps), eps)
    mu = dc.RandomizedResponse(eps=eps).gdp_mu
    assert mu == pytest.approx(float(ref), rel=1e-12, abs=1e-15)
    assert dc.PureDP(eps=eps).gdp_mu == mu == dc.ApproxDP(eps=eps, delta=0.0).gdp_mu


@pytest.mark.parametrize("b", [0.05, 0.3, 1.0, 4.0, 100.0])
def test_laplace_matches_profile_route(b):
    ref, _ = rv.tightest_gdp_mu(partial(rv.laplace_delta, m=1.0 / b), 1.0 / b)
    assert dc.Laplace(b=b).gdp_mu == pytest.approx(float(ref), rel=1e-12)
    assert dc.Laplace(b=2 * b, sensitivity=2.0).gdp_mu == pytest.approx(float(ref), rel=1e-12)


def _minus_two_probit(log_a) -> float:
    """−2Φ⁻¹(e^{log a}) in mpmath (root of log Φ(t) = log a; any exponent, no cancellation)."""
    with mp.workdps(40):
        log_a = mp.mpf(log_a)
        t = mp.findroot(lambda t: mp.log(mp.ncdf(t)) - log_a, -mp.sqrt(-2 * log_a))
        return float(-2 * t)


def test_extreme_parameters_stay_finite_and_accurate():
    # tails: ε = 800 has α* = 1/(1+e^ε) = 0 in double precision, log α* = −ε − log(1+e^{−ε})
    assert dc.RandomizedResponse(eps=800.0).gdp_mu == pytest.approx(_minus_two_probit(-800), rel=1e-12)
    assert dc.Laplace(b=1e-3).gdp_mu == pytest.approx(_minus_two_probit(-500 - mp.log(2)), rel=1e-12)
    # near ε = 0: μ* = 2√2·erf⁻¹(tanh(ε/2)) ≈ ε·√(2π)/2; no cancellation in 1 − 2α*
    for eps in (1e-12, 1e-8):
        with mp.workdps(40):
            exact = float(2 * mp.sqrt(2) * mp.erfinv(mp.tanh(mp.mpf(eps) / 2)))
        assert dc.RandomizedResponse(eps=eps).gdp_mu == pytest.approx(exact, rel=1e-13)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 20.0), st.sampled_from(["rr", "laplace"]))
def test_gdp_mu_is_a_valid_and_tight_bound(x, kind):
    """f ≥ G_μ* on a grid of α (the bound holds) and f < G_{μ*·(1−1e-6)} somewhere (it is tight)."""
    m = dc.RandomizedResponse(eps=x) if kind == "rr" else dc.Laplace(b=1.0 / x)
    mu = m.gdp_mu
    alpha = np.sort(np.concatenate([ALPHA, [m.fixed_point]]))
    f = m.tradeoff(alpha)
    assert np.all(f >= gdp_curve(mu, alpha) - 1e-12)
    assert np.any(f < gdp_curve(mu * (1 - 1e-6), alpha))


@pytest.mark.parametrize("sigma,p,steps", [(1.0, 0.01, 1), (2.0, 0.5, 10), (0.8, 1.0, 4), (5.0, 1e-3, 1000)])
def test_subsampled_gaussian_gdp_mu_is_the_full_batch_mu(sigma, p, steps):
    m = dc.SubsampledGaussian(sigma=sigma, sampling_rate=p, steps=steps)
    mu = m.gdp_mu
    assert mu == pytest.approx(math.sqrt(steps) / sigma)
    # the bound holds: the upper end of the certified bracket of f (≥ the true f) is ≥ G_μ ...
    f_lo, f_hi = m.tradeoff_bounds(ALPHA)
    assert np.all(f_hi >= gdp_curve(mu, ALPHA) - 1e-12)


def test_subsampled_gaussian_gap_tends_to_mu_in_the_tail():
    """... and nothing smaller works: one step, α = 1−Φ(x), 1 − f = (1−p)(1−Φ(x)) + p(1−Φ(x−μ)); the gap
    x − Φ⁻¹(1 − (1−f)) climbs to μ as x → ∞ (mpmath, 80 digits, far beyond double precision)."""
    with mp.workdps(80):
        gaps, mu = _sgm_tail_gaps(mp.mpf("0.01"), mp.mpf(1))
    assert gaps[0] < gaps[1] < gaps[2] < mu and gaps[2] > mu * mp.mpf("0.99")
    assert dc.SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=1).gdp_mu == 1.0


def _sgm_tail_gaps(p, mu):

    def sf(x):
        return mp.erfc(x / mp.sqrt(2)) / 2

    def z(s):  # Φ⁻¹(1 − s) for tiny s
        return mp.findroot(lambda t: mp.log(sf(t)) - mp.log(s), mp.sqrt(2 * mp.log(1 / s)))

    return [x - z((1 - p) * sf(x) + p * sf(x - mu)) for x in (mp.mpf(10), mp.mpf(100), mp.mpf(1000))], mu


def test_no_finite_mu_with_mass_at_infinity():
    assert dc.ApproxDP(eps=1.0, delta=1e-9).gdp_mu is None
    assert dc.parse("bnp()").gdp_mu is None
    assert dc.parse("pp()").gdp_mu == 0.0
