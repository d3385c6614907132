"""``pair_epsilon`` on both sides of a bracket: where its final check fails, the pessimistic side answers ∞
(not certified) and the optimistic side the point itself (δ_opt − |η| > δ there: a valid lower bound)."""

from __future__ import annotations

import math

import numpy as np

from dpcompare.composition import sgm_certified
from dpcompare.tradeoff import DiscretePair


def _pair() -> DiscretePair:
    # randomized response with ε₀ = 1 as a two-atom pair (losses ±1)
    p = np.array([1.0, math.e]) / (1.0 + math.e)
    q = p[::-1].copy()
    return DiscretePair.from_masses(p, q)


def test_failed_check_gives_infinity_above_and_the_point_below(monkeypatch):
    pair, delta = _pair(), 0.05
    exact = sgm_certified.pair_epsilon(pair, 0.0, delta)
    assert 0.0 < exact < 1.0
    # a solver that stops short of the answer: δ at its point is above the target, so the check fails
    monkeypatch.setattr(sgm_certified, "_side_epsilon", lambda pr, d: 0.5 * exact)
    assert sgm_certified.pair_epsilon(pair, 1e-12, delta) == math.inf  # pessimistic: not certified
    lower = sgm_certified.pair_epsilon(pair, -1e-12, delta)  # optimistic: the point is a lower bound
    assert lower == 0.5 * exact and lower <= exact
