"""Closed-form privacy-loss laws (Gaussian, Laplace, …) as certified discrete pairs, through the one
discretisation engine :mod:`dpcompare.tradeoff.grid`.

A law given by its tails is cut into the cells (g_k, g_{k+1}] of a uniform grid on a loss range
[lo, hi] (:func:`~dpcompare.tradeoff.partition.tails_partition`); the pessimistic pair splits every cell
onto its end points (connect-the-dots, Doroshenko et al. 2022, "Connect the dots: tighter discrete
approximations of privacy loss distributions"; :func:`~dpcompare.tradeoff.grid.pessimistic_step`),
the optimistic one merges every cell into one atom (:func:`~dpcompare.tradeoff.partition.merge_cells`).
Both are exact Blackwell statements, so every view of the two pairs brackets the truth.
"""

from __future__ import annotations

import math

import numpy as np

from ..tradeoff import DiscretePair
from ..tradeoff import grid as certified_grid
from ..tradeoff import partition

#: default number of cells and tail mass of the grids built here
DEFAULT_BINS = 2**13
DEFAULT_TAIL = 1e-30
#: the loss range is searched up to |ℓ| = 1e7
_MAX_LOSS = 1e7


def tail_pairs(
    log_sf: partition.LogTail, log_cdf: partition.LogTail, h: float, offset: float, k_lo: int, k_hi: int
) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of the law with these tails on the grid offset + k·h, k_lo ≤ k ≤ k_hi.

    Example: the Gaussian mechanism μ = 1 on [−12, 12] in 4096 cells brackets its profile.

    >>> import dpcompare as dc
    >>> g = dc.Gaussian(mu=1.0)
    >>> pess, opt = tail_pairs(g.log_sf, g.log_cdf, 24 / 4096, -12.0, 0, 4096)
    >>> bool(opt.delta(1.0) <= g.delta(1.0) <= pess.delta(1.0))
    True
    """
    part = partition.tails_partition(log_sf, log_cdf, h, offset, k_lo, k_hi)
    return partition.step_pair(certified_grid.pessimistic_step(part)), partition.merge_cells(part)


def loss_range(log_sf: partition.LogTail, log_cdf: partition.LogTail, tail: float = DEFAULT_TAIL, scale: float = 1.0) -> tuple[float, float]:
    """[lo, hi] = [−s·2ᵃ, s·2ᵇ] (s = max(scale, 1e-3)) with the smallest integers a, b ≥ 0 such that
    Pr_P(ℓ ≤ lo) ≤ tail and Pr_Q(ℓ > hi) ≤ tail, up to |ℓ| = 1e7 (every candidate s·2ⁿ is evaluated
    in one vectorised call; the truncated mass is accounted by the tails of the partition, not ignored).

    >>> import dpcompare as dc
    >>> g = dc.Gaussian(mu=1.0)
    >>> loss_range(g.log_sf, g.log_cdf, 1e-30, 1.0)  # ℓ ~ N(½, 1) under Q: 11.9σ needed, 16 = 2⁴
    (-16.0, 16.0)
    """
    s = max(float(scale), 1e-3)
    lt = math.log(tail)
    pts = s * 2.0 ** np.arange(max(0, math.floor(math.log2(_MAX_LOSS / s))) + 1)

    def first(ok: np.ndarray) -> float:
        if not np.any(ok):
            raise ValueError("the privacy loss has no finite range at this tail mass")
        return float(pts[int(np.argmax(ok))])

    return -first(np.asarray(log_cdf(-pts, "P")) <= lt), first(np.asarray(log_sf(pts, "Q")) <= lt)


def privacy_loss_pairs(mech, *, bins: int = DEFAULT_BINS, tail: float = DEFAULT_TAIL) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of a closed-form mechanism (Gaussian, Laplace) on a uniform grid.

    The Laplace loss has atoms at ±m (m = sensitivity/b); its grid runs exactly from −m to m (with
    ``bins`` a power of 2, −m + bins·(2m/bins) = m exactly, so the atoms sit on grid points).
    """
    from ..mechanisms import Laplace

    if isinstance(mech, Laplace):
        lo, hi = -mech.m, mech.m
    else:
        lo, hi = loss_range(mech.log_sf, mech.log_cdf, tail, mech.loss_scale)
    return tail_pairs(mech.log_sf, mech.log_cdf, (hi - lo) / bins, lo, 0, bins)


__all__ = ["DEFAULT_BINS", "DEFAULT_TAIL", "loss_range", "privacy_loss_pairs", "tail_pairs"]
