"""Approximate dominance A ≥_𝔇 B at a level 𝔇 ([BCP] Def 2, Thm 2): the three equivalent clauses, each checked.

A module of its own, loaded where it is used (the public names stay ``dpcompare.approximate_dominance`` and
``dpcompare.comparison.ApproximateDominance``, PEP 562): ``compare`` does not define this frozen dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._limits import check_memory
from .._summary import summarized
from .._validation import check_integer, check_nonnegative
from ..mechanisms import Mechanism
from .delta import DeltaResult, delta_divergence

__all__ = ["ApproximateDominance", "DOMINANCE_BYTES_PER_POINT", "approximate_dominance"]


@summarized("Approximate dominance A ≥_𝔇 B ([BCP] Thm 2): the three clauses and the certified Δ")
@dataclass(frozen=True)
class ApproximateDominance:
    """Thm 2 clauses for A ≥_𝔇 B, each evaluated on its own grid, and the certified Δ."""

    level: float
    delta: DeltaResult
    tradeoff_clause: bool  # ∀α: f_A(α + 𝔇) − 𝔇 ≤ f_B(α)
    profile_clause: bool  # ∀ε: δ_A(ε) + 𝔇(1 + e^ε) ≥ δ_B(ε)
    bayes_clause: bool  # ∀π: R_A(π) − R_B(π) ≤ 𝔇

    @property
    def holds(self) -> bool:
        return self.bayes_clause

    @property
    def clauses_agree(self) -> bool:
        return self.tradeoff_clause == self.profile_clause == self.bayes_clause


#: working memory of ``approximate_dominance`` per grid point (measured 1146: docs/edges.md)
DOMINANCE_BYTES_PER_POINT = 1200


def approximate_dominance(a: Mechanism, b: Mechanism, level: float, *, grid: int = 20001) -> ApproximateDominance:
    """Check A ≥_𝔇 B (Def 2) by all three clauses of Thm 2.

    The Bayes clause uses the certified Δ (holds iff Δ.upper ≤ 𝔇, or Δ.lower ≤ 𝔇 when the bracket
    straddles 𝔇 within floating point); the trade-off and profile clauses are checked on grids
    (α uniform ∪ log-spaced, ε ∈ [0, 50]) with a 1e-12 slack for rounding. For discrete mechanisms
    the kinks are added to the grids, so all three are exact there.
    """
    level = check_nonnegative("level", level)
    # 1146 bytes per grid point measured (docs/edges.md): refused up front, not by numpy gigabytes later
    grid = check_memory("grid", check_integer("grid", grid, minimum=2), DOMINANCE_BYTES_PER_POINT)
    slack = 1e-12
    d = delta_divergence(a, b)
    bayes = d.upper <= level + slack
    alpha = np.unique(np.concatenate([np.linspace(0, 1, grid), np.logspace(-12, 0, grid // 4)]))
    eps = np.unique(np.concatenate([np.linspace(0, 50, grid), np.logspace(-6, np.log10(50), grid // 4)]))
    for m in (a, b):
        p = m.pairs()
        if p is not None:
            av, _ = p[0].vertices
            alpha = np.unique(np.concatenate([alpha, av, np.clip(av - level, 0, 1)]))
            eps = np.unique(np.concatenate([eps, np.abs(p[0].loss)]))
    fa = a.tradeoff(np.clip(alpha + level, 0, 1))
    fa = np.where(alpha + level > 1, 0.0, fa)
    trade = bool(np.all(fa - level <= b.tradeoff(alpha) + slack))
    with np.errstate(over="ignore"):  # 𝔇·(1 + e^ε) is 0 at 𝔇 = 0 for every ε (not 0·∞ = NaN beyond ε ≈ 709.8)
        allowance = level * (1 + np.exp(eps)) if level > 0 else np.zeros_like(eps)
    prof = bool(np.all(a.delta(eps) + allowance >= b.delta(eps) - slack))
    return ApproximateDominance(level, d, trade, prof, bayes)
