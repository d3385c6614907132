"""composition/sgm_sides.py: each side on its own grid and single-step tail, and epsilon_to_accuracy built on them.

Independent references: the other side of the certified engine on the default grid (a certified optimistic δ can
never exceed a certified pessimistic one of the same mechanism, each with its error bound), and a bracket on a grid
4× finer than the default (compose_subsampled_gaussian: both sides with 4 cells per interval and the default
tail), whose width is ≤ 5e-6 of ε: the bracket of the question's grids must overlap it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition import sgm_accuracy as sa
from dpcompare.composition.sgm_compose import compose_subsampled_gaussian, pessimistic_side
from dpcompare.composition.sgm_grid import default_discretization
from dpcompare.composition.sgm_sides import optimistic_side, pessimistic_side_cut, question_tail

EPS = np.array([0.25, 0.5, 1.0, 1.5, 2.0, 3.0])


@pytest.mark.parametrize("sub, tail", [(1, None), (2, None), (2, 1e-12), (4, 1e-14)])
def test_optimistic_side_is_below_the_pessimistic_side(sub, tail):
    sigma, p, n = 1.0, 0.02, 200
    h = default_discretization(sigma, p, n)
    opt = optimistic_side(sigma, p, n, 1.5 * h, sub, tail)
    pess = pessimistic_side(sigma, p, n, h)
    for pair_o, pair_p in ((opt.pair, pess.profile), (opt.pair.swap(), pess.swapped)):
        lo = pair_o.delta(EPS) - opt.numerical_error
        hi = pair_p.delta(EPS) + pess.error_at(EPS)
        assert np.all(lo <= hi), (lo, hi)
        # and close: within 2e-3 of δ on these grids (measured ≤ 1.35e-3, at 1 cell per interval), or a few error bounds
        np.testing.assert_allclose(lo, hi, rtol=2e-3, atol=4 * (opt.numerical_error + pess.numerical_error))


def test_cut_pessimistic_side_stays_above_the_optimistic_side_and_near_the_default():
    sigma, p, n = 1.0, 0.02, 200
    h = default_discretization(sigma, p, n)
    tail = 1e-12
    cut = pessimistic_side_cut(sigma, p, n, h, tail)
    full = pessimistic_side(sigma, p, n, h)
    comp = compose_subsampled_gaussian(sigma, p, n, h)
    hi_cut = cut.profile.delta(EPS) + cut.error_at(EPS)
    hi_full = full.profile.delta(EPS) + full.error_at(EPS)
    lo = comp.optimistic.delta(EPS) - comp.optimistic_error
    assert np.all(lo <= hi_cut)
    # the cut moves at most the Q-tail (≤ p·tail per step, twice over in the bound) to +∞: δ moves by ≤ ~2N·tail
    assert np.all(np.abs(hi_cut - hi_full) <= 2 * n * tail + 4 * (cut.numerical_error + full.numerical_error))
    assert cut.infinity_bound[1] > full.infinity_bound[1]  # the tail's Q-mass sits at +∞, read in full
    assert pessimistic_side_cut(sigma, p, n, h) is full  # the default tail is the shared side itself


def test_question_tail_is_a_share_of_the_accuracy_and_never_below_the_default():
    assert question_tail(10_000, 1e-5, 1e-4) == pytest.approx(1e-2 * 1e-4 * 1e-5 / 10_000, rel=1e-12)
    assert question_tail(10_000, 1e-30, 1e-4) == 1e-20  # the default min(1e-18, 1e-16/N)
    assert question_tail(1, 0.5, 0.5) == 1e-12  # MAX_TAIL
    with pytest.raises(ValueError, match="tail"):
        optimistic_side(1.0, 0.01, 100, 1e-3, 2, 1e-3)
    with pytest.raises(ValueError, match="sub"):
        optimistic_side(1.0, 0.01, 100, 1e-3, 0)


@pytest.mark.parametrize("sigma, p, n, delta", [(1.0, 0.01, 1000, 1e-5), (0.6, 0.01, 1000, 1e-5)])
def test_epsilon_to_accuracy_overlaps_a_4x_finer_bracket(sigma, p, n, delta):
    a = sa.epsilon_to_accuracy(sigma, p, n, delta, rel_tol=1e-4)
    assert a.rel_accuracy <= 1e-4 and 0.0 < a.lower <= a.epsilon < math.inf
    assert a.lower_discretization == pytest.approx(sa.OPT_GRID_RATIO * a.discretization, rel=1e-12) or a.attempts > 1
    fine = compose_subsampled_gaussian(sigma, p, n, default_discretization(sigma, p, n) / 4)
    hi_f, lo_f = sa._upper(fine, sigma, p, n, delta), sa._lower(fine, delta)
    assert (hi_f - lo_f) / hi_f <= 1e-5  # the reference is ≥ 10× tighter than the bracket tested
    assert a.lower <= hi_f and lo_f <= a.epsilon  # both certified: they hold the same true ε
