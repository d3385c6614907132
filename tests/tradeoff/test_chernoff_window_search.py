"""tradeoff/compose.py ``chernoff_window``: its refinement reads the fine grid of t only where a golden-section search
for the extremum looks (``unimodal_search``). The window is the one read off every point of the fine grid (the
reference: the search replaced by reading all of them), on subsampled-Gaussian steps across the parameter range and
on synthetic steps; and the search finds the minimum of unimodal sequences (brute force)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.tradeoff import compose as certified_compose


def _read_all(val, n):
    for i in range(n):
        val(i)


@pytest.mark.parametrize("sigma, p, steps", [(1.01, 0.01, 10_000), (0.7, 0.05, 300), (3.0, 0.001, 1000),
                                             (0.2, 0.9, 10), (1.12, 0.5, 2), (0.8, 0.1, 100_000)])
@pytest.mark.parametrize("tau", [1e-18, 1e-9])
def test_window_is_the_one_of_the_whole_fine_grid(monkeypatch, sigma, p, steps, tau):
    from dpcompare.composition.sgm_grid import check_grid
    from dpcompare.composition.sgm_step import sgm_partition
    from dpcompare.tradeoff import grid as certified_grid

    h, tail, sub = check_grid(sigma, p, steps, None)
    step = certified_grid.pessimistic_step(sgm_partition(sigma, p, h, sub=1, tail=tail, anchor_sub=sub))
    searched = certified_compose.chernoff_window(step, steps, tau)
    monkeypatch.setattr(certified_compose, "unimodal_search", _read_all)
    assert searched == certified_compose.chernoff_window(step, steps, tau)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.data())
def test_search_finds_the_minimum_of_a_unimodal_sequence(n, data):
    k = data.draw(st.integers(0, n - 1))
    down = sorted(data.draw(st.lists(st.floats(-1e6, 1e6), min_size=k, max_size=k, unique=True)), reverse=True)
    up = sorted(data.draw(st.lists(st.floats(-1e6, 1e6), min_size=n - 1 - k, max_size=n - 1 - k, unique=True)))
    low = min(down + up, default=0.0) - 1.0
    seq = down + [low] + up  # strictly decreasing to index k, then strictly increasing
    seen = []
    certified_compose.unimodal_search(lambda i: seen.append(i) or seq[i], n)
    assert k in seen
    assert len(set(seen)) <= min(n, 16)  # a golden-section search: ≤ 16 distinct points read for n ≤ 60
