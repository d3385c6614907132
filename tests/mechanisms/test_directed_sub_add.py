"""``directed_rounding.sub_down``/``add_up`` against exact rational arithmetic, and their use where a numeric
mechanism widens its Bayes-error bracket by its error bound η (a lower end less η must stay a lower end)."""

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.directed_rounding import add_up, sub_down
from dpcompare.mechanisms.composed import Composed

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_sub_down_is_below_and_add_up_above_the_exact_result(a, b):
    lo, hi = float(sub_down(a, b)), float(add_up(a, b))
    assert Fraction(lo) <= Fraction(a) - Fraction(b)
    assert Fraction(hi) >= Fraction(a) + Fraction(b)
    # never more than one ulp from the nearest double (tight, not merely safe)
    assert abs(lo - (a - b)) <= np.spacing(abs(a - b)) and abs(hi - (a + b)) <= np.spacing(abs(a + b))


def test_sub_down_moves_exactly_when_rounding_went_the_wrong_way():
    assert float(sub_down(1.0, 1e-17)) == np.nextafter(1.0, 0.0)  # fl(1 − 1e-17) = 1 rounds up
    assert float(sub_down(0.75, 0.5)) == 0.25  # exact: unchanged
    assert float(add_up(1.0, 1e-17)) == np.nextafter(1.0, 2.0)
    assert np.isinf(sub_down(np.inf, 1.0)) and np.isnan(add_up(np.nan, 1.0))


def test_composed_bayes_error_lower_end_is_the_pessimistic_end_less_eta_rounded_down():
    m = Composed(dc.RandomizedResponse(eps=0.5), steps=30)
    pi = np.linspace(0.05, 0.95, 19)
    lo = np.asarray(m.bayes_error_bounds(pi)[0], dtype=float)
    pess = m.composition.pessimistic.bayes_error_bounds(pi)[0]  # the pessimistic pair's own directed lower end
    exact = [Fraction(float(x)) - Fraction(float(m.numerical_error)) for x in pess]
    assert all(Fraction(float(v)) <= max(e, Fraction(0)) for v, e in zip(lo, exact))
