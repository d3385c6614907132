"""The empirical mechanism of an audit: the trade-off curves consistent with an attack's results.

An attack is a family of tests of H₀ "non-member" against H₁ "member". At an operating point with true
false-positive rate α and true-positive rate τ, the attack's trade-off curve f_A (the convex hull of its
ROC, randomised tests allowed) satisfies f_A(α) ≤ 1 − τ, and the mechanism's own curve satisfies
f ≤ f_A (post-processing; [BCP] eq 20). A piecewise-linear convex curve is a discrete pair
([BCP] eq 24 and App. A), so the audit is a :class:`~dpcompare.mechanisms.pair_backed.PairMechanism`
and every view of the library works on it.

Confidence region, per operating point i (exact Clopper–Pearson, see :mod:`.binomial`):
[α_lo,i, α_hi,i] × [τ_lo,i, τ_hi,i]. Two curves come from it (each the lower convex hull of its points
with (0, 1) and (1, 0), then symmetrised as every mechanism here, f_sym = conv(min(f, f⁻¹))):

- the **optimistic** side (the weakest attack consistent, *what the audit proves*): the hull of the
  corners (α_hi,i, 1 − τ_lo,i). With probability ≥ the confidence, f ≤ f_A ≤ f_opt everywhere. From it,
  the ε lower bound at δ: ε ≥ max_i max(log((τ_lo,i − δ)/α_hi,i), log((1 − α_hi,i − δ)/(1 − τ_lo,i)))
  (an (ε, δ)-DP test obeys α + e^ε β ≥ 1 − δ and β + e^ε α ≥ 1 − δ; Kairouz, Oh & Viswanath 2015,
  Thm 2.1), which is exactly the ε(δ) of the symmetrised optimistic pair;
- the **pessimistic** side (the strongest attack consistent): the hull of the corners
  (α_lo,i, 1 − τ_hi,i) — for a score ROC, of the staircase corners (α_lo,j, 1 − τ_hi,j+1) that bound every
  threshold between two audited ones. With probability ≥ the confidence, f_A ≥ f_pess.

Simultaneity. Counts: a Bonferroni correction over the P operating points and the two coordinates
(each one-sided bound at level 1 − a/(2P), a = 1 − confidence). Scores: thresholds at K fixed *ranks*
of the non-member scores (chosen from the sample sizes only, never from the values), the test
"score > the k-th largest non-member score" (ties broken by a seeded uniform variable, which makes the
test a randomised Neyman–Pearson test and the order total): its FPR is the k-th smallest of n uniforms,
Beta(k, n − k + 1) exactly, and given the non-members its TP count is Bin(m, TPR), so Clopper–Pearson is
exact conditionally; Bonferroni over the K ranks and the two coordinates (1 − a/(2K) each). Selecting
thresholds by their *values* after seeing the data (e.g. the best of all n thresholds, then a
correction by the number of distinct values) is not covered by this argument; ranks are.
Each side of the band holds with probability ≥ the confidence; both together with ≥ 2·confidence − 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..mechanisms.discrete import FromPair
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair, PairBracket, Rounding
from .binomial import clopper_pearson_lower, clopper_pearson_upper, order_statistic_bounds
from .inputs import Counts, Scores, check_confidence

#: default number of audited ranks of a score ROC
DEFAULT_THRESHOLDS = 100
#: seed of the tie-breaking uniform variables of a score audit (reproducible answers)
TIE_SEED = 20231210


def hull_vertices(alpha: Any, beta: Any) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the largest convex trade-off curve through or below the points (α_i, β_i): the lower
    convex hull of the points with (0, 1) and (1, 0) (Andrew's monotone chain), α ascending from 0.

    >>> a, b = hull_vertices([0.25], [0.25])
    >>> a.tolist(), b.tolist()
    ([0.0, 0.25, 1.0], [1.0, 0.25, 0.0])
    """
    a = np.concatenate([[0.0, 1.0], np.clip(np.asarray(alpha, dtype=float).ravel(), 0.0, 1.0)])
    b = np.concatenate([[1.0, 0.0], np.clip(np.asarray(beta, dtype=float).ravel(), 0.0, 1.0)])
    keep = b <= 1.0 - a + 1e-15  # points above the diagonal say nothing
    keep[:2] = True
    a, b = a[keep], b[keep]
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    hull: list[tuple[float, float]] = []
    for x, y in zip(a.tolist(), b.tolist()):
        if hull and hull[-1][0] == x:
            continue  # same α, larger β (sorted): not on the lower hull
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) <= 0:  # not a strict left turn: drop the middle
                hull.pop()
            else:
                break
        hull.append((x, y))
    ha = np.array([p[0] for p in hull])
    hb = np.array([p[1] for p in hull])
    return ha, hb


