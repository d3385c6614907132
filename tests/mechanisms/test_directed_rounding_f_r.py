"""Directed rounding of the closed-form trade-off f(α) and Bayes error R(π): never above the real value.

f and R are the adversary's minimal errors, so a float above the real number overstates privacy. The
references are mpmath at 50 digits, from the closed forms (independent of the code under test):

- Gaussian G_μ: f(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, eq 5); R(π) = π·Φ(−λ/μ − μ/2) +
  (1 − π)·Φ(λ/μ − μ/2), λ = log(π/(1 − π)) ([BCP] eq 2 with the Neyman–Pearson test);
- Laplace (m = Δ/b): f as in Dong, Roth & Su 2022 App. A; R(π) = min(π, 1 − π, e^{−m/2}√(π(1 − π)));
- f_{ε,δ} (randomized response, ε-DP, (ε, δ)-DP): max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Prop 2.5 there),
  R(π) = min(π(1 − δ), (1 − π)(1 − δ), (1 − δ)/(1 + e^ε)).

Before the directed rounding 31 % (Gaussian f), 20 % (Gaussian R), 32 % / 12 % (Laplace f / R) and
41 % / 21 % (f_{ε,δ} f / R) of 3000 such draws were above the mpmath value, by up to 8.3e-14 relative;
``test_pinned_points_that_were_overstated`` keeps one of each.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import dpcompare as dc
from dpcompare import directed_rounding as rnd

mp.mp.dps = 50
U = 2.0**-53


# ---------------------------------------------------------------------------------------------- references
def _phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def _ndtri(a):
    """Φ⁻¹(a) by Newton on erfc at 50 digits (exact for a double a down to 5e-324)."""
    a = mp.mpf(a)
    if a == mp.mpf(0.5):
        return mp.mpf(0)
    if a > 0.5:
        return -_ndtri(1 - a)
    x0 = float(special.ndtri(float(a))) if float(a) > 0 else -38.0
    x = mp.mpf(x0 if math.isfinite(x0) else -38.0)
    for _ in range(100):
        dx = (_phi(x) - a) / mp.npdf(x)
        x -= dx
        if abs(dx) < mp.mpf(10) ** -45 * (1 + abs(x)):
            break
    return x


def gauss_f(mu, a):
    mu, a = mp.mpf(mu), mp.mpf(a)
    if a == 0:
        return mp.mpf(1)
    if a == 1:
        return mp.mpf(0)
    return _phi(-_ndtri(a) - mu)


def gauss_r(mu, p):
    mu, p = mp.mpf(mu), mp.mpf(p)
    if p in (0, 1):
        return mp.mpf(0)
    lam = mp.log(p / (1 - p))
    return p * _phi(-lam / mu - mu / 2) + (1 - p) * _phi(lam / mu - mu / 2)


def laplace_f(m, a):
    m, a = mp.mpf(m), mp.mpf(a)
    if a < mp.exp(-m) / 2:
        return 1 - mp.exp(m) * a
    if a <= mp.mpf(0.5):
        return mp.exp(-m) / (4 * a)
    return mp.exp(-m) * (1 - a)


def laplace_r(m, p):
    m, p = mp.mpf(m), mp.mpf(p)
    return min(p, 1 - p, mp.exp(-m / 2) * mp.sqrt(p * (1 - p)))


def eps_delta_f(e, d, a):
    e, d, a = mp.mpf(e), mp.mpf(d), mp.mpf(a)
    return max(mp.mpf(0), 1 - d - mp.exp(e) * a, mp.exp(-e) * (1 - d - a))


def eps_delta_r(e, d, p):
    e, d, p = mp.mpf(e), mp.mpf(d), mp.mpf(p)
    return min(p * (1 - d), (1 - p) * (1 - d), (1 - d) / (1 + mp.exp(e)))


def _unit(rng) -> float:
    """α or π over [0, 1] with its edges: near 0 (down to 1e-300), near 1, near ½, uniform."""
    k = rng.integers(4)
    if k == 0:
        return float(10 ** rng.uniform(-300, -1))
    if k == 1:
        return float(1 - 10 ** rng.uniform(-16, -1))
    if k == 2:
        return float(rng.uniform(0, 1))
    return float(0.5 + rng.choice([-1, 1]) * 10 ** rng.uniform(-16, -1))


def _check(got, truth, gap, where):
    """got ≤ truth (never optimistic) and, where truth is a normal double, truth − got ≤ gap·truth."""
    g = mp.mpf(float(got))
    assert g <= truth, (where, float(got), float(truth))
    assert g >= 0, where
    if truth > mp.mpf(1e-300):
        assert (truth - g) <= gap * truth, (where, float(got), float(truth), float((truth - g) / truth))


# stated pessimistic gaps (relative; measured worst over 3000 draws in brackets)
GAUSS_GAP = mp.mpf(1e-11)   # (2.3e-12: the bound grows like z²·u in the far tail and like u/μ for tiny μ)
LAPLACE_GAP = mp.mpf(5e-12)  # (3.4e-13; the bound is ≈ 2·8u·|log α| on the steep piece: 1.3e-12 at α = 5e-324)
EPS_DELTA_GAP = mp.mpf(1e-13)  # (6.6e-15) away from the kink α*, see the kink test


# ---------------------------------------------------------------------------------------------- seeded draws
def test_gaussian_f_and_r_never_above_mpmath():
    rng = np.random.default_rng(11)
    for _ in range(400):
        mu = float(10 ** rng.uniform(-4, 1.7))
        g = dc.Gaussian(mu=mu)
        a, p = _unit(rng), _unit(rng)
        _check(g.tradeoff(a), gauss_f(mu, a), GAUSS_GAP, ("f", mu, a))
        _check(g.bayes_error(p), gauss_r(mu, p), GAUSS_GAP, ("R", mu, p))


def test_laplace_f_and_r_never_above_mpmath():
    rng = np.random.default_rng(12)
    for _ in range(400):
        b = float(10 ** rng.uniform(-2.8, 3))
        lap = dc.Laplace(b=b)
        a, p = _unit(rng), _unit(rng)
        true_m, stored_m = 1 / mp.mpf(b), mp.mpf(float(lap.m))  # m = 1/b rounded up (safe side)
        for view, x, ref in (("f", a, laplace_f), ("R", p, laplace_r)):
            got = lap.tradeoff(x) if view == "f" else lap.bayes_error(x)
            assert mp.mpf(float(got)) <= ref(true_m, x), (view, b, x)
            _check(got, ref(stored_m, x), LAPLACE_GAP, (view, b, x))


def test_eps_delta_f_and_r_never_above_mpmath():
    rng = np.random.default_rng(13)
    for _ in range(400):
        e0 = float(10 ** rng.uniform(-6, 2.8))
        d0 = float(rng.choice([0.0, 10 ** rng.uniform(-300, -0.3)]))
        m = dc.ApproxDP(eps=e0, delta=d0) if d0 > 0 else rng.choice([dc.RandomizedResponse(eps=e0), dc.PureDP(eps=e0)])
        a, p = _unit(rng), _unit(rng)
        astar = float((1 - mp.mpf(d0)) / (1 + mp.exp(e0)))
        if abs(a - astar) < 1e-6 * astar:
            continue  # the kink has its own test
        _check(m.tradeoff(a), eps_delta_f(e0, d0, a), EPS_DELTA_GAP, ("f", e0, d0, a))
        _check(m.bayes_error(p), eps_delta_r(e0, d0, p), EPS_DELTA_GAP, ("R", e0, d0, p))


def test_eps_delta_f_at_the_kink():
    # near α* = (1 − δ)/(1 + e^ε) the slope e^ε amplifies the rounding of e^ε·α: never above, and the gap is
    # ≤ (ELEM + 2u)·e^ε·α absolute (t₂ carries the lower bound there), as the docstring states
    rng = np.random.default_rng(14)
    for _ in range(300):
        e0 = float(10 ** rng.uniform(-3, 2.5))
        d0 = float(rng.choice([0.0, 10 ** rng.uniform(-12, -0.3)]))
        astar = (1 - d0) / (1 + math.exp(e0))
        a = float(astar * (1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-16, -6)))
        m = dc.ApproxDP(eps=e0, delta=d0)
        truth = eps_delta_f(e0, d0, a)
        got = mp.mpf(float(m.tradeoff(a)))
        assert got <= truth, (e0, d0, a)
        assert truth - got <= 2 * (10 * U) * mp.exp(e0) * a + truth * mp.mpf(1e-13), (e0, d0, a)


# ---------------------------------------------------------------------------------------------- extremes
_UNIT_EDGES = [0.0, 5e-324, 1e-310, 1e-300, 1e-100, 1e-16, 0.25, 0.5 - 2**-54, 0.5, 0.5 + 2**-53, 0.75,
               1 - 1e-12, 1 - 2**-53, 1.0]


@pytest.mark.parametrize("mu", [1e-8, 1e-3, 0.5, 1.0, 10.0, 37.0, 1e3])
def test_gaussian_extremes(mu):
    g = dc.Gaussian(mu=mu)
    for x in _UNIT_EDGES:
        _check(g.tradeoff(x), gauss_f(mu, x), GAUSS_GAP, ("f", mu, x))
        _check(g.bayes_error(x), gauss_r(mu, x), GAUSS_GAP, ("R", mu, x))


def test_gaussian_f_in_the_far_tail_is_not_a_silent_zero():
    # Φ(z) for z < −37.5 is a positive (subnormal) double, down to 5e-324 at z ≈ −38.5, that scipy's ndtr
    # returns as 0; f(0.999) of G_35 is 9.3e-318 (mpmath)
    g = dc.Gaussian(mu=30.0)
    a = 1 - 1e-4  # z = −Φ⁻¹(α) − μ ≈ −33.7
    _check(g.tradeoff(a), gauss_f(30.0, a), GAUSS_GAP, a)
    truth = gauss_f(35.0, 0.999)
    got = mp.mpf(float(dc.Gaussian(mu=35.0).tradeoff(0.999)))
    assert 0 < got <= truth and truth - got <= mp.mpf(1e-5) * truth  # subnormal: a few units of 5e-324


@pytest.mark.parametrize("b", [1e-3, 0.05, 1.0, 1e3, 1e6])
def test_laplace_extremes(b):
    lap = dc.Laplace(b=b)
    m = mp.mpf(float(lap.m))
    for x in _UNIT_EDGES:
        _check(lap.tradeoff(x), laplace_f(m, x), LAPLACE_GAP, ("f", b, x))
        _check(lap.bayes_error(x), laplace_r(m, x), LAPLACE_GAP, ("R", b, x))


@pytest.mark.parametrize("eps", [0.0, 1e-12, 0.5, 50.0, 700.0, 720.0, 740.0, 1e4])
@pytest.mark.parametrize("delta", [0.0, 1e-300, 1e-5, 0.5, 1.0])
def test_eps_delta_extremes(eps, delta):
    m = dc.ApproxDP(eps=eps, delta=delta)
    astar = float((1 - mp.mpf(delta)) / (1 + mp.exp(eps)))
    for x in _UNIT_EDGES:
        if x != astar:
            _check(m.tradeoff(x), eps_delta_f(eps, delta, x), EPS_DELTA_GAP, ("f", eps, delta, x))
        _check(m.bayes_error(x), eps_delta_r(eps, delta, x), EPS_DELTA_GAP, ("R", eps, delta, x))


def test_perfectly_private_is_rounded_down():
    # f(α) = 1 − α and R(π) = min(π, 1 − π): fl(1 − 0.1) = 0.9 is above the real 1 − 0.1 (0.1 is stored above 1/10)
    pp = dc.PerfectlyPrivate()
    for x in _UNIT_EDGES + [0.1, 0.3, 1e-17]:
        _check(pp.tradeoff(x), 1 - mp.mpf(x), mp.mpf(1e-15), x)
        _check(pp.bayes_error(1 - x), min(mp.mpf(1 - x), 1 - mp.mpf(1 - x)), mp.mpf(1e-15), x)


# ---------------------------------------------------------------------------------------------- regressions
@pytest.mark.parametrize("mech, view, x, ref", [
    (dc.Gaussian(mu=0.5), "f", 1e-10, lambda: gauss_f(0.5, 1e-10)),                  # was 2.2e-17 relative above
    (dc.Gaussian(mu=0.5), "R", 0.05, lambda: gauss_r(0.5, 0.05)),                    # 2.4e-16
    (dc.Laplace(b=1.0), "f", 1e-3, lambda: laplace_f(1, 1e-3)),                      # 3.3e-17
    (dc.Laplace(b=2.0), "R", 0.5, lambda: laplace_r(mp.mpf(0.5), 0.5)),              # 1.3e-17
    (dc.RandomizedResponse(eps=0.5), "f", 0.1, lambda: eps_delta_f(0.5, 0, 0.1)),     # 8.5e-17
    (dc.ApproxDP(eps=0.5, delta=1e-5), "R", 0.5, lambda: eps_delta_r(0.5, 1e-5, 0.5)),  # 2.2e-17
])
def test_pinned_points_that_were_overstated(mech, view, x, ref):
    got = mech.tradeoff(x) if view == "f" else mech.bayes_error(x)
    assert mp.mpf(float(got)) <= ref()


def test_eps_delta_f_near_one_is_not_a_silent_zero():
    # f(1 − 2⁻⁵³·…) of ApproxDP(1.87e-5, 2.4e-89) was 0.0 (the pair's interpolation); the real value is 1.1e-16
    e0, d0, a = 1.873551476657452e-05, 2.445189059453758e-89, 0.9999999999999999
    _check(dc.ApproxDP(eps=e0, delta=d0).tradeoff(a), eps_delta_f(e0, d0, a), EPS_DELTA_GAP, a)


# ---------------------------------------------------------------------------------------------- the pieces
def test_scipy_normal_error_model_holds():
    # the constants of directed_rounding (ndtr within 8(1 + z²)u + ELEM, log_ndtr likewise absolute, ndtri within 16u)
    # against mpmath; measured 2.95, 2.7 and 4.8 of the respective units
    rng = np.random.default_rng(5)
    for z in np.concatenate([rng.uniform(-38.4, 8, 200), -10 ** rng.uniform(-3, 2.5, 50)]):
        t = _phi(mp.mpf(z))
        v = special.ndtr(z)
        if v > 1e-300:
            assert abs(mp.mpf(v) - t) <= mp.mpf(float(rnd.ndtr_rel(z))) * t, z
        assert abs(mp.mpf(float(special.log_ndtr(z))) - mp.log(t)) <= float(rnd.ndtr_rel(z)), z
    for a in np.concatenate([10 ** rng.uniform(-323, -0.3, 200), 1 - 10 ** rng.uniform(-16, -0.3, 50)]):
        t = _ndtri(mp.mpf(a))
        assert abs(mp.mpf(float(special.ndtri(a))) - t) <= rnd.NDTRI_REL * abs(t), a


@settings(max_examples=300, deadline=None)
@given(v=st.floats(0.0, 1.0), rel=st.floats(0.0, 0.5), abs_=st.sampled_from([0.0, 5e-324, 1e-300, 1e-20]))
def test_lower_and_upper_bracket_the_stated_interval(v, rel, abs_):
    from fractions import Fraction

    lo, hi = float(rnd.lower(v, rel, abs_)), float(rnd.upper(v, rel, abs_))
    assert Fraction(lo) <= max(Fraction(v) * (1 - Fraction(rel)) - Fraction(abs_), Fraction(0))
    assert Fraction(hi) >= Fraction(v) * (1 + Fraction(rel)) + Fraction(abs_)


@settings(max_examples=300, deadline=None)
@given(x=st.floats(0.0, 1.0))
def test_one_minus_down_is_below_the_real_difference(x):
    from fractions import Fraction

    got = float(rnd.one_minus_down(x))
    assert Fraction(got) <= 1 - Fraction(x) and Fraction(math.nextafter(got, 2.0)) > 1 - Fraction(x) - Fraction(2.0**-52)


# ---------------------------------------------------------------------------------------------- scalar summaries
@pytest.mark.parametrize("mu", [1e-6, 1e-3, 0.5, 1.0, 3.0, 10.0, 40.0])
def test_gaussian_auc_up_and_minimax_down(mu):
    # AUC = Φ(μ/√2) ([SI] eq 4.9) is reported from above (less private), R* = Φ(−μ/2) from below
    g = dc.Gaussian(mu=mu)
    auc, rstar = _phi(mp.mpf(mu) / mp.sqrt(2)), _phi(-mp.mpf(mu) / 2)
    assert auc <= mp.mpf(g.auc) <= auc * (1 + mp.mpf(1e-13))
    _check(g.minimax_bayes_error, rstar, GAUSS_GAP, mu)
    assert g.fixed_point == g.minimax_bayes_error


@pytest.mark.parametrize("b", [1e-3, 0.01, 0.5, 1.0, 3.0, 100.0, 1e6])
def test_laplace_auc_up(b):
    # AUC = 1 − e^{−m}(½ + m/4) (the integral of the Laplace f); at the exact m = 1/b it is below the reported one
    lap = dc.Laplace(b=b)
    for m in (1 / mp.mpf(b), mp.mpf(float(lap.m))):
        auc = 1 - mp.exp(-m) * (mp.mpf(0.5) + m / 4)
        assert auc <= mp.mpf(lap.auc) <= auc * (1 + mp.mpf(1e-13)) or lap.auc == 1.0
