"""Mechanism views against independent computations ([BCP] §1–2, App. A).

Sources of reference values:
- numerical integration of (q − e^ε p)₊ with scipy.integrate.quad (definition of δ, eq 25);
- Google dp-accounting's GaussianPrivacyLoss / LaplacePrivacyLoss ``get_delta_for_epsilon``
  (closed forms of Balle & Wang 2018 and of the Laplace PLD), and its PLD built by
  ``from_gaussian_mechanism``;
- the Laplace closed form δ(ε) = 1 − e^{(ε−1)/2} for b = 1;
- randomized response with ε = log(0.6/0.4): f runs from 1.0 at α = 0 to 0.55 at α = 0.3
  (f(α) = 1 − 1.5α on that stretch; riskcal gets β = 0.4 there).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.pld import privacy_loss_mechanism as plm
from hypothesis import given, strategies as st
import mpmath as mp
from scipy import integrate, optimize, stats

import dpcompare as dc
from strategies import approx_dps, discrete_mechanisms, gaussians, laplaces, mechanisms, rrs

def profile(m, eps):
    """δ(ε) through ``delta_bounds`` (upper end): ApproxDP's field ``delta`` shadows the ``delta`` method,
    see test_approxdp_delta_method_is_not_shadowed."""
    return m.delta_bounds(eps)[1]


EPS_GRID = [0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0]


# ---------------------------------------------------------------- Gaussian
@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_gaussian_delta_vs_quadrature(mu, eps):
    # P = N(0,1), Q = N(μ,1); δ(ε) = ∫ (q − e^ε p)₊ dx; the integrand is positive for x > ε/μ + μ/2
    x0 = eps / mu + mu / 2
    f = lambda x: stats.norm.pdf(x, mu) - math.exp(eps) * stats.norm.pdf(x)  # noqa: E731
    want, _ = integrate.quad(f, x0, np.inf, epsabs=1e-14, epsrel=1e-12)
    assert float(dc.Gaussian(mu=mu).delta(eps)) == pytest.approx(want, rel=1e-8, abs=1e-14)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_gaussian_delta_vs_dp_accounting(sigma, eps):
    want = plm.GaussianPrivacyLoss(sigma, sensitivity=1.0).get_delta_for_epsilon(eps)
    assert float(dc.Gaussian(sigma=sigma).delta(eps)) == pytest.approx(want, abs=1e-9)


def test_gaussian_delta_vs_dp_accounting_pld():
    # The PLD of dp-accounting is a pessimistic discretisation: δ_pld ≥ δ_true, within ~1e-4 of it
    p = pld.from_gaussian_mechanism(1.0, sensitivity=1.0, value_discretization_interval=1e-4)
    g = dc.Gaussian(sigma=1.0)
    for eps in (0.5, 1.0, 2.0):
        ours = float(g.delta(eps))
        theirs = p.get_delta_for_epsilon(eps)
        assert ours <= theirs + 1e-12
        assert theirs - ours < 1e-3


def test_gaussian_epsilon_vs_dp_accounting():
    for sigma, delta in [(1.0, 1e-5), (2.0, 1e-6), (0.8, 1e-3)]:
        loss = plm.GaussianPrivacyLoss(sigma, 1.0)
        want = optimize.brentq(lambda e: loss.get_delta_for_epsilon(e) - delta, 0.0, 100.0, xtol=1e-13)
        got = dc.Gaussian(sigma=sigma).epsilon(delta)
        assert got == pytest.approx(want, abs=1e-6)
        assert float(dc.Gaussian(sigma=sigma).delta(got)) <= delta  # never understated


# ---------------------------------------------------------------- Laplace
@pytest.mark.parametrize("eps", [0.0, 0.2, 0.5, 0.9, 0.999])
def test_laplace_delta_closed_form(eps):
    # b = 1, δ(ε) = 1 − e^{(ε−1)/2} on [0, 1), 0 beyond
    assert float(dc.Laplace(b=1).delta(eps)) == pytest.approx(1 - math.exp((eps - 1) / 2), rel=1e-12)
    assert float(dc.Laplace(b=1).delta(1.0 + eps)) == 0.0


@pytest.mark.parametrize("b", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_laplace_delta_vs_dp_accounting(b, eps):
    want = plm.LaplacePrivacyLoss(b, sensitivity=1.0).get_delta_for_epsilon(eps)
    assert float(dc.Laplace(b=b).delta(eps)) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("b", [0.5, 1.0, 3.0])
def test_laplace_delta_vs_quadrature(b):
    q = lambda x: stats.laplace.pdf(x, 1.0, b)  # noqa: E731
    p = lambda x: stats.laplace.pdf(x, 0.0, b)  # noqa: E731
    for eps in (0.0, 0.3 / b):
        f = lambda x: max(q(x) - math.exp(eps) * p(x), 0.0)  # noqa: E731
        want = sum(integrate.quad(f, lo, hi, epsabs=1e-13, limit=200)[0] for lo, hi in [(-50 * b, 0), (0, 1), (1, 50 * b + 1)])
        assert float(dc.Laplace(b=b).delta(eps)) == pytest.approx(want, abs=1e-9)


# ---------------------------------------------------------------- randomized response
def test_randomized_response_tradeoff_riskcal_trap():
    rr = dc.RandomizedResponse(eps=math.log(0.6 / 0.4))
    alpha = np.linspace(0, 0.3, 31)
    np.testing.assert_allclose(rr.tradeoff(alpha), 1 - 1.5 * alpha, atol=1e-14)
    assert float(rr.tradeoff(0.0)) == pytest.approx(1.0, abs=1e-15)
    assert float(rr.tradeoff(0.3)) == pytest.approx(0.55, abs=1e-14)


def test_randomized_response_hand_values():
    # ε = log 3: TV = (3−1)/(3+1) = 1/2; R(½) = 1/(1+e^ε)·½·2 = 1/4
    rr = dc.RandomizedResponse(eps=math.log(3))
    assert rr.advantage == pytest.approx(0.5, abs=1e-15)
    assert rr.minimax_bayes_error == pytest.approx(0.25, abs=1e-15)


# ---------------------------------------------------------------- derived views (any mechanism)
@given(mechanisms)
def test_auc_is_integral_of_one_minus_f(m):
    # quadrature split at the kinks of f (the vertices of a discrete curve) so each piece is smooth
    kinks = [1e-6, 1e-3, 0.5]
    if m.pairs() is not None:
        kinks += [float(x) for x in m.pairs()[0].vertices[0] if 0 < x < 1]
    if isinstance(m, dc.Laplace):  # f has kinks where the test's threshold meets the loss atoms ±m: α = e^{−m}/2, 1 − e^{−m}/2
        kinks += [math.exp(-m.m) / 2, 1 - math.exp(-m.m) / 2]
    edges = np.unique(np.concatenate([[0.0, 1.0], kinks]))
    want = sum(integrate.quad(lambda a: 1 - float(m.tradeoff(a)), lo, hi, limit=200, epsabs=1e-13)[0]
               for lo, hi in zip(edges[:-1], edges[1:]))
    assert m.auc == pytest.approx(want, abs=1e-7)


@given(mechanisms)
def test_advantage_is_delta_at_zero(m):
    assert m.advantage == pytest.approx(float(profile(m, 0.0)), abs=1e-15)


@given(mechanisms)
def test_fixed_point(m):
    a = m.fixed_point
    assert float(m.tradeoff(a)) == pytest.approx(a, abs=1e-9)
    assert a == pytest.approx(float(m.bayes_error(0.5)), abs=1e-12)


@given(mechanisms, st.floats(1e-6, 0.5))
def test_bayes_error_from_profile(m, pi):
    # R(π) = π(1 − δ(log((1−π)/π))) for π ≤ ½, and R(π) = R(1−π)
    want = pi * (1 - float(profile(m, math.log((1 - pi) / pi))))
    assert float(m.bayes_error(pi)) == pytest.approx(want, abs=1e-12)
    assert float(m.bayes_error(1 - pi)) == pytest.approx(want, abs=1e-12)


def _f_from_R(m, alpha, pis):
    R = m.bayes_error(pis)
    return np.max((R[None, :] - pis[None, :] * alpha[:, None]) / (1 - pis[None, :]), axis=1)


@given(st.one_of(gaussians, laplaces))
def test_eq4_round_trip_continuous(m):
    # [BCP] eq 4: f(α) = max_π (R(π) − πα)/(1−π); on a fine π grid the max is ≤ f and close to it
    pis = np.unique(np.concatenate([np.linspace(0, 0.999, 4001), 1 / (1 + np.exp(-np.linspace(-15, 15, 2001)))]))
    alpha = np.linspace(0.01, 0.99, 50)
    rec = _f_from_R(m, alpha, pis)
    f = m.tradeoff(alpha)
    assert np.all(rec <= f + 1e-12)
    np.testing.assert_allclose(rec, f, atol=2e-3)


@given(discrete_mechanisms)
def test_eq4_round_trip_discrete_exact(m):
    # for a discrete mechanism the max over π is attained at a breakpoint πᵢ = 1/(1+e^{−ℓᵢ}) or at π = 0
    pair = m.pairs()[0]
    pis = np.concatenate([[0.0], 1 / (1 + np.exp(-pair.loss))])
    pis = pis[pis < 1]
    alpha = np.linspace(0, 1, 41)
    np.testing.assert_allclose(_f_from_R(m, alpha, pis), m.tradeoff(alpha), atol=1e-12)


# ---------------------------------------------------------------- extreme inputs
def test_extreme_small_mu_is_nearly_perfectly_private():
    g = dc.Gaussian(mu=1e-6)
    d0 = float(g.delta(0.0))
    # δ(0) = 2Φ(μ/2) − 1 ≈ μ/√(2π)
    assert d0 == pytest.approx(1e-6 / math.sqrt(2 * math.pi), rel=1e-6)
    assert np.all(np.isfinite(g.tradeoff(np.linspace(0, 1, 11))))
    assert g.epsilon(1e-5) == 0.0


def _mp_gauss_log_delta(mu, eps):
    """Reference: Balle & Wang 2018 Thm 8 evaluated with mpmath at 80 digits."""
    mp.mp.dps = 80
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return float(mp.log(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)))


def test_extreme_large_mu():
    g = dc.Gaussian(mu=40)
    assert float(g.delta(0.0)) == pytest.approx(1.0, abs=1e-15)
    for eps in (700.0, 790.0, 900.0):  # δ(790) ≈ 0.589: e^ε·Φ(·) cancels heavily against Φ(·)
        assert float(g.log_delta(eps)) == pytest.approx(_mp_gauss_log_delta(40, eps), rel=1e-10, abs=1e-14)
    R = float(g.bayes_error(0.5))
    assert R == pytest.approx(stats.norm.cdf(-20), rel=1e-10) and R > 0
    eps = g.epsilon(1e-5)
    assert math.isfinite(eps) and eps > 0


def test_epsilon_at_delta_1e_minus_300():
    g = dc.Gaussian(mu=1.0)
    eps = g.epsilon(1e-300)
    assert math.isfinite(eps) and eps > 0
    # log δ(ε) = log 1e-300 to high relative precision (δ computed in log space)
    assert float(g.log_delta(eps)) == pytest.approx(math.log(1e-300), rel=1e-9)
    # Gaussian tail: δ(ε) ≈ Φ(−ε/μ + μ/2), so ε ≈ μ·(z + μ/2) with z ≈ 37 for 1e-300
    assert 30 < eps < 60


def test_huge_epsilon_gives_tiny_but_ordered_delta():
    g = dc.Gaussian(mu=1.0)
    ld = g.log_delta(np.array([50.0, 100.0, 500.0]))
    want = [_mp_gauss_log_delta(1, e) for e in (50, 100, 500)]  # δ(500) ≈ e^{−124763}: far below 1e-300
    np.testing.assert_allclose(ld, want, rtol=1e-10)
    assert float(g.delta(1e6)) == 0.0 or np.isfinite(float(g.log_delta(1e6)))
    assert float(dc.Laplace(b=1).delta(1e6)) == 0.0
    assert float(dc.RandomizedResponse(eps=2).delta(1e6)) == 0.0


def test_large_eps_randomized_response_is_finite():
    rr = dc.RandomizedResponse(eps=700.0)
    assert float(rr.delta(0.0)) == pytest.approx(1.0, abs=1e-12)
    assert float(rr.bayes_error(0.5)) > 0
    assert np.isfinite(rr.epsilon(1e-5))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: dc.Gaussian(sigma=0.0), "sigma"),
        (lambda: dc.Gaussian(sigma=-1.0), "sigma"),
        (lambda: dc.Gaussian(mu=0.0), "mu"),
        (lambda: dc.Gaussian(mu=-2.0), "mu"),
        (lambda: dc.Gaussian(mu=float("nan")), "mu"),
        (lambda: dc.Laplace(b=0.0), "b"),
        (lambda: dc.Laplace(b=-1.0), "b"),
        (lambda: dc.RandomizedResponse(eps=-0.1), "eps"),
        (lambda: dc.ApproxDP(eps=-1.0, delta=0.1), "eps"),
        (lambda: dc.ApproxDP(eps=1.0, delta=1.5), "delta"),
        (lambda: dc.ApproxDP(eps=1.0, delta=-0.1), "delta"),
        (lambda: dc.Gaussian(mu=1).tradeoff(1.5), "alpha"),
        (lambda: dc.Gaussian(mu=1).tradeoff(-0.1), "alpha"),
        (lambda: dc.Gaussian(mu=1).tradeoff(float("nan")), "alpha"),
        (lambda: dc.Gaussian(mu=1).bayes_error(1.01), "pi"),
        (lambda: dc.Laplace(b=1).bayes_error(float("nan")), "pi"),
        (lambda: dc.RandomizedResponse(eps=1).bayes_error(-0.5), "pi"),
        (lambda: dc.Gaussian(mu=1).delta(float("nan")), "eps"),
        (lambda: dc.Gaussian(mu=1).epsilon(1.5), "delta"),
        (lambda: dc.Gaussian(mu=1).epsilon(-1e-3), "delta"),
        (lambda: dc.Gaussian(mu=1).epsilon(float("nan")), "delta"),
    ],
)
def test_bad_input_names_parameter(make, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        make()


def test_approxdp_delta_method_is_not_shadowed():
    m = dc.ApproxDP(eps=1.0, delta=0.1)
    # f_{ε,δ}: δ(ε') = δ + (1−δ)·max(0, (e^ε − e^ε')/(1+e^ε)) (Dong et al. 2022 Prop 2.5); at ε' = 0
    want = 0.1 + 0.9 * (math.e - 1) / (1 + math.e)
    assert float(m.delta(0.0)) == pytest.approx(want, abs=1e-14)


def test_approxdp_profile_closed_form_via_bounds():
    m = dc.ApproxDP(eps=1.0, delta=0.1)
    for e in (0.0, 0.5, 1.0, 2.0):
        want = 0.1 + 0.9 * max(0.0, (math.e - math.exp(e)) / (1 + math.e))
        assert float(profile(m, e)) == pytest.approx(want, abs=1e-14)
