"""The composition a summary of N steps of the subsampled Gaussian reads (``describe``, the μ̂ fit, the privacy card):
the default grid's pessimistic side, and an optimistic side whose single step leaves a little more of its tail to the
certified tail rule.

What a summary prints from each side. The pessimistic side carries every bound the summary reports — ε(δ), the
advantage δ(0), R*, the AUC, the fit's R_M and Δ(G_μ‖M) ≤ — and is exactly the default composition's (the same
cached :func:`~dpcompare.composition.sgm_compose.pessimistic_side`). The optimistic side enters one printed bound,
Δ(M‖G_μ) ≤ (through R_M's upper end), the lower ends of the two Δ brackets and the error bound η.

The cut. One step is partitioned up to the loss g_hi with Q(ℓ > g_hi) ≤ τ (``sgm_step.grid_range``); above it the
optimistic step merges the tail like any cell (tradeoff/grid.py), a post-processing of the true pair, so the
optimistic pair is certified at every τ (composition/sgm_sides.py). The default τ = min(1e-18, 1e-16/N)
(``sgm_grid.step_tail``) serves δ(ε) into the far tail, which the optimistic side of a summary never reads;
:func:`summary_tail` takes τ = SUMMARY_TAIL_LOSS/(2N) = 1e-12/(2N): at most 1e-12 of mass over the N steps' two tails.
How much looser the pair gets is measured, not bounded by that mass (the greedy merge forms its groups in order, so
the groups near the cut can shift the ones after them): over ten mechanisms (σ 0.5–4, p 0.001–0.5, N 5–2000;
tests/composition/test_sgm_summary.py) the optimistic Bayes errors moved by at most 3e-14 in nine and by 2.2e-9 at
(2, 0.2, 30), 1.5e-3 of the bracket's own width there; η fell by 0–12 % (fewer cells, less rounding). At
(1, 0.01, 10³) the single step ends at τ = 5e-16 instead of 1e-19 and the optimistic side — the partition and the
greedy merge, one Python iteration per group — costs ≈ 20 % less (alternating with the default tail, one process
each: 140 → 110 ms and 215 → 165 ms CPU at load 4–5); ``describe`` prints the same digits (Δ(M‖G_μ̂) ≤ 0.000895456
either way; the numerical error 2.49058e-10 instead of 2.49946e-10).

>>> c = summary_composition(1.0, 0.01, 100)
>>> d = compose_subsampled_gaussian(1.0, 0.01, 100)
>>> c.pessimistic is d.pessimistic, c.discretization == d.discretization, c.optimistic.rounding.name
(True, True, 'OPTIMISTIC')
>>> f"{summary_tail(1000):.3g}", summary_tail(10**7) > step_tail(10**7)
('5e-16', True)
"""

from __future__ import annotations

import functools
import math
import time

from .sgm_compose import CertifiedComposition, compose_subsampled_gaussian, pessimistic_side
from .sgm_grid import NEGLIGIBLE_MU, SUB_CELLS, default_discretization, step_tail
from .sgm_sides import optimistic_side

__all__ = ["SUMMARY_TAIL_LOSS", "summary_composition", "summary_tail"]

#: 2N·τ: the most the summary's single-step tail may move a Bayes error of its optimistic pair (module docstring)
SUMMARY_TAIL_LOSS = 1e-12


def summary_tail(steps: int) -> float:
    """τ = SUMMARY_TAIL_LOSS/(2N), never below the default :func:`~dpcompare.composition.sgm_grid.step_tail`."""
    return max(step_tail(steps), SUMMARY_TAIL_LOSS / (2.0 * steps))


@functools.lru_cache(maxsize=4)
def summary_composition(sigma: float, p: float, steps: int) -> CertifiedComposition:
    """The default grid's composition of SGM(σ, p, N) with the optimistic side's single step cut at
    τ = :func:`summary_tail` (module docstring): ``compose_subsampled_gaussian(σ, p, N)`` itself where there is no
    optimistic step to cut (p = 1, a negligible μ) or τ is the default. η = max of the two sides' (as there).

    The arguments are those of a :class:`~dpcompare.mechanisms.sgm.SubsampledGaussian` already validated."""
    tau = summary_tail(steps)
    if p >= 1.0 or math.sqrt(steps) / sigma <= NEGLIGIBLE_MU or tau <= step_tail(steps):
        return compose_subsampled_gaussian(sigma, p, steps)
    t0 = time.perf_counter()
    h = default_discretization(sigma, p, steps)
    pess = pessimistic_side(sigma, p, steps, h)  # the default composition's own (same cache, same object)
    opt = optimistic_side(sigma, p, steps, h, sub=SUB_CELLS, tail=tau)  # the composition's cells per interval
    errs = (pess.numerical_error, opt.numerical_error)
    return CertifiedComposition(pess.pair, opt.pair, max(errs), h, steps, (pess.report, opt.report),
                                time.perf_counter() - t0, errs, pess)
