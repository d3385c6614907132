"""The greedy merge of step 3 (tradeoff/grid_merge.py) against the atom-by-atom loop it replaced, and
against the laws an optimistic landing must obey, computed here from the masses alone.

Reference: ``reference_greedy_merge`` below is the per-atom loop that ``tradeoff/grid.py`` used before
the group-per-iteration version (copied unchanged, only renamed). The two make the same greedy decisions
and differ in rounding (masses scaled per grid interval instead of per group), so their landed masses
agree to a tolerance, not bit for bit. Laws, independent of either implementation: the landing keeps the
total P- and Q-mass (each group's merged loss is exactly its grid point, so Q = Σ e^{g}·P on the grid),
and it is a post-processing of the input, so its hockey-stick divergence δ(ε) = Σ (q − e^ε·p)₊ ([BCP]
eq 2) is nowhere above the input's (by more than the returned snapping error and rounding).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcompare.composition.sgm_step import sgm_partition
from dpcompare.tradeoff.grid import SNAP, U, _land_leftover, merge_atoms
from dpcompare.tradeoff.grid_merge import _tables, greedy_merge


def reference_greedy_merge(lam: list[float], logp: list[float], h: float, o: float, k_lo: int, k_hi: int) -> tuple[np.ndarray, float]:
    """Step 3 on atoms sorted by loss ``lam`` with log P-masses ``logp``; returns the log P-masses on the
    grid o + k·h and the Q-mass changed by snapping rounding-level deficits.

    A group with target g keeps its deficit D = Σ pᵢ(1 − e^{λᵢ−g}) ≥ 0 (P-units); absorbing the
    fraction t of an atom above g lowers D by t·p·(e^{λ−g} − 1). Masses inside a group are relative to
    the group's first member (scale e^s), excesses are compared in log space, so neither masses far
    below 1e-308 nor losses far above 700 overflow or vanish.
    """
    out = [-math.inf] * (k_hi - k_lo + 1)  # a list: scalar reads/writes in the loop are several × cheaper
    n = len(lam)
    i = 0
    snap_err = 0.0
    log_rem = 0.0  # log of the fraction of atom i still unassigned
    left_lp: list[float] = []
    left_lam: list[float] = []
    # local names: this loop runs once per fine cell (10⁵ of them for DP-SGD), so lookups matter
    exp, expm1, log, log1p, floor, ceil, ninf = math.exp, math.expm1, math.log, math.log1p, math.floor, math.ceil, -math.inf
    tol8 = 8 * U
    ao, snap = abs(o), SNAP
    while i < n:
        lam_i = lam[i]
        if logp[i] + log_rem == ninf:
            i, log_rem = i + 1, 0.0
            continue
        kf = floor((lam_i - o) / h)
        if kf >= k_lo and lam_i - (o + kf * h) <= tol8 * (1.0 + abs(lam_i) + ao + abs(kf * h)):
            kt = kf  # the loss is a grid point up to rounding: target it (snapped below)
        else:
            kt = max(ceil((lam_i - o) / h), k_lo)
            if o + kt * h < lam_i:  # rounding: the target must not lie below the first member
                kt += 1
        if kt > k_hi:
            break
        g = o + kt * h
        scale = logp[i] + log_rem
        pg = 0.0  # group P-mass / e^scale
        deficit = 0.0  # D / e^scale
        first_i = i  # members are the atoms first_i … (contiguous)
        first_log_rem = log_rem
        first = True
        while i < n and (lam[i] <= g or first):  # the first member may sit a rounding error above g
            first = False
            pm = exp(logp[i] + log_rem - scale)
            pg += pm
            deficit -= pm * expm1(lam[i] - g)
            i, log_rem = i + 1, 0.0
        last_member = i  # one past the last whole member
        # a deficit within rounding of the group's own mass is snapped: the group is emitted at g as is,
        # changing its Q-mass by |D|·e^g; the total is returned and added to the step's error
        balanced = abs(deficit) <= snap * pg
        if balanced and deficit != 0.0:
            snap_err += abs(deficit) * exp(min(scale + g, 0.0))
        balanced = balanced or deficit <= 0.0
        while not balanced and i < n:
            lpm = logp[i] + log_rem - scale
            if lpm == ninf:
                i, log_rem = i + 1, 0.0
                last_member = i
                continue
            x = lam[i] - g
            log_ex = lpm + (x + log(-expm1(-x)) if x > 1.0 else log(expm1(x)))  # pm·(e^x − 1), in log space
            log_def = log(deficit)
            if log_ex >= log_def:
                t = exp(log_def - log_ex)  # fraction of the remainder absorbed
                if t > 1.0 - snap:  # all of it, up to rounding: no rounding-size remainder is left behind
                    snap_err += (1.0 - t) * exp(min(log_ex + scale + g, 0.0))
                    t = 1.0
                pg += t * exp(lpm) if lpm > -745.0 else 0.0
                log_rem += log1p(-t) if t < 1.0 else ninf
                balanced = True
                if logp[i] + log_rem == ninf:
                    i, log_rem = i + 1, 0.0
            else:
                pg += exp(lpm) if lpm > -745.0 else 0.0
                deficit -= exp(log_ex)
                i, log_rem = i + 1, 0.0
                last_member = i
                if abs(deficit) <= snap * pg:  # balanced up to rounding
                    snap_err += abs(deficit) * exp(min(scale + g, 0.0))
                    balanced = True
        if balanced:
            j = kt - k_lo
            v = log(pg) + scale
            a = out[j]
            out[j] = v if a == ninf else max(a, v) + log1p(exp(-abs(a - v)))
        else:  # ran out of atoms: the whole group is left over
            for m in range(first_i, last_member):
                if m == first_i:
                    left_lp.append(logp[m] + first_log_rem)
                elif logp[m] == ninf:
                    continue
                else:
                    left_lp.append(logp[m])
                left_lam.append(lam[m])
    out = np.array(out)
    if i < n:  # atoms (or the remainder of one) above the grid
        left_lp.append(logp[i] + log_rem)
        left_lam.append(lam[i])
        left_lp.extend(logp[i + 1 :])
        left_lam.extend(lam[i + 1 :])
    if left_lp:
        snap_err += _land_leftover(out, np.asarray(left_lp), np.asarray(left_lam), h, o, k_lo, k_hi)
    return out, snap_err


def _atoms(seed: int, n_int: int = 300, max_sub: int = 6, tails: bool = True):
    """A partition-like input: losses in consecutive grid intervals (g_{k−1}, g_k], 1 … max_sub atoms per
    interval (some intervals empty), log P-masses of a privacy-loss-like bulk (a parabola in λ with noise),
    optionally one atom below the grid and one above it, an atom on a grid point and a −inf mass."""
    rng = np.random.default_rng(seed)
    h = float(rng.uniform(1e-4, 0.2))
    o = float(rng.uniform(0.0, h))
    k_lo = int(rng.integers(-n_int // 2, 0))
    k_hi = k_lo + n_int
    lam, lp = [], []
    for k in range(k_lo + 1, k_hi + 1):
        m = int(rng.integers(0 if rng.random() < 0.05 else 1, max_sub + 1))
        g0 = o + (k - 1) * h
        xs = np.sort(g0 + h * rng.uniform(1e-6, 1.0, m))
        lam.extend(xs.tolist())
    lam = np.array(lam)
    c = float(np.median(lam))
    s = float(rng.uniform(0.05, 2.0)) * (lam[-1] - lam[0])
    lp = -0.5 * ((lam - c) / s) ** 2 * rng.uniform(5.0, 60.0) + rng.normal(0.0, 0.3, lam.size)
    if rng.random() < 0.5:  # a mass that is −inf, and a loss exactly on a grid point
        lp[rng.integers(lam.size)] = -np.inf
        j = int(rng.integers(1, lam.size - 1))
        kk = math.ceil((lam[j] - o) / h)
        if lam[j - 1] <= o + kk * h <= lam[j + 1]:
            lam[j] = o + kk * h
    if tails:
        lam = np.concatenate([[o + (k_lo - 0.5) * h], lam, [o + (k_hi + 0.7) * h]])
        lp = np.concatenate([[lp.min() - 3.0], lp, [lp.min() - 5.0]])
    fin = np.isfinite(lp)
    lp[fin] -= np.logaddexp.reduce(lp[fin])  # P-masses of a law (Σp = 1): the merge's rounding bounds are absolute
    return lam, lp, h, o, k_lo, k_hi


def _both(lam, lp, h, o, k_lo, k_hi):
    try:
        ref = reference_greedy_merge(lam.tolist(), lp.tolist(), h, o, k_lo, k_hi)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            greedy_merge(lam, lp, h, o, k_lo, k_hi)
        return None, None
    except OverflowError:  # the atom loop's known limit: an atom e^709 heavier than its group's first member
        return None, None
    return ref, greedy_merge(lam, lp, h, o, k_lo, k_hi)


def _assert_close(ref, new, rtol):
    """Each landed mass within rtol of the reference's, or within 1e-13 of the total mass: deep-tail groups
    (1e-30 of the total) carry the rounding differences of the chain of remainders amplified (2.7e-3
    relative was seen on a random input; both landings obey the laws)."""
    (o1, s1), (o2, s2) = ref, new
    assert np.array_equal(np.isfinite(o1), np.isfinite(o2))
    fin = np.isfinite(o1)
    p1, p2 = np.exp(o1[fin]), np.exp(o2[fin])
    assert np.all(np.abs(p2 - p1) <= rtol * p1 + 1e-13 * p1.sum())
    assert abs(s2 - s1) <= 1e-12 * max(1.0, abs(s1)) + 64 * U


def _laws(lam, lp, h, o, k_lo, k_hi, out, snap):
    """Mass conservation and the post-processing inequality δ_out(ε) ≤ δ_in(ε), from the masses alone."""
    g = o + (k_lo + np.arange(out.size)) * h
    fin, keep = np.isfinite(out), np.isfinite(lp)
    p_in, q_in = np.exp(lp[keep]), np.exp(lp[keep] + lam[keep])
    p_out, q_out = np.exp(out[fin]), np.exp(out[fin] + g[fin])
    assert math.isclose(p_out.sum(), p_in.sum(), rel_tol=1e-11, abs_tol=snap)
    assert math.isclose(q_out.sum(), q_in.sum(), rel_tol=1e-11, abs_tol=snap)
    for eps in np.linspace(g[0], g[-1], 41):
        d_in = np.maximum(q_in - math.exp(eps) * p_in, 0.0).sum()
        d_out = np.maximum(q_out - math.exp(eps) * p_out, 0.0).sum()
        assert d_out <= d_in + snap + 1e-12 * (q_in.sum() + math.exp(eps) * p_in.sum())


@pytest.mark.parametrize("seed", [*range(12), 1042])  # 1042: a deep-tail group 2.7e-3 apart (see _assert_close)
def test_group_loop_matches_the_atom_loop_on_partition_like_inputs(seed):
    lam, lp, h, o, k_lo, k_hi = _atoms(seed, tails=seed % 3 != 0)
    ref, new = _both(lam, lp, h, o, k_lo, k_hi)
    if ref is None:
        return
    # the chain of remainders carries rounding differences from group to group (both are valid merges)
    _assert_close(ref, new, rtol=1e-8)
    _laws(lam, lp, h, o, k_lo, k_hi, *new)


@given(st.integers(0, 2**32 - 1), st.integers(1, 16), st.integers(5, 60))
def test_group_loop_matches_the_atom_loop_property(seed, max_sub, n_int):
    lam, lp, h, o, k_lo, k_hi = _atoms(seed, n_int=n_int, max_sub=max_sub, tails=seed % 2 == 0)
    ref, new = _both(lam, lp, h, o, k_lo, k_hi)
    if ref is None:
        return
    _assert_close(ref, new, rtol=1e-8)
    _laws(lam, lp, h, o, k_lo, k_hi, *new)


@pytest.mark.parametrize("sigma, p, h", [(1.0, 0.01, 1.31e-4), (2.0, 9e-4, 4.8e-6), (0.7, 0.05, 1e-3), (1.0, 0.01, 1e-3)])
def test_group_loop_matches_the_atom_loop_on_sgm_partitions(sigma, p, h):
    """The one-step partitions the DP-SGD compositions land (4 cells per grid interval; at h = 1e-3 about
    half the groups absorb more than the next interval and go on atom by atom)."""
    part = sgm_partition(sigma, p, h)
    lam, lp = merge_atoms(part)  # the atoms as grid.optimistic_step builds them
    ref, new = _both(lam, lp, part.h, part.offset, part.k_lo, part.k_hi)
    assert ref is not None
    _assert_close(ref, new, rtol=1e-8)
    assert np.mean(_tables(lam, lp, part.h, part.offset, part.k_lo, part.k_hi)["fast"]) > 0.99  # the fast path ran
    _laws(lam, lp, part.h, part.offset, part.k_lo, part.k_hi, *new)


def test_rounding_level_cases_take_the_atom_loop_and_agree():
    """Losses a rounding error above a grid point, a run of 20 atoms in one interval (wider than the
    tables), masses e^700 apart, and one below the grid: each takes the per-atom path for its group."""
    h, o, k_lo, k_hi = 0.1, 0.0, -5, 5
    lam = np.array([-0.75, -0.45, -0.31, -0.2 + 1e-17, -0.15, -0.12] + list(np.linspace(-0.099, -0.001, 20))
                   + [0.02, 0.05, 0.12, 0.18, 0.25, 0.33, 0.41, 0.47])
    lp = np.log(np.full(lam.size, 1.0 / lam.size))
    lp[-3] -= 700.0
    tb = _tables(lam, lp, h, o, k_lo, k_hi)
    assert not all(tb["fast"])
    ref, new = _both(lam, lp, h, o, k_lo, k_hi)
    assert ref is not None
    _assert_close(ref, new, rtol=1e-8)


def test_empty_and_single_atom():
    out, snap = greedy_merge(np.array([]), np.array([]), 0.1, 0.0, 0, 3)
    assert np.all(np.isneginf(out)) and snap == 0.0
    out, snap = greedy_merge(np.array([0.2]), np.array([0.0]), 0.1, 0.0, 0, 3)
    assert out[2] == 0.0 and np.all(np.isneginf(np.delete(out, 2)))


def test_snapped_groups_on_the_fast_path():
    """A group balanced by its members up to rounding (loss 5e-15 below its grid point: D ≤ 64u·P), and a
    group whose fraction of the next atom is 1 up to rounding (the masses balance exactly), among regular
    intervals; both snap and account the change, as the atom loop does."""
    h, o, k_lo, k_hi = 0.1, 0.0, 0, 8
    a, b = 0.03, 0.04
    p2 = (1 - math.exp(-a)) / math.expm1(b)
    lam = np.array([0.1 - 5e-15, 0.3 - a, 0.3 + b, 0.38, 0.45, 0.52, 0.55, 0.61, 0.66])
    lp = np.log(np.array([0.2, 0.1, 0.1 * p2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]))
    for excess in (1.0, 1.0 + 4e-15):  # the atom above covers the deficit to rounding, or by 4e-15
        lp[2] = math.log(0.1 * p2 * excess)
        assert all(_tables(lam, lp, h, o, k_lo, k_hi)["fast"][:3])
        ref, new = _both(lam, lp, h, o, k_lo, k_hi)
        assert ref is not None
        _assert_close(ref, new, rtol=1e-12)
        assert new[1] > 0.0  # the snapped deficit is accounted
        _laws(lam, lp, h, o, k_lo, k_hi, *new)


def test_masses_beyond_the_double_range_apart_refuse_as_the_callers_expect():
    """An interval whose atoms' P-masses are e^800 apart: the merge's mass ratios leave the double range.
    ``optimistic_step`` raises RuntimeError, the signal its callers (the SGM and closed-form compositions)
    answer with the exact binary closed form, instead of an OverflowError that escaped them."""
    from dpcompare.tradeoff.grid import StepPartition, optimistic_step

    with pytest.raises(OverflowError):  # the merge itself (reference-loop limit, kept by the group merge)
        greedy_merge(np.array([0.3, 0.7]), np.array([-800.0, 0.0]), 1.0, 0.0, 0, 3)
    part = StepPartition(1.0, 0.0, 0, 3, np.array([0, 0]), np.array([-800.0, 0.0]), np.array([-799.7, 0.7]))
    with pytest.raises(RuntimeError, match="e\\^709"):
        optimistic_step(part)
