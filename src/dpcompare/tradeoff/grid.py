"""The one split/merge discretisation onto a uniform privacy-loss grid (steps 1–3 and 8 of
:mod:`dpcompare.tradeoff.compose`, whose module docstring is the specification).

A numeric pair is moved onto the grid g_k = o + k·h either *pessimistically* (split =
connect-the-dots, Doroshenko et al. 2022, "Connect the dots: tighter discrete approximations of
privacy loss distributions", Alg. 1: exact inverse of a merge, so the result dominates the input) or
*optimistically* (merge = a post-processing, so the input dominates the result). The result carries
its :class:`~dpcompare.tradeoff.Rounding`; composing a pessimistic with an optimistic object raises.

>>> import numpy as np
>>> loss, lp = coarsen_pessimistic(np.log(np.array([0.5, 0.5])), 0, 0.1, 2)
>>> [round(float(x), 3) for x in loss]
[0.0, 0.2]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .._numerics import log1mexp
from .pair import DiscretePair, Rounding

#: unit roundoff of float64
U = float(np.finfo(float).eps) / 2
#: relative deficit below which an optimistic group is emitted as balanced (rounding level)
SNAP = 64 * U
#: largest FFT length we allow (complex128 arrays of this size take ~0.5 GB)

# ---------------------------------------------------------------------------------------------- step 1
@dataclass(frozen=True, eq=False)
class StepPartition:
    """Closed-form masses of a fine, grid-aligned partition of one step's privacy-loss axis (step 1).

    Grid: g_k = offset + k·h, k = k_lo … k_hi. Cell j lies inside grid interval
    (g_k, g_{k+1}] with k = k_lo + ``cell_k[j]``; cells are ordered by loss. ``log_p``/``log_q`` are the
    cells' log masses (−inf if empty); ``tail_lo`` = (log P, log Q) of ℓ ≤ g_lo and ``tail_hi`` of
    ℓ > g_hi. ``rel_err`` bounds the relative error of each cell's masses (scalar or per cell).
    ``p_neg_inf``/``q_pos_inf`` are the true pair's masses at ℓ = ∓∞ (carried over unchanged).
    """

    h: float
    offset: float
    k_lo: int
    k_hi: int
    cell_k: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    tail_lo: tuple[float, float] = (-math.inf, -math.inf)
    tail_hi: tuple[float, float] = (-math.inf, -math.inf)
    rel_err: np.ndarray | float = 0.0
    p_neg_inf: float = 0.0
    q_pos_inf: float = 0.0

    def __post_init__(self) -> None:
        if self.k_hi <= self.k_lo:
            raise ValueError("need k_hi > k_lo")
        n = np.asarray(self.cell_k).size
        for name in ("log_p", "log_q"):
            if np.asarray(getattr(self, name)).shape != (n,):
                raise ValueError(f"{name} must have one entry per cell ({n})")
        ck = np.asarray(self.cell_k)
        if n and (ck.min() < 0 or ck.max() >= self.k_hi - self.k_lo or np.any(np.diff(ck) < 0)):
            raise ValueError("cell_k must be non-decreasing grid-interval indices in [0, k_hi - k_lo)")

    @property
    def size(self) -> int:
        """Number of grid points k_lo … k_hi."""
        return self.k_hi - self.k_lo + 1

    def grid(self, k: np.ndarray | int) -> np.ndarray:
        return self.offset + np.asarray(k) * self.h


@dataclass(frozen=True, eq=False)
class GridStep:
    """One step's pair on the grid g = offset + (k_lo + i)·h: log P-masses ``log_p[i]`` (Q = P·e^{g}),
    plus masses at ±∞; ``err`` bounds ‖Δp‖₁ + ‖Δq‖₁ from floating point (step 6, last sentence)."""

    h: float
    offset: float
    k_lo: int
    log_p: np.ndarray
    p_neg_inf: float
    q_pos_inf: float
    rounding: Rounding
    err: float

    @property
    def losses(self) -> np.ndarray:
        return self.offset + (self.k_lo + np.arange(self.log_p.size)) * self.h

    def to_pair(self) -> DiscretePair:
        keep = np.isfinite(self.log_p)
        return DiscretePair(self.losses[keep], self.log_p[keep], None, None, self.rounding)


def rel_err_mass(part: StepPartition) -> float:
    """‖Δp‖₁ + ‖Δq‖₁ of the cell masses from their relative errors (plus rounding of the construction)."""
    rel = np.broadcast_to(np.asarray(part.rel_err, dtype=float), part.log_p.shape)
    with np.errstate(over="ignore"):
        mass = np.exp(part.log_p) + np.exp(part.log_q)
    fin = np.isfinite(mass)
    return float(np.sum(mass[fin] * (rel[fin] + 16 * U))) + 16 * U


def log_expm1(x: np.ndarray) -> np.ndarray:
    """log(e^x − 1) for x > 0 (−inf at 0), without overflow."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(x > 1.0, x + np.log(-np.expm1(-np.where(x > 1.0, x, 1.0))), np.log(np.expm1(np.minimum(x, 1.0))))


