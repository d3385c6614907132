"""[BCP] Lemma 6 for heterogeneous schedules (``dpcompare.comparison.heterogeneous``).

Independent references: Gaussian parts in closed form (G_μ: v₁ = μ²/2, v₂ = μ² + μ⁴/4; the composition
is G_{√Σnμ²}); the subsampled Gaussian's one-step KL and E[ℓ²] by scipy quadrature of the mixture
density; and the Δ of the actual compositions (certified engine / dp-accounting PLD), which must agree
with the Lemma's ordering for long schedules.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

import dpcompare as dc
from dpcompare.comparison.heterogeneous import heterogeneous, schedule_parts


def test_gaussian_parts_closed_form():
    a = [(dc.Gaussian(mu=0.1), 100), (dc.Gaussian(mu=0.2), 50)]
    b = [(dc.Gaussian(mu=0.05), 500)]
    h = heterogeneous(a, b)
    K = 100 * 0.01 / 2 + 50 * 0.04 / 2
    s2 = 100 * (0.01 + 0.0001 / 4) + 50 * (0.04 + 0.0016 / 4)
    assert h.a.K == pytest.approx(K, rel=1e-12) and h.a.s2 == pytest.approx(s2, rel=1e-12)
    assert h.a.mu_lemma == pytest.approx(2 * K / math.sqrt(s2), rel=1e-12)
    assert h.a.mu_variance == pytest.approx(math.sqrt(100 * 0.01 + 50 * 0.04), rel=1e-12)  # exact: √Σnμ²
    assert h.prediction == "a>=b" and h.variance_agrees
    # the compositions are Gaussians; the Lemma's limit with the variance form is the composition itself
    assert h.delta_ab.upper < 1e-9 and h.delta_ba.lower > 0
    assert "closed form" in h.note


def _sgm_moments_by_quadrature(sigma, p):
    # remove direction: P = N(0, 1), Q = (1 − p)N(0, 1) + pN(1/σ, 1), ℓ = log q/p = log(1 − p + p e^{z/σ − 1/(2σ²)})
    mu = 1 / sigma

    def ell(z):
        return math.log1p(p * math.expm1(mu * z - mu * mu / 2))

    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    v1 = integrate.quad(lambda z: -ell(z) * phi(z), -30, 30, epsabs=0, epsrel=1e-11, limit=400)[0]
    v2 = integrate.quad(lambda z: ell(z) ** 2 * phi(z), -30, 30, epsabs=0, epsrel=1e-11, limit=400)[0]
    return v1, v2


def test_sgm_schedule_moments_against_quadrature():
    parts = schedule_parts([dc.parse("sgm(sigma=1, p=0.01, steps=30)"), dc.parse("sgm(sigma=2, p=0.02, steps=70)")])
    assert [n for _, n in parts] == [30, 70] and all(m.steps == 1 for m, _ in parts)
    h = heterogeneous(parts, [(dc.Gaussian(mu=0.1), 1)], certified=False)
    K = s2 = 0.0
    for (sigma, p, n) in ((1.0, 0.01, 30), (2.0, 0.02, 70)):
        v1, v2 = _sgm_moments_by_quadrature(sigma, p)
        K, s2 = K + n * v1, s2 + n * v2
    assert h.a.K == pytest.approx(K, rel=1e-7) and h.a.s2 == pytest.approx(s2, rel=1e-7)
    assert h.a.ratio == pytest.approx(K / math.sqrt(s2), rel=1e-7)


def test_prediction_agrees_with_the_certified_delta_of_two_noise_schedules():
    # A: σ = 1 for 300 steps then σ = 2 for 300; B: σ = 1.4 for 600 (p = 0.01). K/s: A > B, so A's
    # composition should Blackwell-dominate (R_A ≤ R_B: Δ(A‖B) ≈ 0, Δ(B‖A) > 0)
    a = schedule_parts([dc.parse("sgm(sigma=1, p=0.01, steps=300)"), dc.parse("sgm(sigma=2, p=0.01, steps=300)")])
    b = schedule_parts([dc.parse("sgm(sigma=1.4, p=0.01, steps=600)")])
    h = heterogeneous(a, b)
    assert h.prediction == "a>=b" and h.a.ratio > h.b.ratio
    assert h.delta_ab.lower == 0.0 and h.delta_ab.value < 1e-6
    assert h.delta_ba.lower > 1e-3
    assert "dp-accounting PLD" in h.note and "certified engine" in h.note
    # each composition is within a few 1e-3 of its Lemma 6 limit G_{2K/s}
    for pair in (h.to_limit_a, h.to_limit_b):
        assert max(pair[0].value, pair[1].value) < 0.02
    d = h.to_dict()
    assert d["prediction"] == "a>=b" and d["a"]["K_over_s"] == pytest.approx(h.a.ratio)


def test_errors():
    with pytest.raises(ValueError, match="at least one part"):
        heterogeneous([], [(dc.Gaussian(mu=1), 1)])
    with pytest.raises(ValueError, match="Lemma 6 does not apply"):
        heterogeneous([(dc.parse("approxdp(eps=1, delta=0.01)"), 3)], [(dc.Gaussian(mu=1), 1)], certified=False)
