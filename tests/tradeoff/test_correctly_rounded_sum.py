"""tradeoff/compose.py ``correctly_rounded_sum`` (the composition caps' step totals) is ``math.fsum``'s value,
bit for bit (the reference: Python's exactly rounded sum), on non-negative inputs over the whole double range,
including ties and sums that the long-double tree cannot decide (then fsum answers)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.tradeoff.compose import correctly_rounded_sum


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False, allow_subnormal=True), max_size=300))
def test_equals_fsum(values):
    x = np.array(values, dtype=float)
    assert correctly_rounded_sum(x) == math.fsum(values)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40_000), st.floats(0.1, 300.0))
def test_equals_fsum_on_masses_spanning_many_orders(seed, n, spread):
    rng = np.random.default_rng(seed)
    x = np.exp(np.clip(rng.normal(-30.0, spread, n), -745.0, 0.0))
    assert correctly_rounded_sum(x) == math.fsum(x.tolist())


def test_ties_and_undecided_sums():
    one_ulp_half = 2.0**-53  # 1 + 2⁻⁵³ is a tie between 1 and 1 + 2⁻⁵²: rounds to even (1.0)
    for x in ([1.0, one_ulp_half], [1.0, one_ulp_half, 2.0**-120], [1.0, one_ulp_half, one_ulp_half],
              [3.0, 2.0**-52, 2.0**-200], [0.0, 0.0], [], [5e-324, 5e-324]):
        assert correctly_rounded_sum(np.array(x, dtype=float)) == math.fsum(x), x
