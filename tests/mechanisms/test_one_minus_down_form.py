"""``directed_rounding.one_minus_down`` moves fl(1 − x) down by nextafter towards s − [rounded up] instead of an
``np.where``: the same doubles as the where form, bit for bit (edges, NaN and ±∞ included), and still ≤ 1 − x
exactly (checked with ``fractions.Fraction``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.directed_rounding import one_minus_down


def _where_form(x: np.ndarray) -> np.ndarray:
    s = 1.0 - x
    back = 1.0 - s
    return np.where((x < 0.5) & (back < x), np.nextafter(s, -np.inf), s)


EDGES = np.array([0.0, -0.0, 5e-324, 1e-300, 1e-17, 1e-16, 0.1, 1 / 3, 0.25, 0.5 - 2**-54, 0.5, 0.5 + 2**-53, 0.75,
                  1.0 - 2**-53, 1.0, 1.5, -1e-300, -3.0, np.inf, -np.inf, np.nan])


def test_edges_are_the_where_form():
    with np.errstate(all="ignore"):
        got, want = one_minus_down(EDGES), _where_form(EDGES)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40))
def test_random_points_are_the_where_form_and_below(xs):
    x = np.array(xs)
    got = one_minus_down(x)
    assert np.array_equal(got, _where_form(x))
    for xi, gi in zip(xs, got.tolist()):
        assert Fraction(gi) <= 1 - Fraction(xi)
