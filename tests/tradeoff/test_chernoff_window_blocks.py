"""The composition window of tradeoff/compose.py (chernoff_window), whose search over t now runs on blocks
of atoms: outside the window the N-fold tails must be ≤ τ. Independent truth: the N-fold composition by
repeated exact convolution of the step's masses (small N, small grids), summed outside the window."""

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
    p = rng.random(size) ** 3 + 1e-6
    p /= p.sum()
    k = np.arange(size)
    o = -math.log(float(np.sum(p * np.exp(k * h))))  # Σ p·e^{o + k·h} = 1: Q is a distribution too
    return GridStep(h, o, 0, np.log(p), 0.0, 0.0, Rounding.PESSIMISTIC, 0.0)


@pytest.mark.parametrize("seed, size, h, steps, tau", [(0, 200, 0.01, 6, 1e-6), (1, 97, 0.05, 4, 1e-9),
                                                        (2, 400, 0.002, 8, 1e-4), (3, 64, 0.2, 5, 1e-12)])
@pytest.mark.parametrize("block", [1, 32])
def test_window_tails_below_tau(monkeypatch, seed, size, h, steps, tau, block):
    monkeypatch.setattr(certified_compose, "CHERNOFF_BLOCK", block)
    step = _step(seed, size, h)
    i_lo, i_hi = certified_compose.chernoff_window(step, steps, tau)
    idx, pn, qn = composed_grid_masses(step, steps)  # composed index I: loss N·o + I·h
    assert abs(qn.sum() - 1.0) < 1e-9  # the composed Q is a distribution (the truth is right)
    assert pn[idx < i_lo].sum() <= tau * (1 + 1e-9)
    assert qn[idx > i_hi].sum() <= tau * (1 + 1e-9)


def test_block_search_finds_the_window_of_the_atom_search(monkeypatch):
    # the blocks only choose where to refine; the refinement runs on the atoms in both cases, so the two
    # windows agree up to the search grid in t
    step = _step(5, 300, 0.01)
    monkeypatch.setattr(certified_compose, "CHERNOFF_BLOCK", 1)
    lo1, hi1 = certified_compose.chernoff_window(step, 6, 1e-8)
    monkeypatch.setattr(certified_compose, "CHERNOFF_BLOCK", 64)
    lo64, hi64 = certified_compose.chernoff_window(step, 6, 1e-8)
    assert abs(lo64 - lo1) <= 0.05 * (hi1 - lo1) and abs(hi64 - hi1) <= 0.05 * (hi1 - lo1)
