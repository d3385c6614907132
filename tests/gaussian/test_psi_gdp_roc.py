"""ψ as GDP ([SI] Lemma 6, Cor 7–9) and as a ROC curve (eq 4.7, 4.9, Lemma 4–5).

References: semi-analytic 2-D integration of the composed pair, dp-accounting's PLD composition, the
certified PLD accountant of the core (``SubsampledGaussian`` with p = 1), numerical quadrature of the
CLT's integrand and of the ROC curve, the parametric ROC (FPR(c), TPR(c)) of N(0,1) vs N(ψ,1), and a
numerical search for the tangent of slope e^ε.
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize, stats

import dpcompare as dc
import dpcompare.gaussian as dg
from dpcompare.mechanisms.base import Mechanism


# ---------------------------------------------------------------------------------------------- Lemma 6
def test_lemma6_gdp_iff_psi_le_mu():
    alpha = np.linspace(0.0, 1.0, 2001)
    for psi, mu in [(1.0, 1.5), (1.0, 1.0), (1.0, 0.9), (0.3, 2.0)]:
        holds = np.all(dg.tradeoff(psi, alpha) >= dg.tradeoff(mu, alpha) - 1e-15)
        assert dg.is_gdp(psi, mu) == holds == (psi <= mu)
    # the tightest GDP μ is ψ: the core's value, and the privacy-profile route (sup over ε of the μ_ε
    # with δ_{G_μ_ε}(ε) = δ(ε), reference_values.tightest_gdp_mu) on the Gaussian's own profile
    import reference_values as rv

    for psi in (0.2, 1.0, 3.0):
        ref, _ = rv.tightest_gdp_mu(functools.partial(rv.gauss_delta, mu=psi), 10.0, scan=20)
        assert dg.mechanism(psi).gdp_mu == pytest.approx(float(ref), rel=1e-12) == psi


# ---------------------------------------------------------------------------------------------- Cor 8
def _composed_delta_2d(psi1: float, psi2: float, eps: float) -> float:
    """δ(ε) of (N(0,I), N((ψ₁,ψ₂), I)): ∫∫ (q − e^ε p)₊, inner integral over the half-plane in closed form."""
    s2 = psi1 * psi1 + psi2 * psi2

    def inner(x):  # y above the line ψ₁x + ψ₂y = ε + s2/2
        y0 = (eps + s2 / 2 - psi1 * x) / psi2
        return stats.norm.pdf(x - psi1) * stats.norm.sf(y0 - psi2) - math.exp(eps) * stats.norm.pdf(x) * stats.norm.sf(y0)

    val, _ = integrate.quad(inner, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    return val


@pytest.mark.parametrize("psi1,psi2", [(0.5, 1.2), (1.0, 1.0), (2.0, 0.3)])
@pytest.mark.parametrize("eps", [0.0, 0.7, 3.0])
def test_cor8_composition_by_2d_integration(psi1, psi2, eps):
    psi = dg.compose([psi1, psi2])
    assert psi == pytest.approx(math.hypot(psi1, psi2), rel=1e-15)
    assert float(dg.delta(psi, eps)) == pytest.approx(_composed_delta_2d(psi1, psi2, eps), rel=1e-8, abs=1e-14)


def test_cor8_k_fold_composition_is_exactly_sqrt_k_psi():
    """Issue 3: composing k Gaussians equals the Gaussian with √k·ψ — checked against the core's certified
    PLD accountant (bracket) and dp-accounting's PLD composition."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma, k = 2.0, 16
    psi_k = dg.compose([1 / sigma] * k)
    assert psi_k == pytest.approx(math.sqrt(k) / sigma, rel=1e-15)
    from dpcompare.mechanisms.sgm import SubsampledGaussian

    numeric = SubsampledGaussian(sigma=sigma, sampling_rate=1.0, steps=k)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    lo, hi = numeric.delta_bounds(eps)
    exact = dg.delta(psi_k, eps)
    assert np.all(lo <= exact + 1e-12) and np.all(exact <= hi + 1e-12)
    composed = pld.from_gaussian_mechanism(sigma).self_compose(k)
    for d in (1e-3, 1e-6):
        assert dg.epsilon(psi_k, d) == pytest.approx(composed.get_epsilon_for_delta(d), abs=1e-4)


# ---------------------------------------------------------------------------------------------- Cor 7
def test_cor7_group_privacy():
    # the means of a group of k move k·Δ apart: ψ_k = kΔ/σ …
    assert dg.group(0.4, 3) == pytest.approx(dc.Gaussian(sigma=2.5, sensitivity=3.0).psi, rel=1e-15)
    # … and the group ROC is the k-fold composition of ROC curves (f-DP group privacy: 1 − (1 − f)^{∘k})
    x = np.linspace(0.0, 1.0, 101)
    r = x
    for _ in range(3):
        r = dg.roc(0.4, r)
    np.testing.assert_allclose(r, dg.roc(dg.group(0.4, 3), x), atol=1e-14)
    with pytest.raises(ValueError, match="^k must"):
        dg.group(1.0, 0)
    with pytest.raises(ValueError, match="^k must"):
        dg.group(1.0, 1.5)


