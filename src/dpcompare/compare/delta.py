"""The Δ-divergence Δ(M‖M̃) = max_π (R(π) − R̃(π)) with a certified bracket (seed 000 Def 1, Cor 1).

Δ(M‖M̃) is the worst-case regret of choosing M̃ over M, in the adversary's minimum Bayes error; by
Thm 2 it equals the smallest κ with f(α+κ) − κ ≤ f̃(α), and sup_ε (δ̃(ε) − δ(ε))/(1 + e^ε).

Algorithm
---------
1. Both mechanisms discrete (exact or numeric pairs) and no hyper-prior: R_A − R_B is piecewise
   linear with kinks at the merged breakpoints, so the maximum is read off there exactly
   (``delta_between_pairs``): lower = Δ(A_pess‖B_opt), upper = Δ(A_opt‖B_pess).
2. Otherwise a certified branch and bound over π ∈ [0, 1] that uses only that Bayes error
   functions are concave (seed 000 §2):
   a. On a grid x₀ < … < xₙ, the points give the lower bound L = maxₖ Ψ(xₖ)(R_A,lo − R_B,hi)(xₖ).
   b. On [xₖ, xₖ₊₁], concavity bounds R_A from above by the secants of the neighbouring intervals
      extended (slopes computed from lo/hi ends so they stay valid) and by min(π, 1−π), and R_B from
      below by its chord; their difference is concave piecewise linear, so its maximum over the
      interval is attained at an end or a pairwise intersection of the lines: an exact interval bound.
   c. With a hyper-prior Ψ ≥ 0 the interval bound is multiplied by max Ψ (or min Ψ if negative).
      Every mechanism is symmetrised (R(π) = R(1−π)), so the search folds onto π ∈ [π_min, ½] with
      weight Ψ̃(π) = max(Ψ(π), Ψ(1−π)); (0, π_min] is bounded by sup π·Ψ̃(π) (R ≤ π there).
   d. Intervals whose bound exceeds L + tol are bisected; stop when U − L ≤ tol.
   The result is (value, lower, upper, π); closed forms give brackets of width ≤ tol (1e-12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import expit, logit
from ..mechanisms.base import Mechanism
from ..tradeoff import delta_between_pairs
from .hyperprior import HyperPrior, as_hyperprior

#: absolute tolerance of the branch and bound (bracket width for closed forms)
DEFAULT_TOL = 1e-12
#: outward rounding of every bracket: R is evaluated with an absolute error of a few ulp of ½
_FP_SLACK = 1e-15
_PI_MIN = 1e-30  # with a hyper-prior the search runs on [π_min, 1 − π_min]; the ends are bounded analytically


@dataclass(frozen=True)
class DeltaResult:
    """Δ(A‖B) with its certified bracket lower ≤ Δ ≤ upper, the prior π where it is attained and the
    matching ε = |log(π/(1−π))| of the profile form (Thm 2 clause 2)."""

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
    a: Mechanism, b: Mechanism, hyperprior: HyperPrior | str | Any = None, *, tol: float = DEFAULT_TOL
) -> DeltaResult:
    """Δ(A‖B) = max_π Ψ(π)·(R_A(π) − R_B(π)) (seed 000 Cor 1; weighted form §5), certified.

    ``hyperprior`` is None (Ψ ≡ 1), a HyperPrior, a density callable or 'jeffreys' | 'uquadratic' |
    'beta(a,b)'.

    >>> import dpcompare as dc
    >>> r = dc.delta_divergence(dc.Laplace(b=1), dc.Gaussian(mu=1))
    >>> round(r.value, 5), round(r.pi, 4)
    (0.03414, 0.2689)
    """
    if not isinstance(a, Mechanism) or not isinstance(b, Mechanism):
        raise ValueError("delta_divergence compares two dpcompare mechanisms")
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    h = as_hyperprior(hyperprior)
    if a == b:  # the same mechanism value: Δ(M‖M) = 0 exactly (Cor 2)
        return DeltaResult(0.0, 0.0, 0.0, 0.5)
    pa, pb = a.pairs(), b.pairs()
    if h is None and pa is not None and pb is not None:
        r = _delta_pairs(pa, pb)
    else:
        r = _branch_and_bound(a, b, h, tol)
    # numeric compositions bound their own floating-point error η in R: widen by η_A + η_B
    eta = float(a.numerical_error) + float(b.numerical_error) + _FP_SLACK
    return DeltaResult(r.value, max(0.0, r.lower - eta), r.upper + eta, r.pi, r.certified)


def _delta_pairs(pa, pb) -> DeltaResult:
    (a_pess, a_opt), (b_pess, b_opt) = pa, pb
    lower, pi = delta_between_pairs(a_pess, b_opt)
    if a_pess is a_opt and b_pess is b_opt:
        return DeltaResult(lower, lower, lower, pi)
    upper, pi_u = delta_between_pairs(a_opt, b_pess)
    upper = max(upper, lower)
    if lower <= 0.0:
        pi = pi_u
    return DeltaResult(0.5 * (lower + upper), lower, upper, pi)


def _initial_grid() -> np.ndarray:
    return np.unique(np.concatenate([[0.0, 1.0], np.linspace(0.0, 1.0, 65), expit(np.linspace(-60.0, 60.0, 97))]))


def _interval_upper(x, alo, ahi, blo):
    """Exact max over each [xₖ, xₖ₊₁] of U_A(x) − L_B(x) (step 2b), vectorised over intervals."""
    n = x.size - 1
    xl = x[:-1]
    h = np.diff(x)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        sb = (blo[1:] - blo[:-1]) / h  # chord of R_B's lower values
        slope = np.empty((4, n))
        icept = np.empty((4, n))  # value of each line at xₖ
        # forward extension of the previous interval's secant (valid for x ≥ xₖ); none on the first
        slope[0, 0] = np.inf
        slope[0, 1:] = (ahi[1:-1] - alo[:-2]) / (x[1:-1] - x[:-2])
        icept[0] = ahi[:-1]
        # backward extension of the next interval's secant (valid for x ≤ xₖ₊₁); none on the last
        slope[1, :-1] = (alo[2:] - ahi[1:-1]) / (x[2:] - x[1:-1])
        slope[1, -1] = -np.inf
        icept[1] = ahi[1:] - slope[1] * h
        icept[1, -1] = np.inf
        slope[2], icept[2] = 1.0, xl  # R ≤ π
        slope[3], icept[3] = -1.0, 1.0 - xl  # R ≤ 1 − π
        icept[0, 0] = np.inf
        finite = np.isfinite(slope)
        slope = np.where(finite, slope, 0.0)
        # candidate offsets t ∈ [0, h]: the ends and all pairwise intersections
        i, j = np.triu_indices(4, 1)
        t = (icept[j] - icept[i]) / (slope[i] - slope[j])
        t = np.where(np.isfinite(t), np.clip(t, 0.0, h), 0.0)
        t = np.vstack([np.zeros(n), h, t])  # (8, n)
        u = np.min(icept[:, None, :] + slope[:, None, :] * t[None, :, :], axis=0)  # (8, n)
        return np.max(u - (blo[:-1] + sb * t), axis=0)


class _Folded:
    """Ψ̃(π) = max(Ψ(π), Ψ(1−π)) on [0, ½] (step 2c)."""

    def __init__(self, h: HyperPrior) -> None:
        self.h = h
        self.r = h.reflected()
        self.certified = h.certified

    def density(self, x):
        return np.maximum(self.h.density(x), self.r.density(x))

    def extremes(self, left, right):
        lo1, hi1 = self.h.extremes(left, right)
        lo2, hi2 = self.r.extremes(left, right)
        return np.maximum(lo1, lo2), np.maximum(hi1, hi2)

    def tail_bound(self, eps: float) -> float:
        return self.h.tail_bound(eps)


def _bounds(m: Mechanism, x: np.ndarray):
    lo, hi = m._bayes_error_bounds(x)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def _branch_and_bound(a: Mechanism, b: Mechanism, h: HyperPrior | None, tol: float, max_points: int = 400_000) -> DeltaResult:
    x = np.union1d(_initial_grid(), np.concatenate([a.bayes_error_kinks(), b.bayes_error_kinks()]))
    if h is not None:
        h = _Folded(h)
        x = np.unique(np.clip(x, _PI_MIN, 0.5))
    alo, ahi = _bounds(a, x)
    blo, bhi = _bounds(b, x)
    exact = a.exact and b.exact
    for _ in range(400):
        w = None if h is None else h.density(x)
        d_lo = alo - bhi if w is None else w * (alo - bhi)
        k_best = int(np.argmax(d_lo))
        lower = max(float(d_lo[k_best]), 0.0)
        ub = _interval_upper(x, alo, ahi, blo)
        if h is not None:
            wmin, wmax = h.extremes(x[:-1], x[1:])
            ub = np.where(ub >= 0, ub * wmax, ub * wmin)
        # point-wise uppers: refining cannot go below the brackets of the mechanisms themselves
        d_hi = ahi - blo if w is None else w * (ahi - blo)
        point_ub = np.maximum(d_hi[:-1], d_hi[1:])
        upper = max(lower, float(np.max(ub)), float(np.max(d_hi)))
        slack = ub - point_ub
        split = (ub > lower + tol) & (slack > 0.25 * tol) & (np.diff(x) > 4e-16 * np.maximum(x[1:], 1e-300))
        if upper - lower <= tol or not np.any(split) or x.size > max_points:
            break
        xl, xr = x[:-1][split], x[1:][split]
        geo = (xl > 0) & (xr > 4 * xl) & (xr <= 0.5)
        mid = np.where(geo, np.sqrt(xl * np.where(geo, xr, 1.0)), 0.5 * (xl + xr))
        geo_hi = (xl >= 0.5) & ((1 - xl) > 4 * (1 - xr)) & (xr < 1)
        mid = np.where(geo_hi, 1 - np.sqrt((1 - xl) * np.where(geo_hi, 1 - xr, 1.0)), mid)
        na_lo, na_hi = _bounds(a, mid)
        nb_lo, nb_hi = _bounds(b, mid)
        order = np.argsort(np.concatenate([x, mid]), kind="stable")
        x = np.concatenate([x, mid])[order]
        alo = np.concatenate([alo, na_lo])[order]
        ahi = np.concatenate([ahi, na_hi])[order]
        blo = np.concatenate([blo, nb_lo])[order]
        bhi = np.concatenate([bhi, nb_hi])[order]
    if h is not None:
        upper = max(upper, h.tail_bound(_PI_MIN))
    pi = float(x[k_best]) if lower > 0 else 0.0
    if h is not None and lower > 0 and h.r.density(np.asarray(pi)) > h.h.density(np.asarray(pi)):
        pi = 1.0 - pi  # the folded search found the mirror image of the maximiser
    if exact:
        value = lower
    else:
        w = 1.0 if h is None else h.density(x)
        mid_d = w * (0.5 * (alo + ahi) - 0.5 * (blo + bhi))
        value = float(min(max(float(np.max(mid_d)), lower), upper))
    certified = h is None or h.certified
    return DeltaResult(value, lower, upper, pi, certified)
