"""The closed-form and discrete mechanisms on their whole parameter domain.

Every reference below is computed independently of dpcompare, with mpmath at 50 digits from the
closed forms:

- ε-DP / randomized response with ε₀ (Dong et al. 2022, Prop 2.5; Kairouz et al. 2015):
  δ(ε) = (e^{ε₀} − e^{ε})/(1 + e^{ε₀}) for 0 ≤ ε ≤ ε₀, so ε(δ) = ε₀ + log(1 − δ(1 + e^{−ε₀})).
- (ε₀, δ₀)-DP: δ(ε) = δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})/(1 + e^{ε₀}) for 0 ≤ ε ≤ ε₀.
- Laplace with m = Δ/b: δ(ε) = 1 − e^{(ε−m)/2} for 0 ≤ ε < m, ε(δ) = m + 2 log(1 − δ);
  f(α) = 1 − e^m α (α < e^{−m}/2), e^{−m}/(4α) (α ≤ ½), e^{−m}(1 − α) (Dong et al. 2022, App. A).
- Gaussian μ (Balle & Wang 2018, Thm 8; [SI] eq 7.1): δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).

"Never understated" is checked as: the true δ at the returned ε is ≤ the target (up to the 1e-9
relative error of the double evaluation), and ε is tight (the true δ slightly below the returned ε
exceeds the target).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare._validation import Argument, ParameterTypeError, check_argument
from dpcompare.tradeoff import Bracket, DiscretePair, PairBracket, Rounding, Sense

DPS = 50  # every reference is computed inside mp.workdps(DPS): no global mpmath state


# ---------------------------------------------------------------------- mpmath references
def mp_rr_delta(eps0, eps, delta0=0):
    with mp.workdps(DPS):
        eps0, eps, delta0 = mp.mpf(eps0), mp.mpf(eps), mp.mpf(delta0)
        if eps >= eps0:
            return delta0
        return delta0 + (1 - delta0) * (mp.exp(eps0) - mp.exp(eps)) / (1 + mp.exp(eps0))


def mp_rr_epsilon(eps0, delta):
    with mp.workdps(DPS):
        eps0, delta = mp.mpf(eps0), mp.mpf(delta)
        if mp_rr_delta(eps0, 0) <= delta:
            return mp.mpf(0)
        return eps0 + mp.log(1 - delta * (1 + mp.exp(-eps0)))


def mp_gauss_delta(mu, eps):
    with mp.workdps(max(DPS, mp.mp.dps)):
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def mp_laplace_delta(m, eps):
    with mp.workdps(DPS):
        m, eps = mp.mpf(m), mp.mpf(eps)
        return mp.mpf(0) if eps >= m else 1 - mp.exp((eps - m) / 2)


def _never_understated(true_delta_at, eps: float, delta: float, rel: float = 1e-9) -> None:
    """true δ(ε) ≤ δ (up to ``rel``), and ε is tight: δ at ε·(1 − 1e-9) − 1e-300 exceeds δ·(1 − rel)."""
    assert math.isfinite(eps) and eps >= 0
    with mp.workdps(DPS):
        assert true_delta_at(eps) <= mp.mpf(delta) * (1 + rel)
        if eps > 0:
            below = max(eps * (1 - 1e-9) - 1e-300, 0.0)
            assert true_delta_at(below) >= mp.mpf(delta) * (1 - rel)


# ---------------------------------------------------------------------- regression tests
@pytest.mark.parametrize("cls", [dc.PureDP, dc.RandomizedResponse])
@pytest.mark.parametrize("eps0,delta", [(740.0, 1e-5), (744.0, 1e-5), (746.0, 1e-5), (744.0, 0.1), (750.0, 0.1),
                                        (1e4, 1e-300), (1e300, 0.5)])
def test_large_eps_discrete_epsilon_is_exact(cls, eps0, delta):
    """Old code: PureDP(740).epsilon(1e-5) = 739.9974, 744 → 743.747, ≥ 746 → 8e-15 (tail sums underflowed)."""
    got = cls(eps=eps0).epsilon(delta)
    want = mp_rr_epsilon(eps0, delta)
    assert got >= want * (1 - 1e-15) and got <= want + max(4 * math.ulp(float(want)), 1e-12 * float(want))


def test_pure_dp_delta_at_large_eps_is_exact():
    m = dc.PureDP(eps=746.0)
    for e in (0.0, 700.0, 745.0, 745.99999):
        assert float(m.delta(e)) == pytest.approx(float(mp_rr_delta(746, e)), rel=1e-9)


def test_gaussian_huge_mu_epsilon():
    """Old code: Gaussian(mu=1e10).epsilon(1e-5) = 3.9e-11 (ε + log Φ(−z₁) cancelled); truth ≈ 5e19."""
    eps = dc.Gaussian(mu=1e10).epsilon(1e-5)
    with mp.workdps(60):
        _never_understated(lambda e: mp_gauss_delta(1e10, e), eps, 1e-5, rel=1e-4)
        want = mp.findroot(lambda e: mp.log(mp_gauss_delta(1e10, e)) - mp.log(mp.mpf(1e-5)), mp.mpf(5e19) + 4.26e10)
    assert eps >= want * (1 - 1e-15) and eps <= want * (1 + 1e-12)


def test_gaussian_tiny_sigma_is_not_nan():
    """Old code: NaN. μ = 1e300: ε ≈ μ²/2 exceeds the largest double, so no double ε reaches δ: ∞."""
    assert dc.Gaussian(sigma=1e-300).epsilon(0.0579) == math.inf
    assert float(dc.Gaussian(mu=1e300).bayes_error(0.0)) == 0.0  # old code: NaN (μ² overflowed)
    assert float(dc.Gaussian(mu=1e300).bayes_error(0.5)) == 0.0
    assert float(dc.Gaussian(mu=1e300).tradeoff(0.0)) == 1.0


@pytest.mark.parametrize("b", [1e-3, 1e-4, 1e-9])
def test_laplace_tiny_b_tradeoff(b):
    """Old code: Laplace(b=1e-3).tradeoff(0.0) = NaN (e^{−m} underflowed, 0/0)."""
    alpha = np.array([0.0, 1e-300, 0.25, 0.5, 0.75, 1.0])
    got = dc.Laplace(b=b).tradeoff(alpha)
    with mp.workdps(DPS):
        m = 1 / mp.mpf(b)
        em = mp.exp(-m)
        want = [1 - mp.exp(m) * a if a < em / 2 else (em / (4 * a) if a <= 0.5 else em * (1 - a))
                for a in map(mp.mpf, alpha)]
    assert np.all(np.isfinite(got)) and got[0] == 1.0
    np.testing.assert_allclose(got, [float(w) for w in want], rtol=1e-12, atol=0)


def test_laplace_tiny_b_epsilon():
    """Old code: Laplace(b=1e-9).epsilon(1e-5) = ∞ (the default solver gave up at ε > 1e6)."""
    got = dc.Laplace(b=1e-9).epsilon(1e-5)
    with mp.workdps(DPS):
        want = 1 / mp.mpf(1e-9) + 2 * mp.log(1 - mp.mpf(1e-5))  # m = Δ/b of the double b = 1e-9, exactly
    assert got >= want and got - want <= 4 * math.ulp(1e9)


def test_approxdp_extremes():
    """Old code: δ(0) = 1.0000000000000275; PureDP(1000).tradeoff(0) = 0; eps = 1e15 raised internally."""
    assert float(dc.ApproxDP(eps=1000, delta=0.5).delta(0)) <= 1.0
    assert float(dc.PureDP(eps=1000).tradeoff(0)) == 1.0
    m = dc.ApproxDP(eps=1e15, delta=0.043)
    assert float(m.delta(0)) == pytest.approx(float(mp_rr_delta(1e15, 0, 0.043)), rel=1e-15)
    assert float(m.delta(1e16)) == pytest.approx(0.043, rel=1e-12)
    assert m.epsilon(0.043) == 1e15 and m.epsilon(0.04) == math.inf


def test_tradeoff_curve_with_tiny_vertex_works_in_every_method():
    """Old code: TradeoffCurve(alpha=[0, 1e-300, 1], beta=[1, 0.5, 0]).delta(0) raised "Q-mass 1.1667 > 1".

    f_sym = conv(min(f, f⁻¹)) has vertices (0, 1), (1e-300, ½), (½, 1e-300), (1, 0) (lower convex hull
    of f's vertices and their mirror images), so δ(0) = sup_α 1 − α − f(α) = ½ − 1e-300, R(½) = ¼."""
    c = dc.TradeoffCurve(alpha=[0, 1e-300, 1], beta=[1, 0.5, 0])
    assert float(c.delta(0.0)) == pytest.approx(0.5, rel=1e-12)
    assert float(c.bayes_error(0.5)) == pytest.approx(0.25, rel=1e-12)
    np.testing.assert_allclose(c.tradeoff([0.0, 0.25, 0.5, 1.0]), [1.0, 0.25, 0.0, 0.0], atol=1e-15)
    assert c.epsilon(0.6) == 0.0 and math.isfinite(c.epsilon(1e-5))


# ---------------------------------------------------------------------- numbers must be numbers
@pytest.mark.parametrize("call", [
    lambda m: m.epsilon(True), lambda m: m.epsilon("0.1"), lambda m: m.tradeoff("1"), lambda m: m.delta(None),
    lambda m: m.bayes_error([0.1, "0.2"]), lambda m: m.tpr(False),
])
@pytest.mark.parametrize("mech", [dc.Gaussian(mu=1), dc.Laplace(b=1), dc.PureDP(eps=1), dc.ApproxDP(eps=1, delta=0.1)])
def test_bool_and_str_are_not_numbers(mech, call):
    with pytest.raises(TypeError) as err:
        call(mech)
    assert isinstance(err.value, ValueError)  # the CLI's one user-error path catches it too
    assert any(name in str(err.value) for name in ("delta", "alpha", "eps", "pi", "fpr"))


@pytest.mark.parametrize("make", [lambda: dc.Gaussian(mu=True), lambda: dc.Laplace(b="1"), lambda: dc.PureDP(eps=True),
                                  lambda: dc.ApproxDP(eps=1.0, delta="0.1"), lambda: dc.Gaussian(sigma="2")])
def test_bool_and_str_parameters_are_rejected(make):
    with pytest.raises(TypeError):
        make()


@pytest.mark.parametrize("make,name", [(lambda: dc.Gaussian(mu=-1), "mu"), (lambda: dc.Laplace(b=0), "b"),
                                       (lambda: dc.ApproxDP(eps=1, delta=1.5), "delta"),
                                       (lambda: dc.RandomizedResponse(eps=math.nan), "eps")])
def test_parameter_domains_name_the_parameter(make, name):
    with pytest.raises(ValueError, match=name):
        make()


@pytest.mark.parametrize("mech", [dc.Gaussian(mu=1), dc.Laplace(b=1), dc.PureDP(eps=1), dc.ApproxDP(eps=1, delta=0.1),
                                  dc.TradeoffCurve(alpha=[0, 0.1, 1], beta=[1, 0.5, 0])])
def test_one_policy_for_negative_eps(mech):
    """Every mechanism accepts ε < 0 with one meaning: δ(−ε) = 1 − e^{−ε}(1 − δ(ε)) (f symmetric)."""
    e = np.array([0.0, 0.3, 1.0, 4.0])
    np.testing.assert_allclose(mech.delta(-e), 1 - np.exp(-e) * (1 - mech.delta(e)), atol=1e-15)
    assert float(mech.delta(-math.inf)) == 1.0
    with pytest.raises(ValueError, match="eps"):
        mech.delta(math.nan)
    with pytest.raises(ValueError, match="delta must be in"):
        mech.epsilon(-0.1)


def test_check_argument_ranges():
    assert check_argument(Argument.EPS, math.inf) == math.inf
    with pytest.raises(ParameterTypeError):
        check_argument(Argument.PI, np.array([True, False]))
    with pytest.raises(ValueError, match=r"pi must be in \[0, 1\]"):
        check_argument(Argument.PI, 1.5)


# ---------------------------------------------------------------------- brackets carry their direction
def test_bounds_are_brackets_that_unpack():
    b = dc.Gaussian(mu=1).delta_bounds(1.0)
    assert isinstance(b, Bracket) and b.sense is Sense.UPPER
    lo, hi = b
    assert lo == b[0] == b.lower and hi == b[1] == b.upper
    r = dc.PureDP(eps=1).bayes_error_bounds(np.array([0.1, 0.5]))
    assert r.sense is Sense.LOWER and np.all(r.lower <= r.upper)


def test_from_pair_rejects_an_inverted_pair():
    """Old code: FromPair(pessimistic=opt, optimistic=pess) built an inverted bracket silently."""
    pess = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])  # randomized response, ε = log 3
    opt = DiscretePair.from_masses([0.4, 0.6], [0.6, 0.4])  # ε = log 1.5: less informative
    ok = dc.FromPair(pessimistic=pess, optimistic=opt)
    lo, hi = ok.delta_bounds(0.0)
    assert lo == pytest.approx(0.2) and hi == pytest.approx(0.5)
    with pytest.raises(ValueError, match="inverted pair bracket"):
        dc.FromPair(pessimistic=opt, optimistic=pess)
    labelled = DiscretePair(pess.loss, pess.log_p, rounding=Rounding.OPTIMISTIC)
    with pytest.raises(ValueError, match="labelled optimistic"):
        PairBracket(labelled, opt)