# ---------------------------------------------------------------------------------------------- Cor 9
@pytest.mark.parametrize("sigma", [0.5, 0.8, 1.0, 2.0, 5.0])
def test_cor9_clt_bracket_by_quadrature(sigma):
    # eq 5.7's bracket e^{1/σ²}Φ(3/(2σ)) + 3Φ(−1/(2σ)) − 2 = ∫_{1/(2σ)}^∞ φ(x)(e^{x/σ − 1/(2σ²)} − 1)² dx
    m = 1 / sigma

    def integrand(x):  # φ(x)·(L − 1)² = exp(−x²/2 + 2ℓ)·(1 − e^{−ℓ})²/√(2π), ℓ = mx − m²/2 ≥ 0: no overflow
        ell = m * x - m * m / 2
        return math.exp(-x * x / 2 + 2 * ell) * (-math.expm1(-ell)) ** 2 / math.sqrt(2 * math.pi)

    val, _ = integrate.quad(integrand, m / 2, np.inf, epsabs=0, epsrel=1e-13, limit=200)
    r, steps = 0.01, 10_000  # s = r√T = 1
    assert dg.clt_psi(sigma, r, steps) == pytest.approx(math.sqrt(2 * val), rel=1e-10)
    assert dg.clt_psi(sigma, 2 * r, steps) == pytest.approx(2 * dg.clt_psi(sigma, r, steps), rel=1e-14)


@pytest.mark.parametrize("sigma", [9.0, 11.0, 100.0, 1e4])
def test_cor9_large_sigma_has_no_cancellation(sigma):
    # large σ: the bracket ≈ 1/(2σ²) is a difference of O(1) terms in eq 5.7; compare with mpmath
    with mp.workdps(50):
        m = 1 / mp.mpf(sigma)
        br = mp.exp(m * m) * mp.ncdf(1.5 * m) + 3 * mp.ncdf(-0.5 * m) - 2
        want = float(mp.sqrt(2 * br))
    assert dg.clt_psi(sigma, 0.01, 10_000) == pytest.approx(want, rel=1e-11)


