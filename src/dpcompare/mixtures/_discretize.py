"""Certified discretisation of privacy-loss distributions onto a grid of losses.

A pair (P, Q) with privacy loss ℓ = log(q/p) is cut into bins (λⱼ, λⱼ₊₁] of a grid λ₀ < … < λ_N
(plus the tails (−∞, λ₀] and (λ_N, ∞)); bin j carries masses (p_B, q_B) with q_B/p_B ∈ [e^{λⱼ}, e^{λⱼ₊₁}].

- **Optimistic** (dominated by the truth): each bin merged into one atom (p_B, q_B) at log(q_B/p_B) —
  forgetting which outcome of the bin occurred is a post-processing.
- **Pessimistic** (dominating the truth): each bin *split* onto its end points ("connect the dots",
  Doroshenko et al. 2022): p_hi = (q_B − p_B·e^{λⱼ})/(e^{λⱼ₊₁} − e^{λⱼ}) at λⱼ₊₁ and p_lo = p_B − p_hi
  at λⱼ, which keeps both masses; merging the two end atoms in the right proportions gives back the
  bin, so the split pair is more informative. The tails are split onto (−∞, λ₀] and [λ_N, +∞].
  Where floating point puts q_B/p_B a hair outside the bin, the split keeps the P-mass and sends the
  Q-excess to ℓ = +∞, or overstates q at the upper end: both err towards less privacy.

Both results are valid discrete pairs, so all their views are exact and bracket the truth.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._numerics import logsubexp
from ..tradeoff import DiscretePair, Rounding

LogTail = Callable[[np.ndarray, str], np.ndarray]

#: default number of bins and tail mass of the grids built here
DEFAULT_BINS = 2**13
DEFAULT_TAIL = 1e-30


def _bin_log_masses(log_sf: np.ndarray, log_cdf: np.ndarray) -> np.ndarray:
    """log mass of (λⱼ, λⱼ₊₁] from the tails at the grid points, taken from the smaller side."""
    upper = log_sf[:-1] < math.log(0.5)
    from_sf = logsubexp(log_sf[:-1], np.minimum(log_sf[1:], log_sf[:-1]))
    from_cdf = logsubexp(log_cdf[1:], np.minimum(log_cdf[:-1], log_cdf[1:]))
    return np.where(upper, from_sf, from_cdf)


def _split(lo: np.ndarray, hi: np.ndarray, lp: np.ndarray, lq: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Split bins with end points [lo, hi] (finite) and log masses (lp, lq) onto the end points.

    Returns log P-masses at lo, at hi, and the Q-mass sent to +∞ (floating-point excess)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lhs = logsubexp(lq, np.minimum(lp + lo, lq))  # log(q − p e^{lo}) (−inf if ≤ 0)
        width = logsubexp(hi, lo)  # log(e^{hi} − e^{lo})
        l_hi = np.minimum(lhs - width, lp)  # clamp p_hi ≤ p_B
        l_lo = logsubexp(lp, np.minimum(l_hi, lp))
        q_used = np.logaddexp(l_lo + lo, l_hi + hi)
        excess = np.where(lq > q_used, np.exp(logsubexp(lq, np.minimum(q_used, lq))), 0.0)
    return l_lo, l_hi, float(np.sum(excess))


def loss_grid_pairs(log_sf: LogTail, log_cdf: LogTail, grid: np.ndarray) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of the loss distribution given by its tails on a grid.

    ``log_sf(t, under)`` = log Pr(ℓ > t), ``log_cdf(t, under)`` = log Pr(ℓ ≤ t), under 'P' or 'Q'.

    Example: a Gaussian mechanism μ = 1 on a fine grid brackets its profile.

    >>> import dpcompare as dc
    >>> g = dc.Gaussian(mu=1.0)
    >>> pess, opt = loss_grid_pairs(g._log_sf, g._log_cdf, np.linspace(-12, 12, 4001))
    >>> bool(opt.delta(1.0) <= g.delta(1.0) <= pess.delta(1.0))
    True
    """
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or np.any(np.diff(grid) <= 0) or not np.all(np.isfinite(grid)):
        raise ValueError("grid must be a finite, strictly increasing array of at least 2 losses")
    sfP, cdfP = log_sf(grid, "P"), log_cdf(grid, "P")
    sfQ, cdfQ = log_sf(grid, "Q"), log_cdf(grid, "Q")
    lpB, lqB = _bin_log_masses(sfP, cdfP), _bin_log_masses(sfQ, cdfQ)
    lo_t_p, lo_t_q = cdfP[0], cdfQ[0]  # (−∞, λ₀]
    hi_t_p, hi_t_q = sfP[-1], sfQ[-1]  # (λ_N, ∞)

    # optimistic: merge every bin and tail
    lp_all = np.concatenate([[lo_t_p], lpB, [hi_t_p]])
    lq_all = np.concatenate([[lo_t_q], lqB, [hi_t_q]])
    both = np.isfinite(lp_all) & np.isfinite(lq_all)
    p_only = float(np.sum(np.exp(lp_all[np.isfinite(lp_all) & ~np.isfinite(lq_all)])))
    q_only = float(np.sum(np.exp(lq_all[np.isfinite(lq_all) & ~np.isfinite(lp_all)])))
    opt = DiscretePair.from_atoms(
        lq_all[both] - lp_all[both], lp_all[both], p_neg_inf=p_only, q_pos_inf=q_only, rounding=Rounding.OPTIMISTIC
    )

    # pessimistic: split every bin onto its end points, the tails onto (−∞, λ₀] and [λ_N, +∞)
    l_lo, l_hi, excess = _split(grid[:-1], grid[1:], lpB, lqB)
    at_grid = np.full(grid.size, -np.inf)
    at_grid[:-1] = np.logaddexp(at_grid[:-1], l_lo)
    at_grid[1:] = np.logaddexp(at_grid[1:], l_hi)
    # lower tail: all of its Q-mass at λ₀ (p = q·e^{−λ₀}), the rest of its P-mass at −∞
    l_p0 = min(lo_t_q - grid[0], lo_t_p) if np.isfinite(lo_t_q) else -np.inf
    if np.isfinite(l_p0):
        at_grid[0] = np.logaddexp(at_grid[0], l_p0)
        excess += max(math.exp(lo_t_q) - math.exp(l_p0 + grid[0]), 0.0)
    p_neg = max(math.exp(lo_t_p) - math.exp(l_p0), 0.0) if np.isfinite(lo_t_p) else 0.0
    # upper tail: all of its P-mass at λ_N (q = p·e^{λ_N}), the rest of its Q-mass at +∞
    if np.isfinite(hi_t_p):
        at_grid[-1] = np.logaddexp(at_grid[-1], hi_t_p)
    q_top = math.exp(hi_t_q) if np.isfinite(hi_t_q) else 0.0
    q_pos = max(q_top - (math.exp(hi_t_p + grid[-1]) if np.isfinite(hi_t_p) else 0.0), 0.0) + excess
    keep = np.isfinite(at_grid)
    pess = DiscretePair(grid[keep], at_grid[keep], min(p_neg, 1.0), min(q_pos, 1.0), Rounding.PESSIMISTIC)
    return pess, opt


