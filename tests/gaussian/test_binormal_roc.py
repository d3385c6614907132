"""[SI] Cor 2–3 (binormal ROC/AUC, σ₀ ≠ σ₁) and Cor 10 (Rényi divergence of Gaussians of different
variance), against independent computations.

References: the parametric ROC (FPR(c), TPR(c)) of the threshold test from scipy.stats; AUC by
scipy.integrate.quad of R(x) and as P(Y > X) by 2-D quadrature; the Neyman–Pearson ROC by numerically
integrating the two densities over the region {log p₁/p₀ > t}; Rényi divergences by mpmath quadrature
of (1/(α−1))·log ∫ p_i^α p_j^{1−α} ([SI] eq 3.6); the equal-variance closed form αψ²/2 (Lemma 7).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

import dpcompare.gaussian as dg
from dpcompare.gaussian import binormal_roc as bn

A = st.floats(0.0, 6.0, allow_nan=False)
B = st.floats(0.2, 5.0, allow_nan=False)
SIG = st.floats(0.3, 3.0, allow_nan=False)
MU = st.floats(-3.0, 3.0, allow_nan=False)


# ---------------------------------------------------------------------------------------------- Cor 2
@pytest.mark.parametrize("mu0,s0,mu1,s1", [(0.0, 1.0, 1.0, 1.0), (0.0, 2.0, 1.5, 1.0), (-1.0, 0.5, 0.5, 1.3)])
def test_cor2_roc_is_the_threshold_tests_roc(mu0, s0, mu1, s1):
    """(FPR(c), TPR(c)) of 'positive iff t > c' under N(μ₀,σ₀²) and N(μ₁,σ₁²) lies on eq 4.5."""
    a, b = bn.binormal_params(mu0, s0, mu1, s1)
    c = np.linspace(-6, 6, 121)
    fpr = stats.norm.sf(c, mu0, s0)
    tpr = stats.norm.sf(c, mu1, s1)
    keep = fpr < 1 - 1e-6  # Φ⁻¹(x) near x = 1 is ill-conditioned in double precision (x itself is rounded)
    fpr, tpr = fpr[keep], tpr[keep]
    np.testing.assert_allclose(bn.binormal_roc(fpr, a, b), tpr, rtol=1e-9, atol=1e-15)


def test_cor2_vector_means_use_the_norm():
    assert bn.binormal_params([0.0, 0.0], 1.0, [3.0, 4.0], 2.0) == (2.5, 0.5)


@given(a=A, b=B)
@settings(max_examples=60, deadline=None)
def test_cor2_roc_increasing_with_the_right_ends(a, b):
    x = np.linspace(0.0, 1.0, 401)
    r = bn.binormal_roc(x, a, b)
    assert r[0] == 0.0 and r[-1] == 1.0
    assert np.all(np.diff(r) >= -1e-15)
    assert np.all((r >= 0) & (r <= 1))


@given(a=st.floats(0.0, 6.0), )
@settings(max_examples=40, deadline=None)
def test_cor2_concave_when_b_is_one_and_equal_to_eq_4_7(a):
    x = np.linspace(1e-6, 1 - 1e-6, 801)
    r = bn.binormal_roc(x, a, 1.0)
    assert np.all(np.diff(r, 2) <= 1e-12)
    if a > 0:
        np.testing.assert_allclose(r, dg.roc(a, x), rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_cor2_is_not_concave_and_crosses_the_diagonal_when_b_differs_from_one(b):
    """The documented limitation: eq 4.5 with b ≠ 1 is the ROC of a sub-optimal test."""
    x = np.linspace(1e-4, 1 - 1e-4, 4001)
    r = bn.binormal_roc(x, 1.0, b)
    assert np.any(np.diff(r, 2) > 1e-9)          # a convex stretch
    assert np.any(r < x - 1e-4)                  # worse than guessing somewhere
    assert np.all(bn.optimal_roc(x[::50], 1.0, b) >= r[::50] - 1e-12)


# ---------------------------------------------------------------------------------------------- Cor 3
@pytest.mark.parametrize("a,b", [(0.0, 1.0), (1.0, 1.0), (1.0, 2.0), (2.5, 0.5), (4.0, 3.0)])
def test_cor3_auc_by_quadrature_of_the_roc(a, b):
    val, _ = integrate.quad(lambda x: bn.binormal_roc(x, a, b), 0.0, 1.0, epsabs=1e-13, epsrel=1e-12, limit=200,
                            points=[1e-6, 1e-3, 0.5, 1 - 1e-3])
    assert bn.binormal_auc(a, b) == pytest.approx(val, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("mu0,s0,mu1,s1", [(0.0, 2.0, 1.5, 1.0), (-1.0, 0.5, 0.5, 1.3)])
def test_cor3_auc_is_probability_positive_beats_negative(mu0, s0, mu1, s1):
    """P(Y > X) by quadrature over X: ∫ φ_X(x)·P(Y > x) dx."""
    val, _ = integrate.quad(lambda x: stats.norm.pdf(x, mu0, s0) * stats.norm.sf(x, mu1, s1), -np.inf, np.inf,
                            epsabs=1e-14, epsrel=1e-12)
    a, b = bn.binormal_params(mu0, s0, mu1, s1)
    assert bn.binormal_auc(a, b) == pytest.approx(val, rel=1e-10)


@given(a=A, b=B)
@settings(max_examples=100, deadline=None)
def test_cor3_auc_in_half_one_and_lemma3_at_b_one(a, b):
    v = bn.binormal_auc(a, b)
    assert 0.5 <= v <= 1.0
    if a > 0:
        assert bn.binormal_auc(a, 1.0) == pytest.approx(dg.auc(a), rel=1e-15)


# --------------------------------------------------------------------------- Neyman–Pearson ROC (derived)
def _np_roc_by_integration(x: float, a: float, b: float) -> float:
    """TPR of the LR test at FPR x: find t with P₀(ℓ > t) = x by integrating densities over {ℓ > t}."""
    p0 = stats.norm(0.0, b)
    p1 = stats.norm(a, 1.0)
    grid = np.linspace(-40, 40, 400_001)
    llr = p1.logpdf(grid) - p0.logpdf(grid)
    dx = grid[1] - grid[0]
    f0, f1 = p0.pdf(grid) * dx, p1.pdf(grid) * dx
    order = np.argsort(-llr)
    c0, c1 = np.cumsum(f0[order]), np.cumsum(f1[order])
    k = np.searchsorted(c0, x)
    return float(np.interp(x, c0[max(k - 2, 0):k + 2], c1[max(k - 2, 0):k + 2]))


@pytest.mark.parametrize("a,b", [(1.0, 2.0), (1.0, 0.5), (0.0, 1.7), (2.0, 0.8)])
@pytest.mark.parametrize("x", [0.01, 0.1, 0.5, 0.9])
def test_optimal_roc_against_brute_force_neyman_pearson(a, b, x):
    assert bn.optimal_roc(x, a, b) == pytest.approx(_np_roc_by_integration(x, a, b), abs=2e-5)


@pytest.mark.parametrize("x", [1e-14, 1e-8, 0.3, 0.999999])
@pytest.mark.parametrize("a,b", [(1.0, 2.0), (1.0, 0.5), (3.0, 1.5), (0.0, 3.0), (0.0, 0.3)])
def test_optimal_roc_accurate_at_tiny_rates_against_mpmath(a, b, x):
    """The region's masses in 40-digit arithmetic, its half-width found by bisection (no cancellation)."""
    with mp.workdps(40):
        am, bm, xm = mp.mpf(a), mp.mpf(b), mp.mpf(x)
        c = am * bm * bm / (bm * bm - 1)
        if b > 1:
            f0 = lambda h: mp.ncdf((c + h) / bm) - mp.ncdf((c - h) / bm)  # noqa: E731
            f1 = lambda h: mp.ncdf(c + h - am) - mp.ncdf(c - h - am)  # noqa: E731
        else:
            f0 = lambda h: mp.ncdf((c - h) / bm) + 1 - mp.ncdf((c + h) / bm)  # noqa: E731
            f1 = lambda h: mp.ncdf(c - h - am) + 1 - mp.ncdf(c + h - am)  # noqa: E731
        lo, hi = mp.mpf(0), mp.mpf(100)
        for _ in range(300):
            mid = (lo + hi) / 2
            if (f0(mid) < xm) == (b > 1):
                lo = mid
            else:
                hi = mid
        ref = float(f1((lo + hi) / 2))
    assert bn.optimal_roc(x, a, b) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("b", [1 - 1e-6, 1 + 1e-6])
