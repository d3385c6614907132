"""Which coarser grids the far tail of the subsampled Gaussian consults (``SubsampledGaussian`` reads ε(δ) and δ(ε)
off grids 4×, 16×, 64× coarser than its own where δ is within reach of the FFT's error bound η).

A coarser grid helps there because its FFT is shorter and its η, which grows with the FFT length, smaller. That
holds while the grid spacing H stays below the single-step loss spread; far beyond it the split of each step onto
the grid (tradeoff/compose.py step 2) spreads the composed loss so widely that the Chernoff window of the N steps
(step 5) is *longer* than the fine grid's: at (σ, p, N) = (2, 9e-4, 10⁷), h = 4e-5, the 16× and 64× grids have
windows of 2.3e7 and 1.3e7 points against the fine grid's ~6e5, take 40–170 s each to compose with their far-tail
passes, and certify ε = ∞. Such a grid is skipped, decided before any FFT from its window alone
(:func:`window_points`: the single pessimistic step, cheap on a coarse grid, and its Chernoff window).

Skipping a grid only leaves out one candidate of a minimum of certified bounds: every answer stays certified. ε(δ)
and δ(ε) skip the same grids (the rule depends on (σ, p, N, h) only), so the views still agree, δ(ε(δ)) ≤ δ.

>>> far_tail_factors(1.0, 0.01, 100, 1e-3, (4.0, 16.0), window_points(1.0, 0.01, 100, 1e-3))
(4.0, 16.0)
"""

from __future__ import annotations

import functools

from ..tradeoff import grid as certified_grid
from ..tradeoff.compose import chernoff_window
from .sgm_grid import WINDOW_TAIL, check_grid
from .sgm_step import sgm_partition


@functools.lru_cache(maxsize=64)
def window_points(sigma: float, p: float, steps: int, h: float) -> int:
    """Width in grid points of the composition window (tradeoff/compose.py step 5) of the pessimistic side of N
    steps on grid ``h``, as :func:`dpcompare.composition.sgm_compose.pessimistic_side` builds it (the same single
    step: one cell per interval, the anchor of ``check_grid``'s sub-cells), without composing anything.

    >>> window_points(1.0, 0.01, 100, 4e-3) < window_points(1.0, 0.01, 100, 1e-3)
    True
    """
    h_, tail, sub = check_grid(sigma, p, steps, h)
    part = sgm_partition(sigma, p, h_, sub=1, tail=tail, anchor_sub=sub)
    step = certified_grid.pessimistic_step(part)
    i_lo, i_hi = chernoff_window(step, steps, WINDOW_TAIL)
    return int(i_hi - i_lo + 1)


def report_points(report, h: float) -> int | None:
    """Width in grid points of a built side's composition window (its report's ``window``), None without one."""
    if report is None or report.window is None or not h > 0.0:
        return None
    lo, hi = report.window
    return int(round((float(hi) - float(lo)) / h)) + 1


def far_tail_factors(sigma: float, p: float, steps: int, h: float, factors: tuple[float, ...],
                     base_points: int | None) -> tuple[float, ...]:
    """The coarsening ``factors`` (increasing) worth consulting on grid ``h``, whose own composition window has
    ``base_points`` points (:func:`report_points`; None: every factor is kept): those before the first whose window
    (:func:`window_points`) is not shorter than the previous grid's (``h``'s for the first factor), and before the
    first that cannot be built (too coarse: ``ValueError``, where the callers stopped before). Every factor kept has
    a shorter window, hence FFT, than every finer grid consulted.

    >>> far_tail_factors(1.0, 0.01, 100, 1e-3, (4.0, 16.0), window_points(1.0, 0.01, 100, 1e-3))
    (4.0, 16.0)
    >>> far_tail_factors(2.0, 9e-4, 10**7, 4e-5, (4.0, 16.0, 64.0), 748322)  # 16×: 2.3e7 points
    (4.0,)
    """
    if base_points is None or p >= 1.0 or steps <= 1:
        return tuple(factors)
    kept: list[float] = []
    prev = base_points
    for f in factors:
        try:  # the errors the composition itself turns into a ValueError (sgm_compose._sides_or_error)
            points = window_points(sigma, p, steps, f * h)
        except (ValueError, RuntimeError, OverflowError, FloatingPointError):
            break
        if points >= prev:
            break
        kept.append(f)
        prev = points
    return tuple(kept)
