"""Trade-off function algebra on the exact discrete representation ([MIX] App. A, eq 3).

Every operation takes and returns :class:`~dpcompare.tradeoff.DiscretePair` values: a discrete pair
*is* a piecewise-linear convex trade-off function f = T(P, Q), so each operation
below is exact (closed sums over the atoms), and each keeps the pair's ``Rounding``: all of them are
monotone in f (a smaller input curve gives a smaller output curve), so a pessimistic input gives a
pessimistic output.

Notation: Id(x) = 1 − x is the trade-off function of two identical distributions; an atom of a pair
has privacy loss ℓ = log(q/p), P-mass p and Q-mass q; x̄ = inf{x : −1 ∈ ∂f(x)} = P(ℓ > 0).

=============================  ================================================================
operation                      formula
=============================  ================================================================
``inverse``                    f⁻¹(x) = inf{t : f(t) ≤ x} = T(Q, P)   (swap P and Q, ℓ ↦ −ℓ)
``conjugate``                  f*(y) = sup_x (x·y − f(x)) = max over vertices (αₖ·y − βₖ)
``convex_envelope``            f** = the lower convex hull of the graph (Fenchel–Moreau)
``mix_with_identity``          w·Id + (1−w)·f = T(P, w·P + (1−w)·Q)  (pointwise in x)
``swap_mixture``               T((1−w)P + wQ, (1−w)Q + wP)  (the pair of [MIX] App. C)
``symmetrize_eq3``  (C(f))     f on [0, x̄]; x̄ + f(x̄) − x on [x̄, f(x̄)]; f⁻¹ on [f(x̄), 1]  (eq 3)
``symm``                       Def F.1 of Dong et al.: C(f) if x̄ ≤ f(x̄), else max{f, f⁻¹}
``symmetrize_conv_min``        conv(min(f, f⁻¹)) (f_sym; the core's ``symmetrize``)
=============================  ================================================================

[MIX]'s eq 3 prints the middle piece as "x̄ − f(x̄) − x"; continuity at x = x̄ requires
x̄ + f(x̄) − x, which is what is implemented (and tested against the core's symmetrisation).
eq 3 is stated for min{f, f⁻¹}**; it coincides with conv(min(f, f⁻¹)) when f ≤ f⁻¹ on [0, x̄], e.g.
for f = w·Id + (1−w)·g with g *symmetric* — the case of Thm 4.2, Prop 6.4 and Prop E.1 — and is in
general the symmetric trade-off function with the same privacy profile as f for ε ≥ 0 ([MIX]
Lemma A.3). For an asymmetric g the two differ (f⁻¹ can dip below f near 0), and eq 3 is then only
valid where the other ordering's profile is bounded too; the sub-sampling operator therefore
symmetrises an asymmetric component first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..tradeoff import DiscretePair, Rounding
from ._checks import check_weight

#: vertices of a curve may violate convexity / the bounds by this much (floating point)
CURVE_TOLERANCE = 1e-12
#: atoms with |ℓ| below this lie on the slope −1 segment up to rounding (e.g. kinks made by the core's
#: symmetrisation, whose loss is computed as log(Δq/Δp) of an exactly diagonal segment)
ZERO_LOSS = 1e-12


# ---------------------------------------------------------------------------------------------- basics
def identity_pair() -> DiscretePair:
    """The pair (P, P): trade-off Id(x) = 1 − x, one atom at ℓ = 0.

    >>> float(identity_pair().tradeoff(0.25))
    0.75
    """
    return DiscretePair(np.array([0.0]), np.array([0.0]), 0.0, 0.0)


def inverse(pair: DiscretePair) -> DiscretePair:
    """f⁻¹ = T(Q, P) ([MIX] App. A; Dong et al. 2022 §2): swap P and Q.

    Example: randomized response is symmetric, so ``inverse(rr)`` has the same curve.
    """
    return pair.swap()


def vertices(pair: DiscretePair) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (αₖ, βₖ) of f = T(P, Q), α ascending: αₖ = P(ℓ ≥ ℓₖ), βₖ = Q(ℓ < ℓₖ), then (1, 0).

    The first vertex is (0, 1 − q₊∞) (a drop at α = 0 is Q-mass at ℓ = +∞); a final flat piece
    f = 0 on [1 − p₋∞, 1] is P-mass at ℓ = −∞.
    """
    p_desc = pair.p[::-1]
    q_desc = pair.q[::-1]
    alpha = np.concatenate([[0.0], np.cumsum(p_desc)])
    q_tail = np.concatenate([[0.0], np.cumsum(q_desc)])  # Q(ℓ ≥ ℓₖ) without the +∞ atom
    beta = np.maximum(1.0 - pair.q_pos_inf - q_tail, 0.0)  # ≥ 0 up to rounding of the sums
    # the last finite vertex has β = Q(ℓ = −∞) = 0 exactly; rounding of the cumulative sums is the
    # only reason it is not: set the exact value rather than carry a residue of 1e-16
    beta[-1] = 0.0
    alpha = np.append(np.minimum(alpha, 1.0), 1.0)
    beta = np.append(beta, 0.0)
    # equal α (the final (1, 0) when p₋∞ = 0, or an atom whose P-mass underflows): keep the last,
    # lowest β of each run, so that the vertices are strictly increasing in α
    keep = np.concatenate([np.diff(alpha) > 0, [True]])
    return alpha[keep], beta[keep]