def loss_range(log_sf: LogTail, log_cdf: LogTail, tail: float = DEFAULT_TAIL, scale: float = 1.0) -> tuple[float, float]:
    """[lo, hi] with Pr_P(ℓ ≤ lo) ≤ tail and Pr_Q(ℓ > hi) ≤ tail (found by doubling)."""
    lt = math.log(tail)
    hi = max(scale, 1e-3)
    while float(log_sf(np.asarray([hi]), "Q")[0]) > lt:
        hi *= 2.0
        if hi > 1e7:
            raise ValueError("the privacy loss has no finite range at this tail mass")
    lo = -max(scale, 1e-3)
    while float(log_cdf(np.asarray([lo]), "P")[0]) > lt:
        lo *= 2.0
        if lo < -1e7:
            raise ValueError("the privacy loss has no finite range at this tail mass")
    return lo, hi


def privacy_loss_pairs(mech, *, bins: int = DEFAULT_BINS, tail: float = DEFAULT_TAIL) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of a closed-form mechanism (Gaussian, Laplace) on a uniform grid.

    The Laplace loss has atoms at ±m (m = sensitivity/b); its grid runs exactly from −m to m.
    """
    from ..mechanisms import Laplace

    if isinstance(mech, Laplace):
        lo, hi = -mech.m, mech.m
    else:
        lo, hi = loss_range(mech._log_sf, mech._log_cdf, tail, mech._loss_scale)
    return loss_grid_pairs(mech._log_sf, mech._log_cdf, np.linspace(lo, hi, bins + 1))


def gaussian_tails(mu: float) -> tuple[LogTail, LogTail]:
    """log tails of the privacy loss of G_μ: ℓ ~ N(−μ²/2, μ²) under P and N(μ²/2, μ²) under Q."""
    from .._numerics import log_ndtr

    mu = abs(float(mu))

    def log_sf(t: np.ndarray, under: str) -> np.ndarray:
        m = -mu * mu / 2 if under == "P" else mu * mu / 2
        return log_ndtr((m - np.asarray(t, dtype=float)) / mu)

    def log_cdf(t: np.ndarray, under: str) -> np.ndarray:
        m = -mu * mu / 2 if under == "P" else mu * mu / 2
        return log_ndtr((np.asarray(t, dtype=float) - m) / mu)

    return log_sf, log_cdf


__all__ = ["DEFAULT_BINS", "DEFAULT_TAIL", "gaussian_tails", "loss_grid_pairs", "loss_range", "privacy_loss_pairs"]
