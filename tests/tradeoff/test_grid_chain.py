"""The vectorised chain of regular groups (tradeoff/grid_chain.py) against the group-per-iteration loop it
replaces on fast runs (``greedy_merge(..., chain=False)``, the reference), and against the laws an optimistic
landing must obey (``_laws`` of test_grid_merge.py, computed from the masses alone).

The chain makes the loop's decisions from states equal to the loop's up to rounding; the rounding carried along
the chain of fractions is not damped (|B_J·B_{J+1}| ≈ 1), so the masses agree to a stated tolerance, not bit
for bit: 1e-8 relative on the DP-SGD partitions (6.6e-9 measured for SGM(3, 9e-4) on its default grid).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grid_merge import _assert_close, _atoms, _laws, reference_greedy_merge

from dpcompare.composition.sgm_grid import default_discretization
from dpcompare.composition.sgm_step import sgm_partition
from dpcompare.tradeoff import grid_chain, grid_merge
from dpcompare.tradeoff.grid import merge_atoms
from dpcompare.tradeoff.grid_merge import greedy_merge


def _sgm_atoms(sigma, p, h):
    """The atoms grid.optimistic_step hands to the merge: the low tail, the cells, the high tail."""
    part = sgm_partition(sigma, p, h)
    lam, lp = merge_atoms(part)
    return lam, lp, (part.h, part.offset, part.k_lo, part.k_hi)


def _spy(monkeypatch):
    """Counts the groups the chain takes."""
    taken = [0]
    real = grid_merge.solve_chain

    def spy(*a):
        r = real(*a)
        taken[0] += r[0].size
        return r

    monkeypatch.setattr(grid_merge, "solve_chain", spy)
    return taken


def _force_chain(mp):
    """The chain on every fast run however short, from the walk's start, even next to groups that absorb
    beyond the next interval, whatever it costs (the up-front path choice and the cost model off)."""
    mp.setattr(grid_merge, "_MIN_CHAIN", 1)
    mp.setattr(grid_merge, "_WARM_UP", 0)
    mp.setattr(grid_merge, "_CALM", 0)
    mp.setattr(grid_merge, "_CHAIN_RISK", math.inf)


@pytest.mark.parametrize("sigma, p, h", [
    (1.0, 0.01, None),   # describe sgm's step: default grid of SGM(1, 0.01, 10³)
    (2.0, 9e-4, None),   # [BCP] Theorem 3's pair: default grids of SGM(2, 9e-4, 1.4·10⁶) …
    (3.0, 9e-4, None),   # … and SGM(3, 9e-4, 3.4·10⁶)
    # on these the chain is forced on every fast run (left to itself it takes few or none of their groups):
    (2.0, 1e-3, 1e-4),   # a short run (3 000 intervals)
    (3.0, 9e-4, 1e-5),
    (3.0, 1e-3, 1.0284315897866292e-06),  # 0.3× the default grid of N = 10³: the largest difference of the
    # bench's sweep, 2.4e-9 relative on a cell of 2.7e-9 of the mass (the loop differs from the atom loop by 5.8e-9)
    (2.0, 9e-4, 4.8e-6),
    (0.7, 0.05, 1e-3),   # about half the groups absorb beyond the next interval
    (1.0, 0.01, 1e-3),
])
def test_chain_matches_the_group_loop_on_sgm_partitions(sigma, p, h, monkeypatch):
    default = h is None
    if default:
        h = default_discretization(sigma, p, {1.0: 1000, 2.0: 1_400_000, 3.0: 3_400_000}[sigma])
    lam, lp, args = _sgm_atoms(sigma, p, h)
    ref = greedy_merge(lam, lp, *args, chain=False)
    taken = _spy(monkeypatch)
    if not default:
        _force_chain(monkeypatch)
    new = greedy_merge(lam, lp, *args)
    assert taken[0] > 0
    _assert_close(ref, new, rtol=1e-9)  # (1e-9 relative, or 1e-13 of the total on masses in the far tails)
    # the snapped Q-mass: the loop's, plus the deficits the chain's fractions leave (rounding-level)
    assert ref[1] * (1 - 1e-12) <= new[1] <= ref[1] * (1 + 1e-12) + 1e-18
    if default:  # on the default grids of describe and of Theorem 3 nearly every group is the chain's
        assert taken[0] > 0.9 * np.sum(grid_merge._tables(lam, lp, *args)["fast"])
    _laws(lam, lp, *args, *new)


@pytest.mark.parametrize("sigma, p, h", [(0.5, 0.2, 1e-2), (0.5, 0.2, 1e-3), (1.0, 0.01, 1e-3), (3.0, 9e-4, 1e-4)])
def test_the_loop_alone_where_the_chain_would_not_pay(sigma, p, h, monkeypatch):
    """Partitions whose groups absorb beyond the next interval every other interval (SGM(0.5, 0.2), SGM(1, 0.01)
    at h = 1e-3) or whose fast runs are short (SGM(3, 9e-4) at 1e-4: 430 intervals): the up-front choice leaves
    them to the loop (the chain was 1.1–2× slower there), so the landing is the loop's, bit for bit."""
    lam, lp, args = _sgm_atoms(sigma, p, h)
    ref = greedy_merge(lam, lp, *args, chain=False)
    taken = _spy(monkeypatch)
    new = greedy_merge(lam, lp, *args)
    assert taken[0] == 0
    assert np.array_equal(ref[0], new[0]) and ref[1] == new[1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 16), st.integers(5, 80), st.sampled_from([1, 4, 64]))