def conjugate(pair: DiscretePair, y: Any) -> np.ndarray:
    """Convex conjugate f*(y) = sup_{x∈[0,1]} (x·y − f(x)) ([MIX] App. A, before Lemma A.3).

    f is piecewise linear, so the supremum sits at a vertex: f*(y) = maxₖ (αₖ·y − βₖ). By Lemma A.3
    (Dong et al. Prop 2.12) δ(ε) = 1 + f*(−e^ε) for a symmetric f.

    Example: Id(x) = 1 − x has f*(−e^ε) = −1 for ε ≥ 0 (δ ≡ 0).

    >>> float(conjugate(identity_pair(), -2.0))
    -1.0
    """
    a, b = vertices(pair)
    y = np.asarray(y, dtype=float)
    if np.any(np.isnan(y)):
        raise ValueError("y must be a real number, got nan")
    vals = np.multiply.outer(y, a) - b
    return vals.max(axis=-1)


# ---------------------------------------------------------------------------------------------- curves
def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower convex hull of points (Andrew's monotone chain on the lower side), x ascending."""
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    hx: list[float] = []
    hy: list[float] = []
    for xi, yi in zip(x.tolist(), y.tolist()):
        if hx and xi == hx[-1]:
            continue  # equal x: the first (lowest y) is kept
        while len(hx) >= 2 and (hx[-1] - hx[-2]) * (yi - hy[-2]) - (hy[-1] - hy[-2]) * (xi - hx[-2]) <= 0:
            hx.pop()
            hy.pop()
        hx.append(xi)
        hy.append(yi)
    return np.array(hx), np.array(hy)


def convex_envelope(alpha: Any, beta: Any) -> tuple[np.ndarray, np.ndarray]:
    """f** of a piecewise-linear function given by its vertices: the lower convex hull of its graph.

    By Fenchel–Moreau, f** is the largest convex function below f ([MIX] eq 3 uses it for
    min{f, f⁻¹}**). Returns the hull's vertices.

    >>> convex_envelope([0, 0.5, 1], [1, 0.8, 0])[1].tolist()   # the middle point is not convex
    [1.0, 0.0]
    """
    return _lower_hull(*_vertices(alpha, beta, "alpha and beta must be finite"))


def _vertices(alpha: Any, beta: Any, not_finite: str) -> tuple[np.ndarray, np.ndarray]:
    """The vertices as two flat float arrays of one length ≥ 2, all finite (else ``not_finite``)."""
    a = np.asarray(alpha, dtype=float).ravel()
    b = np.asarray(beta, dtype=float).ravel()
    if a.size != b.size or a.size < 2:
        raise ValueError("alpha and beta must have the same length (at least 2 points)")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError(not_finite)
    return a, b


def pair_from_vertices(
    alpha: Any, beta: Any, *, rounding: Rounding = Rounding.EXACT, tol: float = CURVE_TOLERANCE
) -> DiscretePair:
    """The discrete pair of the convex piecewise-linear trade-off curve through the given vertices.

    Segment k is an atom with pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(qₖ/pₖ); a drop
    1 − f(0) is Q-mass at ℓ = +∞; flat pieces (slope 0) are P-mass at ℓ = −∞.

    Raises ValueError naming the defect if the points are not a trade-off function: α must run from
    0 to 1 (strictly increasing), β must be non-increasing, convex, in [0, 1 − α] and 0 at α = 1.

    >>> pair_from_vertices([0, 0.25, 1], [1, 0.25, 0]).loss.round(4).tolist()   # randomized response, ε = log 3
    [-1.0986, 1.0986]
    """
    a, b = _vertices(alpha, beta, "the vertices of a trade-off function must be finite")
    if a[0] != 0.0 or a[-1] != 1.0:
        raise ValueError(f"the vertices must run from alpha = 0 to alpha = 1, got {a[0]:g} … {a[-1]:g}")
    if np.any(np.diff(a) <= 0):
        raise ValueError("alpha must be strictly increasing")
    if np.any(b < -tol) or np.any(b > 1 + tol):
        raise ValueError("a trade-off function takes values in [0, 1]")
    if abs(b[-1]) > tol:
        raise ValueError(f"a trade-off function has f(1) = 0, got {b[-1]:g}")
    if np.any(np.diff(b) > tol):
        i = int(np.argmax(np.diff(b) > tol))
        raise ValueError(f"a trade-off function is non-increasing, but f({a[i]:g}) = {b[i]:g} < f({a[i + 1]:g}) = {b[i + 1]:g}")
    if np.any(b > 1 - a + tol):
        i = int(np.argmax(b > 1 - a + tol))
        raise ValueError(f"a trade-off function satisfies f(α) ≤ 1 − α, got f({a[i]:g}) = {b[i]:g}")
    dp = np.diff(a)
    dq = np.maximum(-np.diff(b), 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # vertices 1e-300 apart: slopes of ±∞
        slopes = -dq / dp
        bad = np.diff(slopes) < -tol * np.maximum(1.0, np.abs(slopes[1:])) - tol / np.minimum(dp[1:], dp[:-1])
    if np.any(bad):
        i = int(np.argmax(bad)) + 1
        raise ValueError(f"a trade-off function is convex, but its slope decreases at alpha = {a[i]:g}")
    b = np.clip(b, 0.0, None)  # values in [−tol, 0) passed validation: rounding of a zero
    seg = dq > 0
    with np.errstate(divide="ignore"):
        loss = np.log(dq[seg]) - np.log(dp[seg])
        log_p = np.log(dp[seg])
    q_pos_inf = float(min(max(1.0 - b[0], 0.0), 1.0))
    p_neg_inf = float(math.fsum(dp[~seg].tolist()))
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=p_neg_inf, q_pos_inf=q_pos_inf, rounding=rounding)


def evaluate_vertices(alpha: np.ndarray, beta: np.ndarray, x: Any) -> np.ndarray:
    """The piecewise-linear function through the vertices, at x (linear interpolation)."""
    return np.interp(np.asarray(x, dtype=float), alpha, beta)


# ---------------------------------------------------------------------------------------------- mixing
def _log_affine(loss: np.ndarray, a: float) -> np.ndarray:
    """log((1−a) + a·e^ℓ) without overflow or cancellation; exactly 0 at ℓ = 0."""
    loss = np.asarray(loss, dtype=float)
    neg = np.minimum(loss, 0.0)
    pos = np.maximum(loss, 0.0)
    with np.errstate(invalid="ignore"):
        return np.where(loss <= 0, np.log1p(a * np.expm1(neg)), pos + np.log1p((1.0 - a) * np.expm1(-pos)))


def mix_with_identity(pair: DiscretePair, w: float) -> DiscretePair:
    """w·Id + (1−w)·f, pointwise in x, as the exact pair T(P, w·P + (1−w)·Q).

    [MIX] Prop E.1 / Prop 6.4 / Thm 4.2 use this combination (Id(x) = 1 − x). The pair (P, Q') with
    Q' = wP + (1−w)Q has likelihood ratio q'/p = w + (1−w)·q/p, increasing in q/p, so its Neyman–
    Pearson tests are those of (P, Q): at every vertex α is unchanged and β' = w(1 − α) + (1−w)β.
    Atom (p, q) ↦ (p, w·p + (1−w)·q); the P-only atom (ℓ = −∞) moves to ℓ = log w; the Q-only atom
    (ℓ = +∞) keeps (1−w) of its mass.

    Example: ``mix_with_identity(rr, 1.0)`` is Id; with w = ½ randomized response ε = log 3 becomes
    f(α) = ½(1 − α) + ½ f_RR(α).

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> round(float(mix_with_identity(rr, 0.5).tradeoff(0.25)), 12)
    0.5
    """
    w = check_weight("w", w)
    log_p = pair.log_p
    loss = _log_affine(pair.loss, 1.0 - w)  # q'/p = w + (1−w)·e^ℓ
    extra_loss, extra_log_p = [], []
    if pair.p_neg_inf > 0 and w > 0:
        extra_loss.append(math.log(w))
        extra_log_p.append(math.log(pair.p_neg_inf))
    p_neg_inf = pair.p_neg_inf if w == 0 else 0.0
    q_pos_inf = (1.0 - w) * pair.q_pos_inf
    return DiscretePair.from_atoms(
        np.concatenate([loss, extra_loss]),
        np.concatenate([log_p, extra_log_p]),
        p_neg_inf=p_neg_inf,
        q_pos_inf=q_pos_inf,
        rounding=pair.rounding,
    )


def swap_mixture(pair: DiscretePair, w: float) -> DiscretePair:
    """T((1−w)P + wQ, (1−w)Q + wP) for w ∈ [0, ½], exactly ([MIX] App. C, Prop 6.4).

    The likelihood ratio of the mixtures, (w + (1−w)r)/((1−w) + w·r) with r = q/p, is increasing in r
    for w < ½, so atoms keep their order: (p, q) ↦ ((1−w)p + wq, wp + (1−w)q); ±∞ atoms become finite
    atoms at ℓ = ±log((1−w)/w). At w = ½ the two distributions coincide ([MIX] Example F.4: Id).

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> round(float(swap_mixture(rr, 0.25).tradeoff(0.375)), 12)
    0.375
    """
    w = check_weight("w", w, high=0.5)
    mag = np.abs(pair.loss)  # ℓ' = sign(ℓ)·h(|ℓ|): exactly antisymmetric, 0 at ℓ = 0
    new_loss = np.sign(pair.loss) * (_log_affine(mag, 1.0 - w) - _log_affine(mag, w))
    loss, log_p = [new_loss], [pair.log_p + _log_affine(pair.loss, w)]  # p' = p·((1−w) + w·e^ℓ)
    p_neg, q_pos = pair.p_neg_inf, pair.q_pos_inf
    if w > 0:
        edge = math.log1p(-w) - math.log(w)
        if p_neg > 0:
            loss.append(np.array([-edge]))
            log_p.append(np.array([math.log1p(-w) + math.log(p_neg)]))
        if q_pos > 0:
            loss.append(np.array([edge]))
            log_p.append(np.array([math.log(w) + math.log(q_pos)]))
        p_neg, q_pos = 0.0, 0.0
    return DiscretePair.from_atoms(
        np.concatenate(loss), np.concatenate(log_p), p_neg_inf=p_neg, q_pos_inf=q_pos, rounding=pair.rounding
    )


# ---------------------------------------------------------------------------------------------- local DP floor
def _cap_top(pair: DiscretePair, eps0: float) -> DiscretePair:
    """max(f, 1 − e^{ε₀}·α): the atoms above ε₀ (and q₊∞) and part of the next become one atom at ℓ = ε₀."""
    g0 = float(pair.delta(eps0))  # −min_α (f(α) − (1 − e^{ε₀}α)) = δ_f(ε₀), exact on the pair
    if g0 <= 0.0:
        return pair
    m = int(np.searchsorted(pair.loss, eps0, side="right"))  # atoms 0..m−1 have ℓ ≤ ε₀
    # walking down from ℓ = ε₀ (atoms m−1, m−2, …, then the P-only atom at −∞), atom k raises
    # f − line by p_k·(e^{ε₀} − e^{ℓ_k}); the deficit g0 is repaid inside atom m−1−j
    # (both the gains and g0 are divided by e^{ε₀}: the walk is scale-free, and e^{ε₀} overflows from ε₀ ≈ 709.8;
    # g0·e^{−ε₀} rounded or underflowing low repays less, so f is raised less: never above the true maximum)
    gains = np.exp(pair.log_p[:m][::-1]) * -np.expm1(pair.loss[:m][::-1] - eps0)
    if pair.p_neg_inf > 0:
        gains = np.append(gains, pair.p_neg_inf)
    g0 = math.exp(math.log(g0) - eps0)
    cum = np.cumsum(gains)
    j = min(int(np.searchsorted(cum, g0)), cum.size - 1)  # rounding: the total always exceeds g0
    before = cum[j - 1] if j > 0 else 0.0
    theta = min(max((g0 - before) / gains[j], 0.0), 1.0) if gains[j] > 0 else 1.0
    k = m - 1 - j  # ascending index of the partly used atom (−1: the atom at −∞)
    lo = max(k, 0)
    consumed = [pair.log_p[lo + 1 :] if k >= 0 else pair.log_p]  # everything above atom k
    p_neg = pair.p_neg_inf
    if k >= 0:
        part_log_p = pair.log_p[k]
    else:
        part_log_p = math.log(pair.p_neg_inf)
        p_neg = (1.0 - theta) * pair.p_neg_inf
    if theta > 0:
        consumed.append(np.array([part_log_p + math.log(theta)]))
    a1 = float(np.exp(logsumexp(np.concatenate(consumed))))
    loss = [pair.loss[:lo]]
    log_p = [pair.log_p[:lo]]
    if k >= 0 and theta < 1.0:
        loss.append(pair.loss[k : k + 1])
        log_p.append(np.array([part_log_p + math.log1p(-theta)]))
    if a1 > 0:  # ε₀ lies strictly above every kept atom (an atom at ε₀ repays nothing, so it is used up)
        loss.append(np.array([eps0]))
        log_p.append(np.array([math.log(a1)]))
    return DiscretePair(np.concatenate(loss), np.concatenate(log_p), p_neg, 0.0, pair.rounding)


def local_dp_floor(pair: DiscretePair, eps0: float) -> DiscretePair:
    """max(f, f_{ε₀,0}) — a trade-off function raised to the (ε₀, 0)-DP curve where it lies below it.

    f_{ε₀,0}(α) = max(0, 1 − e^{ε₀}·α, e^{−ε₀}·(1 − α)) is the trade-off function of ε₀-DP
    (Dong, Roth & Su, "Gaussian differential privacy", eq 6). If a mechanism is both f-DP and
    ε₀-DP, it is max(f, f_{ε₀,0})-DP: both lower-bound the same T(P, Q), hence so does their
    pointwise maximum, which is again convex, continuous, non-increasing and ≤ 1 − α (a trade-off
    function). Used for the shuffle model: the shuffled reports are a post-processing of the one
    report that depends on the differing record (the other n − 1 do not), so they are ε₀-DP
    (post-processing, Dong, Roth & Su Lemma 2.9), while [MIX] Thm 4.2's bound alone, at small
    n, is not (its +∞ atom gives ε = ∞ for small δ).

    Exact on the pair: with δ_f(ε₀) = sup_α (1 − e^{ε₀}α − f(α)), the atoms with ℓ > ε₀, the mass
    at +∞ and the first θ of the following atoms (descending in ℓ, until the deficit δ_f(ε₀) is
    repaid) become one atom at ℓ = ε₀; the mirror step applies 1 − α ↦ e^{−ε₀}(1 − α) at the other
    end. Monotone in f, so the pair's ``Rounding`` is kept.

    Example: randomized response with ε = log 9 under the ε₀ = log 3 floor is randomized response
    with ε = log 3 — f_RR(log 9) ≤ f_RR(log 3) everywhere, so the maximum is the floor itself.

    >>> rr9 = DiscretePair.from_masses([0.9, 0.1], [0.1, 0.9])
    >>> capped = local_dp_floor(rr9, math.log(3))
    >>> capped.loss.round(6).tolist(), round(float(capped.tradeoff(0.25)), 12)
    ([-1.098612, 1.098612], 0.25)
    """
    if not (isinstance(eps0, (int, float)) and not isinstance(eps0, bool) and math.isfinite(eps0) and eps0 > 0):
        raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
    return _cap_top(_cap_top(pair, eps0).swap(), eps0).swap()


# ---------------------------------------------------------------------------------------------- symmetrisation
def kink_point(pair: DiscretePair) -> tuple[float, float]:
    """(x̄, f(x̄)) with x̄ = inf{x : −1 ∈ ∂f(x)} = P(ℓ > 0) and f(x̄) = Q(ℓ ≤ 0) ([MIX] App. A)."""
    pos = pair.loss > ZERO_LOSS
    x_bar = float(np.exp(logsumexp(pair.log_p[pos]))) if np.any(pos) else 0.0
    q_pos = float(np.exp(logsumexp(pair.log_q[pos]))) if np.any(pos) else 0.0
    return x_bar, max(1.0 - pair.q_pos_inf - q_pos, 0.0)


def symmetrize_eq3(pair: DiscretePair) -> DiscretePair:
    """C(f) of [MIX] eq 3: f on [0, x̄], the slope −1 segment x̄ + f(x̄) − x, then f⁻¹.

    As a pair: the atoms with ℓ > 0 and the mass at +∞ are kept, mirrored (ℓ ↦ −ℓ, p ↔ q), and the
    rest of the mass, m₀ = f(x̄) − x̄, becomes an atom at ℓ = 0 (p = q = m₀). Atoms with
    |ℓ| ≤ 1e-12 count as ℓ = 0 (their contribution to δ(0) is below 1e-12·p). Its privacy profile
    for ε ≥ 0 is that of f ([MIX] Lemma A.3), so it is the C(·) of Thm 4.2 / Prop 6.4 / Prop E.1,
    whose derivations bound δ(ε) for ε ≥ 0 only. O(n), symmetric to the last bit.

    Raises ValueError when x̄ > f(x̄) (then Def F.1 uses max{f, f⁻¹}: see :func:`symm`).

    Example: f = ½·Id + ½·f_RR (ε = log 3) has x̄ = 1/4, f(x̄) = 1/2, so C(f) is f up to 1/4, the
    line 3/4 − x up to 1/2, then f⁻¹.

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> float(symmetrize_eq3(mix_with_identity(rr, 0.5)).tradeoff(0.375))
    0.375
    """
    pos = pair.loss > ZERO_LOSS
    loss, log_p, log_q = pair.loss[pos], pair.log_p[pos], pair.log_q[pos]
    terms = np.concatenate([log_p, log_q])
    used = float(np.exp(logsumexp(terms))) if terms.size else 0.0
    m0 = 1.0 - used - pair.q_pos_inf
    if m0 < -1e-12:
        x_bar, fx = kink_point(pair)
        raise ValueError(
            f"C(f) by [MIX] eq 3 needs x̄ ≤ f(x̄), got x̄ = {x_bar:.6g} > f(x̄) = {fx:.6g}; use symm() (Def F.1)"
        )
    # m0 ∈ [−1e-12, 0]: the curve touches the diagonal at x̄ and the residue is rounding of the sums
    mid_loss = [0.0] if m0 > 0 else []
    mid_log_p = [math.log(m0)] if m0 > 0 else []
    all_loss = np.concatenate([-loss[::-1], mid_loss, loss])
    all_log_p = np.concatenate([log_q[::-1], mid_log_p, log_p])
    return DiscretePair(all_loss, all_log_p, pair.q_pos_inf, pair.q_pos_inf, pair.rounding)


def symmetrize_conv_min(pair: DiscretePair) -> DiscretePair:
    """conv(min(f, f⁻¹)) — f_sym (the core's ``DiscretePair.symmetrize``)."""
    return pair.symmetrize()


def _max_curve(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of max of two piecewise-linear functions on [0, 1] (breakpoints and crossings)."""
    x = np.union1d(a[0], b[0])
    fa, fb = np.interp(x, *a), np.interp(x, *b)
    d = fa - fb
    cross = []
    for k in np.flatnonzero(d[:-1] * d[1:] < 0):
        t = d[k] / (d[k] - d[k + 1])
        cross.append(x[k] + t * (x[k + 1] - x[k]))
    xs = np.union1d(x, np.asarray(cross, dtype=float))
    return xs, np.maximum(np.interp(xs, *a), np.interp(xs, *b))


def symm(pair: DiscretePair) -> DiscretePair:
    """Symm(f) of Dong et al. 2022 Def F.1 ([MIX] App. A):

        Symm(f) = min{f, f⁻¹}**  (eq 3, :func:`symmetrize_eq3`)   if x̄ ≤ f(x̄),
                  max{f, f⁻¹}                                         if x̄ > f(x̄).

    Example: f with vertices (0, 1), (0.1, 0.05), (0.15, 0), (1, 0) has x̄ = 0.1 > f(x̄) = 0.05,
    so Symm(f) = max{f, f⁻¹}, which is convex and symmetric.
    """
    x_bar, fx = kink_point(pair)
    if x_bar <= fx:
        return symmetrize_eq3(pair)
    va, vb = vertices(pair), vertices(pair.swap())
    xs, ys = _max_curve(va, vb)
    return pair_from_vertices(xs, ys, rounding=pair.rounding, tol=1e-9)


# ---------------------------------------------------------------------------------------------- inputs
def as_pairs(obj: Any, *, name: str = "component", require_f0_one: bool = False) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) discrete pairs of a trade-off function given in any accepted form.

    - a :class:`DiscretePair` — taken as given (asymmetric allowed), exact;
    - a mechanism with discrete pairs (randomized response, curves, shuffling, …) — its symmetrised
      pairs;
    - a closed-form mechanism with a continuous privacy loss (Gaussian, Laplace) — a certified
      discretisation on a loss grid (:mod:`dpcompare.tradeoff.grid`, via :mod:`._tails`);
    - a callable α ↦ f(α) — read through :class:`~dpcompare.mechanisms.TradeoffOracle`, which
      raises ValueError if it is not a trade-off function (not convex, not decreasing, out of range).

    ``require_f0_one``: raise ValueError unless f(0) = 1 (no Q-mass at ℓ = +∞), for formulas that
    assume it (e.g. the simplified form of [MIX] Lemma B.4).
    """
    pairs = _as_pairs(obj, name)
    if require_f0_one:
        f0 = 1.0 - max(pairs[0].q_pos_inf, pairs[1].q_pos_inf)
        if f0 < 1.0 - 1e-12:
            raise ValueError(f"{name}: f(0) = 1 is required here, got f(0) = {f0:.12g}")
    return pairs


def _as_pairs(obj: Any, name: str) -> tuple[DiscretePair, DiscretePair]:
    from ..mechanisms import Mechanism, TradeoffOracle
    from ..mechanisms.continuous import PrivacyLossMechanism

    if isinstance(obj, DiscretePair):
        return obj, obj
    if isinstance(obj, Mechanism):
        pairs = obj.pairs()
        if pairs is not None:
            return pairs
        if isinstance(obj, PrivacyLossMechanism):
            from ._tails import privacy_loss_pairs

            return privacy_loss_pairs(obj)
        raise ValueError(f"{name}: mechanism {obj.spec} has neither discrete pairs nor a closed-form privacy loss")
    if callable(obj):
        try:
            return TradeoffOracle(obj, name=name).pairs()
        except ValueError as exc:
            raise ValueError(f"{name} is not a valid trade-off function: {exc}") from None
    raise ValueError(f"{name} must be a DiscretePair, a mechanism or a callable trade-off function, got {type(obj).__name__}")


def map_pairs(fn: Callable[[DiscretePair], DiscretePair], pairs: tuple[DiscretePair, DiscretePair]) -> tuple[DiscretePair, DiscretePair]:
    """Apply a monotone operation to (pessimistic, optimistic); keeps identity when both are one object."""
    pess, opt = pairs
    out = fn(pess)
    return out, (out if opt is pess else fn(opt))


__all__ = [
    "CURVE_TOLERANCE",
    "as_pairs",
    "conjugate",
    "convex_envelope",
    "evaluate_vertices",
    "identity_pair",
    "inverse",
    "kink_point",
    "local_dp_floor",
    "map_pairs",
    "mix_with_identity",
    "pair_from_vertices",
    "swap_mixture",
    "symm",
    "symmetrize_conv_min",
    "symmetrize_eq3",
    "vertices",
]
