"""Pairs built from other pairs or from profile bounds, with no dp-accounting involved.

- :func:`bayes_envelope` — the pair whose Bayes error is min_c R_c(π): f = conv(min f_c) (the one lower
  envelope used to join a PLD's REMOVE and ADD directions).
- :func:`profile_bound_pair` — the least informative pair consistent with a privacy-profile *bound*
  δ(εᵢ) ≤ δᵢ at finitely many points (used for RDP/zCDP bounds, which give only such a bound).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._numerics import expit
from ..tradeoff import DiscretePair, Rounding

Component = DiscretePair | tuple[np.ndarray, np.ndarray]


def _arrays(c: Component) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted losses, p, q) of a pair or of raw atoms (loss, log_p) (raw atoms may have Σp > 1)."""
    if isinstance(c, DiscretePair):
        return c.loss, c.p, c.q
    loss, log_p = (np.asarray(v, dtype=float) for v in c)
    order = np.argsort(loss, kind="stable")
    loss, log_p = loss[order], log_p[order]
    return loss, np.exp(log_p), np.exp(np.minimum(log_p + loss, 700.0))


class _Branch:
    """R(π) = π·P(ℓ ≥ λ) + (1−π)·Q(ℓ < λ) of one component (λ = log(π/(1−π))), and its slopes."""

    def __init__(self, c: Component | None):
        if c is None:  # perfectly private: one atom at ℓ = 0 with p = q = 1
            self.loss, self.p, self.q = np.array([0.0]), np.array([1.0]), np.array([1.0])
        else:
            self.loss, self.p, self.q = _arrays(c)
        self.p_tail = np.concatenate([np.cumsum(self.p[::-1])[::-1], [0.0]])
        self.q_head = np.concatenate([[0.0], np.cumsum(self.q)])

    def value(self, lam: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self.loss, lam, side="left")
        return expit(lam) * self.p_tail[k] + expit(-lam) * self.q_head[k]

    def slope(self, lam: np.ndarray, side: str) -> np.ndarray:
        k = np.searchsorted(self.loss, lam, side="right" if side == "right" else "left")
        return self.p_tail[k] - self.q_head[k]


def bayes_envelope(
    components: Sequence[Component], *, include_perfectly_private: bool = False, rounding: Rounding | None = None
) -> DiscretePair:
    """The pair whose Bayes error is min_c R_c(π) (and min(π, 1−π) if ``include_perfectly_private``).

    The lower envelope of concave piecewise-linear functions is concave piecewise linear, 0 at π ∈ {0, 1},
    hence a Bayes error function; its kinks are the components' breakpoints and their pairwise crossings.
    A kink at π with slope drop s is an atom with p = s·(1−π), q = s·π (DESIGN.md §1). Where one
    component is active on both sides of its own atom, the atom keeps its exact masses.
    """
    branches = [_Branch(c) for c in components]
    if include_perfectly_private:
        branches.append(_Branch(None))
    if rounding is None:
        rounding = next((c.rounding for c in components if isinstance(c, DiscretePair)), Rounding.EXACT)
    lam = np.unique(np.concatenate([b.loss for b in branches]))
    vals = np.stack([b.value(lam) for b in branches])
    # pairwise crossings inside the intervals between consecutive breakpoints (both sides linear in π)
    pis = expit(lam)
    cross = []
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            d = vals[i] - vals[j]
            s = np.flatnonzero(((d[:-1] < 0) & (d[1:] > 0)) | ((d[:-1] > 0) & (d[1:] < 0)))
            t = d[s] / (d[s] - d[s + 1])
            pc = pis[s] + t * (pis[s + 1] - pis[s])
            inside = (pc > pis[s]) & (pc < pis[s + 1])
            cross.append(np.log(pc[inside]) - np.log1p(-pc[inside]))
    points = np.unique(np.concatenate([lam, *cross])) if cross else lam
    # active branch on each open interval: the argmin at interval midpoints (len(points)+1 intervals)
    inner = 0.5 * (points[:-1] + points[1:])
    mids = np.concatenate([[points[0] - 1.0], inner, [points[-1] + 1.0]])
    active = np.argmin(np.stack([b.value(mids) for b in branches]), axis=0)
    left, right = active[:-1], active[1:]
    slope_left = np.choose(left, [b.slope(points, "left") for b in branches])
    slope_right = np.choose(right, [b.slope(points, "right") for b in branches])
    drop = np.maximum(slope_left - slope_right, 0.0)
    log_p = np.full(points.size, -np.inf)
    with np.errstate(divide="ignore"):
        log_p_drop = np.log(drop) + np.log(expit(-points))
    log_p[:] = log_p_drop
    # exact masses where the same branch is active on both sides of one of its own atoms
    for bi, b in enumerate(branches):
        same = (left == bi) & (right == bi)
        if not np.any(same):
            continue
        k = np.searchsorted(b.loss, points[same])
        kk = np.minimum(k, b.loss.size - 1)
        hit = (k < b.loss.size) & (b.loss[kk] == points[same])
        idx = np.flatnonzero(same)[hit]
        with np.errstate(divide="ignore"):
            log_p[idx] = np.log(b.p[kk[hit]])
    keep = np.isfinite(log_p)
    # masses at ±∞ are the deficits (= 1 − end slopes in exact arithmetic)
    return DiscretePair(points[keep], log_p[keep], None, None, rounding)


