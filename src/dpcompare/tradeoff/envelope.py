"""The one lower envelope: the pair whose Bayes error is the minimum of several, f = conv(min fᵢ).

Every symmetrisation (f_sym = conv(min(f, f⁻¹)), Dong, Roth & Su, "Gaussian differential privacy",
Prop F.2), every join of a PLD's REMOVE and ADD directions and the certified optimistic pair of a
dp-accounting pmf go through the envelope's kink construction (``_kinks``): :func:`lower_envelope`
for several components, :func:`symmetrize` for a pair and its swap (only the half λ ≤ 0 it keeps).
The one exception is the without-replacement accountant's ``_mirror`` (composition/wor.py), which
mirrors a pessimistic profile on ε ≥ 0 directly.

The mathematics ([BCP] eq 2). Each component c is a pair whose Bayes error is, on
each interval between consecutive privacy losses λ = log(π/(1−π)),

    R_c(π) = π·A_c + (1−π)·B_c,   A_c = P_c(ℓ ≥ λ) (a tail sum),  B_c = Q_c(ℓ < λ) (a head sum),

linear in π. The envelope E(π) = min_c R_c(π) is concave, piecewise linear and 0 at π ∈ {0, 1}, so
it is the Bayes error of a pair; its kinks are the components' breakpoints and the crossings of two
components inside an interval, λ* = log(B_d − B_c) − log(A_c − A_d). Because the representation
π·A + (1−π)·B of a linear function is unique, on every interval the envelope pair's own tail and head
sums *are* the active component's A and B. Its atoms are therefore the differences

    p_k = A(left of k) − A(right of k),   q_k = B(right of k) − B(left of k),   ℓ_k = log(q_k/p_k),

which telescope: Σp_k = A(leftmost interval) ≤ 1 and Σq_k = B(rightmost interval) ≤ 1 by
construction, whatever the rounding — the earlier linear-space slope-drop construction could exceed 1
(issue "Sound on the whole parameter domain": P-mass 1.0000000012, Q-mass 1.17). Everything is done
in log space (log tail and head sums, log R), so atoms with masses of e^{−5000} and priors with
1 − π = e^{−5000} keep their values. Where one component is active on both sides of one of its own
atoms, the atom keeps its exact masses; ℓ_k = log q_k − log p_k places a switching atom where its
masses say, so the result is a valid pair even where the differences carry rounding (the move is of
the order of that rounding).

Example
-------
>>> from dpcompare.tradeoff import DiscretePair
>>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])     # randomized response, ε = log 3
>>> pp = DiscretePair.from_masses([1.0], [1.0])                   # perfectly private
>>> env = lower_envelope([rr, pp])
>>> float(env.bayes_error(0.5)), float(rr.bayes_error(0.5))
(0.25, 0.25)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .._numerics import logsubexp
from .pair import DiscretePair, Rounding, log_tail_sums

#: Two components whose log Bayes errors differ by less than this on an interval are tied there; the
#: component active on the previous interval stays active (no switching atoms made of rounding noise).
_LOG_TIE = 1e-13

#: raw atoms (loss, log_p) — a measure that need not be a pair (Σp may exceed 1) — or a pair
Component = DiscretePair | tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _Branch:
    """One component's atoms with its log tail sums A and log head sums B (length n + 1)."""

    loss: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    log_a: np.ndarray  # log_a[k] = log Σ_{i ≥ k} pᵢ
    log_b: np.ndarray  # log_b[k] = log Σ_{i < k} qᵢ
    p_neg_inf: float | None  # None: the deficit 1 − Σp (raw atoms)
    q_pos_inf: float | None

    @property
    def ends(self) -> tuple[float, float]:
        """(P-mass at −∞, Q-mass at +∞): the stored values, or the deficits of raw atoms."""
        p_inf = max(0.0, -math.expm1(self.log_a[0])) if self.p_neg_inf is None else self.p_neg_inf
        q_inf = max(0.0, -math.expm1(self.log_b[-1])) if self.q_pos_inf is None else self.q_pos_inf
        return p_inf, q_inf

    @classmethod
    def of(cls, c: Component | None) -> "_Branch":
        if c is None:  # the perfectly private pair: one atom at ℓ = 0 with p = q = 1
            loss, log_p, log_q, p_inf, q_inf = np.zeros(1), np.zeros(1), np.zeros(1), 0.0, 0.0
        elif isinstance(c, DiscretePair):
            return cls(c.loss, c.log_p, c.log_q, *c._log_tails, c.p_neg_inf, c.q_pos_inf)
        else:
            loss, log_p = (np.asarray(v, dtype=float).ravel() for v in c)
            order = np.argsort(loss, kind="stable")
            loss, log_p = loss[order], log_p[order]
            log_q, p_inf, q_inf = log_p + loss, None, None
        return cls(loss, log_p, log_q, *log_tail_sums(log_p, log_q), p_inf, q_inf)

    def coefficients(self, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log A, log B) on the interval whose right end is λ (λ = +inf: the last interval)."""
        k = np.searchsorted(self.loss, lam, side="left")
        return self.log_a[k], self.log_b[k]


def _log_r_scaled(log_a: np.ndarray, log_b: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """log R − log max(π, 1−π) = log(A + e^{−λ}B) for λ ≤ 0 and log(e^{λ}A + B) for λ > 0: the same order
    between components at one λ as log R, without the common term log π (or log(1−π)), which at
    λ = −5e5 is −5e5 and made the relative tie tolerance of 1e-13 swallow a difference of 5e-8 in log A
    (deep harness: ``SubsampledGaussian(0.001, 1e-9, 223)``, atoms at ±5e5, whose pessimistic pair has
    q₊∞ = 1.9e-9; the branch with the larger A stayed active at λ → −∞ and the symmetrised P-mass came to
    1 + 1.9e-9)."""
    neg = lam <= 0
    return np.where(neg, np.logaddexp(log_a, log_b - np.where(neg, lam, 0.0)),
                    np.logaddexp(log_a + np.where(neg, 0.0, lam), log_b))


def _crossings(bi: _Branch, bj: _Branch, points: np.ndarray) -> np.ndarray:
    """Log-odds where R_i = R_j strictly inside an interval between consecutive points.

    On one interval R_i − R_j = π(A_i − A_j) + (1−π)(B_i − B_j) vanishes at
    π/(1−π) = (B_j − B_i)/(A_i − A_j), which needs both differences of one strict sign.
    """
    right = np.append(points, np.inf)
    ai, bbi = bi.coefficients(right)
    aj, bbj = bj.coefficients(right)
    with np.errstate(invalid="ignore"):  # −inf − (−inf): both sums empty, no difference (sign 0)
        sa = np.nan_to_num(np.sign(ai - aj))
        sb = np.nan_to_num(np.sign(bbj - bbi))
    cross = (sa == sb) & (sa != 0)
    if not np.any(cross):
        return np.empty(0)
    hi_a, lo_a = np.maximum(ai, aj)[cross], np.minimum(ai, aj)[cross]
    hi_b, lo_b = np.maximum(bbi, bbj)[cross], np.minimum(bbi, bbj)[cross]
    lam = logsubexp(hi_b, lo_b) - logsubexp(hi_a, lo_a)
    left = np.concatenate([[-np.inf], points])[cross]
    inside = (lam > left) & (lam < right[cross])
    return lam[inside]


def lower_envelope(
    components: Sequence[Component], *, include_perfectly_private: bool = False, rounding: Rounding | None = None
) -> DiscretePair:
    """The pair whose Bayes error is min_c R_c(π) (and min(π, 1−π) if ``include_perfectly_private``).

    f = conv(min_c f_c) (module docstring for the construction). Components are pairs or
    raw atoms ``(loss, log_p)`` of a measure that need not be a pair (Σp may exceed 1, as in an
    optimistic dp-accounting pmf); with the perfectly private branch included the result is a pair.
    ``rounding`` defaults to that of the first pair among the components.

    >>> from dpcompare.tradeoff import DiscretePair
    >>> a = DiscretePair.from_masses([0.5, 0.5, 0.0], [0.1, 0.4, 0.5])
    >>> env = lower_envelope([a, a.swap()])
    >>> import numpy as np
    >>> pi = np.linspace(0, 1, 11)
    >>> bool(np.allclose(env.bayes_error(pi), np.minimum(a.bayes_error(pi), a.bayes_error(1 - pi))))
    True
    """
    branches = [_Branch.of(c) for c in components]
    if include_perfectly_private:
        branches.append(_Branch.of(None))
    if not branches:
        raise ValueError("lower_envelope needs at least one component")
    if rounding is None:
        rounding = next((c.rounding for c in components if isinstance(c, DiscretePair)), Rounding.EXACT)
    points = np.unique(np.concatenate([b.loss for b in branches]))
    cross = [_crossings(branches[i], branches[j], points) for i in range(len(branches)) for j in range(i + 1, len(branches))]
    kinks = _kinks(branches, np.unique(np.concatenate([points, *cross])))
    atom = np.isfinite(kinks.log_p) & np.isfinite(kinks.log_q)
    loss = np.where(kinks.same[atom], kinks.points[atom], kinks.log_q[atom] - kinks.log_p[atom])
    # as π → 0 every R_c ≈ π·(1 − p₋∞,c), as π → 1 every R_c ≈ (1 − π)(1 − q₊∞,c): the envelope keeps the
    # largest mass at each end (taken from the values, not from the active branch, whose choice among
    # ends equal as doubles — 1 − 1e-55 and 1 − 1e-17 — would drop a certified tail mass)
    ends = [b.ends for b in branches]
    return DiscretePair.from_atoms(
        loss, kinks.log_p[atom], p_neg_inf=max(e[0] for e in ends), q_pos_inf=max(e[1] for e in ends),
        rounding=rounding, log_q=kinks.log_q[atom],
    )


@dataclass(frozen=True)
class _Kinks:
    """The envelope's kinks: at each point its log masses (−inf: no atom), and whether one component is
    active on both sides (then the masses are that component's own atom, exactly)."""

    points: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    same: np.ndarray
    log_a: np.ndarray  # log A of the active component on each interval (interval k ends at points[k])
    log_b: np.ndarray  # log B likewise


def _kinks(branches: list[_Branch], points: np.ndarray, slope_ties_upto: int | None = None) -> _Kinks:
    """Atoms of the envelope at the given points, which must include every breakpoint and crossing.

    ``slope_ties_upto = k``: on the run of intervals ending with interval k on which the components are
    tied in R (to rounding), the one with the largest slope dR/dπ = A − B is active — the lower one
    left of a crossing at the end of interval k (used by :func:`symmetrize`, whose branches cross at
    π = ½)."""
    # interval k (k = 0 … n) ends at right[k]; its coefficients and an interior log-odds per component
    right = np.append(points, np.inf)
    if points.size:
        inner = np.concatenate([[points[0] - 1.0], 0.5 * (points[:-1] + points[1:]), [points[-1] + 1.0]])
    else:
        inner = np.zeros(1)
    coef = [b.coefficients(right) for b in branches]
    log_r = np.stack([_log_r_scaled(a, bb, inner) for a, bb in coef])
    active = _sticky_argmin(log_r)
    if slope_ties_upto is not None:
        k = slope_ties_upto + 1
        slopes = np.stack([np.exp(a[:k]) - np.exp(bb[:k]) for a, bb in coef])
        near = _near_minimum(log_r[:, :k])
        tied = near.sum(axis=0) > 1
        # only the run of tied intervals that ends at interval k − 1 (next to the crossing)
        start = int(np.flatnonzero(~tied)[-1]) + 1 if np.any(~tied) else 0
        by_slope = np.argmax(np.where(near, slopes, -np.inf), axis=0)
        active[start:k] = by_slope[start:]
    idx = np.arange(right.size)
    log_a = np.stack([a for a, _ in coef])[active, idx]
    log_b = np.stack([bb for _, bb in coef])[active, idx]
    left_c, right_c = active[:-1], active[1:]
    # switching points: masses from the differences of the tail (head) sums, which telescope
    with np.errstate(invalid="ignore"):
        drop_p = log_a[:-1] > log_a[1:]
        rise_q = log_b[1:] > log_b[:-1]
    log_p = np.where(drop_p, logsubexp(log_a[:-1], np.minimum(log_a[1:], log_a[:-1])), -np.inf)
    log_q = np.where(rise_q, logsubexp(log_b[1:], np.minimum(log_b[:-1], log_b[1:])), -np.inf)
    # one component on both sides: its own atom there (exact masses), or none
    same = left_c == right_c
    for ci, b in enumerate(branches):
        sel = np.flatnonzero(same & (left_c == ci))
        if sel.size == 0:
            continue
        if b.loss.size == 0:
            log_p[sel] = log_q[sel] = -np.inf
            continue
        k = np.searchsorted(b.loss, points[sel])
        kk = np.minimum(k, b.loss.size - 1)
        hit = (k < b.loss.size) & (b.loss[kk] == points[sel])
        log_p[sel] = np.where(hit, b.log_p[kk], -np.inf)
        log_q[sel] = np.where(hit, b.log_q[kk], -np.inf)
    return _Kinks(points, log_p, log_q, same, log_a, log_b)


def _sticky_argmin(log_r: np.ndarray) -> np.ndarray:
    """Index of the smallest row per column; where the smallest is tied (within _LOG_TIE relative)
    with the component active on the previous interval, that component stays active."""
    best = np.argmin(log_r, axis=0)
    if log_r.shape[0] == 1:
        return best
    cols = np.arange(log_r.shape[1])
    near = _near_minimum(log_r)
    strict = near.sum(axis=0) == 1
    last = np.maximum.accumulate(np.where(strict, cols, -1))  # the last interval with a clear winner
    carried = np.where(last >= 0, best[np.maximum(last, 0)], 0)
    return np.where(near[carried, cols], carried, best)


def _near_minimum(log_r: np.ndarray) -> np.ndarray:
    """Per column, the components whose log R is within _LOG_TIE (relative) of the smallest."""
    lo = np.min(log_r, axis=0)
    return log_r <= lo + _LOG_TIE * np.maximum(1.0, np.abs(lo))


def symmetrize(pair: DiscretePair) -> DiscretePair:
    """The pair of f_sym = conv(min(f, f⁻¹)): R_sym(π) = min(R(π), R(1−π)) (Dong, Roth & Su 2022, Prop F.2).

    The envelope of f and f⁻¹ (module docstring) is built on λ < 0 only and mirrored ((ℓ, p, q) ↦
    (−ℓ, q, p), p₋∞ = q₊∞), so the result is symmetric to the last bit. At λ = 0 the active branch
    switches to its mirror image, so the atom there has p₀ = q₀ = A(0⁻) − B(0⁻) (the slope drop
    2(A − B) times ½), and the P-mass telescopes to A(λ → −∞) + p₋∞ = 1 exactly. (Choosing each side
    separately does not work: near π = ½ the two branches may differ by 1e-15 in R while their atoms
    differ by 1e-3 in mass, so a tie broken differently on the two sides unbalances the halves.)

    >>> from dpcompare.tradeoff import DiscretePair
    >>> a = DiscretePair.from_masses([0.5, 0.5, 0.0], [0.1, 0.4, 0.5])
    >>> s = symmetrize(a)
    >>> bool(s.is_symmetric), round(float(s.delta(0.0)), 12)
    (True, 0.5)
    """
    if pair.is_symmetric:
        return pair
    a, b = _Branch.of(pair), _Branch.of(pair.swap())
    # only the half λ ≤ 0 is built (the other is its mirror image): kinks, crossings and the sticky choice
    # of the active branch on an interval depend only on the intervals to its left
    points = np.unique(np.concatenate([a.loss[a.loss < 0.0], b.loss[b.loss < 0.0], [0.0]]))
    # R(π) − R(1−π) vanishes at π = ½ and is linear between breakpoints, so a crossing computed inside
    # the interval ending at λ = 0 is rounding of the one at 0 (it would vanish on the whole interval)
    z = int(np.searchsorted(points, 0.0))
    cross = _crossings(a, b, points)
    cross = cross[cross <= (points[z - 1] if z > 0 else -np.inf)]
    points = np.unique(np.concatenate([points, cross]))
    # Left of λ = 0, where R and its mirror image are tied to rounding, the branch with the larger slope
    # A − B is the lower one (they cross at π = ½; at 0⁻ this gives A ≥ B, i.e. p₀ ≥ 0, since
    # (A_a − B_a) + (A_b − B_b) = p₀ + q₀ ≥ 0). R alone cannot tell: with losses of 1e-13 the two R
    # differ by 1e-15 while their masses differ by 2 %, and a tie broken the other way left the
    # mirrored halves with P-mass 1.0186 (deep harness: SubsampledGaussian(1000, 1e-12, 617)).
    z = int(np.searchsorted(points, 0.0))  # the interval ending at λ = 0
    kinks = _kinks([a, b], points, slope_ties_upto=z)
    neg = (kinks.points < 0) & np.isfinite(kinks.log_p) & np.isfinite(kinks.log_q)
    loss = np.where(kinks.same[neg], kinks.points[neg], kinks.log_q[neg] - kinks.log_p[neg])
    lp, lq = kinks.log_p[neg], kinks.log_q[neg]
    a0, b0 = kinks.log_a[z], kinks.log_b[z]
    l0 = np.array([float(logsubexp(a0, b0))]) if a0 > b0 else np.empty(0)
    ends = max(pair.p_neg_inf, pair.q_pos_inf)  # f_sym keeps the larger mass at ±∞ (see lower_envelope)
    return DiscretePair.from_atoms(
        np.concatenate([loss, np.zeros(l0.size), -loss]), np.concatenate([lp, l0, lq]),
        p_neg_inf=ends, q_pos_inf=ends, rounding=pair.rounding, log_q=np.concatenate([lq, l0, lp]),
    )
