"""The far-tail passes (tradeoff/compose.py step 6″) are built only for questions that reach the far tail
(composition/sgm_certified.py ``side_for_epsilon``, ``side_for_profile``; composition/sgm_compose.py
``PessimisticSide.with_far_tails``).

Reference: the pessimistic side built with the passes from the start (``_sides_or_error(..., lazy=False)``, the
route every side took before), read by the same ``pair_epsilon``. Far-tail questions must get its answer bit for
bit; moderate ones must not build the passes and must stay within FAR_TAIL_GAIN of it (both are certified).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition.sgm_certified import (
    FAR_TAIL_GAIN,
    PessimisticSide,
    composition_for_profile,
    compose_subsampled_gaussian,
    default_discretization,
    pair_epsilon,
    pessimistic_side,
    profile_bracket,
    side_for_epsilon,
    side_for_profile,
)
from dpcompare.composition.sgm_compose import _sides_or_error
from dpcompare.composition.infinity_atoms import infinity_bound
from dpcompare.composition.sgm_grid import check_grid
from dpcompare.composition.sgm_step import sgm_partition
from dpcompare.tradeoff import Rounding

U = 2.0**-53


def always_built(sigma: float, p: float, steps: int, h: float | None = None) -> PessimisticSide:
    """The pessimistic side with the far-tail passes built with it (no lazy route), with the certified ±∞ bound of
    the partition the pessimistic side is split from (composition/infinity_atoms.py)."""
    h, tail, sub = check_grid(sigma, p, steps, h)
    sides, reports = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.PESSIMISTIC,))
    bound = infinity_bound(sgm_partition(sigma, p, h, sub=1, tail=tail, anchor_sub=sub), steps)
    return PessimisticSide(sides[0], reports[0].numerical_error + 64 * U, reports[0], infinity_bound=bound)


def side_epsilon(side: PessimisticSide, delta: float) -> float:
    return pair_epsilon(side.profile, side.numerical_error, delta, side.swapped, side.error_at)


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_far_tail_epsilon_is_the_always_built_answer(delta):
    """(σ, p, N) = (1.12, 0.5, 2): δ = 1e-10 and 1e-12 are within reach of η(ε) (the plain bound is ~1e-12 there):
    the passes are built, and the certified ε is the one of the side built with them, bit for bit."""
    sigma, p, steps = 1.12, 0.5, 2
    lazy = pessimistic_side(sigma, p, steps)
    ref = always_built(sigma, p, steps)
    side, eps = side_for_epsilon(lazy, delta)
    assert side is lazy.with_far_tails and side is not lazy
    assert eps == side_epsilon(ref, delta)
    np.testing.assert_array_equal(side.pair.loss, ref.pair.loss)
    np.testing.assert_array_equal(side.pair.log_p, ref.pair.log_p)
    assert side.numerical_error == ref.numerical_error
    np.testing.assert_array_equal(side.report.atom_error, ref.report.atom_error)
    # and the plain side alone would certify a larger ε (the passes are what makes the far tail tight)
    assert side_epsilon(lazy, delta) > eps


def test_far_tail_profile_is_the_always_built_answer():
    """δ(ε) at ε where δ ≈ 1e-10 … 1e-12: the composition's far-tail version is read, and its certified upper end
    equals the one of the always-built side."""
    sigma, p, steps = 1.12, 0.5, 2
    comp = compose_subsampled_gaussian(sigma, p, steps)
    eps = np.array([6.85, 7.3, 7.75])
    far = composition_for_profile(comp, eps)
    assert far is comp.with_far_tails and far is not comp
    ref = always_built(sigma, p, steps)
    want = np.maximum(ref.profile.delta(eps), ref.swapped.delta(eps)) + ref.error_at(eps)
    got = np.asarray(profile_bracket(comp, eps).pessimistic)
    np.testing.assert_array_equal(got, np.clip(want, 0.0, 1.0))
    assert side_for_profile(comp.pessimistic_side, eps) is comp.pessimistic_side.with_far_tails


def test_moderate_delta_does_not_build_the_passes():
    """δ = 1e-5 at (σ, p, N) = (1.07, 0.013, 300) (parameters no other test uses: a fresh cache entry): the passes
    are not built for ε(δ) nor for δ(ε) near it, and the certified ε is within FAR_TAIL_GAIN of the always-built one
    (both are certified upper bounds; the certified lower end of the optimistic pair is below both)."""
    sigma, p, steps, delta = 1.07, 0.013, 300, 1e-5
    lazy = pessimistic_side(sigma, p, steps, default_discretization(sigma, p, steps))  # the key compose_… uses
    assert lazy.far_tail_builder is not None
    side, eps = side_for_epsilon(lazy, delta)
    assert side is lazy and "with_far_tails" not in lazy.__dict__
    assert side_for_profile(lazy, np.array([0.5 * eps, eps])) is lazy and "with_far_tails" not in lazy.__dict__
    ref = side_epsilon(always_built(sigma, p, steps), delta)
    assert abs(eps - ref) <= FAR_TAIL_GAIN * ref
    comp = compose_subsampled_gaussian(sigma, p, steps)
    assert comp.pessimistic is lazy.pair
    lower = pair_epsilon(comp.optimistic, -comp.optimistic_error, delta)
    assert lower <= min(eps, ref)


def test_mechanism_epsilon_at_moderate_delta_leaves_passes_unbuilt():
    from dpcompare.mechanisms.sgm import SubsampledGaussian

    sigma, p, steps = 0.93, 0.011, 250
    e = float(SubsampledGaussian(sigma, p, steps).epsilon(1e-5))
    side = pessimistic_side(sigma, p, steps, default_discretization(sigma, p, steps))
    assert "with_far_tails" not in side.__dict__
    assert math.isfinite(e) and e == side_epsilon(side, 1e-5)


@pytest.mark.parametrize("eps", [0.0, 2.0, 5.0, 6.5, 7.0, 7.5, 8.0])
def test_passes_lower_delta_by_at_most_twice_the_itemised_bound(eps):
    """The rule ``_could_gain`` relies on: the certified δ(ε) with the passes is ≥ the plain one − 2·I(ε) − D, I(ε) the
    itemised part of the plain side's η(ε), D its uniform input term that the passes charge per threshold instead
    (checked at ε from the bulk to δ ≈ 1e-13; at ε = 8 the passes use D since the cells' log-space mixing is charged
    in full)."""
    lazy = pessimistic_side(1.12, 0.5, 2)
    far = lazy.with_far_tails

    def hi(s):
        return float(np.maximum(s.profile.delta(eps), s.swapped.delta(eps)) + s.error_at(eps))

    assert hi(far) >= hi(lazy) - 2.0 * float(lazy.itemised_at(eps)) - lazy.deferred_input_error - 1e-12 * hi(lazy)


def test_failed_passes_fall_back_to_the_certified_plain_side():
    """A numerical failure of the passes (non-finite spectrum) leaves the side without them: still certified."""
    base = pessimistic_side(1.12, 0.5, 2)

    def boom() -> PessimisticSide:
        raise FloatingPointError("far-tail pass: non-finite spectrum")

    side = PessimisticSide(base.pair, base.numerical_error, base.report, boom, infinity_bound=base.infinity_bound)
    assert side.with_far_tails is side
    got, eps = side_for_epsilon(side, 1e-12)
    assert got is side and eps == side_epsilon(base, 1e-12)


def test_epsilon_is_certified_by_the_profile_readers_choice_of_side(monkeypatch):
    """δ(ε(δ)) ≤ δ across views: where ε(δ) comes from the side with the passes but δ(ε) would read that ε off
    the side without them (the two readers decide by different questions), ε(δ) must be an ε at which the side
    δ(ε) reads certifies δ. Forced here by a δ(ε) reader that never takes the passes: the answer must then be
    the side without them's own ε (δ = 1e-10: 0.302 against 0.279 with the passes) or, where ``pair_epsilon``
    finds none on that side (δ = 1e-11), an ε found by climbing at which that side certifies δ."""
    import dpcompare.composition.sgm_certified as sc

    side = pessimistic_side(1.0, 1e-3, 10)
    far = side.with_far_tails

    def eps_of(s, delta):
        return pair_epsilon(s.profile, s.numerical_error, delta, s.swapped, s.error_at)

    assert eps_of(far, 1e-10) < eps_of(side, 1e-10) < math.inf  # the passes help: the case the rule is about
    assert side_for_epsilon(side, 1e-10)[1] == eps_of(far, 1e-10)  # the real reader takes the passes there
    monkeypatch.setattr(sc, "side_for_profile", lambda s, eps, slack=None: s)
    assert side_for_epsilon(side, 1e-10)[1] == eps_of(side, 1e-10)
    for delta in (1e-10, 1e-11):
        _, eps = side_for_epsilon(side, delta)
        assert eps > eps_of(far, delta) and math.isfinite(eps)
        d = max(float(side.profile.delta(eps)), float(side.swapped.delta(eps))) + float(side.error_at(np.array([eps]))[0])
        assert d <= delta