def test_optimal_roc_tends_to_lemma2_as_b_tends_to_one(b):
    x = np.array([1e-6, 0.01, 0.3, 0.9])
    np.testing.assert_allclose(bn.optimal_roc(x, 1.5, b), dg.roc(1.5, x), rtol=1e-4)


@given(a=st.floats(0.0, 4.0), b=st.floats(0.3, 3.0))
@settings(max_examples=25, deadline=None)
def test_optimal_roc_concave_increasing_and_above_the_binormal(a, b):
    x = np.linspace(0.0, 1.0, 81)
    r = bn.optimal_roc(x, a, b)
    assert r[0] == 0.0 and r[-1] == 1.0
    assert np.all(np.diff(r) >= -1e-9)
    assert np.all(np.diff(r, 2) <= 1e-8)
    assert np.all(r >= x - 1e-9)
    assert np.all(r >= bn.binormal_roc(x, a, b) - 1e-9)


# ---------------------------------------------------------------------------------------------- Cor 10
def _renyi_mp(alpha, mi, si, mj, sj):
    with mp.workdps(30):
        a = mp.mpf(alpha)
        f = lambda x: mp.npdf(x, mi, si) ** a * mp.npdf(x, mj, sj) ** (1 - a)  # noqa: E731
        pts = sorted({-mp.inf, mi, mj, 0, mp.inf})
        return float(mp.log(mp.quad(f, pts)) / (a - 1))


