"""The Gaussian δ(ε) is rounded outwards by a proved error bound (``gaussian_profile.log_delta_error``):
checked against Balle & Wang 2018 Thm 8 evaluated in mpmath with enough digits to survive the cancellation,
over μ ∈ [1e-300, 40] and ε ∈ [0, 1e4]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.mechanisms import gaussian_profile as gp

mp = pytest.importorskip("mpmath", reason="mpmath is the reference for the Gaussian δ")


def _true_log_delta(mu: float, eps: float) -> "mp.mpf":
    """log(Φ(−z₀) − e^ε·Φ(−z₁)) at 60 digits beyond the cancellation: the two terms agree to ≈ log10(z₁/μ)
    digits, and their exponents z²/2 need log10(z₁²) more for z₁² − z₀² = 2ε to survive."""
    z1 = eps / mu + mu / 2
    loss = 3.0 * math.log10(1.0 + abs(z1)) - math.log10(min(mu, 1.0))
    with mp.workdps(int(60 + loss)):
        m, e = mp.mpf(mu), mp.mpf(eps)
        a = mp.ncdf(-(e / m - m / 2))
        b = mp.exp(e) * mp.ncdf(-(e / m + m / 2))
        d = a - b
        assert d > 0
        return mp.log(d)


def _draws(n: int, seed: int) -> list[tuple[float, float]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        mu = float(10.0 ** rng.uniform(-300, math.log10(40.0)))
        kind = rng.integers(3)
        if kind == 0:
            eps = 0.0
        elif kind == 1:  # δ of moderate size: ε = μ·(μ/2 + z)
            eps = max(0.0, mu * (mu / 2 + float(rng.uniform(-5, 38))))
        else:
            eps = float(10.0 ** rng.uniform(-300, 4))
        out.append((mu, min(eps, 1e4)))
    return out + [(1e-300, 0.0), (1e-300, 1e4), (40.0, 0.0), (40.0, 1e4), (1.0, 1e4), (1e-8, 1e-8), (0.3, 1.0)]


@pytest.mark.parametrize("seed", [0, 1])
def test_log_delta_error_encloses_the_truth(seed):
    draws = _draws(120, seed)
    mu = np.array([d[0] for d in draws])
    eps = np.array([d[1] for d in draws])
    ld, err = gp.log_delta_error(mu, eps)
    lo, hi = gp.delta_bounds(mu, eps)
    worst = 0.0
    for i, (m, e) in enumerate(draws):
        if not math.isfinite(ld[i]):  # δ below e^(−1e308): the caller reports 5e-324
            assert hi[i] == 5e-324
            continue
        t = _true_log_delta(m, e)
        actual = abs(float(t - mp.mpf(float(ld[i]))))
        assert actual <= err[i], (m, e, actual, err[i])
        worst = max(worst, actual / err[i]) if err[i] > 0 else worst
        with mp.workdps(60):
            truth = mp.exp(t)
            # never below the truth; above it by at most the stated bound (plus the rounding of the ends)
            assert mp.mpf(float(hi[i])) >= truth
            assert mp.mpf(float(lo[i])) <= truth
            slack = mp.expm1(2.05 * (float(err[i]) + 2.0**-50))
            assert mp.mpf(float(hi[i])) <= truth * (1 + slack) + mp.mpf(3e-323), (m, e)
    assert worst > 1e-4  # the bound is not vacuous: it is within 4 decades of the actual error somewhere


def test_delta_bound_is_tight_where_delta_is_a_normal_double():
    # the documented size of the bound (continuous.Gaussian._delta_bounds): ≤ 1e-11 relative where δ ≥ 1e-300
    draws = _draws(400, 7)
    mu = np.array([d[0] for d in draws])
    eps = np.array([d[1] for d in draws])
    lo, hi = gp.delta_bounds(mu, eps)
    normal = lo > 1e-300
    assert normal.sum() > 100
    assert np.all((hi[normal] - lo[normal]) / lo[normal] <= 2e-11)


def test_gauss_legendre_table_is_as_accurate_as_stated():
    # the bound assumes numpy's 16-point nodes within _GL_XABS and weights within _GL_WREL (relative);
    # reference: the roots of P₁₆ and wᵢ = 2/((1 − xᵢ²)P₁₆′(xᵢ)²) in mpmath at 40 digits
    x, w = np.polynomial.legendre.leggauss(16)
    assert np.array_equal(x, gp._GL_X) and np.array_equal(w, gp._GL_W)
    with mp.workdps(40):
        for xi, wi in zip(x, w):
            r = mp.findroot(lambda t: mp.legendre(16, t), mp.mpf(float(xi)))
            dp = mp.diff(lambda s: mp.legendre(16, s), r)
            assert abs(mp.mpf(float(xi)) - r) <= gp._GL_XABS
            assert abs(mp.mpf(float(wi)) / (2 / ((1 - r**2) * dp**2)) - 1) <= gp._GL_WREL


def test_erfcx_is_as_accurate_as_stated():
    from scipy import special

    rng = np.random.default_rng(3)
    y = np.concatenate([rng.uniform(-26, 5, 300), np.exp(rng.uniform(-30, 8, 300))])
    v = special.erfcx(y)
    bound = gp._erfcx_rel(y)
    with mp.workdps(40):
        for a, yy, b in zip(v, y, bound):
            ref = mp.exp(mp.mpf(float(yy)) ** 2) * mp.erfc(mp.mpf(float(yy)))
            assert abs(mp.mpf(float(a)) / ref - 1) <= b


def test_scalar_twin_agrees_with_the_vector_bound():
    draws = _draws(300, 11)
    mu = np.array([d[0] for d in draws])
    eps = np.array([d[1] for d in draws])
    ld, err = gp.log_delta_error(mu, eps)
    lo, hi = gp.delta_bounds(mu, eps)
    for i, (m, e) in enumerate(draws):
        lds, errs = gp.log_delta_error_scalar(m, e)
        assert lds == pytest.approx(float(ld[i]), rel=1e-13, abs=1e-300)
        assert errs == pytest.approx(float(err[i]), rel=1e-12)
        slo, shi = gp.delta_bounds(m, e)  # 0-d inputs: the scalar path
        assert float(shi) == pytest.approx(float(hi[i]), rel=1e-12, abs=1e-323)
        assert float(slo) == pytest.approx(float(lo[i]), rel=1e-12, abs=1e-323)


def test_unbounded_first_order_error_still_caps_delta():
    # μ = 1e-5, ε ≈ 924: both Φ terms are ≈ e^{−4e15}, so u·|log Φ| ≈ 0.4 exceeds |log(1 − e^x)|'s safe range
    # and the first-order bound is ∞; δ ≤ Φ(−z₀) still caps the upper end (it read 1.0 before; the
    # property test of tests/mechanisms/test_closed_form_domain.py found the jump)
    eps = np.array([417.5, 923.67, 2043.36, 4520.0])
    _, err = gp.log_delta_error(1e-5, eps)
    assert not np.all(np.isfinite(err))
    lo, hi = gp.delta_bounds(1e-5, eps)
    assert np.all(hi == 5e-324) and np.all(lo == 0.0)
    assert all(float(gp.delta_bounds(1e-5, float(e))[1]) == 5e-324 for e in eps)
