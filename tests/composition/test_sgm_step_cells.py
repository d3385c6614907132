"""composition/sgm_step.py: the cells' log masses from one log_ndtr per edge (``_log_gauss_cells``) are those of
``_log_gauss_interval`` cell by cell (bit for bit: the same numbers, computed once), including the cell across 0,
infinite ends and cells too wide for Gauss–Legendre; and the pessimistic split of a partition with one cell per grid
interval (one value per segment) is that value, as the log-sum-exp it skips would give."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.sgm_step import _log_gauss_cells, _log_gauss_interval
from dpcompare.tradeoff.grid import _sorted_segment_logsumexp


@pytest.mark.parametrize("edges", [
    np.concatenate([[-np.inf], np.linspace(-7.0, 11.0, 2001), [np.inf]]),
    np.array([-3.0, -1e-300, 0.0, 1e-300, 2.0]),  # edges at and around 0
    np.array([-40.0, -20.0, -0.3, 0.2, 0.9, 30.0, 60.0]),  # wide cells: log_ndtr differences
    np.sort(np.random.default_rng(3).normal(0.5, 4.0, 500)),
    np.linspace(0.5, 9.0, 50_001),  # narrow cells above 0: Gauss–Legendre certainly (no log_ndtr read)
    np.concatenate([np.linspace(-9.0, -1e-3, 40_001), np.linspace(0.0, 3.0, 7)]),  # and below 0, then wide ones
])
def test_cells_equal_the_per_interval_routine(edges):
    got_lp, got_rel = _log_gauss_cells(edges)
    want_lp, want_rel = _log_gauss_interval(edges[:-1] + 0.0, edges[1:] + 0.0)
    np.testing.assert_array_equal(got_lp, want_lp)
    np.testing.assert_array_equal(got_rel, want_rel)


def test_one_value_per_segment_is_the_value():
    idx = np.array([0, 2, 3, 7])
    vals = np.array([-1.5, -700.0, 0.25, -3.0])
    got = _sorted_segment_logsumexp(idx, vals, 9)
    want = np.full(9, -np.inf)
    want[idx] = vals
    np.testing.assert_array_equal(got, want)
    # repeated indices still sum: log(e^{-1} + e^{-2}) at 4
    both = _sorted_segment_logsumexp(np.array([1, 4, 4]), np.array([0.0, -1.0, -2.0]), 5)
    assert both[4] == pytest.approx(np.log(np.exp(-1.0) + np.exp(-2.0)), rel=1e-15)


def test_mixed_segments_against_a_per_segment_logsumexp():
    """Mostly single values with a few repeated indices (the anchor cell's split): each output is the log-sum-exp
    of its segment (the reference: scipy's logsumexp per index)."""
    from scipy.special import logsumexp

    rng = np.random.default_rng(11)
    idx = np.sort(np.concatenate([np.arange(0, 400, 2), [10, 10, 52, 300, 300, 300]]))
    vals = rng.normal(-30.0, 20.0, idx.size)
    got = _sorted_segment_logsumexp(idx, vals, 401)
    for i in range(401):
        sel = vals[idx == i]
        if sel.size == 0:
            assert got[i] == -np.inf
        elif sel.size == 1:
            assert got[i] == sel[0]
        else:
            assert got[i] == pytest.approx(logsumexp(sel), rel=1e-14, abs=1e-13)


def test_certain_cells_read_no_log_ndtr(monkeypatch):
    """Narrow cells away from 0 are answered by Gauss–Legendre without their edges' log_ndtr (the saving the bound
    buys); the cells near 0 and the wide ones still read it — and the answer is unchanged (test above)."""
    from dpcompare.composition import sgm_step

    read = []
    real = sgm_step.log_ndtr
    monkeypatch.setattr(sgm_step, "log_ndtr", lambda z: read.append(np.size(z)) or real(z))
    edges = np.concatenate([np.linspace(-0.3, 0.3, 7), np.linspace(0.5, 9.0, 50_001)])
    _log_gauss_cells(edges)
    assert 0 < sum(read) < 100


def test_chunked_cells_equal_one_call(monkeypatch):
    """``_log_masses_cells`` in chunks of CELL_CHUNK cells gives the numbers of one call over all cells, bit for bit
    (every value is elementwise), across chunk boundaries at 0, in the bulk and in the tails."""
    from dpcompare.composition import sgm_step

    edges = np.concatenate([[-np.inf], np.linspace(-7.0, -0.5, 300), np.linspace(-0.4, 0.4, 9),
                            np.linspace(0.5, 11.0, 4001), [np.inf]])
    monkeypatch.setattr(sgm_step, "CELL_CHUNK", 10**9)
    whole = sgm_step._log_masses_cells(edges, 0.9, 0.02)
    for chunk in (1, 7, 301, 4096):
        monkeypatch.setattr(sgm_step, "CELL_CHUNK", chunk)
        for got, want in zip(sgm_step._log_masses_cells(edges, 0.9, 0.02), whole):
            np.testing.assert_array_equal(got, want)


def test_closed_form_three_point_rule_is_the_rule():
    """``_gl3_log_sum`` (the 3-point rule in closed form, short series) against the rule node by node
    (``_gl_log_sum``): both are within ``_gl_rounding`` of the exact rule, so within twice it of each other, over the
    cells the 3-point rule takes (half ≤ 7.5e-4, |mid| ≤ 12)."""
    from dpcompare.composition import sgm_step

    rng = np.random.default_rng(17)
    half = 10.0 ** rng.uniform(-9.0, np.log10(sgm_step.THREE_NODE_WIDTH / 2), 20_000)
    mid = rng.uniform(-12.0 + half, 12.0 - half)
    far = np.abs(mid) + half
    new = sgm_step._gl3_log_sum(mid, half)
    old = sgm_step._gl_log_sum(mid, half, sgm_step._GL3_NODES, sgm_step._GL3_WEIGHTS)
    assert np.all(np.abs(new - old) <= 2.0 * sgm_step._gl_rounding(half, far))
