"""The grid ``SubsampledGaussian.delta`` chooses without composing the optimistic side (composition/sgm_accuracy.py,
``delta_to_accuracy(upper_only=True)``, ``richardson_excess``).

Independent truths: a certified bracket of the same engine on a grid 4× finer than the default (both sides,
tradeoff/compose.py steps 1–8: it contains the true δ by proof), which bounds the true excess of the default
grid's δ̂ from both sides; dp-accounting's PLD accountant at its default grid (another code base) as the
yardstick of the excess.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare import clear_caches
from dpcompare.composition import sgm_compose
from dpcompare.composition.sgm_accuracy import (
    DEFAULT_MAX_SPACING,
    DELTA_ABS_DEFAULT,
    DELTA_REL_DEFAULT,
    EXCESS_SHARE,
    delta_to_accuracy,
    richardson_excess,
)
from dpcompare.composition.sgm_certified import (
    compose_subsampled_gaussian,
    default_discretization,
    pessimistic_side,
    profile_bracket,
)
from dpcompare.mechanisms.sgm import SubsampledGaussian

#: a row of benchmarks/bench_tightness.py whose default grid (h₀ = 5.3e-5) is finer than DEFAULT_MAX_SPACING and
#: whose default excess (5.5e-8 at δ ≈ 1e-3) is below the excess aimed at: δ answers on h₀'s pessimistic side
SMALL_S = (2.0, 0.01, 1000)
SMALL_S_EPS = np.array([0.38, 0.62])  # δ ≈ 1e-3 and 1e-5


def _fine_bracket(args, eps, divisor=4):
    b = profile_bracket(compose_subsampled_gaussian(*args, default_discretization(*args) / divisor), eps)
    return np.asarray(b.optimistic), np.asarray(b.pessimistic)



def test_richardson_excess_lies_in_the_certified_excess_interval():
    """(δ̂_{2h} − δ̂_h)/3 against the true excess δ̂_h − δ, which lies in [δ̂_h − δ_hi, δ̂_h − δ_lo] of a certified
    bracket on h/4 (width 6e-9 here, a tenth of the excess): within 25% of that interval."""
    h0 = default_discretization(*SMALL_S)
    e = SMALL_S_EPS[:1]
    x, eta = richardson_excess(*SMALL_S, e, h0)
    side = pessimistic_side(*SMALL_S, h0)
    d = np.maximum(side.profile.delta(e), side.swapped.delta(e))
    lo, hi = _fine_bracket(SMALL_S, e)
    assert np.all(hi - lo <= 1e-8)
    assert np.all(0.8 * (d - hi) <= x) and np.all(x <= 1.25 * (d - lo)), (x, d - hi, d - lo)
    assert np.all((0.0 < eta) & (eta < 1e-2 * x))


def test_delta_skips_the_optimistic_side_where_the_estimate_is_within_the_target():
    """x₀ ≤ EXCESS_SHARE·min(1e-3·δ, 1.5e-7) at every ε: the answer is h₀'s certified pessimistic δ, and no
    composition with an optimistic side is built (its cache stays empty)."""
    clear_caches()
    h0 = default_discretization(*SMALL_S)
    a = delta_to_accuracy(*SMALL_S, SMALL_S_EPS, DELTA_REL_DEFAULT, DELTA_ABS_DEFAULT, upper_only=True,
                          max_spacing=DEFAULT_MAX_SPACING)
    assert sgm_compose.compose_subsampled_gaussian.cache_info().currsize == 0
    assert a.discretization == h0 and a.attempts == 1
    x, _ = richardson_excess(*SMALL_S, SMALL_S_EPS, h0)
    assert np.all(x <= EXCESS_SHARE * np.minimum(DELTA_REL_DEFAULT * a.delta, DELTA_ABS_DEFAULT))
    d = SubsampledGaussian(*SMALL_S).delta(SMALL_S_EPS)
    assert sgm_compose.compose_subsampled_gaussian.cache_info().currsize == 0
    np.testing.assert_allclose(d, a.delta, rtol=1e-15, atol=0)
    lo, hi = _fine_bracket(SMALL_S, SMALL_S_EPS)
    assert np.all(d >= lo)  # certified: never below a certified lower end of the truth


def test_delta_refines_to_the_grid_the_estimate_asks_for():
    """Asked for a relative accuracy the default grid misses, h₀/k with k = ⌈√(x₀/target)⌉ (the h² law), at most
    one step finer; the answer stays certified and its excess meets the target by the fine-grid truth."""
    args, e, rel = (2.0, 0.01, 300), np.array([0.3]), 2e-5
    h0 = default_discretization(*args)
    up = delta_to_accuracy(*args, e, rel_tol=rel, upper_only=True)
    x, _ = richardson_excess(*args, e, h0)
    # the target is read off the certified δ of h₀ (the answer's first reading): the same within 1e-8 relative
    k = math.ceil(math.sqrt(float(x[0] / (EXCESS_SHARE * rel * up.delta[0]))))
    assert k >= 2 and up.discretization == pytest.approx(h0 / k, rel=1e-12) and up.attempts == 2
    lo, hi = _fine_bracket(args, e, divisor=2 * k)
    assert np.all(up.delta >= lo)
    assert np.all(up.delta - lo <= rel * up.delta), (up.delta - lo, rel * up.delta)
    np.testing.assert_array_equal(up.lower, 0.0)  # no lower end is computed


def test_delta_bounds_still_compose_both_sides():
    """``delta_bounds``/``accuracy`` report the certified width, so they compose the optimistic side."""
    clear_caches()
    m = SubsampledGaussian(*SMALL_S)
    lo, hi = m.delta_bounds(SMALL_S_EPS)
    assert sgm_compose.compose_subsampled_gaussian.cache_info().currsize >= 1
    assert np.all(lo > 0.0) and np.all(hi - lo <= np.maximum(DELTA_REL_DEFAULT * hi, 1e-9))
    assert np.all(m.delta(SMALL_S_EPS) <= hi)


def test_delta_excess_at_most_twice_dp_accounting_where_the_optimistic_side_is_skipped():
    dpa = pytest.importorskip("dp_accounting", reason="dp-accounting's default PLD accountant is the yardstick")
    from dp_accounting.pld import pld_privacy_accountant

    sigma, p, n = SMALL_S
    clear_caches()
    ours = SubsampledGaussian(sigma, p, n).delta(SMALL_S_EPS)
    assert sgm_compose.compose_subsampled_gaussian.cache_info().currsize == 0  # the path this test is about
    lo, _ = _fine_bracket(SMALL_S, SMALL_S_EPS)
    acc = pld_privacy_accountant.PLDAccountant()  # its default value_discretization_interval (1e-4)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n))
    peer = np.array([acc.get_delta(float(e)) for e in SMALL_S_EPS])
    # both excesses against the same certified lower end of the truth (each an upper bound of the excess);
    # measured 5.7e-8 against 1.9e-7 (max over ε)
    assert np.max(ours - lo) <= 2.0 * np.max(peer - lo), (ours - lo, peer - lo)
    assert np.all(ours >= lo)


def test_views_agree_on_the_upper_only_path():
    """δ(ε(δ)) ≤ δ where ε(δ) reads h₀'s pessimistic side (with its far-tail passes where it asks for them)."""
    m = SubsampledGaussian(*SMALL_S)
    for delta in (1e-3, 1e-5, 1e-8):
        eps = m.epsilon(delta)
        assert m.delta(eps) <= delta
    clear_caches()
    m = SubsampledGaussian(*SMALL_S)
    d = m.delta(SMALL_S_EPS)  # δ first (h₀'s side without the composition), then ε(δ) and δ again
    for delta in d:
        assert m.delta(m.epsilon(float(delta))) <= delta


def test_views_agree_where_the_default_grids_far_tail_passes_are_skipped():
    """At (1, 0.01, 1000) (k = 2 by the loss grid rule) h₀/2's certified δ lies below what h₀'s far-tail passes
    could bring h₀'s down to, so δ does not build them; δ(ε(δ)) ≤ δ still holds, also where ε(δ) builds them."""
    args = (1.0, 0.01, 1000)
    clear_caches()
    m = SubsampledGaussian(*args)
    m.delta(np.array([1.2, 1.8]))  # δ ≈ 8e-4 and 1.2e-5
    side0 = pessimistic_side(*args, default_discretization(*args))
    assert "with_far_tails" not in side0.__dict__
    assert sgm_compose.compose_subsampled_gaussian.cache_info().currsize == 0
    for delta in (1e-3, 1e-5, 1e-7):  # at 1e-7 ε(δ) builds h₀'s passes
        assert m.delta(m.epsilon(delta)) <= delta
    assert "with_far_tails" in side0.__dict__
