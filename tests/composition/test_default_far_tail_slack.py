"""The default δ(ε) builds h₀'s far-tail passes only where they could lower its certified δ by more than 0.2 of
the width target min(1e-3·δ, 1.5e-7) (composition/sgm_accuracy.py ``far_tail_slack``; composition/sgm_certified.py
``side_for_profile``'s ``slack``), and ε(δ) reads h₀ by the same rule, so δ(ε(δ)) ≤ δ across views.

Independent references: the side with the passes built (the previous answer, certified as well: the actual
difference must be within the slack), a certified bracket of the same engine on a 4× finer grid (the answer is
never below its lower end), and the views' law δ(ε(δ)) ≤ δ at δ on both sides of where the slack stops covering
the passes' reach 2·I(ε) + D (δ ≈ 5.5e-7 at (2, 0.01, 1000)).
"""

from __future__ import annotations

import math

import numpy as np

from dpcompare import clear_caches
from dpcompare.composition.sgm_accuracy import H0_FAR_TAIL_SHARE, far_tail_slack
from dpcompare.composition.sgm_certified import (
    FAR_TAIL_GAIN,
    compose_subsampled_gaussian,
    default_discretization,
    pair_epsilon,
    pessimistic_side,
    profile_bracket,
    side_for_epsilon,
    side_for_profile,
)
from dpcompare.mechanisms.sgm import SubsampledGaussian

#: a row of benchmarks/bench_tightness.py (δ ≈ 1e-3, 1e-5) whose h₀ passes could lower δ by 1.2e-10–1.4e-10 there:
#: above 1e-5·δ at δ ≈ 1e-5 (the previous rule built them), within the slack 2e-9–3e-8
ARGS = (2.0, 0.01, 1000)
EPS = np.array([0.38, 0.62])



def _read(side, e):
    return np.maximum(side.profile.delta(e), side.swapped.delta(e)) + side.error_at(e)  # as the readers read it


def test_slack_is_a_share_of_the_width_target():
    d = np.array([1e-9, 1e-5, 1e-3, 0.3])
    assert H0_FAR_TAIL_SHARE == 0.2
    np.testing.assert_allclose(far_tail_slack()(d), [2e-13, 2e-9, 3e-8, 3e-8], rtol=1e-15, atol=0)
    np.testing.assert_allclose(far_tail_slack(1e-2, 1e-6)(d), [2e-12, 2e-8, 2e-7, 2e-7], rtol=1e-15, atol=0)


def test_default_delta_leaves_h0_passes_unbuilt_within_the_slack():
    """δ ≈ 1e-5: the passes' reach 2·I + D is above 1e-5·δ (the rule without slack builds them) and within the
    slack; δ(ε) does not build them, its answer is within the slack of the one with them and above a certified
    lower end of the truth."""
    clear_caches()
    d = SubsampledGaussian(*ARGS).delta(EPS)
    side0 = pessimistic_side(*ARGS, default_discretization(*ARGS))
    assert "with_far_tails" not in side0.__dict__
    hi0 = _read(side0, EPS)
    reach = 2.0 * side0.itemised_at(EPS) + side0.deferred_input_error
    assert reach[1] > FAR_TAIL_GAIN * hi0[1]  # the case the slack is about
    assert np.all(reach <= far_tail_slack()(hi0))
    assert side_for_profile(side0, EPS) is side0.with_far_tails  # the rule without slack takes them
    far = _read(side0.with_far_tails, EPS)
    assert np.all(d - far <= far_tail_slack()(d)), (d - far, far_tail_slack()(d))
    lo = np.asarray(profile_bracket(compose_subsampled_gaussian(*ARGS, default_discretization(*ARGS) / 4), EPS).optimistic)
    assert np.all(d >= lo)
    # once they are built (here by the line above), δ(ε) reads them at no cost
    d2 = SubsampledGaussian(*ARGS).delta(EPS)
    assert np.all(d2 <= np.minimum(d, np.clip(far, 0.0, 1.0)))


def test_views_agree_on_both_sides_of_the_slacks_reach():
    """δ(ε(δ)) ≤ δ from δ = 1e-3 down to 1e-9 (the passes skipped above δ ≈ 5.5e-7, built below), ε first and δ
    first, on fresh caches."""
    deltas = (1e-3, 1e-5, 1e-6, 5.5e-7, 3e-7, 1e-7, 1e-9)
    clear_caches()
    m = SubsampledGaussian(*ARGS)
    for delta in deltas:
        eps = m.epsilon(delta)
        assert math.isfinite(eps) and float(m.delta(np.array([eps]))[0]) <= delta, delta
    assert "with_far_tails" in pessimistic_side(*ARGS, default_discretization(*ARGS)).__dict__  # both sides covered
    clear_caches()
    m = SubsampledGaussian(*ARGS)
    eps_grid = np.array([m.epsilon(delta) for delta in deltas])
    clear_caches()
    m = SubsampledGaussian(*ARGS)
    d = m.delta(eps_grid)  # δ first, at all ε at once (the passes decided for the whole array)
    assert "with_far_tails" in pessimistic_side(*ARGS, default_discretization(*ARGS)).__dict__  # needed at 1e-9
    for delta, e in zip(d, eps_grid):
        assert float(m.delta(np.array([m.epsilon(float(delta))]))[0]) <= delta


def test_epsilon_answers_what_the_slack_reader_certifies():
    """``side_for_epsilon(slack=…)``: where ε(δ) takes the passes but the δ(ε) reader with that slack would not
    (forced by a slack of 3·δ̂, beyond the passes' reach 2·I + D ≤ 2·δ̂), the answer is the side without them's own
    ε, which that reader certifies; with no slack it is the passes' ε (1.0, 1e-3, 10), δ = 1e-10."""
    side = pessimistic_side(1.0, 1e-3, 10)
    far = side.with_far_tails

    def eps_of(s, delta):
        return pair_epsilon(s.profile, s.numerical_error, delta, s.swapped, s.error_at)

    assert side_for_epsilon(side, 1e-10)[1] == eps_of(far, 1e-10) < eps_of(side, 1e-10)

    def wide(d):
        return 3.0 * np.asarray(d, dtype=float)

    used, eps = side_for_epsilon(side, 1e-10, slack=wide)
    assert used is side and eps == eps_of(side, 1e-10)
    assert side_for_profile(side, np.array([eps]), wide) is side
    assert float(_read(side, np.array([eps]))[0]) <= 1e-10