# ---------------------------------------------------------------------------------------------- step 2
def pessimistic_step(part: StepPartition) -> GridStep:
    """Split every cell's merged atom onto the two ends of its grid interval (step 2; exact)."""
    h, k_lo = part.h, part.k_lo
    log_p_cells = np.asarray(part.log_p, dtype=float)
    log_q_cells = np.asarray(part.log_q, dtype=float)
    k_rel = np.asarray(part.cell_k)
    ok = np.isfinite(log_p_cells) & np.isfinite(log_q_cells)
    g_lo = part.grid(k_lo + k_rel[ok])
    lam = np.clip(log_q_cells[ok] - log_p_cells[ok], g_lo, g_lo + h)
    # w_hi = (e^λ − e^{g_k})/(e^{g_{k+1}} − e^{g_k}), w_lo = (e^{g_{k+1}} − e^λ)/(…), in log space
    log_w_hi = log_expm1(lam - g_lo) - float(log_expm1(np.asarray(h)))
    log_w_lo = log1mexp(np.minimum(lam - g_lo - h, 0.0)) - float(log1mexp(np.asarray(-h)))
    log_p = _split_targets_logsumexp(k_rel[ok], log_p_cells[ok] + log_w_lo, log_p_cells[ok] + log_w_hi, part.size)
    p_neg_inf, q_pos_inf = part.p_neg_inf, part.q_pos_inf
    lp, lq = part.tail_lo
    if np.isfinite(lq):  # keep Q, move up to g_lo; missing P-mass to −∞
        g = float(part.grid(k_lo))
        log_p[0] = np.logaddexp(log_p[0], lq - g)
        p_neg_inf += max(0.0, math.exp(lp) - math.exp(lq - g)) if np.isfinite(lp) else 0.0
    lp, lq = part.tail_hi
    if np.isfinite(lp):  # keep P, move down to g_hi; missing Q-mass to +∞
        g = float(part.grid(part.k_hi))
        log_p[-1] = np.logaddexp(log_p[-1], lp)
        q_pos_inf += max(0.0, math.exp(lq) - math.exp(min(lp + g, 0.0)))
    return GridStep(h, part.offset, k_lo, log_p, p_neg_inf, min(q_pos_inf, 1.0), Rounding.PESSIMISTIC, rel_err_mass(part))


def _segment_logsumexp(idx: np.ndarray, vals: np.ndarray, size: int) -> np.ndarray:
    """out[i] = log Σ_{idx == i} exp(vals) (−inf where empty), in log space."""
    fin = np.isfinite(vals)
    idx, vals = idx[fin], vals[fin]
    if idx.size and np.any(np.diff(idx) < 0):
        order = np.argsort(idx, kind="stable")
        idx, vals = idx[order], vals[order]
    return _sorted_segment_logsumexp(idx, vals, size)


def _split_targets_logsumexp(k: np.ndarray, lo_vals: np.ndarray, hi_vals: np.ndarray, size: int) -> np.ndarray:
    """out[i] = log(Σ_{k == i} e^{lo} + Σ_{k+1 == i} e^{hi}) for non-decreasing k: the two ends of a split,
    summed without sorting the concatenation (each half is already sorted)."""
    lo = _segment_logsumexp(k, lo_vals, size)
    hi = _segment_logsumexp(k + 1, hi_vals, size)
    return np.logaddexp(lo, hi)


