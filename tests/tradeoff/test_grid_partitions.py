"""The general inputs of the one discretisation engine (tradeoff/grid.py: tails_partition,
pair_partition, mix_partitions, merge_cells, step_pair) against independent computations.

References: brute-force Bayes error R(π) = Σ min(π·p, (1−π)·q) and hockey-stick
δ(ε) = Σ (q − e^ε·p)₊ over the masses ([BCP] eq 2), written here from the masses
alone; mpmath at 50 digits for Gaussian cell masses; the doubling search that the range search replaced.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.mixtures._tails import loss_range
from dpcompare.mixtures.joint_concavity import mixture_pair
from dpcompare.tradeoff import DiscretePair, Rounding
from dpcompare.tradeoff import grid, partition
from strategies import discrete_pairs

PI = np.linspace(0.0, 1.0, 201)


def _masses(pair: DiscretePair) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) over the finite atoms plus the two ±∞ outcomes."""
    p = np.concatenate([np.exp(pair.log_p), [pair.p_neg_inf, 0.0]])
    q = np.concatenate([np.exp(pair.log_p + pair.loss), [0.0, pair.q_pos_inf]])
    return p, q


def _bayes(pair: DiscretePair) -> np.ndarray:
    p, q = _masses(pair)
    return np.minimum(PI[:, None] * p[None, :], (1 - PI[:, None]) * q[None, :]).sum(axis=1)


def _delta(pair: DiscretePair, eps: np.ndarray) -> np.ndarray:
    p, q = _masses(pair)
    return np.maximum(q[None, :] - np.exp(eps)[:, None] * p[None, :], 0.0).sum(axis=1)


grids = st.tuples(st.floats(0.05, 2.0), st.integers(1, 8))


@given(discrete_pairs, grids)
def test_split_of_a_pair_keeps_both_masses_and_dominates(pair, hk):
    h, K = hk
    split = partition.step_pair(grid.pessimistic_step(partition.pair_partition(pair, h, 0.0, -K, K)))
    assert split.rounding is Rounding.PESSIMISTIC
    k = split.loss / h
    assert np.allclose(k, np.rint(k), atol=1e-9) and np.all(np.abs(np.rint(k)) <= K)
    p, q = _masses(split)
    p0, q0 = _masses(pair)
    assert abs(p.sum() - p0.sum()) < 1e-12 and abs(q.sum() - q0.sum()) < 1e-12
    assert np.all(_bayes(split) <= _bayes(pair) + 1e-12)  # more informative: R never above the truth


@given(discrete_pairs, grids)
def test_split_profile_is_exact_at_grid_points_inside_the_range(pair, hk):
    h, K = hk
    split = partition.step_pair(grid.pessimistic_step(partition.pair_partition(pair, h, 0.0, -K, K)))
    g = np.arange(0, K + 1) * h
    assert np.allclose(_delta(split, g), _delta(pair, g), rtol=1e-10, atol=1e-12)
    mid = g[:-1] + h / 2
    assert np.all(_delta(split, mid) >= _delta(pair, mid) - 1e-12)


@given(discrete_pairs, grids)
def test_merges_are_dominated_by_the_pair(pair, hk):
    h, K = hk
    part = partition.pair_partition(pair, h, 0.0, -K, K)
    merged = partition.merge_cells(part)
    assert merged.rounding is Rounding.OPTIMISTIC
    assert np.all(_bayes(merged) >= _bayes(pair) - 1e-12)
    try:
        landed = partition.step_pair(grid.optimistic_step(part))
    except RuntimeError:  # grid too coarse to land the groups (the caller falls back)
        assume(False)
    k = landed.loss / h
    assert np.allclose(k, np.rint(k), atol=1e-9)
    assert np.all(_bayes(landed) >= _bayes(pair) - 1e-12)


@given(discrete_pairs, st.floats(0.05, 1.0), st.integers(2, 12))
def test_tails_partition_of_a_discrete_law_is_its_pair_partition(pair, h, K):
    p, q = _masses(pair)
    loss = np.concatenate([pair.loss, [-np.inf, np.inf]])

    def log_sf(t, under):
        m = p if under == "P" else q
        with np.errstate(divide="ignore"):
            return np.log(np.array([m[loss > x].sum() for x in np.atleast_1d(t)]))

    def log_cdf(t, under):
        m = p if under == "P" else q
        with np.errstate(divide="ignore"):
            return np.log(np.array([m[loss <= x].sum() for x in np.atleast_1d(t)]))

    a = partition.tails_partition(log_sf, log_cdf, h, -K * h / 2, 0, K)
    b = partition.pair_partition(pair, h, -K * h / 2, 0, K)
    pa, pb = grid.pessimistic_step(a), grid.pessimistic_step(b)
    assert np.allclose(np.exp(pa.log_p), np.exp(pb.log_p), atol=1e-12)
    assert abs(pa.p_neg_inf - pb.p_neg_inf) < 1e-12 and abs(pa.q_pos_inf - pb.q_pos_inf) < 1e-12
    # the tails cannot tell an atom at ℓ = −∞ from the lower tail: with one, the tails' merge is coarser
    if pair.p_neg_inf == 0 and pair.q_pos_inf == 0:
        assert np.allclose(_bayes(partition.merge_cells(a)), _bayes(partition.merge_cells(b)), atol=1e-12)
    assert np.all(_bayes(partition.merge_cells(a)) >= _bayes(partition.merge_cells(b)) - 1e-12)