@pytest.mark.parametrize("alpha", [0.3, 0.5, 1.5, 2.0, 4.0])
@pytest.mark.parametrize("mi,si,mj,sj", [(0.0, 1.0, 1.0, 1.0), (0.0, 1.2, 1.0, 1.0), (1.0, 1.0, 0.0, 1.2),
                                        (0.5, 0.7, -0.5, 1.4), (0.0, 2.0, 0.0, 2.5)])
def test_cor10_by_mpmath_quadrature(alpha, mi, si, mj, sj):
    v = bn.renyi_divergence(alpha, mi, si, mj, sj)
    if math.isinf(v):
        # only where σ_α² ≤ 0 (the integral diverges; see the next test)
        assert alpha * sj * sj + (1 - alpha) * si * si <= 0
        return
    assert v == pytest.approx(_renyi_mp(alpha, mi, si, mj, sj), rel=1e-10, abs=1e-13)


def test_cor10_infinite_exactly_when_the_integral_diverges():
    """α ≥ σ_i²/(σ_i² − σ_j²): p_i^α p_j^{1−α} ∝ exp(−x²/2·(α/σ_i² − (α−1)/σ_j²)) has a non-negative exponent."""
    si, sj = 2.0, 1.0  # threshold α = 4/3
    assert math.isinf(bn.renyi_divergence(1.4, 0.0, si, 0.0, sj))
    assert math.isinf(bn.renyi_divergence(4 / 3 + 1e-12, 0.0, si, 0.0, sj))
    finite = bn.renyi_divergence(1.3, 0.0, si, 0.0, sj)
    assert math.isfinite(finite) and finite == pytest.approx(_renyi_mp(1.3, 0.0, si, 0.0, sj), rel=1e-9)
    # the truncated integral grows without bound past the threshold
    g = lambda L: integrate.quad(  # noqa: E731
        lambda x: math.exp(1.4 * stats.norm.logpdf(x, 0, si) - 0.4 * stats.norm.logpdf(x, 0, sj)), -L, L)[0]
    assert g(30.0) > 10 * g(15.0)