def _sorted_segment_logsumexp(idx: np.ndarray, vals: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, -np.inf)
    if idx.size == 0:
        return out
    starts = np.flatnonzero(np.concatenate([[True], idx[1:] != idx[:-1]]))
    if starts.size == idx.size:  # one value per index (a partition with one cell per grid interval): log e^v = v
        out[idx] = vals
        return out
    lens = np.diff(np.append(starts, idx.size))
    if 2 * starts.size > idx.size:  # mostly single values: those are the value itself, the others summed below
        single = starts[lens == 1]
        out[idx[single]] = vals[single]
        many = np.repeat(lens > 1, lens)
        idx, vals = idx[many], vals[many]
        starts = np.flatnonzero(np.concatenate([[True], idx[1:] != idx[:-1]]))
    mx = np.maximum.reduceat(vals, starts)
    sums = np.add.reduceat(np.exp(vals - np.repeat(mx, np.diff(np.append(starts, idx.size)))), starts)
    out[idx[starts]] = mx + np.log(sums)
    return out


# ---------------------------------------------------------------------------------------------- step 3
def merge_atoms(part: StepPartition) -> tuple[np.ndarray, np.ndarray]:
    """The atoms step 3 merges, in loss order: the low tail (ℓ ≤ g_lo), the cells with finite masses, the high tail
    (ℓ > g_hi); returns (their losses λ = log Q − log P, their log P-masses). A tail with a zero mass is left out.

    >>> lam, logp = merge_atoms(StepPartition(1.0, 0.0, 0, 1, np.array([0]), np.array([-1.0]), np.array([-0.5]),
    ...                                       (-2.0, -3.0), (-np.inf, -4.0)))
    >>> lam.tolist(), logp.tolist()
    ([-1.0, 0.5], [-2.0, -1.0])
    """
    lam_list, lp_list = [], []
    lp, lq = part.tail_lo
    if np.isfinite(lp) and np.isfinite(lq):
        lam_list.append(np.array([lq - lp]))
        lp_list.append(np.array([lp]))
    ok = np.isfinite(part.log_p) & np.isfinite(part.log_q)
    lam_list.append(np.asarray(part.log_q)[ok] - np.asarray(part.log_p)[ok])
    lp_list.append(np.asarray(part.log_p)[ok])
    lp, lq = part.tail_hi
    if np.isfinite(lp) and np.isfinite(lq):
        lam_list.append(np.array([lq - lp]))
        lp_list.append(np.array([lp]))
    return np.concatenate(lam_list), np.concatenate(lp_list)


def optimistic_step(part: StepPartition) -> GridStep:
    """Merge cells (and fractions of cells) into groups whose loss is exactly a grid point (step 3)."""
    lam, logp = merge_atoms(part)
    from .grid_merge import greedy_merge  # (grid_merge builds on this module)

    try:
        log_out, snap_err = greedy_merge(lam, logp, part.h, part.offset, part.k_lo, part.k_hi)
    except OverflowError:  # a group's atoms more than e^709 apart in mass: its ratios leave the double range
        raise RuntimeError("the optimistic merge cannot land atoms whose masses are more than e^709 apart "
                           "on this grid") from None
    err = rel_err_mass(part) + snap_err
    return GridStep(part.h, part.offset, part.k_lo, log_out, part.p_neg_inf, part.q_pos_inf, Rounding.OPTIMISTIC, err)


def _log_expm1(x: float) -> float:
    """log(e^x − 1) for x > 0, without overflow."""
    return x + math.log(-math.expm1(-x)) if x > 1.0 else math.log(math.expm1(x))


def _logaddexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