# ---------------------------------------------------------------------------------------------- profile bound
def profile_bound_pair(eps: Sequence[float], delta: Sequence[float]) -> DiscretePair:
    """The pessimistic pair of a profile bound: δ(εᵢ) ≤ δᵢ for each i (εᵢ ≥ 0, δᵢ ∈ [0, 1]).

    Each point gives f(α) ≥ f_{εᵢ,δᵢ}(α) = max(0, 1 − δᵢ − e^{εᵢ}α, e^{−εᵢ}(1 − δᵢ − α)) for the symmetric
    trade-off f (Dong, Roth & Su, "Gaussian differential privacy", 2022, Prop 2.5 and Prop 2.12: a
    symmetric f is (ε, δ(ε))-DP for all ε iff it lies above every f_{ε,δ(ε)}), so f is above the upper
    envelope g = max_i f_{εᵢ,δᵢ}, a convex piecewise-linear trade-off function. The returned pair is g's
    (DESIGN.md §1: segment k → atom pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(−slopeₖ)); it is at least as
    informative as the truth, so every view computed from it errs towards less privacy.

    >>> pair = profile_bound_pair([0.0, 1.0], [0.5, 0.1])
    >>> bool(pair.delta(1.0) <= 0.1 + 1e-12 and pair.delta(0.0) <= 0.5 + 1e-12)
    True
    """
    e = np.asarray(eps, dtype=float).ravel()
    d = np.asarray(delta, dtype=float).ravel()
    if e.size == 0 or e.size != d.size:
        raise ValueError("eps and delta must be non-empty and of the same length")
    if np.any(~np.isfinite(e)) or np.any(e < 0):
        raise ValueError("eps must be finite and >= 0")
    if np.any(~(d >= 0)) or np.any(d > 1):
        raise ValueError("delta must be in [0, 1]")
    # lines β = a + s·α: slope −e^ε with intercept 1 − δ, slope −e^{−ε} with intercept e^{−ε}(1 − δ), and β = 0
    slope = np.concatenate([-np.exp(e), -np.exp(-e), [0.0]])
    inter = np.concatenate([1.0 - d, np.exp(-e) * (1.0 - d), [0.0]])
    alpha, beta = _upper_envelope(slope, inter)
    dp, dq = np.diff(alpha), -np.diff(beta)
    seg = (dp > 0) & (dq > 0)
    with np.errstate(divide="ignore"):
        loss = np.log(dq[seg]) - np.log(dp[seg])
        log_p = np.log(dp[seg])
    q_pos_inf = max(0.0, 1.0 - float(beta[0]))
    p_neg_inf = float(np.sum(dp[~seg]))  # flat pieces β = 0: P-mass where Q has none
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=p_neg_inf, q_pos_inf=q_pos_inf, rounding=Rounding.PESSIMISTIC)


def _upper_envelope(slope: np.ndarray, inter: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (α, β) on [0, 1] of max_k (inter_k + slope_k·α), a convex piecewise-linear function."""
    order = np.lexsort((-inter, slope))  # slope ascending; for equal slopes the highest line first
    hull: list[int] = []
    for k in order:
        if hull and slope[hull[-1]] == slope[k]:
            continue  # same slope, lower (or equal) intercept: never on the upper envelope
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            # j is useless if i and k cross at or before where i and j cross (convex-hull trick)
            x_ij = (inter[i] - inter[j]) / (slope[j] - slope[i])
            x_ik = (inter[i] - inter[k]) / (slope[k] - slope[i])
            if x_ik <= x_ij:
                hull.pop()
            else:
                break
        hull.append(int(k))
    # hull lines in slope order: the steepest is active at α → −∞; walk α from 0 to 1
    xs = [(inter[hull[t]] - inter[hull[t + 1]]) / (slope[hull[t + 1]] - slope[hull[t]]) for t in range(len(hull) - 1)]
    alpha = [0.0]
    for x in xs:
        if 0.0 < x < 1.0:
            alpha.append(float(x))
    alpha.append(1.0)
    a = np.array(alpha)
    b = np.max(inter[:, None] + slope[:, None] * a[None, :], axis=0)
    b = np.clip(b, 0.0, 1.0)
    return a, b
