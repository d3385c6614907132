"""Step 1 of the one discretisation engine for the two other kinds of input (see :mod:`.grid`).

A privacy-loss law given by its tails (closed-form mechanisms, mixture components: :func:`tails_partition`)
or a discrete pair (:func:`pair_partition`) is cut into the cells of a uniform loss grid, a
:class:`~dpcompare.tradeoff.grid.StepPartition`; partitions mix cell by cell ([MIX] Lemma 3.1:
:func:`mix_partitions`), and the optimistic cell merge that needs no grid landing is
:func:`merge_cells`. Steps 2, 3 and 8 of :mod:`dpcompare.tradeoff.grid` (split = pessimistic,
merge = optimistic, coarsening) apply unchanged; :func:`step_pair` reads a grid step back as a pair.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp

from .._numerics import logsubexp
from .grid import U, GridStep, StepPartition, _segment_logsumexp
from .pair import DiscretePair, Rounding

#: log tail of a privacy-loss law: ``log_tail(t, under)`` with ``under`` "P" or "Q"
LogTail = Callable[[np.ndarray, str], np.ndarray]


def _tail_rel_err(log_s: np.ndarray) -> np.ndarray:
    """Assumed relative accuracy 8u·(1 + |log S|) of a tail value S computed in log space (the
    ``log_ndtr`` assumption of :mod:`.compose`, "What is *not* certified")."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(log_s), 8 * U * (1.0 + np.abs(log_s)), 0.0)


