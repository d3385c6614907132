"""PLRV moments and Thm 3 ([BCP] eq 8–15): closed forms, the trade-off integrals of eq 9–12, and mpmath."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from dpcompare.dpsgd.moments import gaussian_moments, subsampled_gaussian_moments, thm3


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_moments_from_tradeoff_integrals(mu):
    # eq 9–12 literally: integrate log|f'(x)| over x ∈ (0, 1) for f = G_μ; f'(x) = −φ(Φ⁻¹(1−x) − μ)/φ(Φ⁻¹(1−x))
    def logslope(x):
        z = norm.isf(x)
        return norm.logpdf(z - mu) - norm.logpdf(z)

    kw = dict(epsabs=1e-12, epsrel=1e-10, limit=400, points=[1e-6, 0.5, 1 - 1e-6])
    v1 = -integrate.quad(logslope, 0, 1, **kw)[0]
    v2 = integrate.quad(lambda x: logslope(x) ** 2, 0, 1, **kw)[0]
    v3 = integrate.quad(lambda x: abs(logslope(x) + v1) ** 3, 0, 1, **kw)[0]
    v4 = integrate.quad(lambda x: abs(logslope(x)) ** 3, 0, 1, **kw)[0]
    m = gaussian_moments(mu)
    assert m.v1 == pytest.approx(v1, rel=1e-7) and m.v1 == pytest.approx(mu * mu / 2)
    assert m.v2 == pytest.approx(v2, rel=1e-7)
    assert m.v3 == pytest.approx(v3, rel=1e-6)
    assert m.v4 == pytest.approx(v4, rel=1e-6)
    assert m.variance == pytest.approx(mu * mu) and m.eta == pytest.approx(mu / 2)


def _mp_moments(sigma, p, direction):
    """Independent: mpmath quadrature at 30 digits of the textbook definition (no E[u] = 0 trick)."""
    mp.mp.dps = 30
    mu = mp.mpf(1) / sigma
    p = mp.mpf(p)

    def lr(z):  # q/p
        return 1 - p + p * mp.e ** (mu * z - mu * mu / 2)

    def E(g):  # expectation under the testing distribution
        w = (lambda z: 1) if direction == "remove" else lr
        return mp.quad(lambda z: w(z) * g(z) * mp.npdf(z), [-mp.inf, 0, mu, mp.inf])

    L = (lambda z: -mp.log(lr(z))) if direction == "remove" else (lambda z: mp.log(lr(z)))
    v1 = E(L)
    v2 = E(lambda z: L(z) ** 2)
    v3 = E(lambda z: abs(L(z) - v1) ** 3)
    v4 = E(lambda z: abs(L(z)) ** 3)
    return [float(v) for v in (v1, v2, v3, v4)]


@pytest.mark.parametrize("sigma, p", [(2.0, 9e-4), (3.0, 9e-4), (0.6, 0.01), (1.0, 0.3)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_subsampled_gaussian_against_mpmath(sigma, p, direction):
    m = subsampled_gaussian_moments(sigma, p, direction)
    ref = _mp_moments(sigma, p, direction)
    for got, want in zip((m.v1, m.v2, m.v3, m.v4), ref):
        assert got == pytest.approx(want, rel=1e-7)


def test_small_p_expansion_and_p_one():
    # v₂ − v₁² ≈ p²(e^{μ²} − 1) to leading order in p (the χ² divergence of the mixture)
    sigma, p = 2.0, 9e-4
    m = subsampled_gaussian_moments(sigma, p)
    assert m.variance == pytest.approx(p * p * math.expm1(1 / sigma**2), rel=5e-3)
    g = subsampled_gaussian_moments(0.5, 1.0)
    assert g.eta == pytest.approx(1.0)


def test_thm3_paper_example():
    # [BCP] §5: σ = 2 vs 3, p = 9e-4, N = 1.4e6 vs 3.4e6
    a = subsampled_gaussian_moments(2.0, 9e-4)
    b = subsampled_gaussian_moments(3.0, 9e-4)
    r = thm3(a, 1_400_000, b, 3_400_000)
    assert r.mu == pytest.approx(2 * a.eta * math.sqrt(1.4e6))
    assert r.precondition == (r.mu >= r.mu_tilde) == (r.ratio >= r.ratio_needed)
    assert not r.precondition  # N/Ñ = 0.4118 < η̃²/η² = 0.4138 (marginally)
    rev = thm3(b, 3_400_000, a, 1_400_000)
    assert rev.precondition and rev.bound == pytest.approx(r.bound)
    assert r.more_informative == "M~" and rev.more_informative == "M"


def test_thm3_gaussian_bound_is_trivially_sound():
    # Gaussians: the CLT proxy is exact; the bound is positive, the precondition is μ ≥ μ̃
    r = thm3(gaussian_moments(1.0), 4, gaussian_moments(1.0), 1)
    assert r.precondition and r.mu == pytest.approx(2.0) and r.mu_tilde == pytest.approx(1.0)
    assert np.isfinite(r.bound) and r.bound > 0