# ---------------------------------------------------------------------- laws at extreme parameters (hypothesis)
eps0s = st.one_of(st.floats(0.0, 50.0), st.floats(50.0, 1e4), st.sampled_from([700.0, 740.0, 745.0, 746.0, 1e4, 1e6]))
deltas = st.one_of(st.floats(1e-12, 1.0), st.floats(1e-300, 1e-12), st.sampled_from([1e-300, 1e-5, 0.5, 1.0]))


@settings(max_examples=40)
@given(eps0=eps0s, delta=deltas, approx=st.sampled_from([0.0, 1e-10, 0.05]))
def test_rr_pure_approx_never_understated(eps0, delta, approx):
    m = dc.ApproxDP(eps=eps0, delta=approx) if approx else dc.PureDP(eps=eps0)
    eps = m.epsilon(delta)
    if delta < approx:
        assert eps == math.inf
        return
    _never_understated(lambda e: mp_rr_delta(eps0, e, approx), eps, delta)
    grid = np.sort(np.concatenate([[0.0, eps0], np.linspace(0, 2 * eps0 + 1, 7)]))
    d = m.delta(grid)
    assert np.all((d >= 0) & (d <= 1)) and np.all(np.diff(d) <= 1e-15 * d[:-1])  # non-increasing up to rounding
    want = np.array([float(mp_rr_delta(eps0, e, approx)) for e in grid])
    assert np.all(d >= want * (1 - 1e-12) - 1e-300)