def _interval_log_masses(log_sf: np.ndarray, log_cdf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log mass of (g_k, g_{k+1}] from the tails at the grid points, each taken from the smaller
    side (S(g_k) − S(g_{k+1}) above the median, F(g_{k+1}) − F(g_k) below, so that no difference of two
    numbers near 1 is formed), and a bound on its relative error: |ΔS(a)| + |ΔS(b)| over S(a) − S(b)."""
    upper = log_sf[:-1] < math.log(0.5)
    a = np.where(upper, log_sf[:-1], log_cdf[1:])
    b = np.where(upper, np.minimum(log_sf[1:], log_sf[:-1]), np.minimum(log_cdf[:-1], log_cdf[1:]))
    lm = logsubexp(a, b)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        num = _tail_rel_err(a) + _tail_rel_err(b) * np.exp(b - a)
        rel = np.where(np.isfinite(lm), num / -np.expm1(np.minimum(b - a, 0.0)), 0.0)
    return lm, np.where(np.isfinite(rel), rel, 1.0)


def tails_partition(log_sf: LogTail, log_cdf: LogTail, h: float, offset: float, k_lo: int, k_hi: int) -> StepPartition:
    """Step 1 for a privacy-loss law given by its tails: one cell per grid interval (g_k, g_{k+1}].

    ``log_sf(t, under)`` = log Pr(ℓ > t), ``log_cdf(t, under)`` = log Pr(ℓ ≤ t) under P or Q. Cell k
    carries (P(g_k < ℓ ≤ g_{k+1}), Q(g_k < ℓ ≤ g_{k+1})), a tail the masses of ℓ ≤ g_lo or ℓ > g_hi.
    A cell (or tail) with mass under one measure only (the other underflowed) goes to ℓ = −∞ (P only)
    or ℓ = +∞ (Q only): the perfectly distinguishable outcome, pessimistic; for the optimistic side it
    misstates R by at most the underflowed mass (< 1e-308). ``rel_err`` assumes the tails are accurate to
    8u·(1 + |log S|) relative (the ``log_ndtr`` assumption of :mod:`.compose`).

    Example: G_μ with μ = 1 (ℓ ~ N(∓½, 1) under P, Q) split onto [−12, 12] brackets δ(1).

    >>> from dpcompare.tradeoff.grid import pessimistic_step
    >>> from scipy.special import log_ndtr
    >>> def sf(t, under): return log_ndtr(((-0.5 if under == "P" else 0.5) - t) / 1.0)
    >>> def cdf(t, under): return log_ndtr((t - (-0.5 if under == "P" else 0.5)) / 1.0)
    >>> part = tails_partition(sf, cdf, 24 / 4096, -12.0, 0, 4096)
    >>> pess, opt = step_pair(pessimistic_step(part)), merge_cells(part)
    >>> bool(opt.delta(1.0) <= 0.1269367375 <= pess.delta(1.0))  # δ(1) of G_1 (closed form)
    True
    """
    part_grid = offset + np.arange(k_lo, k_hi + 1) * h
    sf = {u: np.asarray(log_sf(part_grid, u), dtype=float) for u in ("P", "Q")}
    cdf = {u: np.asarray(log_cdf(part_grid, u), dtype=float) for u in ("P", "Q")}
    lp, rel_p = _interval_log_masses(sf["P"], cdf["P"])
    lq, rel_q = _interval_log_masses(sf["Q"], cdf["Q"])
    p_neg = q_pos = 0.0
    only_p = np.isfinite(lp) & ~np.isfinite(lq)
    only_q = np.isfinite(lq) & ~np.isfinite(lp)
    p_neg += float(np.sum(np.exp(lp[only_p])))
    q_pos += float(np.sum(np.exp(lq[only_q])))
    lp = np.where(only_p | only_q, -np.inf, lp)
    lq = np.where(only_p | only_q, -np.inf, lq)
    tails = []
    for tp, tq in ((cdf["P"][0], cdf["Q"][0]), (sf["P"][-1], sf["Q"][-1])):
        tp, tq = float(tp), float(tq)
        if np.isfinite(tp) and not np.isfinite(tq):
            p_neg, tp = p_neg + math.exp(tp), -math.inf
        if np.isfinite(tq) and not np.isfinite(tp):
            q_pos, tq = q_pos + math.exp(tq), -math.inf
        tails.append((tp, tq))
    cell_k = np.arange(k_hi - k_lo)
    return StepPartition(
        h, offset, k_lo, k_hi, cell_k, lp, lq, tails[0], tails[1], np.maximum(rel_p, rel_q), min(p_neg, 1.0), min(q_pos, 1.0)
    )


def pair_partition(pair: DiscretePair, h: float, offset: float, k_lo: int, k_hi: int) -> StepPartition:
    """Step 1 for a discrete pair: its atoms summed per grid interval (g_k, g_{k+1}], the atoms with
    ℓ ≤ g_lo (ℓ > g_hi) into the lower (upper) tail, its masses at ℓ = ∓∞ carried over.

    Summing the atoms of a cell loses nothing for step 2 (the split is linear in the masses:
    :mod:`.compose` step 2) and is a merge, i.e. a post-processing, for step 3. The masses are exact
    sums (no relative error beyond rounding). This is how a pair is moved onto a grid to be composed
    (:func:`~dpcompare.tradeoff.compose.compose`).

    Example: randomized response with e^ε = 3 (ℓ = ±log 3 ≈ ±1.0986) split onto the grid k·0.5: each
    atom goes to the two grid points around it; δ(ε) is unchanged at grid points and grows between them.

    >>> from dpcompare.tradeoff.grid import pessimistic_step
    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> part = pair_partition(rr, 0.5, 0.0, -4, 4)
    >>> split = step_pair(pessimistic_step(part))
    >>> [round(float(x), 2) for x in split.loss]
    [-1.5, -1.0, 1.0, 1.5]
    >>> bool(split.delta(1.25) > rr.delta(1.25)), bool(abs(split.delta(1.0) - rr.delta(1.0)) < 1e-15)
    (True, True)
    """
    if k_hi <= k_lo:
        raise ValueError("need k_hi > k_lo")
    loss, lp, lq = pair.loss, pair.log_p, pair.log_q
    g_lo, g_hi = offset + k_lo * h, offset + k_hi * h
    below, above = loss <= g_lo, loss > g_hi
    inside = ~below & ~above
    # interval index: g_k < ℓ ≤ g_{k+1}, relative to k_lo (clamped against rounding at the ends)
    j = np.clip(np.ceil((loss[inside] - offset) / h).astype(np.int64) - 1 - k_lo, 0, k_hi - k_lo - 1)
    size = k_hi - k_lo
    cp = _segment_logsumexp(j, lp[inside], size)
    cq = _segment_logsumexp(j, lq[inside], size)
    keep = np.isfinite(cp) & np.isfinite(cq)

    def lse(v: np.ndarray) -> float:
        return float(logsumexp(v)) if v.size else -math.inf

    return StepPartition(
        h, offset, k_lo, k_hi, np.flatnonzero(keep), cp[keep], cq[keep],
        (lse(lp[below]), lse(lq[below])), (lse(lp[above]), lse(lq[above])), 0.0, pair.p_neg_inf, pair.q_pos_inf,
    )


def merge_cells(part: StepPartition) -> DiscretePair:
    """Optimistic pair of a partition: every cell and both tails merged into one atom at
    λ = log(Q(c)/P(c)) (forgetting which outcome of the cell occurred is a post-processing, so the
    true step dominates the result, exactly). Unlike step 3 the atoms are not moved onto grid points:
    use it where the pair is read directly (its views), step 3 where it is composed on the grid.
    The masses at ℓ = ∓∞ are carried over.

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> merged = merge_cells(pair_partition(rr, 4.0, 0.0, -1, 1))  # both atoms in one cell each
    >>> [round(float(x), 6) for x in merged.loss]
    [-1.098612, 1.098612]
    """
    lp = np.concatenate([[part.tail_lo[0]], np.asarray(part.log_p, dtype=float), [part.tail_hi[0]]])
    lq = np.concatenate([[part.tail_lo[1]], np.asarray(part.log_q, dtype=float), [part.tail_hi[1]]])
    fp, fq = np.isfinite(lp), np.isfinite(lq)
    both = fp & fq
    p_neg = part.p_neg_inf + float(np.sum(np.exp(lp[fp & ~fq])))
    q_pos = part.q_pos_inf + float(np.sum(np.exp(lq[fq & ~fp])))
    return DiscretePair.from_atoms(
        lq[both] - lp[both], lp[both], p_neg_inf=min(p_neg, 1.0), q_pos_inf=min(q_pos, 1.0), rounding=Rounding.OPTIMISTIC
    )


def step_pair(step: GridStep) -> DiscretePair:
    """The DiscretePair of a grid step with its masses at ℓ = ∓∞ as computed (``GridStep.to_pair``
    instead puts the whole deficit 1 − Σp there, which cannot resolve masses below ~1e-16).

    >>> st = GridStep(1.0, 0.0, -1, np.log(np.array([0.5, 0.25, 0.125])), 0.125, 0.0, Rounding.PESSIMISTIC, 0.0)
    >>> pr = step_pair(st)
    >>> (pr.p_neg_inf, [float(x) for x in pr.loss])
    (0.125, [-1.0, 0.0, 1.0])
    """
    keep = np.isfinite(step.log_p)
    return DiscretePair(step.losses[keep], step.log_p[keep], step.p_neg_inf, step.q_pos_inf, step.rounding)


def mix_partitions(weights: np.ndarray, parts: list[StepPartition]) -> StepPartition:
    """The mixture Σᵢ wᵢ·(Pᵢ, Qᵢ) of partitions of one grid, cell masses summed per grid interval.

    With the component index revealed ([MIX] Lemma 3.1: the pair whose atoms are those of all
    components, P-masses wᵢ·pᵢ) and atoms of equal loss merged (losslessly: the likelihood ratio is
    sufficient), step 2 of the mixture equals the mixture of the components' step 2 (the split is
    linear in the masses, :mod:`.compose` step 2), exactly. For steps 3 and :func:`merge_cells`,
    summing the components' cells of one interval is a merge, i.e. a post-processing of the revealed-
    index mixture: the result stays optimistic. Relative errors combine by their maximum (a convex
    combination of masses with relative errors rᵢ has relative error ≤ max rᵢ).

    >>> from dpcompare.tradeoff.grid import pessimistic_step
    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> ident = DiscretePair(np.array([0.0]), np.array([0.0]), 0.0, 0.0)
    >>> mixed = mix_partitions(np.array([0.5, 0.5]), [pair_partition(x, 0.5, 0.0, -4, 4) for x in (rr, ident)])
    >>> round(float(step_pair(pessimistic_step(mixed)).tradeoff(0.125)), 12)  # ½·f_RR + ½·Id at α = 1/8: 5/8
    0.625
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(parts),) or not parts:
        raise ValueError(f"weights must have one entry per partition ({len(parts)})")
    first = parts[0]
    for pt in parts[1:]:
        if (pt.h, pt.offset, pt.k_lo, pt.k_hi) != (first.h, first.offset, first.k_lo, first.k_hi):
            raise ValueError("partitions must share their grid (h, offset, k_lo, k_hi)")
    size = first.k_hi - first.k_lo
    keep = [(math.log(wi), pt) for wi, pt in zip(w.tolist(), parts) if wi > 0]
    lp = np.full((len(keep), size), -np.inf)
    lq = np.full((len(keep), size), -np.inf)
    rel = np.zeros(size)
    tails = np.full((len(keep), 4), -np.inf)
    p_neg = q_pos = 0.0
    for row, (lw, pt) in enumerate(keep):
        ck = np.asarray(pt.cell_k)
        if ck.size < 2 or np.all(np.diff(ck) > 0):  # one cell per interval: no sums needed
            lp[row, ck] = np.asarray(pt.log_p, dtype=float) + lw
            lq[row, ck] = np.asarray(pt.log_q, dtype=float) + lw
        else:
            lp[row] = _segment_logsumexp(ck, np.asarray(pt.log_p, dtype=float), size) + lw
            lq[row] = _segment_logsumexp(ck, np.asarray(pt.log_q, dtype=float), size) + lw
        r = np.broadcast_to(np.asarray(pt.rel_err, dtype=float), ck.shape)
        np.maximum.at(rel, ck, r)
        tails[row] = np.array([*pt.tail_lo, *pt.tail_hi]) + lw
        p_neg += math.exp(lw) * pt.p_neg_inf
        q_pos += math.exp(lw) * pt.q_pos_inf
    with np.errstate(divide="ignore"):
        mp, mq, mt = logsumexp(lp, axis=0), logsumexp(lq, axis=0), logsumexp(tails, axis=0)
    ok = np.isfinite(mp) & np.isfinite(mq)
    ck = np.flatnonzero(ok)
    return StepPartition(
        first.h, first.offset, first.k_lo, first.k_hi, ck, mp[ok], mq[ok], (float(mt[0]), float(mt[1])),
        (float(mt[2]), float(mt[3])), rel[ok], min(p_neg, 1.0), min(q_pos, 1.0),
    )
