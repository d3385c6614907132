"""tradeoff/compose.py ``_remove_excess`` (step 6: mass above the exact totals is taken from the highest losses in Q,
then from the lowest in P, and sent to ±∞), checked against its definition on random atoms: what is taken, from
where, and that the amount reported is what left each measure (sums of the doubles in exact rationals)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcompare.tradeoff.compose import _remove_excess


def _total(log_m: np.ndarray) -> Fraction:
    return sum((Fraction(float(v)) for v in np.exp(log_m[np.isfinite(log_m)])), Fraction(0))


@pytest.mark.parametrize("seed", range(8))
def test_excess_leaves_q_from_the_top_and_p_from_the_bottom(seed):
    rng = np.random.default_rng(seed)
    n = 16
    L = np.sort(rng.uniform(-2.0, 2.0, n))
    before = np.log(rng.random(n) + 0.2)
    before[rng.integers(0, n)] = -np.inf  # an empty atom stays empty
    p_tot, q_tot = float(_total(before)), float(_total(before + L))
    p_max, q_max = p_tot * rng.uniform(0.85, 0.95), q_tot * rng.uniform(0.85, 0.95)  # each pass takes ≤ 15%
    out = before.copy()
    removed = _remove_excess(out, L, p_max, q_max)
    changed = np.flatnonzero(out != before)
    top, bottom = changed[changed >= n // 2], changed[changed < n // 2]
    assert top.size and bottom.size  # both passes took something, from opposite ends
    # a run of emptied atoms from each end, and at most one atom cut in part at the inner edge of each run
    assert np.all(np.isinf(out[top[1:]])) and top[-1] == n - 1 - int(np.isinf(before[n - 1]))
    assert np.all(np.isinf(out[bottom[:-1]])) and bottom[0] == int(np.isinf(before[0]))
    assert np.all(out[top] < before[top]) and np.all(out[bottom] < before[bottom])
    # the amounts: Q lost its excess over q_max at the top, P its excess over p_max at the bottom
    q_taken = float(_total(before[top] + L[top]) - _total(out[top] + L[top]))
    p_taken = float(_total(before[bottom]) - _total(out[bottom]))
    p_after_q = float(_total(before) - (_total(before[top]) - _total(out[top])))
    assert math.isclose(q_taken, q_tot - q_max, rel_tol=1e-9)
    assert math.isclose(p_taken, p_after_q - p_max, rel_tol=1e-9)
    assert math.isclose(removed, q_taken + p_taken, rel_tol=1e-9)


def test_nothing_to_remove_changes_nothing():
    log_p, L = np.log(np.array([0.25, 0.75])), np.array([-1.0, 1.0])
    out = log_p.copy()
    assert _remove_excess(out, L, 1.0, 3.0) == 0.0 and np.array_equal(out, log_p)  # P total 1, Q total 2.13
