"""The single step's truncation chosen from Δ's accuracy: a subsampled Gaussian composed for Δ leaves more of
one step's tails outside its grid than the far-tail δ(ε) questions allow.

One step of the Poisson-subsampled Gaussian is partitioned on a grid [g_lo, g_hi] of the privacy loss; the
mass beyond it, P(ℓ < g_lo) and Q(ℓ > g_hi) (each ≤ τ, ``sgm_step.grid_range``), is kept as two tail cells:
the pessimistic step moves the Q-mass of the upper cell that its loss g_hi cannot carry to ℓ = +∞ (and the
P-mass of the lower one to −∞), the optimistic step merges them like any cell (``tradeoff/grid.py``). Both
pairs stay certified for every τ; τ only sets how much the pessimistic pair loses: each Bayes error
R(π) = Σ min(π·pᵢ, (1 − π)·qᵢ) moves by at most the mass moved, ≤ N·2τ over N steps, so Δ(A‖B) =
max_π (R_A − R_B) ([BCP] Def 1) moves by at most 2N_A·τ_A + 2N_B·τ_B — and the reported bracket also widens by
η, which holds the cut mass N·τ once more (about 3N_A·τ_A + 2N_B·τ_B in all: a statement about accuracy, not
certification, which holds for every τ). The default τ = min(1e-18, 1e-16/N)
serves δ(ε) down to the far tail; for a Δ whose bracket may be w wide, τ = TRUNCATION_SHARE·w/(4N) keeps
that loss within TRUNCATION_SHARE of w, and shortens the step's grid (z = Φ⁻¹(1 − τ) standard deviations:
9.0 at τ = 1e-19, 6.6 at 2.5e-11), which is what the partition and the greedy merge of the optimistic step
cost (the composition window, cut at 1e-18 per tail, costs a few ms of FFT at N = 10³: not worth cutting).

>>> from dpcompare.mechanisms.sgm import SubsampledGaussian
>>> m = truncated(SubsampledGaussian(1.0, 0.01, 1000), 0.05, 1e-6)
>>> f"{m.step_tail:.3g}", m.spec
('2.5e-11', 'sgm(sigma=1, p=0.01, steps=1000)')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from ..composition.sgm_grid import MAX_STEP_TAIL, step_tail
from ..mechanisms.sgm import SubsampledGaussian

__all__ = ["MAX_STEP_TAIL", "TRUNCATION_SHARE", "TruncatedSubsampledGaussian", "delta_step_tail", "truncated"]

#: the share of Δ's allowed width the step truncation of both mechanisms may take (the rest: the grids' h²)
TRUNCATION_SHARE = 0.1


@dataclass(frozen=True, repr=False)
class TruncatedSubsampledGaussian(SubsampledGaussian):
    """A :class:`SubsampledGaussian` on a given grid whose single step leaves ``step_tail`` per tail outside its
    grid (module docstring): the same mechanism, its pairs certified, a little looser than the default's."""

    step_tail: float | None = field(default=None, kw_only=True)

    @cached_property
    def composition(self):
        from ..composition.sgm_certified import compose_subsampled_gaussian

        return compose_subsampled_gaussian(self.sigma, self.sampling_rate, self.steps, self._grid_spacing,
                                           step_tail=self.step_tail)


def delta_step_tail(steps: int, width: float) -> float:
    """τ = TRUNCATION_SHARE·w/(4N) (two tails of two mechanisms), never below the default :func:`step_tail` nor
    above MAX_STEP_TAIL (the grid's own limit: a wide Δ of a few steps would otherwise ask for more)."""
    return min(MAX_STEP_TAIL, max(step_tail(steps), TRUNCATION_SHARE * width / (4.0 * steps)))


def truncated(m: SubsampledGaussian, h: float, width: float) -> SubsampledGaussian:
    """``m`` on grid spacing ``h`` with the step truncation a Δ bracket ``width`` wide allows."""
    tau = delta_step_tail(m.steps, width)
    if not math.isfinite(tau) or tau <= step_tail(m.steps):
        return SubsampledGaussian(m.sigma, m.sampling_rate, m.steps, discretization=h)
    return TruncatedSubsampledGaussian(m.sigma, m.sampling_rate, m.steps, discretization=h, step_tail=tau)
