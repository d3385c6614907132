"""The Lévy distance between the W-laws of two mechanisms ([BCP] Lemma B.1, eq 31–35).

A mechanism with trade-off function f is tightly dominated by (U, W), U uniform on [0, 1] and W with
CDF F_W(x) = f(1 − x) (Lemma B.1, eq 31). The Lévy distance (eq 32)

    Λ(W, W′) = inf{λ ≥ 0 : ∀x  F_W(x − λ) − λ ≤ F_W′(x) ≤ F_W(x + λ) + λ}

equals Δ↔(M‖M̃) (Lemma B.1, eq 35). It is computed here from the trade-off functions alone, by the
classical geometric form of the Lévy distance: it is the largest horizontal (equivalently vertical)
gap between the completed graphs of the two CDFs measured along the lines x + y = c. On the graph
of F_W the point (1 − α, f(α)) lies on x + y = c iff f(α) − α = c − 1, so with

    α_f(s) = sup{α ∈ [0, 1] : f(α) − α ≥ s}   (f(α) − α is strictly decreasing)

    Λ = sup_{s ∈ [−1, 1]} |α_f(s) − α_f̃(s)|.

Certification: α_f(s) is bracketed by bisection on the certified bounds f_lo ≤ f ≤ f_hi; each α(s)
is non-increasing in s, so on [sⱼ, sⱼ₊₁] the gap is at most max(α_f(sⱼ) − α_f̃(sⱼ₊₁), α_f̃(sⱼ) −
α_f(sⱼ₊₁)); intervals whose bound exceeds the best certified gap by more than ``tol`` are bisected.

>>> import dpcompare as dc
>>> r = dc.levy_distance(dc.Gaussian(mu=1), dc.Laplace(b=1))
>>> round(r.value, 6), r.upper - r.lower <= 1e-7
(0.034139, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._limits import check_memory
from .._summary import summarized
from .._validation import check_integer
from ..mechanisms.base import Mechanism
from .certified import UpperBracketed
from .delta import check_mechanisms, check_tolerance
from .prior_sweep import insert_points

#: working memory per sampled level (measured 163: docs/edges.md)
LEVY_BYTES_PER_POINT = 200

_BISECTIONS = 56  # 2⁻⁵⁶ < 1.4e-17: α located to below double-precision spacing on [0, 1]


@summarized("Lévy distance of the W-laws ([BCP] Lemma B.1), certified lower ≤ value ≤ upper")
@dataclass(frozen=True)
class LevyDistance(UpperBracketed):
    """Λ(W, W′) with a certified bracket lower ≤ Λ ≤ upper and the level s = f(α) − α where it is attained."""

    value: float
    lower: float
    upper: float
    s: float


def _alpha_of_s(f, s: np.ndarray) -> np.ndarray:
    """sup{α ∈ [0, 1] : f(α) − α ≥ s} by vectorised bisection (f non-increasing, so f(α) − α decreasing)."""
    lo = np.zeros_like(s)
    hi = np.ones_like(s)
    ok0 = f(lo) - lo >= s  # otherwise the sup is over an empty set: α = 0 (a vertical jump of the CDF)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        up = f(mid) - mid >= s
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    return np.where(ok0, lo, 0.0), np.where(ok0, hi, 0.0)


def _alpha_bracket(m: Mechanism, s: np.ndarray):
    """[α_lo(s), α_hi(s)] ∋ α_f(s): from f_lo (lower α) and f_hi (upper α)."""
    a_lo, a_hi = _alpha_of_s(lambda a: m.tradeoff_bounds(a)[0], s)
    if not m.exact:
        _, a_hi = _alpha_of_s(lambda a: m.tradeoff_bounds(a)[1], s)
    return a_lo, a_hi


def levy_distance(a: Mechanism, b: Mechanism, *, tol: float = 1e-7, max_points: int = 30_000) -> LevyDistance:
    """Lévy distance Λ(W_A, W_B) between the W-laws of Lemma B.1 ([BCP]), equal to Δ↔(A‖B).

    See the module docstring for the method; ``tol`` is the absolute width asked of the bracket (the
    bounds between sampled levels are first order, so the default is 1e-7, not 1e-12 like Δ).
    """
    check_mechanisms(a, b)
    tol = check_tolerance(tol)
    # 163 bytes per level measured (docs/edges.md): refused up front, not by numpy gigabytes later
    max_points = check_memory("max_points", check_integer("max_points", max_points, minimum=257), LEVY_BYTES_PER_POINT)
    s = np.linspace(-1.0, 1.0, 257)
    fa_lo, fa_hi = _alpha_bracket(a, s)
    fb_lo, fb_hi = _alpha_bracket(b, s)
    for _ in range(200):
        gap = np.maximum(fa_lo - fb_hi, fb_lo - fa_hi)  # certified gap at each sⱼ
        k = int(np.argmax(gap))
        lower = max(0.0, float(gap[k]))
        # α non-increasing in s: on [sⱼ, sⱼ₊₁] the gap is below these (upper ends at sⱼ, lower at sⱼ₊₁)
        ub = np.maximum(fa_hi[:-1] - fb_lo[1:], fb_hi[:-1] - fa_lo[1:])
        # and both α's are 1-Lipschitz (dα/ds = 1/(f′ − 1) ∈ [−1, 0]): the gap has slope in [−1, 1]
        hi_gap = np.maximum(np.maximum(fa_hi - fb_lo, fb_hi - fa_lo), 0.0)
        ub = np.minimum(ub, 0.5 * (hi_gap[:-1] + hi_gap[1:] + np.diff(s)))
        upper = max(lower, float(np.max(ub)), float(np.max(np.maximum(fa_hi - fb_lo, fb_hi - fa_lo))))
        split = (ub > lower + tol) & (np.diff(s) > 1e-15)
        if upper - lower <= tol or not np.any(split) or s.size > max_points:
            break
        mid = 0.5 * (s[:-1][split] + s[1:][split])
        s, (fa_lo, fa_hi, fb_lo, fb_hi) = insert_points(
            s, mid, (fa_lo, fa_hi, fb_lo, fb_hi), (*_alpha_bracket(a, mid), *_alpha_bracket(b, mid))
        )
    mid_gap = np.abs(0.5 * (fa_lo + fa_hi) - 0.5 * (fb_lo + fb_hi))
    value = float(min(max(float(np.max(mid_gap)), lower), upper))
    return LevyDistance(value, lower, upper, float(s[k]))
