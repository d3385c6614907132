"""composition/sgm_grid.py ``checked_tail``: the one check of a single step's tail mass, as a grid takes it
(``check_grid``: (0, 1e-3]) and as a side cut for a question takes it (``sgm_sides``: [default, 1e-6]) — the same
accepted values and the same refusals (ValueError naming the range) as the two checks it replaces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition.sgm_grid import MAX_STEP_TAIL, check_grid, checked_tail, step_tail
from dpcompare.composition.sgm_sides import pessimistic_side_cut


@pytest.mark.parametrize("tail", [1e-300, 1e-18, 1e-3, np.float64(1e-9), np.float32(1e-5), 1])
def test_grid_range_accepts(tail):
    ok = 0.0 < float(tail) <= MAX_STEP_TAIL
    if ok:
        assert checked_tail(tail, 0.0, low_open=True) == float(tail)
    else:
        with pytest.raises(ValueError, match=r"tail must be in \(0, 0\.001\]"):
            checked_tail(tail, 0.0, low_open=True)


@pytest.mark.parametrize("tail", [0.0, -1e-30, 2e-3, math.nan, math.inf, True, False, "1e-9"])
def test_refusals_name_the_range(tail):
    with pytest.raises(ValueError, match=r"tail must be in \(0, 0\.001\] \(mass left outside one step's grid\)"):
        check_grid(1.0, 0.01, 100, None, tail)


def test_side_range_is_closed_at_the_default():
    low = step_tail(100)
    assert checked_tail(low, low, 1e-6) == low and checked_tail(1e-6, low, 1e-6) == 1e-6
    for bad in (low / 2, 2e-6, math.nan, True):
        with pytest.raises(ValueError, match=r"tail must be in \[1e-18, 1e-06\]"):
            pessimistic_side_cut(1.0, 0.01, 100, 1e-3, bad)


def test_check_grid_returns_the_tail_given():
    assert check_grid(1.0, 0.01, 100, None, 1e-10)[1] == 1e-10
    assert check_grid(1.0, 0.01, 100, None)[1] == step_tail(100)
