"""Certified ε(δ) of the subsampled Gaussian to a requested relative accuracy: the grid is chosen from the
question (ε at one δ), not from the default that serves every δ and every trade-off point at once.

The certified pessimistic pair gives an upper bound ε_hi(δ) and the certified optimistic pair a lower
bound ε_lo(δ) (tradeoff/compose.py steps 1–8: the pessimistic pair dominates the true pair, the optimistic
one is dominated by it, each up to its floating-point error η):

    ε_hi = min{ε : max(δ_rem, δ_add)(ε) + η_pess ≤ δ}  on the pessimistic pair (≥ the true ε),
    ε_lo = a point ε with max(δ_rem, δ_add)(ε) − η_opt > δ on the optimistic pair (< the true ε),

so the true ε lies in [ε_lo, ε_hi], whose relative width (ε_hi − ε_lo)/ε_hi is the accuracy achieved.
The width shrinks like h² in the grid spacing h (the split/merge of one step adds variance ∝ h²; see
``K_EXCESS`` in :mod:`dpcompare.composition.sgm_grid`), so we start on the grid that law predicts from the
width on the default grid (REL_AT_DEFAULT), measure the width, and refine once or twice with h ← h·√(SAFETY·rel_tol/width).
Every answer is certified whatever the grid; the grid only sets how tight it is.

>>> a = epsilon_to_accuracy(1.0, 0.01, 1000, 1e-5, rel_tol=1e-3)
>>> a.lower <= a.epsilon and a.rel_accuracy <= 1e-3
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._limits import FFT_BYTES_COARSE, fft_points_that_fit
from .sgm_certified import pair_epsilon
from .sgm_compose import TAIL_FACTOR, compose_subsampled_gaussian, tail_bound
from .sgm_grid import default_discretization

#: relative width of the ε bracket on the default grid: ≈ 1.2e-5–1.5e-5 measured at (σ, p, N) = (1, 0.01, 10³)
#: and (1, 0.01, 10⁴), δ = 1e-5 (the default spacing keeps the relative variance the grid adds independent
#: of N). It only sets the first grid, h = h_default·√(SAFETY·rel_tol/REL_AT_DEFAULT); the answer's
#: accuracy is the certified bracket.
REL_AT_DEFAULT = 1.5e-5
#: aim below the tolerance by this factor when refining (the h² law is an approximation)
SAFETY = 0.6
#: most compositions tried before the best one is returned with the accuracy it achieved
MAX_ATTEMPTS = 4


@dataclass(frozen=True)
class EpsilonAnswer:
    """A certified bracket [lower, epsilon] of the true ε(δ), and how it was obtained."""

    epsilon: float  #: certified upper bound (what to report as the privacy guarantee)
    lower: float  #: certified lower bound
    delta: float
    discretization: float  #: grid spacing h of the composition that answered
    attempts: int  #: compositions built

    @property
    def rel_accuracy(self) -> float:
        """(ε_hi − ε_lo)/ε_hi: the relative accuracy achieved (∞ if no finite upper bound)."""
        if not math.isfinite(self.epsilon):
            return math.inf
        return (self.epsilon - self.lower) / self.epsilon if self.epsilon > 0 else 0.0


def _upper(comp, sigma: float, p: float, steps: int, delta: float) -> float:
    eps = pair_epsilon(comp.pessimistic, comp.pessimistic_error, delta)
    if delta <= TAIL_FACTOR * comp.pessimistic_error or not math.isfinite(eps):
        eps = min(eps, tail_bound(sigma, p, steps).epsilon(delta))
    return eps


def _lower(comp, delta: float) -> float:
    """Largest certified point below the true ε: the optimistic pair's ε at δ + η_opt, confirmed by
    evaluating max(δ_rem, δ_add) − η_opt > δ there (0 when nothing is confirmed)."""
    opt, eta = comp.optimistic, comp.optimistic_error
    sw = opt.swap()
    e = pair_epsilon(opt, -eta, delta, sw)
    if not math.isfinite(e) or e <= 0.0:
        return 0.0
    for margin in (1e-12, 1e-9, 1e-6, 1e-3):
        x = e * (1.0 - margin)
        if max(float(opt.delta(x)), float(sw.delta(x))) - eta > delta:
            return x
    return 0.0


def epsilon_to_accuracy(sigma: float, p: float, steps: int, delta: float, rel_tol: float = 1e-4) -> EpsilonAnswer:
    """Certified bracket of ε(δ) of N steps of SGM(σ, p) whose relative width is at most ``rel_tol``
    where the grid allows it (module docstring); the width achieved is ``rel_accuracy``.

    ``rel_tol`` in (0, 0.5]; ``sigma`` > 0, ``p`` in (0, 1), ``steps`` ≥ 1, ``delta`` in (0, 1).
    """
    if not (isinstance(rel_tol, (int, float)) and 0.0 < rel_tol <= 0.5):
        raise ValueError(f"rel_tol must be in (0, 0.5], got {rel_tol!r}")
    if not (isinstance(delta, (int, float)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if not (isinstance(sigma, (int, float)) and sigma > 0.0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")
    if not (isinstance(p, (int, float)) and 0.0 < p < 1.0):
        raise ValueError(f"p must be in (0, 1) (p = 1 has a closed form), got {p!r}")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    h_default = default_discretization(sigma, p, int(steps))
    h = h_default * min(max(math.sqrt(SAFETY * rel_tol / REL_AT_DEFAULT), 0.5), 16.0)
    hi_best, lo_best, h_best = math.inf, 0.0, h
    attempt = 0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        comp = compose_subsampled_gaussian(float(sigma), float(p), int(steps), float(h))
        hi, lo = _upper(comp, sigma, p, steps, delta), _lower(comp, delta)
        if hi < hi_best:
            hi_best, h_best = hi, h
        lo_best = max(lo_best, lo)  # every bracket is certified, so their intersection is
        width = EpsilonAnswer(hi_best, min(lo_best, hi_best), delta, h, attempt).rel_accuracy
        if width <= rel_tol:
            break
        # width ∝ h²: refine to SAFETY·rel_tol, at most 8× finer per attempt, never finer than 1/4 of the default
        factor = math.sqrt(SAFETY * rel_tol / width) if math.isfinite(width) and width > 0 else 0.125
        h_new = max(h * min(max(factor, 0.125), 0.8), 0.25 * h_default)
        # the window's FFT length is ∝ 1/h: never finer than the spacing whose FFT fits the memory budget
        # (_limits.py; it would be refused), with 10% margin for the window's and next_fast_len's rounding
        h_new = max(h_new, h * 1.1 * max(r.fft_len for r in comp.reports) / fft_points_that_fit(FFT_BYTES_COARSE))
        if h_new >= h:
            break
        h = h_new
    return EpsilonAnswer(hi_best, min(lo_best, hi_best), delta, float(h_best), attempt)
