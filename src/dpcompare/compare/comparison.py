"""Comparing two mechanisms beyond the calibration point (seed 000 §3).

- Blackwell dominance (Thm 1): M ≥ M̃ ⇔ f ≤ f̃ ⇔ δ ≥ δ̃ ⇔ R ≤ R̃ everywhere; here decided from the
  certified Δ brackets with an explicit tolerance: "a>=b" when Δ(A‖B) ≤ tol.
- Approximate dominance at level 𝔇 (Def 2, Thm 2): the three equivalent clauses, each checkable.
- Symmetrised Δ↔ = max(Δ(A‖B), Δ(B‖A)) = ‖R − R̃‖_∞ (Def 3, eq 6): a metric (Cor 2).
- Crossing points of the Bayes error functions.
- Extremal comparisons (Lemmas 3–5): Δ(PP‖M) = δ(0)/2, Δ(M‖BNP) = R* = α*, and their sum ½.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import optimize

from .._numerics import expit
from .._validation import check_nonnegative
from ..mechanisms import BlatantlyNonPrivate, Mechanism, PerfectlyPrivate
from .delta import DEFAULT_TOL, DeltaResult, delta_divergence
from .hyperprior import as_hyperprior

Verdict = Literal["a>=b", "b>=a", "equal", "incomparable"]

VERDICT_TEXT = {
    "a>=b": "A Blackwell-dominates B: B is at least as private as A against every adversary",
    "b>=a": "B Blackwell-dominates A: A is at least as private as B against every adversary",
    "equal": "A and B offer the same protection against every adversary (Δ↔ = 0)",
    "incomparable": "neither dominates: each is more vulnerable than the other for some adversary",
}


@dataclass(frozen=True)
class Comparison:
    """Both directions of Δ, the symmetrised Δ↔, the Blackwell verdict and the crossing priors."""

    a: Mechanism
    b: Mechanism
    delta_ab: DeltaResult
    delta_ba: DeltaResult
    verdict: Verdict
    crossings: tuple[float, ...]
    tolerance: float
    hyperprior: str | None = None

    @property
    def verdict_certified(self) -> bool:
        """Whether the certified brackets (not only the estimates) decide the verdict."""
        return verdict_certified(self.delta_ab, self.delta_ba, self.tolerance)

    @property
    def symmetric(self) -> float:
        """Δ↔ = max(Δ(A‖B), Δ(B‖A)) (Def 3)."""
        return max(self.delta_ab.value, self.delta_ba.value)

    @property
    def symmetric_bounds(self) -> tuple[float, float]:
        return max(self.delta_ab.lower, self.delta_ba.lower), max(self.delta_ab.upper, self.delta_ba.upper)

    def _repr_html_(self) -> str:
        """Jupyter: what ``dpcompare compare`` prints, with the Bayes error figure (io/notebook.py, lazily)."""
        from ..io.notebook import comparison_html

        return comparison_html(self)

    def sentence(self) -> str:
        """One-sentence summary in plain words."""
        parts = []
        if self.delta_ab.value > self.tolerance:
            parts.append(
                f"B is up to {self.delta_ab.value:.3g} more vulnerable than A, against an adversary with prior π ≈ {self.delta_ab.pi:.3g}"
            )
        if self.delta_ba.value > self.tolerance:
            parts.append(
                f"A is up to {self.delta_ba.value:.3g} more vulnerable than B, against an adversary with prior π ≈ {self.delta_ba.pi:.3g}"
            )
        if not parts:
            return VERDICT_TEXT[self.verdict] + "."
        return "; ".join(parts) + "."

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.symmetric_bounds
        return {
            "a": self.a.spec,
            "b": self.b.spec,
            "delta_ab": self.delta_ab.to_dict(),
            "delta_ba": self.delta_ba.to_dict(),
            "symmetric": self.symmetric,
            "symmetric_bounds": [lo, hi],
            "verdict": self.verdict,
            "verdict_certified": self.verdict_certified,
            "verdict_text": VERDICT_TEXT[self.verdict],
            "crossings": list(self.crossings),
            "tolerance": self.tolerance,
            "hyperprior": self.hyperprior,
            "summary": self.sentence(),
        }


def blackwell_verdict(delta_ab: DeltaResult, delta_ba: DeltaResult, tol: float) -> Verdict:
    """Thm 1 with a tolerance: A ≥ B iff Δ(A‖B) = 0, decided as Δ(A‖B) ≤ tol on the estimate.

    Whether the brackets certify the verdict is ``verdict_certified``.
    """
    ab = delta_ab.value <= tol
    ba = delta_ba.value <= tol
    if ab and ba:
        return "equal"
    if ab:
        return "a>=b"
    if ba:
        return "b>=a"
    return "incomparable"


def verdict_certified(delta_ab: DeltaResult, delta_ba: DeltaResult, tol: float) -> bool:
    """True when both brackets lie on one side of ``tol``: each Δ is certified ≤ tol or > tol."""
    return all(d.upper <= tol or d.lower > tol for d in (delta_ab, delta_ba))


def compare(
    a: Mechanism, b: Mechanism, *, hyperprior: Any = None, tol: float = 1e-9, crossings: bool = True
) -> Comparison:
    """Compare A and B: Δ(A‖B), Δ(B‖A), Δ↔, Blackwell verdict (tolerance ``tol``) and crossings.

    >>> import dpcompare as dc
    >>> c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1))
    >>> c.verdict, [round(x, 4) for x in c.crossings]
    ('incomparable', [0.4185, 0.5815])
    """
    tol = check_nonnegative("tol", tol)
    h = as_hyperprior(hyperprior)
    dab = delta_divergence(a, b, h)
    dba = delta_divergence(b, a, h)
    verdict = blackwell_verdict(dab, dba, tol)
    cross = tuple(crossing_points(a, b, tol=max(tol, dab.width, dba.width))) if crossings else ()
    return Comparison(a, b, dab, dba, verdict, cross, tol, None if h is None else h.name)


def _mid_diff(a: Mechanism, b: Mechanism, pi: np.ndarray) -> np.ndarray:
    alo, ahi = a._bayes_error_bounds(pi)
    blo, bhi = b._bayes_error_bounds(pi)
    return 0.5 * (alo + ahi) - 0.5 * (blo + bhi)


def crossing_points(a: Mechanism, b: Mechanism, *, tol: float = 1e-12, grid: int = 4001) -> list[float]:
    """Priors π ∈ (0, 1) where R_A − R_B changes sign by more than ``tol`` (refined by Brent's method).

    The search grid merges a uniform and a logit-spaced grid with the breakpoints of discrete
    mechanisms; a sign change between neighbours is refined to 1e-12 in π.
    """
    pts = [np.linspace(0, 1, grid), expit(np.linspace(-40, 40, grid // 2))]
    for m in (a, b):
        pairs = m.pairs()
        if pairs is not None and pairs[0].size < 200_000:
            pts.append(expit(pairs[0].loss))
    x = np.unique(np.concatenate(pts))
    x = x[(x > 0) & (x < 1)]
    d = _mid_diff(a, b, x)
    sign = np.where(d > tol, 1, np.where(d < -tol, -1, 0))
    nz = np.flatnonzero(sign)
    out = []
    for i, j in zip(nz[:-1], nz[1:]):
        if sign[i] != sign[j]:
            if j == i + 1:
                lo, hi = x[i], x[j]
                try:
                    root = optimize.brentq(lambda p: float(_mid_diff(a, b, np.asarray(p))), lo, hi, xtol=1e-14, rtol=1e-13)
                except ValueError:
                    root = 0.5 * (lo + hi)
            else:  # the functions touch on a stretch of zeros: report its midpoint
                root = 0.5 * (x[i + 1] + x[j - 1])
            out.append(float(root))
    return out


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


def approximate_dominance(a: Mechanism, b: Mechanism, level: float, *, grid: int = 20001) -> ApproximateDominance:
    """Check A ≥_𝔇 B (Def 2) by all three clauses of Thm 2.

    The Bayes clause uses the certified Δ (holds iff Δ.upper ≤ 𝔇, or Δ.lower ≤ 𝔇 when the bracket
    straddles 𝔇 within floating point); the trade-off and profile clauses are checked on grids
    (α uniform ∪ log-spaced, ε ∈ [0, 50]) with a 1e-12 slack for rounding. For discrete mechanisms
    the kinks are added to the grids, so all three are exact there.
    """
    level = check_nonnegative("level", level)
    slack = 1e-12
    d = delta_divergence(a, b)
    bayes = d.upper <= level + slack
    alpha = np.unique(np.concatenate([np.linspace(0, 1, grid), np.logspace(-12, 0, grid // 4)]))
    eps = np.unique(np.concatenate([np.linspace(0, 50, grid), np.logspace(-6, np.log10(50), grid // 4)]))
    for m in (a, b):
        p = m.pairs()
        if p is not None:
            av, _ = p[0]._vertices
            alpha = np.unique(np.concatenate([alpha, av, np.clip(av - level, 0, 1)]))
            eps = np.unique(np.concatenate([eps, np.abs(p[0].loss)]))
    fa = a.tradeoff(np.clip(alpha + level, 0, 1))
    fa = np.where(alpha + level > 1, 0.0, fa)
    trade = bool(np.all(fa - level <= b.tradeoff(alpha) + slack))
    prof = bool(np.all(a.delta(eps) + level * (1 + np.exp(eps)) >= b.delta(eps) - slack))
    return ApproximateDominance(level, d, trade, prof, bayes)


def delta_from_perfect_privacy(m: Mechanism) -> DeltaResult:
    """Δ(M_PP‖M) = ½·TV = ½·δ(0) (seed 000 Lemma 3), computed as a Δ-divergence."""
    return delta_divergence(PerfectlyPrivate(), m)


def delta_to_blatant_non_privacy(m: Mechanism) -> DeltaResult:
    """Δ(M‖M_BNP) = R* = α* (seed 000 Lemma 4), computed as a Δ-divergence."""
    return delta_divergence(m, BlatantlyNonPrivate())