@settings(max_examples=40)
@given(mu=st.one_of(st.floats(1e-8, 1e-2), st.floats(1e-2, 50.0), st.floats(50.0, 1e10)), delta=deltas)
def test_gaussian_never_understated(mu, delta):
    g = dc.Gaussian(mu=mu)
    eps = g.epsilon(delta)
    if delta >= 1.0:
        assert eps == 0.0
        return
    with mp.workdps(70):
        _never_understated(lambda e: mp_gauss_delta(mu, e), eps, delta, rel=1e-8 if mu < 1e6 else 1e-4)


@settings(max_examples=40)
@given(b=st.one_of(st.floats(1e-9, 1e-2), st.floats(1e-2, 1e2), st.floats(1e2, 1e9)), delta=deltas)
def test_laplace_never_understated(b, delta):
    lap = dc.Laplace(b=b)
    with mp.workdps(DPS):
        m = 1 / mp.mpf(b)  # exact Δ/b of the double b
    eps = lap.epsilon(delta)
    _never_understated(lambda e: mp_laplace_delta(m, e), eps, delta, rel=1e-9 if m < 1e6 else 1e-3)


@settings(max_examples=30)
@given(mech=st.one_of(
    st.floats(1e-8, 1e10).map(lambda mu: dc.Gaussian(mu=mu)),
    st.floats(1e-9, 1e9).map(lambda b: dc.Laplace(b=b)),
    st.floats(0.0, 1e4).map(lambda e: dc.RandomizedResponse(eps=e)),
    st.builds(lambda e, d: dc.ApproxDP(eps=e, delta=d), st.floats(0.0, 1e4), st.floats(0.0, 1.0)),
))
def test_views_stay_in_range_and_monotone(mech):
    alpha = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0, 1, 41)[1:]])
    alpha = np.unique(alpha)
    f = mech.tradeoff(alpha)
    assert np.all(np.isfinite(f)) and np.all(f >= 0) and np.all(f <= 1 - alpha)
    assert np.all(np.diff(f) <= 1e-15)
    # convexity where α is evenly spaced (the linspace part), up to rounding
    lin = f[alpha >= 0.025]
    assert np.all(np.diff(lin, 2) >= -1e-12)
    eps = np.concatenate([[0.0], np.logspace(-6, 4, 30), [1e300, math.inf]])
    d = mech.delta(eps)
    assert np.all((d >= 0) & (d <= 1)) and np.all(np.diff(d) <= 1e-15)
    pi = np.linspace(0, 1, 21)
    r = mech.bayes_error(pi)
    assert np.all(np.isfinite(r)) and np.all(r >= 0) and np.all(r <= np.minimum(pi, 1 - pi))
    assert 0.0 <= mech.advantage <= 1.0
    e = mech.epsilon(np.array([1e-300, 1e-10, 1e-5, 0.1, 0.9]))
    assert np.all(e[1:] <= e[:-1]) and np.all(e >= 0)


