"""Comparison results hold their certified interval as a ``Bracket`` with its direction.

Δ(A‖B), the expected regret and the Lévy distance are all quoted as "at most": the pessimistic end of
each is the upper one (``Sense.UPPER``). The loose ``lower``/``upper``/``value`` fields and the JSON keys
stay as they were (the public contract); the bracket is built from them and checked at construction,
so an inverted or NaN interval cannot be a result.
"""

from __future__ import annotations

import math

import pytest

import dpcompare as dc
from dpcompare.comparison.pair_delta import DeltaBracket, delta_bracket
from dpcompare.comparison.levy import LevyDistance, levy_distance
from dpcompare.comparison.prior_sweep import MaxOutcome, RegretOutcome
from dpcompare.tradeoff import Bracket, Sense


def _assert_upper_is_pessimistic(r) -> None:
    assert isinstance(r.bracket, Bracket)
    assert r.bracket.sense is Sense.UPPER
    assert r.bracket.pessimistic == r.upper and r.bracket.optimistic == r.lower
    assert tuple(r.bracket) == (r.lower, r.upper)


def test_delta_result_holds_an_upper_sense_bracket():
    # Δ(L₁‖G₁) = 0.0341385 at π = 0.2689 ([BCP] §5, Figure 3; tests/reference_values.py by mpmath)
    r = dc.delta_divergence(dc.Laplace(b=1), dc.Gaussian(mu=1))
    _assert_upper_is_pessimistic(r)
    assert r.bracket.contains(0.0341385, slack=5e-8)
    assert set(r.to_dict()) == {"value", "lower", "upper", "pi", "eps", "certified"}  # JSON keys unchanged


def test_comparison_regret_and_levy_hold_brackets():
    c = dc.compare(dc.Laplace(b=1), dc.Gaussian(mu=1), hyperprior=dc.JEFFREYS)
    for r in (c.delta_ab, c.delta_ba, c.weighted.delta_ab, c.weighted.regret_ab, c.weighted.regret_ba):
        _assert_upper_is_pessimistic(r)
    _assert_upper_is_pessimistic(levy_distance(dc.Laplace(b=1), dc.Gaussian(mu=1)))


def test_pair_backed_delta_bracket_holds_a_bracket():
    # Δ(PP‖RR_ε) = max_π min(π, 1−π) − R_RR(π) = (e^ε − 1)/(2(e^ε + 1)) at π = ½ (the total variation / 2)
    rr, pp = dc.RandomizedResponse(1.0), dc.parse("pp()")
    r = delta_bracket(pp, rr)
    _assert_upper_is_pessimistic(r)
    assert r.bracket.contains((math.e - 1) / (2 * (math.e + 1)), slack=1e-12)


@pytest.mark.parametrize("make", [
    lambda lo, hi: dc.DeltaResult(0.5 * (lo + hi), lo, hi, 0.3),
    lambda lo, hi: DeltaBracket(lo, hi, 0.3, 0.0),
    lambda lo, hi: LevyDistance(0.5 * (lo + hi), lo, hi, 0.1),
    lambda lo, hi: MaxOutcome(0.5 * (lo + hi), lo, hi, 0.3, True),
    lambda lo, hi: RegretOutcome(0.5 * (lo + hi), lo, hi, True),
])
def test_an_inverted_or_nan_interval_is_not_a_result(make):
    make(0.1, 0.2)  # a valid one builds
    make(0.1, math.inf)  # an unbounded upper end is a valid (if useless) bracket
    with pytest.raises(ValueError, match="inverted bracket"):
        make(0.2, 0.1)
    with pytest.raises(ValueError, match="nan"):
        make(math.nan, 0.1)