def test_cor9_clt_versus_exact_pld():
    """The Poisson CLT ψ next to the certified Poisson accountant: at T = 100 it under-states ε ([SI] §5.1,
    Gopi et al.). (Cor 9's eq 5.7 is the *uniform*-sampling CLT; tests/gaussian/test_clt_sampling.py
    checks it against the fixed-batch accountant.)"""
    c = dg.compare_clt(1.0, 0.01, 100, 1e-5)
    assert c.psi_clt == pytest.approx(0.1 * math.sqrt(math.e - 1), rel=1e-14)
    assert c.epsilon_clt == pytest.approx(dg.epsilon(c.psi_clt, 1e-5), rel=1e-15)
    assert c.epsilon_exact_lower <= c.epsilon_exact
    assert c.understates and c.ratio < 1
    # independent references (not dpcompare): ψ_CLT of Cor 9 and ε(δ; ψ) of the Gaussian profile with
    # mpmath at 40 digits; ε_exact against dp-accounting's pessimistic PLD (connect-the-dots, h = 1e-4)
    with mp.workdps(40):
        m = mp.mpf(1)
        psi = mp.mpf("0.01") * mp.sqrt(100) * mp.sqrt(mp.exp(m * m) - 1)  # Poisson CLT (Bu et al. 2020)
        prof = lambda e: mp.ncdf(-e / psi + psi / 2) - mp.exp(e) * mp.ncdf(-e / psi - psi / 2) - mp.mpf("1e-5")  # noqa: E731
        eps_clt = float(mp.findroot(prof, 0.45))
    assert c.psi_clt == pytest.approx(float(psi), rel=1e-12)
    assert c.epsilon_clt == pytest.approx(eps_clt, rel=1e-10)  # 0.4575
    from dp_accounting.pld import privacy_loss_distribution as pld

    ref = pld.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-4,
                                      pessimistic_estimate=True, use_connect_dots=True).self_compose(100)
    eps_dpa = ref.get_epsilon_for_delta(1e-5)  # 0.71804, an upper bound of the truth
    assert c.epsilon_exact_lower <= eps_dpa + 1e-12
    assert c.epsilon_exact == pytest.approx(eps_dpa, abs=1e-5)
    # ψ_exact: the Gaussian mechanism with the same ε at δ
    assert dg.epsilon(c.psi_exact, 1e-5) == pytest.approx(c.epsilon_exact, rel=1e-9)
    d = c.to_dict()
    assert d["understates"] is True and set(d) >= {"psi_clt", "epsilon_clt", "epsilon_exact", "psi_exact"}


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dg.clt_psi(0.0, 0.01, 100), "sigma"),
        (lambda: dg.clt_psi(1.0, 0.0, 100), "sampling_rate"),
        (lambda: dg.clt_psi(1.0, 1.5, 100), "sampling_rate"),
        (lambda: dg.clt_psi(1.0, 0.01, 0), "steps"),
        (lambda: dg.clt_psi(0.01, 0.01, 10), "sigma"),
        (lambda: dg.compose([]), "psis"),
        (lambda: dg.compose([1.0, -1.0]), "psis"),
        (lambda: dg.is_gdp(1.0, 0.0), "mu"),
        (lambda: dg.compare_clt(1.0, 0.01, 100, 0.0), "delta"),
    ],
)
def test_gdp_bad_input(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


# ---------------------------------------------------------------------------------------------- ROC, AUC
@pytest.mark.parametrize("psi", [0.1, 1.0, 3.0])
def test_roc_is_the_parametric_binormal_roc_and_lemma5(psi):
    c = np.linspace(-6, 8, 301)  # threshold: reject when the output exceeds c
    fpr, tpr = stats.norm.sf(c), stats.norm.sf(c - psi)
    np.testing.assert_allclose(dg.roc(psi, fpr), tpr, rtol=1e-10, atol=1e-15)
    x = np.linspace(0, 1, 201)
    np.testing.assert_allclose(dg.roc(psi, x), 1 - dg.tradeoff(psi, x), atol=1e-15)  # Lemma 5
    np.testing.assert_allclose(dg.roc(psi, x), dg.mechanism(psi).tpr(x), atol=1e-15)  # the core's view


@pytest.mark.parametrize("psi", [0.05, 0.5, 1.0, 2.0, 6.0])
def test_auc_is_the_area_under_the_roc(psi):
    area, _ = integrate.quad(lambda x: float(dg.roc(psi, x)), 0, 1, epsabs=1e-13, epsrel=1e-12, limit=200)
    assert dg.auc(psi) == pytest.approx(area, abs=1e-10)
    # the core's generic AUC, 1 − ∫f (the base class's public view), on the same mechanism
    assert Mechanism.auc.func(dg.mechanism(psi)) == pytest.approx(dg.auc(psi), abs=1e-10)
    assert dg.psi_from_auc(dg.auc(psi)) == pytest.approx(psi, rel=1e-10)


def test_auc_limits_and_bad_input():
    assert dg.auc(1e-8) == pytest.approx(0.5, abs=1e-8)  # eq 4.11
    assert dg.auc(40.0) == 1.0  # eq 4.10
    for bad in (0.5, 1.0, 0.3, 1.2, float("nan")):
        with pytest.raises(ValueError, match="^auc must be in"):
            dg.psi_from_auc(bad)
    with pytest.raises(ValueError, match="^fpr must be in"):
        dg.roc(1.0, 1.5)


@pytest.mark.parametrize("psi", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_lemma4_tangent_intercept_is_the_profile(psi, eps):
    t = dg.tangent(psi, eps)
    # numerically: the tightest δ with TPR ≤ e^ε FPR + δ is max_x R(x) − e^ε x
    u = optimize.minimize_scalar(lambda u: -(float(dg.roc(psi, stats.norm.cdf(u))) - math.exp(eps) * stats.norm.cdf(u)),
                                 bounds=(-12, 12), method="bounded", options={"xatol": 1e-12})
    assert t.intercept == pytest.approx(-u.fun, rel=1e-9, abs=1e-15)
    assert t.fpr == pytest.approx(stats.norm.cdf(u.x), rel=1e-5, abs=1e-12)
    assert t.intercept == pytest.approx(float(dg.delta(psi, eps)), rel=1e-14)
    assert t.tpr == pytest.approx(float(dg.loss_tail(psi, eps)), rel=1e-14)  # Lemma 1's quantity
    assert t.tpr == pytest.approx(t.slope * t.fpr + t.intercept, rel=1e-12)
    # the slope of R at the touching point is e^ε
    h = 1e-6 * t.fpr
    slope = (float(dg.roc(psi, t.fpr + h)) - float(dg.roc(psi, t.fpr - h))) / (2 * h)
    assert slope == pytest.approx(t.slope, rel=1e-5)


def test_fixed_point_and_minimax_bayes_error():
    for psi in (0.2, 1.0, 4.0):
        v = dg.views(psi)
        a = v.fixed_point
        assert float(dg.tradeoff(psi, a)) == pytest.approx(a, rel=1e-12)  # G_ψ(α*) = α*
        assert v.minimax_bayes_error == pytest.approx(stats.norm.cdf(-psi / 2), rel=1e-12)
        assert v.advantage == pytest.approx(2 * stats.norm.cdf(psi / 2) - 1, rel=1e-12)
        assert v.auc == pytest.approx(float(dg.auc(psi)), rel=1e-15)