def _land_leftover(log_out: np.ndarray, lp: np.ndarray, llam: np.ndarray, h: float, o: float, k_lo: int, k_hi: int) -> float:
    """Merge the leftover atoms with fractions θ of grid atoms on the other side of a grid point so that
    the merged outcome has exactly that grid point as its loss (step 3, last sentence). In place, log space."""
    keep = np.isfinite(lp)
    lp, llam = lp[keep], llam[keep]
    if lp.size == 0:
        return 0.0
    log_p_tot = float(logsumexp(lp))
    lam_tot = float(logsumexp(lp + llam) - log_p_tot)
    ki = min(max(math.floor((lam_tot - o) / h), k_lo), k_hi)
    kn = min(max(round((lam_tot - o) / h), k_lo), k_hi)
    if abs(lam_tot - (o + kn * h)) <= 8 * U * (1.0 + abs(lam_tot) + abs(o) + abs(kn * h)):
        ki = kn  # on a grid point up to rounding (the Q-mass change ≤ 8u·(…)·Q is within the step's error)
        log_out[ki - k_lo] = _logaddexp(float(log_out[ki - k_lo]), log_p_tot)
        return 8 * U * (1.0 + abs(lam_tot) + abs(o) + abs(kn * h))
    g = o + ki * h
    grid = o + (k_lo + np.arange(log_out.size)) * h
    x = lam_tot - g
    if x == 0.0:
        log_out[ki - k_lo] = _logaddexp(float(log_out[ki - k_lo]), log_p_tot)
        return 0.0
    # signed excess at g (P-units): > 0 needs partners below g, < 0 partners above
    if x > 0:
        log_need = log_p_tot + _log_expm1(x)
        cand = np.flatnonzero((grid < g) & np.isfinite(log_out))
        log_cap = log_out[cand] + log1mexp(grid[cand] - g)
    else:
        log_need = log_p_tot + math.log(-math.expm1(x))
        cand = np.flatnonzero((grid > g) & np.isfinite(log_out))
        log_cap = log_out[cand] + log_expm1(grid[cand] - g)
    order = np.argsort(-log_cap)
    log_moved = -math.inf
    need_left = 1.0  # fraction of the need still to cover
    for j in order:
        if need_left <= 0.0:
            break
        # this partner, taken whole, covers e^{log_cap − log_need} of the need
        r = float(log_cap[j] - log_need)
        if r >= math.log(need_left):
            log_theta = math.log(need_left) - r
            need_left = 0.0
        else:
            log_theta = 0.0
            need_left -= math.exp(r)
        c = cand[j]
        log_moved = _logaddexp(log_moved, float(log_out[c]) + log_theta)
        log_out[c] = float(log_out[c]) + (math.log(-math.expm1(log_theta)) if log_theta < 0 else -math.inf)
    if need_left > 0.0 and (need_left * math.exp(log_need) <= SNAP or need_left <= 1e-9):
        # what is left is rounding-level (a remainder of an exact balance), or at most 1e-9 of the need where the
        # partners ran out: put it on g as it is, and return the Q-mass this changes (to be charged as error;
        # need·e^g in Q-units, uncapped)
        snap = need_left * math.exp(log_need + g)
        need_left = 0.0
    else:
        snap = 0.0
    if need_left > 1e-9:
        raise RuntimeError(
            f"optimistic merge: not enough mass to land the tail on the grid (need {log_need:.4g}, "
            f"{cand.size} partners, x={x:.4g}, g={g:.6g}); the discretisation is too coarse for this mechanism"
        )
    log_out[ki - k_lo] = _logaddexp(_logaddexp(float(log_out[ki - k_lo]), log_p_tot), log_moved)
    return snap


