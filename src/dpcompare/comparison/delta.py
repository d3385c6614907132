"""The Δ-divergence Δ(M‖M̃) = max_π (R(π) − R̃(π)) with a certified bracket ([BCP] Def 1, Cor 1).

Δ(M‖M̃) is the worst-case regret of choosing M̃ over M, in the adversary's minimum Bayes error; by
Thm 2 it equals the smallest κ with f(α+κ) − κ ≤ f̃(α), and sup_ε (δ̃(ε) − δ(ε))/(1 + e^ε).

Algorithm
---------
1. Both mechanisms discrete (exact or numeric pairs) and no hyper-prior: R_A − R_B is piecewise
   linear with kinks at the merged breakpoints, so the maximum is read off there exactly (``delta_pairs``,
   both directions from one merge): lower = Δ(A_pess‖B_opt), upper = Δ(A_opt‖B_pess).
2. Otherwise a certified branch and bound over π ∈ [0, ½] (``dpcompare.comparison.prior_sweep``) that uses only that Bayes error
   functions are concave ([BCP] §2):
   a. On a grid x₀ < … < xₙ, the points give the lower bound L = maxₖ Ψ(xₖ)(R_A,lo − R_B,hi)(xₖ).
   b. On [xₖ, xₖ₊₁], concavity bounds R_A from above by secants through nodes left and right of the
      interval, extended (the nearest nodes, or the nearest at least one interval width away where the
      neighbouring interval is under a quarter of it, so node rounding is amplified at most 4×; slopes
      from lo/hi ends so they stay valid) and by min(π, 1−π), and R_B from
      below by its chord; their difference is concave piecewise linear, so its maximum over the
      interval is attained at an end or a pairwise intersection of the lines: an exact interval bound.
   c. With a hyper-prior Ψ ≥ 0 the interval bound is multiplied by max Ψ (or min Ψ if negative).
      Every mechanism is symmetrised (R(π) = R(1−π)), so the search folds onto π ∈ [π_min, ½] with
      weight Ψ̃(π) = max(Ψ(π), Ψ(1−π)); (0, π_min] is bounded by sup π·Ψ̃(π) (R ≤ π there).
   d. Intervals whose bound exceeds L + tol are bisected; stop when U − L ≤ tol, where tol is raised to
      twice the node brackets' width at the maximiser (no grid certifies Δ more tightly than those).
   The result is (value, lower, upper, π); closed forms give brackets of width ≤ tol (1e-12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .._numerics import logit
from ..mechanisms.base import Mechanism
from .certified import UpperBracketed
from .prior_sweep import FP_SLACK, FoldedWeight, MaxTarget, sweep

if TYPE_CHECKING:  # the hyper-prior module loads where a hyper-prior is given (``as_hyperprior``)
    from .hyperprior import HyperPrior

#: absolute tolerance of the branch and bound (bracket width for closed forms)
DEFAULT_TOL = 1e-12
#: a Δ whose certified bracket contains 0 and ends at or below this is shown as "≈ 0" (floating-point noise)
NOISE_LEVEL = 1e-9


@dataclass(frozen=True)
class DeltaResult(UpperBracketed):
    """Δ(A‖B) with its certified bracket lower ≤ Δ ≤ upper, the prior π where it is attained and the
    matching ε = |log(π/(1−π))| of the profile form (Thm 2 clause 2).

    Fields: ``value`` (the estimate, inside the bracket), ``lower`` (the optimistic end: Δ is at least
    this; a ``lower`` > 0 refutes "A is as private as B"), ``upper`` (the pessimistic end: A is at most
    this much more vulnerable than B, the figure a guarantee uses), ``pi``, ``certified``. ``bracket``
    holds the same interval as a :class:`~dpcompare.tradeoff.Bracket` of ``Sense.UPPER``, checked at
    construction. A ``Bracket`` rather than a plain two-sided interval: Δ(A‖B) is one-sided (a larger
    Δ means A is less private relative to B), so which end a guarantee may quote is part of the value.

    >>> r = DeltaResult(0.0341385, 0.0341384, 0.0341386, 0.2689)
    >>> r.bracket.pessimistic == r.upper and r.bracket.optimistic == r.lower
    True
    """

    value: float
    lower: float
    upper: float
    pi: float
    certified: bool = True

    @property
    def eps(self) -> float:
        return float(abs(logit(self.pi))) if 0 < self.pi < 1 else math.inf

    @property
    def width(self) -> float:
        return self.upper - self.lower

    @property
    def negligible(self) -> bool:
        """Whether Δ is indistinguishable from 0: its certified bracket contains 0 and its upper end is at
        most ``NOISE_LEVEL`` (the value is then floating-point noise, and is shown as "≈ 0")."""
        return self.lower <= 0.0 and self.upper <= NOISE_LEVEL

    def __str__(self) -> str:
        """One line: the value (or ≈ 0), the certified bracket and the prior where it is attained.

        >>> print(DeltaResult(0.0341385, 0.0341384, 0.0341386, 0.2689))
        Δ = 0.0341385, certified in [0.0341384, 0.0341386], attained at π = 0.2689 (ε = 1)
        >>> print(DeltaResult(2.4e-16, 0.0, 1e-15, 0.3))
        Δ ≈ 0 (below the numerical error), certified in [0, 1e-15]
        """
        bracket = f"certified in [{self.lower:.6g}, {self.upper:.6g}]"
        if self.value == 0 or self.negligible:
            zero = "Δ = 0" if self.value == 0 else "Δ ≈ 0 (below the numerical error)"
            return f"{zero}, {bracket}"
        eps = self.eps
        at = f"attained at π = {self.pi:.4g}" + (f" (ε = {eps:.4g})" if math.isfinite(eps) else "")
        return f"Δ = {self.value:.6g}, {bracket}, {at}"

    def to_dict(self) -> dict[str, Any]:
        eps = self.eps
        return {
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "pi": self.pi,
            "eps": eps if math.isfinite(eps) else None,
            "certified": self.certified,
        }


def delta_divergence(
    a: Mechanism, b: Mechanism, hyperprior: HyperPrior | Callable | None = None, *, tol: float = DEFAULT_TOL,
    accuracy: float | None = None,
) -> DeltaResult:
    """Δ(A‖B) = max_π Ψ(π)·(R_A(π) − R_B(π)) ([BCP] Cor 1; weighted form §5), certified.

    ``hyperprior`` is None (Ψ ≡ 1), a HyperPrior or a density callable (parse names such as
    'jeffreys' with ``dpcompare.parse_hyperprior``). With a hyper-prior the result is the
    density-weighted Δ^Ψ: not a probability, it can exceed 1.

    Between numeric mechanisms whose grid is not given (``SubsampledGaussian`` without ``discretization`` or
    ``tolerance``) and without a hyper-prior, the grid is chosen from Δ itself: a coarse probe, then a grid
    fine enough for a certified width of max(1e-3·Δ, 1e-6), or ``accuracy`` (absolute) when given
    (``dpcompare.comparison.delta_accuracy``); the bracket is the accuracy achieved. With a hyper-prior the
    default grids are used unless ``accuracy`` is given: then Δ^Ψ's grids are chosen likewise, from the default
    grid on, for that absolute width of Δ^Ψ's bracket. Mechanisms whose grid cannot be chosen (closed forms, a
    given ``discretization``) ignore ``accuracy``: their bracket is the one ``tol`` gives.

    >>> import dpcompare as dc
    >>> r = dc.delta_divergence(dc.Laplace(b=1), dc.Gaussian(mu=1))
    >>> round(r.value, 5), round(r.pi, 4)
    (0.03414, 0.2689)
    """
    return _divergences(a, b, hyperprior, tol, both=False, accuracy=accuracy)[0]


def delta_divergences(
    a: Mechanism, b: Mechanism, hyperprior: HyperPrior | Callable | None = None, *, tol: float = DEFAULT_TOL,
    accuracy: float | None = None,
) -> tuple[DeltaResult, DeltaResult]:
    """(Δ(A‖B), Δ(B‖A)), each as :func:`delta_divergence` certifies it, from one evaluation: one merge of
    the four discrete pairs, or one sweep over π with both targets ([BCP] Cor 1; weighted form §5).
    ``accuracy``: as in :func:`delta_divergence` (numeric mechanisms choose their grid from Δ).

    >>> import dpcompare as dc
    >>> ab, ba = dc.delta_divergences(dc.Gaussian(mu=1), dc.Laplace(b=1))
    >>> round(ab.value, 5), round(ba.value, 5)
    (0.00527, 0.03414)
    """
    return _divergences(a, b, hyperprior, tol, both=True, accuracy=accuracy)


def _divergences(a: Mechanism, b: Mechanism, hyperprior: Any, tol: Any, both: bool,
                 accuracy: float | None = None) -> tuple[DeltaResult, ...]:
    check_mechanisms(a, b)
    tol = check_tolerance(tol)
    from .delta_accuracy import check_accuracy, delta_accuracy  # the grid chosen from Δ (numeric mechanisms only)

    h = None if hyperprior is None else load_hyperprior(hyperprior)
    accuracy = check_accuracy(accuracy)
    if h is None or accuracy is not None:  # Δ^Ψ chooses its grids only when asked for an accuracy
        acc = delta_accuracy(a, b, accuracy=accuracy, hyperprior=h, tol=tol)
        if acc is not None:
            return (acc.ab, acc.ba) if both else (acc.ab,)
    # the exact merge where both have discrete pairs; asked first of the pessimistic pairs, so that a numeric
    # mechanism beside a closed form (a μ̂ fit's G_μ) symmetrises no optimistic pair for the sweep
    if h is None and a.pessimistic_pair() is not None and b.pessimistic_pair() is not None:
        return tuple(widen(r, a, b) for r in delta_pairs(a.pairs(), b.pairs()))
    w = None if h is None else FoldedWeight(h)
    _, outs = sweep(a, b, [MaxTarget(False, w), MaxTarget(True, w)] if both else [MaxTarget(False, w)], tol=tol)
    return tuple(widen(DeltaResult(o.value, o.lower, o.upper, o.pi, o.certified), a, b) for o in outs)


def check_mechanisms(a: Any, b: Any) -> None:
    for name, m in (("a", a), ("b", b)):
        # (a subclass by its MRO first: isinstance on the abstract base goes through ABCMeta's instance check)
        if Mechanism not in type(m).__mro__ and not isinstance(m, Mechanism):
            raise TypeError(f"{name} must be a dpcompare Mechanism, got {type(m).__name__}")


def check_tolerance(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    return float(tol)


def widening(a: Mechanism, b: Mechanism) -> float:
    """η = η_A + η_B + the rounding of double-precision Bayes errors: how far :func:`widen` moves each end."""
    return float(a.numerical_error) + float(b.numerical_error) + FP_SLACK


def widen(r: DeltaResult, a: Mechanism, b: Mechanism) -> DeltaResult:
    """Round a bracket outward: numeric compositions bound their own floating-point error η in R,
    widen by η_A + η_B plus the rounding of double-precision Bayes errors (:func:`widening`)."""
    eta = widening(a, b)
    lower, upper = max(0.0, r.lower - eta), r.upper + eta
    return DeltaResult(min(max(r.value, lower), upper), lower, upper, r.pi, r.certified)


def delta_pairs(pa, pb) -> tuple[DeltaResult, DeltaResult]:
    """(Δ(A‖B), Δ(B‖A)) of discrete pairs by an exact merge (step 1), from one evaluation of the four
    Bayes error functions at the union of their breakpoints (``bayes_errors_at_breakpoints``).

    For A‖B: lower = max(R_A,pess − R_B,opt), upper = max(R_A,opt − R_B,pess) (floored at 0); R_A − R_B
    is piecewise linear in π with kinks at breakpoints only, so these maxima over the union are exact.
    The estimate is the max of the midpoint difference ½(R_A,pess + R_A,opt) − ½(R_B,pess + R_B,opt),
    exact likewise (it is 0 for the same mechanism, whatever the widths of its bracket).
    """
    from ..tradeoff import bayes_errors_at_breakpoints  # here: closed-form mechanisms never load the pairs

    (a_pess, a_opt), (b_pess, b_opt) = pa, pb
    lam, (ra_pess, ra_opt, rb_pess, rb_opt) = bayes_errors_at_breakpoints(a_pess, a_opt, b_pess, b_opt)
    mid = 0.5 * (ra_pess + ra_opt) - 0.5 * (rb_pess + rb_opt)
    return (_from_differences(lam, ra_pess - rb_opt, ra_opt - rb_pess, mid),
            _from_differences(lam, rb_pess - ra_opt, rb_opt - ra_pess, -mid))


def _from_differences(lam: np.ndarray, lower_d: np.ndarray, upper_d: np.ndarray, mid_d: np.ndarray) -> DeltaResult:
    from ..tradeoff import max_at_breakpoints

    lower, pi = max_at_breakpoints(lam, lower_d)
    upper, pi_u = max_at_breakpoints(lam, upper_d)
    value, pi_v = max_at_breakpoints(lam, mid_d)
    upper = max(upper, lower)
    # π: where the lower bound is attained, else where the estimate is, else where the upper bound is
    pi = next((x for x in (pi, pi_v, pi_u) if x is not None), 0.0 if lam.size else 0.5)
    # the estimate is clamped into the bracket by ``widen`` (after the numerical error is added), so that the
    # same mechanism gets 0 even when its pessimistic side is a hair less private than its optimistic one
    return DeltaResult(min(value, upper), lower, upper, pi)


def load_hyperprior(h):
    """``hyperprior.as_hyperprior`` with its module loaded here, on first use: a comparison without a hyper-prior
    (the CLI's main job) does not load it."""
    from .hyperprior import as_hyperprior

    return as_hyperprior(h)