def hull_pair(alpha: Any, beta: Any, rounding: Rounding = Rounding.EXACT) -> DiscretePair:
    """The discrete pair of :func:`hull_vertices` (segment k: p = Δα, q = −Δβ; [BCP] App. A)."""
    ha, hb = hull_vertices(alpha, beta)
    return DiscretePair.from_vertices(ha, hb, rounding=rounding)


def audit_ranks(n: int, k: int) -> np.ndarray:
    """The K ranks (k-th largest non-member score) audited in a sample of n: geometric from both ends, so
    that small FPRs (the (TPR, FPR) test inequality) and small FNRs (the (TNR, FNR) one) are both audited
    finely. A function of n and K only, never of the scores.

    >>> audit_ranks(1000, 6).tolist()
    [1, 22, 500, 501, 979, 1000]
    """
    if k >= n:
        return np.arange(1, n + 1, dtype=np.int64)
    half = max(1, (k + 1) // 2)
    top = np.geomspace(1.0, n / 2.0, half)
    ranks = np.concatenate([top, n + 1.0 - top])
    return np.unique(np.clip(np.round(ranks), 1, n).astype(np.int64))


@dataclass(frozen=True, repr=False, eq=False)
class EmpiricalMechanism(PairMechanism):
    """An attack's trade-off curve with its confidence band (see the module docstring).

    Operating points are ordered by increasing FPR. ``staircase`` marks nested thresholds of one score
    (every intermediate threshold is then bounded too). Views (``tradeoff``, ``delta``, ``epsilon``,
    ``bayes_error``, ``*_bounds``) are those of the symmetrised pairs, pessimistic side first as for every
    mechanism; what the audit *proves* is the optimistic side: :meth:`epsilon_lower`, :meth:`tpr_lower`.

    >>> m = EmpiricalMechanism.from_counts(Counts([60], [100], [5], [100]), confidence=0.95)
    >>> round(m.epsilon_lower(0.0), 4)
    1.4831
    """

    observed_fpr: np.ndarray
    observed_tpr: np.ndarray
    fpr_low: np.ndarray
    fpr_high: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    confidence: float
    method: str
    staircase: bool = False

    def __post_init__(self) -> None:
        check_confidence(self.confidence)
        for name in ("observed_fpr", "observed_tpr", "fpr_low", "fpr_high", "tpr_low", "tpr_high"):
            arr = np.asarray(getattr(self, name), dtype=float).ravel()
            if np.any(~np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
                raise ValueError(f"{name} must be rates in [0, 1]")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if not (np.all(self.fpr_low <= self.observed_fpr) and np.all(self.observed_fpr <= self.fpr_high)
                and np.all(self.tpr_low <= self.observed_tpr) and np.all(self.observed_tpr <= self.tpr_high)):
            raise ValueError("confidence bounds must enclose the observed rates")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_counts(cls, counts: Counts, confidence: float = 0.95) -> "EmpiricalMechanism":
        """Exact Clopper–Pearson per operating point, Bonferroni over the P points and both coordinates."""
        c = check_confidence(confidence)
        if not isinstance(counts, Counts):
            raise TypeError(f"counts must be a Counts, got {type(counts).__name__}")
        each = 1.0 - (1.0 - c) / (2 * counts.size)
        fpr = counts.fp / counts.negatives
        tpr = counts.tp / counts.positives
        order = np.lexsort((tpr, fpr))
        return cls(
            observed_fpr=fpr[order], observed_tpr=tpr[order],
            fpr_low=clopper_pearson_lower(counts.fp, counts.negatives, each)[order],
            fpr_high=clopper_pearson_upper(counts.fp, counts.negatives, each)[order],
            tpr_low=clopper_pearson_lower(counts.tp, counts.positives, each)[order],
            tpr_high=clopper_pearson_upper(counts.tp, counts.positives, each)[order],
            confidence=c,
            method=f"exact Clopper-Pearson per operating point, Bonferroni over {counts.size} point(s) x 2 rates",
        )

    @classmethod
    def from_scores(cls, scores: Scores, confidence: float = 0.95, *, thresholds: int = DEFAULT_THRESHOLDS,
                    seed: int = TIE_SEED) -> "EmpiricalMechanism":
        """A simultaneous band for the score ROC at (at most) K = ``thresholds`` ranks (:func:`audit_ranks`),
        exact per rank, Bonferroni over ranks and both coordinates."""
        c = check_confidence(confidence)
        if not isinstance(scores, Scores):
            raise TypeError(f"scores must be a Scores, got {type(scores).__name__}")
        if isinstance(thresholds, bool) or not isinstance(thresholds, (int, np.integer)) or thresholds < 1:
            raise ValueError(f"thresholds must be an integer >= 1, got {thresholds!r}")
        x, y = scores.nonmembers, scores.members
        n, m = x.size, y.size
        xs, ys = np.sort(x), np.sort(y)
        ranks = audit_ranks(n, int(thresholds))
        k_used = ranks.size
        t = xs[n - ranks]  # the k-th largest non-member score
        x_gt = n - np.searchsorted(xs, t, side="right")
        x_eq = np.searchsorted(xs, t, side="right") - np.searchsorted(xs, t, side="left")
        y_le = np.searchsorted(ys, t, side="right")
        y_eq = y_le - np.searchsorted(ys, t, side="left")
        tp = (m - y_le).astype(np.int64)  # members strictly above t
        # ties with the threshold value: the randomised test orders tied scores by independent uniforms;
        # the selected non-member is the j-th largest of the x_eq tied ones, so its uniform is the j-th
        # largest of x_eq uniforms, and each tied member is above it with probability 1 − u (seeded draws;
        # per rank the law is exactly that of the randomised test, which is all the union bound needs)
        rng = np.random.default_rng(seed)
        for i in np.flatnonzero(y_eq > 0):
            j = int(ranks[i] - x_gt[i])
            u_sel = np.sort(rng.random(int(x_eq[i])))[::-1][j - 1]
            tp[i] += rng.binomial(int(y_eq[i]), 1.0 - u_sel)
        each = 1.0 - (1.0 - c) / (2 * k_used)
        f_lo, f_hi = order_statistic_bounds(ranks, n, each)
        return cls(
            observed_fpr=(ranks - 1) / n, observed_tpr=tp / m,
            fpr_low=np.minimum(f_lo, (ranks - 1) / n), fpr_high=f_hi,
            tpr_low=clopper_pearson_lower(tp, m, each), tpr_high=clopper_pearson_upper(tp, m, each),
            confidence=c, staircase=True,
            method=(f"exact order-statistic (Beta) FPR and Clopper-Pearson TPR at {k_used} fixed ranks of the "
                    f"non-member scores, Bonferroni over ranks x 2 rates"),
        )

    # ------------------------------------------------------------------ the curves
    def _pessimistic_corners(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.staircase:
            return self.fpr_low, 1.0 - self.tpr_high
        a = np.concatenate([[0.0], self.fpr_low])
        b = np.concatenate([1.0 - self.tpr_high, [0.0]])
        return a, b

    @cached_property
    def attack_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        """(pessimistic, optimistic) pairs of the attack's own (asymmetric) curve f_A."""
        pess = hull_pair(*self._pessimistic_corners(), rounding=Rounding.PESSIMISTIC)
        opt = hull_pair(self.fpr_high, 1.0 - self.tpr_low, rounding=Rounding.OPTIMISTIC)
        return pess, opt

    def _build_pairs(self) -> PairBracket:
        pess, opt = self.attack_pairs
        return PairBracket(pess, opt)

    @cached_property
    def estimate(self) -> FromPair:
        """The point estimate: the hull of the observed operating points (no confidence), as a mechanism."""
        return FromPair(hull_pair(self.observed_fpr, 1.0 - self.observed_tpr), name="audit_estimate")

    @cached_property
    def certified(self) -> FromPair:
        """The optimistic side alone as a mechanism: with probability ≥ the confidence the true mechanism
        is at most this private (f_sym ≤ its f everywhere)."""
        return FromPair(self._pairs[1], name="audit_certified")

    @cached_property
    def strongest(self) -> FromPair:
        """The pessimistic side alone as a mechanism: with probability ≥ the confidence the attack is at
        most this strong (its f is ≥ this f everywhere)."""
        return FromPair(self._pairs[0], name="audit_strongest")

    @property
    def spec(self) -> str:
        return f"audit(points={self.observed_fpr.size}, confidence={self.confidence:g})"

    # ------------------------------------------------------------------ what the audit proves
    def epsilon_lower(self, delta: float) -> float:
        """The ε the audit proves at δ (with probability ≥ the confidence, the mechanism is not (ε′, δ)-DP
        for any ε′ < this): ε(δ) of the symmetrised optimistic pair, rounded down by 1e-12 relative."""
        e = float(self._pairs[1].epsilon(float(delta)))
        return e if not math.isfinite(e) else max(0.0, e * (1.0 - 1e-12) - 1e-15)

    def epsilon_lower_points(self, delta: float) -> float:
        """The same bound from the closed form, max over the points of the two (ε, δ)-DP test inequalities."""
        a, t = self.fpr_high, self.tpr_low
        with np.errstate(divide="ignore", invalid="ignore"):
            e1 = np.log(t - delta) - np.log(a)
            e2 = np.log1p(-a - delta) - np.log1p(-t)
        vals = np.concatenate([e1[t > delta], e2[1.0 - a > delta]])
        return float(max(0.0, np.max(vals, initial=0.0)))

    def gdp_mu_lower(self) -> float:
        """The largest μ whose μ-GDP claim the audit contradicts (0 if none): a corner (α_hi, 1 − TPR_lo)
        lies below G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, eq 2.2) iff μ < Φ⁻¹(TPR_lo) − Φ⁻¹(α_hi);
        G_μ is convex, so the hull of the corners dips below it iff a corner does.

        >>> m = EmpiricalMechanism.from_counts(Counts([60], [100], [5], [100]), confidence=0.95)
        >>> round(m.gdp_mu_lower(), 4)
        1.2046
        """
        from scipy.special import ndtri

        with np.errstate(divide="ignore"):
            mu = ndtri(self.tpr_low) - ndtri(self.fpr_high)
        mu = mu[np.isfinite(mu)]
        return float(max(0.0, np.max(mu, initial=0.0)))

    def tpr_lower(self, fpr: Any) -> np.ndarray:
        """Certified lower bound on the attack's best TPR at FPR α (randomised thresholds): 1 − f_opt(α)."""
        return 1.0 - self.attack_pairs[1].tradeoff(np.asarray(fpr, dtype=float))

    def tpr_estimate(self, fpr: Any) -> np.ndarray:
        """The attack's TPR at FPR α on its observed points (hull, randomised thresholds), no confidence."""
        return 1.0 - hull_pair(self.observed_fpr, 1.0 - self.observed_tpr).tradeoff(np.asarray(fpr, dtype=float))