@pytest.mark.parametrize("mu", [0.05, 1.5, 8.0])
def test_gaussian_cells_are_within_their_error_bound(mu):
    g = dc.Gaussian(mu=mu)
    lo, hi = loss_range(g.log_sf, g.log_cdf, 1e-30, mu)
    bins = 512
    h = (hi - lo) / bins
    part = partition.tails_partition(g.log_sf, g.log_cdf, h, lo, 0, bins)
    mpmath.mp.dps = 50
    rel = np.broadcast_to(np.asarray(part.rel_err), part.log_p.shape)
    for j in np.linspace(0, part.cell_k.size - 1, 25).astype(int):
        k = int(part.cell_k[j])
        # the cell's ends are the grid points as computed in double precision
        a, b = (mpmath.mpf(float(x)) for x in part.grid(np.array([k, k + 1])))
        # ℓ ~ N(−μ²/2, μ²) under P: mass of (a, b] = Φ((b + μ²/2)/μ) − Φ((a + μ²/2)/μ)
        m = mpmath.mpf(mu)
        za, zb = (a + m * m / 2) / m, (b + m * m / 2) / m
        # from the smaller tail, so that 50 digits resolve masses far below 1e-50
        exact = mpmath.ncdf(-za) - mpmath.ncdf(-zb) if za > 0 else mpmath.ncdf(zb) - mpmath.ncdf(za)
        got = math.exp(float(part.log_p[j]))
        assert abs(got - float(exact)) <= (rel[j] + 1e-15) * float(exact) + 1e-300


@pytest.mark.parametrize("mu", [0.01, 0.5, 1.0, 5.0, 30.0])
def test_loss_range_is_the_doubling_search(mu):
    g = dc.Gaussian(mu=mu)
    tail = 1e-30
    hi = lo = max(mu, 1e-3)
    while float(g.log_sf(np.array([hi]), "Q")[0]) > math.log(tail):
        hi *= 2.0
    while float(g.log_cdf(np.array([-lo]), "P")[0]) > math.log(tail):
        lo *= 2.0
    assert loss_range(g.log_sf, g.log_cdf, tail, mu) == (-lo, hi)


@given(st.lists(discrete_pairs, min_size=2, max_size=3), st.data())
def test_mix_partitions_is_the_revealed_index_mixture(pairs, data):
    w = np.array(data.draw(st.lists(st.floats(0.01, 1.0), min_size=len(pairs), max_size=len(pairs))))
    w = w / w.sum()
    h, K = 0.3, 6
    parts = [partition.pair_partition(pr, h, 0.0, -K, K) for pr in pairs]
    mixed = partition.mix_partitions(w, parts)
    split_of_mix = partition.step_pair(grid.pessimistic_step(mixed))
    mix_of_splits = mixture_pair(w, [partition.step_pair(grid.pessimistic_step(pt)) for pt in parts])
    assert np.allclose(_bayes(split_of_mix), _bayes(mix_of_splits), atol=1e-12)
    truth = mixture_pair(w, pairs)  # [MIX] Lemma 3.1 with the index revealed
    assert np.all(_bayes(split_of_mix) <= _bayes(truth) + 1e-12)
    assert np.all(_bayes(partition.merge_cells(mixed)) >= _bayes(truth) - 1e-12)


def test_mix_partitions_refuses_different_grids_and_weights():
    rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    a, b = partition.pair_partition(rr, 0.5, 0.0, -4, 4), partition.pair_partition(rr, 0.25, 0.0, -4, 4)
    with pytest.raises(ValueError, match="share their grid"):
        partition.mix_partitions(np.array([0.5, 0.5]), [a, b])
    with pytest.raises(ValueError, match="one entry per partition"):
        partition.mix_partitions(np.array([1.0]), [a, a])
    with pytest.raises(ValueError, match="k_hi > k_lo"):
        partition.pair_partition(rr, 0.5, 0.0, 2, 2)