# ---------------------------------------------------------------------- the solver and the rounding helpers
def test_divide_up_never_rounds_down():
    from fractions import Fraction

    from dpcompare._numerics import divide_up

    rng = np.random.default_rng(7)
    for a, b in zip(np.exp(rng.uniform(-30, 30, 200)), np.exp(rng.uniform(-30, 30, 200))):
        q = divide_up(float(a), float(b))
        exact = Fraction(float(a)) / Fraction(float(b))
        assert Fraction(q) >= exact and Fraction(math.nextafter(q, 0.0)) < exact


@given(st.floats(min_value=1e-300, max_value=1e300), st.floats(min_value=1e-300, max_value=1e300),
       st.sampled_from([1.0, -1.0]))
def test_divide_up_is_the_smallest_double_above_the_quotient(a, b, sign):
    """On integer ratios, without fractions: the smallest double ≥ a/b (both signs of a pair, exact quotients too)."""
    from fractions import Fraction

    from dpcompare._numerics import divide_up

    for x, y in ((a, b), (sign * a, sign * b), (a * 3.0, 3.0), (b, b)):
        q = divide_up(x, y)
        if math.isfinite(q) and q > 0:
            exact = Fraction(x) / Fraction(y)
            assert Fraction(q) >= exact and Fraction(math.nextafter(q, 0.0)) < exact