def test_chain_matches_the_group_loop_on_random_inputs(seed, max_sub, n_int, window):
    """Random partition-like inputs, the chain forced on every fast run (however short) and on small windows,
    so mispredictions, stops (a group absorbing the whole next interval) and window ends are all exercised."""
    lam, lp, h, o, k_lo, k_hi = _atoms(seed, n_int=n_int, max_sub=max_sub, tails=seed % 2 == 0)
    try:
        ref = greedy_merge(lam, lp, h, o, k_lo, k_hi, chain=False)
    except (RuntimeError, OverflowError):
        return
    with pytest.MonkeyPatch.context() as mp:
        _force_chain(mp)
        mp.setattr(grid_chain, "WINDOW", window)
        new = greedy_merge(lam, lp, h, o, k_lo, k_hi)
    _assert_close(ref, new, rtol=1e-9)
    _laws(lam, lp, h, o, k_lo, k_hi, *new)


def test_chain_agrees_with_the_atom_loop_on_a_long_random_input(monkeypatch):
    """2000 intervals (several windows of the chain) against the atom-by-atom loop the group loop replaced."""
    lam, lp, h, o, k_lo, k_hi = _atoms(7, n_int=2000, max_sub=6)
    _force_chain(monkeypatch)
    monkeypatch.setattr(grid_chain, "WINDOW", 256)
    taken = _spy(monkeypatch)
    new = greedy_merge(lam, lp, h, o, k_lo, k_hi)
    ref = reference_greedy_merge(lam.tolist(), lp.tolist(), h, o, k_lo, k_hi)
    _assert_close(ref, new, rtol=1e-9)
    assert taken[0] > 0
    _laws(lam, lp, h, o, k_lo, k_hi, *new)


def test_snapped_groups_in_the_chain(monkeypatch):
    """A group balanced by its members up to rounding and a group whose fraction of the next atom is 1 up to
    rounding (the inputs of test_grid_merge's fast-path case), taken by the chain: the loop's snapped Q-mass
    (plus at most the rounding-level deficits of the chain's fractions), and the same landing."""
    h, o, k_lo, k_hi = 0.1, 0.0, 0, 8
    a, b = 0.03, 0.04
    p2 = (1 - math.exp(-a)) / math.expm1(b)
    lam = np.array([0.1 - 5e-15, 0.3 - a, 0.3 + b, 0.38, 0.45, 0.52, 0.55, 0.61, 0.66])
    lp = np.log(np.array([0.2, 0.1, 0.1 * p2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]))
    _force_chain(monkeypatch)
    for excess in (1.0, 1.0 + 4e-15):
        lp[2] = math.log(0.1 * p2 * excess)
        ref = greedy_merge(lam, lp, h, o, k_lo, k_hi, chain=False)
        taken = _spy(monkeypatch)
        new = greedy_merge(lam, lp, h, o, k_lo, k_hi)
        assert taken[0] >= 2
        _assert_close(ref, new, rtol=1e-12)
        assert new[1] > 0.0 and ref[1] * (1 - 1e-12) <= new[1] <= ref[1] * (1 + 1e-12) + 1e-18
        _laws(lam, lp, h, o, k_lo, k_hi, *new)
