"""tradeoff/compose.py ``_dft_terms``: the inputs the extended-precision DFT sums are those the definition keeps —
sort every input ascending (ties by index), leave out the longest prefix whose running sum is ≤ u·Σx and the
zeros — computed here by that brute-force sort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.tradeoff.compose import _dft_terms
from dpcompare.tradeoff.grid import U


def _by_definition(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    cut = int(np.searchsorted(np.cumsum(x[order]), U * float(np.sum(x)), side="right"))
    j = np.sort(order[cut:])
    return j[x[j] > 0]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.floats(0.0, 0.6), st.floats(0.0, 0.6))
def test_same_terms_as_the_full_sort(seed, n, zeros, tiny):
    rng = np.random.default_rng(seed)
    x = rng.random(n) * 10.0 ** rng.integers(-300, 1)
    x[rng.random(n) < zeros] = 0.0
    x[rng.random(n) < tiny] *= 10.0 ** -rng.integers(14, 20)  # around the budget u·Σx
    if seed % 7 == 0:
        x[:] = x[0]  # all equal: ties decided by index
    assert np.array_equal(_dft_terms(x), _by_definition(x))