def test_cor10_d_dimensions_is_the_sum_over_coordinates():
    """Independent coordinates: D_α of a product is the sum of the D_α's (tensorisation)."""
    mi, mj = np.array([0.3, -1.0, 2.0]), np.array([1.0, 0.0, 2.5])
    total = sum(bn.renyi_divergence(2.5, mi[k], 0.9, mj[k], 1.1) for k in range(3))
    assert bn.renyi_divergence(2.5, mi, 0.9, mj, 1.1) == pytest.approx(total, rel=1e-13)


@given(alpha=st.floats(1.0001, 50.0), psi=st.floats(0.01, 10.0), sigma=SIG, mu=MU)
@settings(max_examples=80, deadline=None)
def test_cor10_reduces_to_lemma7_with_equal_variances(alpha, psi, sigma, mu):
    v = bn.renyi_divergence(alpha, mu, sigma, mu + psi * sigma, sigma)
    assert v == pytest.approx(dg.rdp(psi, alpha), rel=1e-12)


@given(mi=MU, si=SIG, mj=MU, sj=SIG, a1=st.floats(0.05, 20.0), a2=st.floats(0.05, 20.0))
@settings(max_examples=150, deadline=None)
def test_cor10_nonnegative_and_nondecreasing_in_the_order(mi, si, mj, sj, a1, a2):
    lo, hi = min(a1, a2), max(a1, a2)
    d_lo, d_hi = bn.renyi_divergence(lo, mi, si, mj, sj), bn.renyi_divergence(hi, mi, si, mj, sj)
    assert d_lo >= -1e-12
    if math.isinf(d_lo):
        assert math.isinf(d_hi)
    else:
        assert d_hi >= d_lo - 1e-10 * max(1.0, abs(d_lo))


@given(mi=MU, si=SIG, mj=MU, sj=SIG)
@settings(max_examples=80, deadline=None)
def test_cor10_is_continuous_at_order_one_kl(mi, si, mj, sj):
    kl = bn.kl_divergence(mi, si, mj, sj)
    assert bn.renyi_divergence(1.0, mi, si, mj, sj) == kl
    for eps in (1e-7, -1e-7):
        assert bn.renyi_divergence(1.0 + eps, mi, si, mj, sj) == pytest.approx(kl, rel=1e-5, abs=1e-8)


def test_kl_by_quadrature():
    ref, _ = integrate.quad(lambda x: stats.norm.pdf(x, 0.5, 0.7) * (stats.norm.logpdf(x, 0.5, 0.7)
                                                                    - stats.norm.logpdf(x, -0.5, 1.4)), -20, 20,
                            epsabs=1e-14)
    assert bn.kl_divergence(0.5, 0.7, -0.5, 1.4) == pytest.approx(ref, rel=1e-10)


# ---------------------------------------------------------------------------------------------- inputs
@pytest.mark.parametrize("call,match", [
    (lambda: bn.binormal_roc(1.5, 1.0, 1.0), "fpr must be in \\[0, 1\\]"),
    (lambda: bn.binormal_roc(0.5, -1.0, 1.0), "a must be"),
    (lambda: bn.binormal_auc(1.0, 0.0), "b must be"),
    (lambda: bn.binormal_params(0.0, -1.0, 1.0, 1.0), "sigma0 must be"),
    (lambda: bn.binormal_params([0, 1], 1.0, 1.0, 1.0), "same length"),
    (lambda: bn.renyi_divergence(0.0, 0.0, 1.0, 1.0, 1.0), "alpha must be"),
    (lambda: bn.renyi_divergence(2.0, 0.0, 1.0, 1.0, float("nan")), "sigma_j must be"),
    (lambda: bn.optimal_roc(0.5, 1.0, [1.0, 2.0]), "b must be a single number"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("bad", [True, "1.0", None])
def test_non_numbers_are_type_errors(bad):
    with pytest.raises(TypeError, match="alpha must be a real number"):
        bn.renyi_divergence(bad, 0.0, 1.0, 1.0, 1.0)
