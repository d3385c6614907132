"""The ±∞ atoms δ(ε) reads off a composed pessimistic side (composition/infinity_atoms.py).

Independent truths: the subsampled Gaussian's tail masses beyond the grid in mpmath (50 digits) from the normal
CDF, composed exactly, 1 − (1 − m)ᴺ; dp-accounting's *optimistic* PLD ε (a lower bound of the true ε) for the
far-tail answer. The soundness of δ(ε) + η(ε) read off this pair against the exact N-fold composition is audited
in tests/tradeoff/test_far_tail_audit.py and tests/tradeoff/test_input_error.py (mpmath, 60 digits)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare import clear_caches
from dpcompare.composition.infinity_atoms import infinity_bound, profile_pair
from dpcompare.composition.sgm_certified import (
    default_discretization, pair_epsilon, pessimistic_side, profile_bracket, side_for_epsilon)
from dpcompare.composition.sgm_compose import compose_subsampled_gaussian
from dpcompare.composition.sgm_grid import check_grid
from dpcompare.composition.sgm_step import inverse_privacy_loss, sgm_partition

mpmath = pytest.importorskip("mpmath", reason="the exact tail masses are computed in mpmath")


@pytest.mark.parametrize("sigma,p,steps", [(0.5, 1e-4, 1000), (1.12, 0.5, 2), (0.3, 1e-3, 10)])
def test_bound_covers_the_exact_composed_tail(sigma, p, steps):
    """B_q ≥ Q(+∞) of the exact N-fold composition of the exact split: 1 − (1 − m)ᴺ with m = Q(ℓ > g_hi) −
    e^{g_hi}·P(ℓ > g_hi), the step's Q-mass sent to +∞ (P = N(0, 1), Q = (1 − p)·N(0, 1) + p·N(1/σ, 1)); and not
    loose beyond its factor 2 on the tail: B_q ≤ 2.01·N·Q(ℓ > g_hi). No P-mass at −∞ (the loss is ≥ log(1 − p))."""
    h, tail, sub = check_grid(sigma, p, steps, None)
    part = sgm_partition(sigma, p, h, sub=1, tail=tail, anchor_sub=sub)
    b_p, b_q = infinity_bound(part, steps)
    mu = 1.0 / sigma
    g_hi = float(part.grid(part.k_hi))
    x1 = float(inverse_privacy_loss(np.array([g_hi]), mu, p)[0])
    with mpmath.workdps(50):
        x = mpmath.mpf(x1)
        p_t = mpmath.ncdf(-x)
        q_t = (1 - mpmath.mpf(p)) * p_t + mpmath.mpf(p) * mpmath.ncdf(mu - x)
        m = max(q_t - mpmath.exp(mpmath.mpf(g_hi)) * p_t, mpmath.mpf(0))
        exact = 1 - (1 - m) ** steps
        assert mpmath.mpf(b_q) >= exact, (b_q, float(exact))
        assert mpmath.mpf(b_q) <= mpmath.mpf("2.01") * steps * q_t, (b_q, float(q_t))
    assert part.tail_lo == (-math.inf, -math.inf) and b_p == 0.0


def test_profile_keeps_the_atoms_and_the_filled_pair_stays_for_the_other_views():
    """δ(ε) reads the filled pair's atoms with the bound at ±∞; the composition's pessimistic pair (trade-off, Bayes
    error, Δ) is still the filled one, a probability pair up to rounding; the bound is below the filled deficit here,
    which is numerical: 5.8e-11 in Q without the far-tail passes (far-tail atoms zeroed as noise), 7.0e-14 with
    them, against a real mass below 1e-19."""
    side = pessimistic_side(0.5, 1e-4, 100, default_discretization(0.5, 1e-4, 100))  # the side the composition reuses
    prof = side.profile
    np.testing.assert_array_equal(prof.loss, side.pair.loss)
    np.testing.assert_array_equal(prof.log_p, side.pair.log_p)
    assert side.infinity_bound is not None
    assert prof.q_pos_inf == side.infinity_bound[1] < 1e-19 < 1e-14 < side.pair.q_pos_inf
    assert math.isclose(math.fsum([side.pair.q_pos_inf, *side.pair.q.tolist()]), 1.0, abs_tol=1e-12)
    assert math.isclose(math.fsum([side.pair.p_neg_inf, *side.pair.p.tolist()]), 1.0, abs_tol=1e-12)
    comp = compose_subsampled_gaussian(0.5, 1e-4, 100)
    assert comp.pessimistic is side.pair and comp.pessimistic_profile is prof
    # the far-tail version carries the same bound (the same exact composition)
    far = side.with_far_tails
    assert far.infinity_bound == side.infinity_bound and far.profile.q_pos_inf == prof.q_pos_inf
    assert 1e-14 < far.pair.q_pos_inf < side.pair.q_pos_inf
    # without a bound, or with one no smaller than the deficit, the profile is the pair itself
    assert profile_pair(side.pair, None) is side.pair
    assert profile_pair(side.pair, (1.0, 1.0)) is side.pair


def test_far_tail_answer_no_longer_floored_by_the_deficit():
    """(σ, p, N) = (0.5, 1e-4, 100), δ = 1e-13: the filled pair's q₊∞ (the deficit, 7.0e-14) plus η(ε) (9.2e-14 at
    ε = 6) is above δ up to its last atom (6.27), so read off the filled pair the side certified no ε at all (∞,
    before this version) and now certifies only one beyond its atoms, where η(ε) has fallen below 3e-14 (6.69). Read
    with the certified ±∞ bound it certifies ε ≈ 6.045, which must lie above dp-accounting's
    optimistic ε (5.65 at grid 1e-3: a lower bound of the truth), and δ(ε) read there by the profile reader must be
    ≤ δ (the views agree)."""
    delta = 1e-13
    clear_caches()  # built here, not read from another test's cache
    base = pessimistic_side(0.5, 1e-4, 100, default_discretization(0.5, 1e-4, 100))
    side, eps = side_for_epsilon(base, delta)
    filled = pair_epsilon(side.pair, side.numerical_error, delta, side.pair.swap(), side.error_at)
    state = (base.infinity_bound, base.far_tail_builder is not None, side is base, side.profile.q_pos_inf,
             side.error_at(np.array([6.0, 6.5])).tolist())
    assert math.isfinite(eps) and 5.0 < eps < 6.5, state
    assert filled > eps + 0.3  # the filled pair's q₊∞ (7.0e-14) leaves δ only where η(ε) < 3e-14: beyond its atoms
    comp = compose_subsampled_gaussian(0.5, 1e-4, 100)
    assert float(profile_bracket(comp, np.array([eps])).pessimistic[0]) <= delta
    dpa = pytest.importorskip("dpcompare.accounting.dp_accounting", reason="the lower reference is dp-accounting's")
    pytest.importorskip("dp_accounting", reason="the lower reference is dp-accounting's optimistic PLD")
    lower = dpa.subsampled_gaussian_composed(0.5, 1e-4, 100, discretization=1e-3, pessimistic=False).get_epsilon_for_delta(delta)
    assert eps >= lower, (eps, lower)


def test_far_tail_row_within_one_percent_of_dp_accounting():
    """The last far-tail row of benchmarks/bench_far_tails.py: (σ, p, N) = (0.5, 1e-4, 1000), δ = 1e-12. Reference:
    dp-accounting's pessimistic connect-the-dots PLD at its default grid 1e-4, ε = 5.7399 (that benchmark's run; not
    certified); ours was 5.8505 (+1.93 %) with the deficit read as q₊∞, 5.7724 (+0.57 %) now. Soundness: above
    dp-accounting's optimistic ε at grid 1e-3 (a lower bound of the truth; computed here)."""
    from dpcompare.mechanisms.sgm import SubsampledGaussian

    eps = float(SubsampledGaussian(0.5, 1e-4, 1000).epsilon(1e-12))
    assert eps <= 1.01 * 5.7399, eps
    dpa = pytest.importorskip("dpcompare.accounting.dp_accounting", reason="the lower reference is dp-accounting's")
    pytest.importorskip("dp_accounting", reason="the lower reference is dp-accounting's optimistic PLD")
    lower = dpa.subsampled_gaussian_composed(0.5, 1e-4, 1000, discretization=1e-3, pessimistic=False).get_epsilon_for_delta(1e-12)
    assert eps >= lower, (eps, lower)