def test_solve_with_an_accurate_start_and_small_step():
    from dpcompare._search import Scale, Side, solve

    root = 739.99998999995  # an arbitrary root with many digits near the exp overflow (ε ≈ 740), not a reference value
    calls = []

    def g(x):
        calls.append(x)
        return root - x

    r = solve(g, 0.0, 1e300, side=Side.ABOVE, scale=Scale.LOG, start=root * (1 + 1e-15), step=1e-14, rtol=1e-13)
    assert g(r.feasible) <= 0 and r.infeasible is not None and g(r.infeasible) > 0
    assert r.feasible - root <= 1e-13 * root and len(calls) <= 8


def test_solve_each_falls_back_where_the_estimate_is_wrong():
    from dpcompare._search import Side, solve, solve_each

    roots = np.array([1.0, 2.0, 3.0])
    est = np.array([1.0, 5.0, np.nan])  # right, wrong, missing
    used = []

    def fallback(i):
        used.append(i)
        return solve(lambda x: roots[i] - x, 0.0, 10.0, side=Side.ABOVE, rtol=1e-14).feasible

    x = solve_each(lambda x, w: roots[w] - x, est, rtol=1e-12, fallback=fallback)
    assert used == [1, 2] and np.all(x >= roots) and np.all(x - roots <= 1e-12 * roots)