def optimistic_binary(part: StepPartition, steps: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Fallback optimistic N-fold pair when the grid is too coarse for step 3: merge the step into the two
    outcomes {ℓ ≤ 0} and {ℓ > 0} (a post-processing that keeps δ(0) = TV), whose N-fold composition is
    binomial in closed form: k outcomes of the second kind have loss k·λ_B + (N−k)·λ_A and P-mass
    C(N,k)·P_Bᵏ·P_A^{N−k}. Returns (losses, log P-masses, error bound)."""
    from scipy.special import gammaln

    lp = [np.asarray(part.log_p, dtype=float)]
    lq = [np.asarray(part.log_q, dtype=float)]
    for tp, tq in (part.tail_lo, part.tail_hi):
        lp.append(np.array([tp]))
        lq.append(np.array([tq]))
    lp_all, lq_all = np.concatenate(lp), np.concatenate(lq)
    ok = np.isfinite(lp_all) & np.isfinite(lq_all)
    lp_all, lq_all = lp_all[ok], lq_all[ok]
    b = lq_all > lp_all
    if not np.any(b) or np.all(b):
        return np.array([0.0]), np.array([0.0]), 16 * U
    lpa, lqa = float(logsumexp(lp_all[~b])), float(logsumexp(lq_all[~b]))
    lpb, lqb = float(logsumexp(lp_all[b])), float(logsumexp(lq_all[b]))
    lam_a, lam_b = lqa - lpa, lqb - lpb
    # k range covering both the P- and the Q-binomial (±40 standard deviations)
    ks = []
    for la, lb in ((lpa, lpb), (lqa, lqb)):
        pb = math.exp(lb - np.logaddexp(la, lb))
        m, sd = steps * pb, math.sqrt(steps * pb * (1 - pb)) + 1.0
        ks.append((max(0, int(m - 40 * sd)), min(steps, int(m + 40 * sd) + 1)))
    k = np.unique(np.concatenate([np.arange(a, c + 1) for a, c in ks]))
    log_c = gammaln(steps + 1.0) - gammaln(k + 1.0) - gammaln(steps - k + 1.0)
    log_p = log_c + k * lpb + (steps - k) * lpa
    loss = k * lam_b + (steps - k) * lam_a
    return loss, log_p, 1e-12 * steps * 16 * U + 1e-13


# ---------------------------------------------------------------------------------------------- step 8
def coarsen_pessimistic(log_p: np.ndarray, i_lo: int, h: float, factor: int, base: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Split atoms on the grid base + i·h onto the coarser grid base + J·(factor·h) (step 2 again; exact).

    Returns (losses, log P-masses) of the coarse atoms.
    """
    if factor <= 1:
        return base + (i_lo + np.arange(log_p.size)) * h, log_p
    H = factor * h
    idx = i_lo + np.arange(log_p.size)
    fin = np.isfinite(log_p)
    idx, lp = idx[fin], log_p[fin]
    J = np.floor_divide(idx, factor)
    off = (idx - J * factor) * h  # position inside the coarse interval, in [0, H)
    with np.errstate(divide="ignore"):
        log_w_hi = log_expm1(off) - float(log_expm1(np.asarray(H)))
        log_w_lo = log1mexp(off - H) - float(log1mexp(np.asarray(-H)))
    J0 = int(J.min()) if J.size else i_lo // factor
    size = (int(J.max()) - J0 + 2) if J.size else 1
    return base + (J0 + np.arange(size)) * H, _split_targets_logsumexp(J - J0, lp + log_w_lo, lp + log_w_hi, size)


def coarsen_optimistic(log_p: np.ndarray, i_lo: int, h: float, factor: int, base: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Merge runs of ``factor`` consecutive grid atoms into one atom each (a post-processing; exact).

    Returns (losses, log P-masses) of the merged atoms (losses are no longer on a grid).
    """
    L = base + (i_lo + np.arange(log_p.size)) * h
    fin = np.isfinite(log_p)
    L, lp = L[fin], log_p[fin]
    if factor <= 1 or L.size == 0:
        return L, lp
    grp = np.floor_divide(i_lo + np.flatnonzero(fin), factor)
    lpm = _segment_logsumexp(grp - grp.min(), lp, int(grp.max() - grp.min()) + 1)
    lqm = _segment_logsumexp(grp - grp.min(), lp + L, int(grp.max() - grp.min()) + 1)
    ok = np.isfinite(lpm) & np.isfinite(lqm)
    return lqm[ok] - lpm[ok], lpm[ok]


def to_pair(loss: np.ndarray, log_p: np.ndarray, rounding: Rounding) -> DiscretePair:
    """DiscretePair from atoms.

    Pessimistic: deficits of P/Q-mass go to ℓ = −∞ / +∞ (filled: that only adds information).
    Optimistic: filling would add information, so the common part of the two deficits becomes an atom at
    ℓ = 0 (p = q: no information) and the rest is left missing (a sub-probability pair whose Bayes
    error is lower by at most the missing mass, which the numerical error bound already covers).
    """
    fin = np.isfinite(log_p)
    loss, log_p = np.asarray(loss, dtype=float)[fin], np.asarray(log_p, dtype=float)[fin]
    order = np.argsort(loss, kind="stable")
    loss, log_p = loss[order], log_p[order]
    if loss.size > 1 and not np.all(np.diff(loss) > 0):
        merged = DiscretePair.from_atoms(loss, log_p, p_neg_inf=0.0, q_pos_inf=0.0)
        loss, log_p = merged.loss, merged.log_p
    if rounding is not Rounding.OPTIMISTIC:
        return DiscretePair(loss, log_p, None, None, rounding)
    p_def = 1.0 - float(np.exp(logsumexp(log_p))) if loss.size else 1.0
    q_def = 1.0 - float(np.exp(logsumexp(log_p + loss))) if loss.size else 1.0
    common = min(p_def, q_def)
    if common > 0:
        k = int(np.searchsorted(loss, 0.0))
        if k < loss.size and loss[k] == 0.0:
            log_p = log_p.copy()
            log_p[k] = np.logaddexp(log_p[k], math.log(common))
        else:
            loss = np.insert(loss, k, 0.0)
            log_p = np.insert(log_p, k, math.log(common))
    return DiscretePair(loss, log_p, 0.0, 0.0, rounding)
