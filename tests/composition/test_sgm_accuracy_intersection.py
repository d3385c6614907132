"""composition/sgm_accuracy.py: the certified brackets of successive grids are intersected, and two that do not
overlap (one of them is wrong) raise :class:`~dpcompare.tradeoff.intersection.BracketsDisagree` naming both and
their grids, instead of being clamped into a zero-width bracket that neither computation certified."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition import sgm_accuracy as sa
from dpcompare.tradeoff.intersection import BracketsDisagree, intersect_brackets

# a small SGM whose compositions are fast; a tolerance no grid meets, so that a second grid is composed
SIGMA, P, STEPS = 1.0, 0.1, 10


def test_delta_brackets_that_do_not_overlap_raise(monkeypatch):
    calls = []
    real = sa._delta_bracket

    def wrong_on_second_grid(comp, sigma, p, steps, eps):
        lo, hi = real(comp, sigma, p, steps, eps)
        calls.append(comp.discretization)
        if len(calls) == 2:  # the finer grid's bracket moved wholly above the coarser one's
            lo, hi = hi + 0.01, hi + 0.02
        return lo, hi

    monkeypatch.setattr(sa, "_delta_bracket", wrong_on_second_grid)
    with pytest.raises(BracketsDisagree) as info:
        sa.delta_to_accuracy(SIGMA, P, STEPS, np.array([0.5, 1.0]), rel_tol=1e-9, abs_tol=1e-12)
    msg = str(info.value)
    assert len(calls) == 2 and isinstance(info.value, RuntimeError) and not isinstance(info.value, ValueError)
    assert "at ε = 0.5" in msg and f"grid h = {calls[0]!r}" in msg and f"grid h = {calls[1]!r}" in msg, msg


def test_epsilon_brackets_that_do_not_overlap_raise(monkeypatch):
    calls = []
    real_lower = sa._lower

    def wrong_on_second_grid(comp, delta):
        calls.append(comp.discretization)
        if len(calls) == 2:  # a certified lower end of ε above the first grid's upper end
            return 1e3
        return real_lower(comp, delta)

    monkeypatch.setattr(sa, "_lower", wrong_on_second_grid)
    with pytest.raises(BracketsDisagree, match=r"ε\(δ = 1e-05\).*do not overlap.*\(grid h = .*\) and \[1000\.0, ") as info:
        sa.epsilon_to_accuracy(SIGMA, P, STEPS, 1e-5, rel_tol=1e-8)
    assert len(calls) == 2 and f"grid h = {calls[0]!r}" in str(info.value)


def test_overlapping_brackets_intersect_elementwise():
    lo, hi = intersect_brackets(np.array([0.1, 0.0]), np.array([0.3, 0.2]), np.array([0.2, 0.05]), np.array([0.4, 0.1]),
                                "δ(ε)", "grid h = 0.1", "grid h = 0.05", at=np.array([1.0, 2.0]))
    assert lo.tolist() == [0.2, 0.05] and hi.tolist() == [0.3, 0.1]


def test_a_nan_end_is_a_disagreement_too():
    with pytest.raises(BracketsDisagree, match="at ε = 2.0"):
        intersect_brackets(np.array([0.1, 0.0]), np.array([0.3, 0.2]), np.array([0.2, np.nan]), np.array([0.4, 0.1]),
                           "δ(ε)", "a", "b", at=np.array([1.0, 2.0]))
