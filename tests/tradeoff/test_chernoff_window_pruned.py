"""tradeoff/compose.py ``chernoff_window``: in its refinement, blocks far below the moment generating function enter
with their block's upper bound (CHERNOFF_PRUNE). Pruning keeps every value an upper bound, so the window stays sound
however hard it prunes (independent truth: the N-fold composition by exact repeated convolution, its mass outside
the window ≤ τ), and at the default threshold the window is the unpruned one."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.tradeoff import Rounding
from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff.grid import GridStep
from exact_compose import composed_grid_masses


def _step(seed: int, size: int, h: float) -> GridStep:
    rng = np.random.default_rng(seed)
    p = np.exp(-40.0 * rng.random(size) * (np.arange(size) / size) ** 2) + 1e-30  # masses over ~17 orders
    p /= p.sum()
    k = np.arange(size)
    o = -math.log(float(np.sum(p * np.exp(k * h))))  # Σ p·e^{o + k·h} = 1: Q is a distribution too
    return GridStep(h, o, 0, np.log(p), 0.0, 0.0, Rounding.PESSIMISTIC, 0.0)


@pytest.mark.parametrize("seed, size, h, steps, tau", [(0, 300, 0.01, 6, 1e-6), (1, 200, 0.05, 4, 1e-12)])
@pytest.mark.parametrize("prune", [0.0, 5.0])
def test_aggressive_pruning_stays_sound(monkeypatch, seed, size, h, steps, tau, prune):
    monkeypatch.setattr(certified_compose, "CHERNOFF_BLOCK", 8)
    monkeypatch.setattr(certified_compose, "CHERNOFF_PRUNE", prune)
    step = _step(seed, size, h)
    i_lo, i_hi = certified_compose.chernoff_window(step, steps, tau)
    idx, pn, qn = composed_grid_masses(step, steps)  # composed index I: loss N·o + I·h
    assert pn[idx < i_lo].sum() <= tau * (1 + 1e-9)
    assert qn[idx > i_hi].sum() <= tau * (1 + 1e-9)


@pytest.mark.parametrize("sigma, p, steps", [(1.0, 0.01, 1000), (1.12, 0.5, 2), (0.3, 1e-3, 10)])
def test_default_pruning_gives_the_unpruned_window(monkeypatch, sigma, p, steps):
    from dpcompare.composition.sgm_grid import check_grid
    from dpcompare.composition.sgm_step import sgm_partition
    from dpcompare.tradeoff import grid as certified_grid

    h, tail, sub = check_grid(sigma, p, steps, None)
    step = certified_grid.pessimistic_step(sgm_partition(sigma, p, h, sub=1, tail=tail, anchor_sub=sub))
    pruned = certified_compose.chernoff_window(step, steps, 1e-18)
    monkeypatch.setattr(certified_compose, "CHERNOFF_PRUNE", math.inf)
    assert certified_compose.chernoff_window(step, steps, 1e-18) == pruned
