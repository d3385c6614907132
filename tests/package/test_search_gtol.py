"""``solve`` additions for calibration: the value tolerance ``gtol``, the progress ``callback`` and
lazily evaluated domain ends when a ``start`` is given — against brute force on monotone functions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare._search import Side, Unreachable, solve


@settings(max_examples=200, deadline=None)
@given(root=st.floats(1e-6, 1e6), start=st.floats(1e-8, 1e8), gtol=st.floats(1e-9, 1e-1),
       side=st.sampled_from(list(Side)))
def test_gtol_stops_only_at_a_certified_point_within_tolerance(root, start, gtol, side):
    sign = -1.0 if side is Side.ABOVE else 1.0
    g = lambda x: sign * (math.log(x) - math.log(root))  # noqa: E731
    seen = []
    r = solve(g, 1e-9, 1e9, side=side, start=start, gtol=gtol, rtol=1e-15,
              callback=lambda f, i: seen.append((f, i)))
    assert -gtol <= g(r.feasible) <= 0  # certified and within the value tolerance
    assert r.infeasible is None or g(r.infeasible) > 0
    assert len(seen) == r.evaluations
    for f, i in seen:  # every reported end was on its side
        assert f is None or g(f) <= 0
        assert i is None or g(i) > 0


def test_start_first_skips_far_domain_ends():
    calls = []

    def g(x: float) -> float:
        calls.append(x)
        return 1.0 - x  # feasible for x ≥ 1

    r = solve(g, 1e-300, 1e300, side=Side.ABOVE, start=0.9, rtol=1e-6)
    assert 1e-300 not in calls and 1e300 not in calls
    assert 1.0 <= r.feasible <= 1.0 + 2e-6 and r.infeasible < 1.0


def test_start_with_unreachable_and_all_feasible_domains():
    with pytest.raises(Unreachable):
        solve(lambda x: 1.0, 1.0, 10.0, side=Side.ABOVE, start=3.0)
    r = solve(lambda x: -1.0, 1.0, 10.0, side=Side.ABOVE, start=3.0)
    assert r.feasible == 1.0 and r.infeasible is None
