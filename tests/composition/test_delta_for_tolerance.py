"""``certified_delta(…, tolerance=τ)`` chooses its grid at the ε asked (composition/sgm_accuracy.py,
``delta_for_tolerance``: Richardson's estimate of the default grid's excess there) instead of the worst-case grid of
``sgm_grid.discretization_for_tolerance``.

Independent truths: the certified bracket of the same engine on the default grid, both sides (``profile_bracket``:
it contains the true δ by proof), whose lower end the new answer must not be below (certified), and the certified
upper end on the worst-case grid (the previous answer, ≥ the truth), within τ of which the new answer must lie
(the width target met, up to the estimate's margin).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.sgm_accuracy import delta_for_tolerance
from dpcompare.composition.sgm_certified import (
    certified_delta, compose_subsampled_gaussian, default_discretization, discretization_for_tolerance, profile_bracket)

#: (1, 0.2, 50) where δ ≈ 1e-3 and 1e-5; τ = dp-accounting's excess at its default grid there (docs/edges.md)
ROW, EPS, TAU = (1.0, 0.2, 50), np.array([7.1, 10.0]), 1.4e-9


@pytest.fixture(scope="module")
def worst_case_bracket():
    h = discretization_for_tolerance(*ROW, TAU)
    lo = np.asarray(profile_bracket(compose_subsampled_gaussian(*ROW), EPS).optimistic, dtype=float)
    return h, lo, certified_delta(*ROW, EPS, h)


def test_small_delta_takes_a_coarser_grid_than_the_worst_case_and_stays_within_tau(worst_case_bracket):
    h_worst, lo, hi = worst_case_bracket
    a = delta_for_tolerance(*ROW, EPS, TAU)
    assert a is not None
    assert a.discretization > 4 * h_worst  # the excess at δ ≤ 1e-3 is far below the worst case K·√N·h²/s
    assert np.all(a.delta >= lo)  # certified: above the lower end of a bracket that contains the truth
    assert np.all(a.delta - hi <= TAU)  # the width target: at most τ above the worst-case grid's certified δ
    assert np.all(lo < hi) and float(np.max(hi - lo)) < 1e-7  # the reference is a real bracket, not a vacuous one
    np.testing.assert_array_equal(certified_delta(*ROW, EPS, tolerance=TAU), a.delta)  # the public entry point


def test_where_the_route_does_not_apply_the_worst_case_grid_answers():
    # p = 1 is a closed form (no grid chosen here); the worst-case grid is the default there
    assert delta_for_tolerance(1.0, 1.0, 50, [1.0], 1e-8) is None
    d = certified_delta(1.0, 1.0, 50, [1.0], tolerance=1e-8)
    assert d.shape == (1,) and 0.0 < d[0] < 1.0


def test_tolerance_and_discretization_are_still_exclusive_and_checked():
    with pytest.raises(ValueError, match="either tolerance or discretization"):
        certified_delta(*ROW, EPS, 1e-4, tolerance=TAU)
    with pytest.raises(ValueError, match="tolerance"):
        certified_delta(*ROW, EPS, tolerance=0.0)
    assert default_discretization(*ROW) > discretization_for_tolerance(*ROW, TAU)
