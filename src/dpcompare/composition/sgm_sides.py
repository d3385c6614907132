"""Each side of N steps of the subsampled Gaussian on its own grid and with its own single-step tail, for a question
that needs each end of its bracket only as fine as the bracket asks (:func:`dpcompare.composition.sgm_accuracy.
epsilon_to_accuracy`): :func:`optimistic_side` and :func:`pessimistic_side_cut`.

Tail. The partition covers the single-step loss up to g_hi, with Q(ℓ > g_hi) ≤ ``tail``
(``sgm_step.grid_range``); the default ``tail`` = min(1e-18, 1e-16/N) (``sgm_grid.check_grid``) serves every ε
of every view. What lies above g_hi is handled by the same certified rules at any ``tail``: the pessimistic split
keeps its P-mass at g_hi and moves its Q-excess to ℓ = +∞, an atom every δ(ε) reads in full (the side's
``profile`` at the certified bound 1 − (1 − m)^N of the composition's +∞ mass, m = the partition's +∞ mass + 2 × the
tail's: composition/infinity_atoms.py; and ``sgm_compose._build_side_any`` adds N times the step's ±∞ masses to η);
the optimistic merge takes it as one atom at its merged loss (a post-processing). So a larger ``tail`` is certified on both sides, and moves each end
of a bracket of ε(δ) by at most N·tail in δ. :func:`question_tail` picks N·tail ≤ TAIL_SHARE·rel_tol·δ; at
(σ, p, N) = (1, 0.01, 10⁴), 1e-4, δ = 1e-5 the single-step loss then reaches 3.6 nats instead of 4.9 (a quarter
fewer cells, and the greedy merge's Python loop runs over that many fewer groups).

Optimistic side. It is the ``optimistic`` field of :func:`~dpcompare.composition.sgm_compose.compose_subsampled_gaussian` built
by the same code path (tradeoff/compose.py steps 1, 3–8: the greedy merge lands cells and fractions of cells on
grid points, a post-processing of the true pair, so every δ(ε) of the result, less its error bound η, is ≤ the
true δ(ε)), with two choices of its own: the grid spacing h is not tied to the pessimistic side's, and the
partition cuts each grid interval in ``sub`` cells (default OPTIMISTIC_SUB = 2 instead of 4). Merging the cells
of an interval is itself a post-processing, so any ``sub`` ≥ 1 gives a certified pair; ``sub`` sets how tight it
is. Measured on ε(δ) at (σ, p, N, δ) = (1.01, 0.01, 10⁴, 1e-5), (0.7, 0.05, 10³, 1e-5), (1, 0.01, 10³, 1e-5),
(0.6, 0.01, 10⁴, 1e-5) against a bracket on h₀/4 (h₀ the default grid; width ≤ 5e-6 of ε): the relative gap
ε_true − ε_lo is 0.4–2.1e-5·m² at h = m·h₀, m = 1–3, for ``sub`` = 2 and 0.5–2.1e-5·m² for 4 (1.3–2.0e-5·m²
for 1), while the partition and the merge cost half as much as at 4.

>>> s = optimistic_side(1.0, 0.01, 100, 1e-3)
>>> s.pair.rounding.name, bool(0.0 < s.numerical_error < 1e-9)
('OPTIMISTIC', True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..tradeoff import DiscretePair, Rounding
from ..tradeoff.compose import CompositionReport
from ..tradeoff.grid import U
from .sgm_compose import PessimisticSide, _side_with_builder, _sides_or_error, negligible_composition, pessimistic_side
from .sgm_grid import NEGLIGIBLE_MU, check_grid, checked_tail

#: cells per grid interval of the optimistic side's partition (module docstring)
OPTIMISTIC_SUB = 2
#: :func:`question_tail`: N·tail ≤ this share of the accuracy asked for, rel_tol·δ
TAIL_SHARE = 1e-2
#: :func:`question_tail` never cuts the single step above this tail mass
MAX_TAIL = 1e-12


def question_tail(steps: int, delta: float, rel_tol: float) -> float:
    """The single-step tail mass a bracket of ε(δ) to ``rel_tol`` can leave to the certified tail rules (module
    docstring): TAIL_SHARE·rel_tol·δ/N, at most MAX_TAIL, and never below the default tail min(1e-18, 1e-16/N).

    >>> f"{question_tail(10_000, 1e-5, 1e-4):.3g}", question_tail(10, 1e-2, 1e-3) == MAX_TAIL, question_tail(10_000, 1e-30, 1e-4)
    ('1e-15', True, 1e-20)
    """
    default = min(1e-18, 1e-16 / steps)
    return float(max(default, min(MAX_TAIL, TAIL_SHARE * rel_tol * delta / steps)))


@dataclass(frozen=True, eq=False)
class OptimisticSide:
    """The optimistic asymmetric pair of N steps and its error bound η: every δ(ε) of ``pair`` (and of its swap)
    minus η is ≤ the true one (tradeoff/compose.py step 7)."""

    pair: DiscretePair
    numerical_error: float
    discretization: float
    #: the composition's report (None for the negligible-μ pair, which is not composed)
    report: CompositionReport | None = None


@functools.lru_cache(maxsize=16)
def optimistic_side(sigma: float, p: float, steps: int, discretization: float | None = None,
                    sub: int = OPTIMISTIC_SUB, tail: float | None = None) -> OptimisticSide:
    """The optimistic side of N steps of SGM(σ, p) on the grid ``discretization`` (default: the default grid) with
    ``sub`` cells per grid interval (at most what :func:`~dpcompare.composition.sgm_grid.check_grid` allows);
    η = the report's error + 64u, as :func:`~dpcompare.composition.sgm_compose.compose_subsampled_gaussian` charges.

    ``tail``: the single step's partition is cut at Q(ℓ > g_hi) ≤ ``tail`` (module docstring; default: the default
    tail). ``sub`` ≥ 1; ``tail`` in [default tail, 1e-6]; the other arguments as for ``compose_subsampled_gaussian``
    with p < 1.
    """
    if isinstance(sub, bool) or not isinstance(sub, int) or sub < 1:
        raise ValueError(f"sub must be an integer >= 1, got {sub!r}")
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return OptimisticSide(negligible_composition(sigma, p, steps).optimistic, 0.0, 0.0)
    if not p < 1.0:
        raise ValueError(f"p must be in (0, 1) (p = 1 has a closed form), got {p!r}")
    h, tail0, sub_max = check_grid(sigma, p, steps, discretization)
    t = tail0 if tail is None else checked_tail(tail, tail0, 1e-6)
    sides, reports = _sides_or_error(sigma, p, steps, h, min(sub, sub_max), t, (Rounding.OPTIMISTIC,))
    return OptimisticSide(sides[0], reports[0].numerical_error + 64 * U, h, reports[0])


@functools.lru_cache(maxsize=16)
def pessimistic_side_cut(sigma: float, p: float, steps: int, discretization: float | None = None,
                         tail: float | None = None) -> PessimisticSide:
    """``sgm_compose.pessimistic_side`` with the single step's partition cut at Q(ℓ > g_hi) ≤ ``tail`` instead of the
    default tail (module docstring: the Q-mass above is moved to ℓ = +∞, read by every δ(ε)); that side itself where ``tail`` is
    None or the default. The far-tail passes are left for later as there (``with_far_tails``).

    ``tail`` in [default tail, 1e-6]; the other arguments as for ``pessimistic_side``.

    >>> a = pessimistic_side_cut(1.0, 0.01, 100, 1e-3)
    >>> b = pessimistic_side_cut(1.0, 0.01, 100, 1e-3, 1e-14)
    >>> b.infinity_bound[1] > 100 * 0.01 * 1e-14 > a.infinity_bound[1]   # N·p·tail: the Q-tail at +∞
    True
    """
    h, tail0, sub = check_grid(sigma, p, steps, discretization)
    if tail is None or math.sqrt(steps) / sigma <= NEGLIGIBLE_MU or not p < 1.0 or checked_tail(tail, tail0, 1e-6) == tail0:
        return pessimistic_side(sigma, p, steps, discretization)
    sides, reports, fars, bounds = _sides_or_error(sigma, p, steps, h, sub, float(tail), (Rounding.PESSIMISTIC,),
                                                   lazy=True)
    return _side_with_builder(sides[0], reports[0], fars[0], 0.0, infinity_bound=bounds[0])
