"""Joint concavity of trade-off functions ([MIX] Lemma 3.1, Prop B.1, Prop B.2 / Cor B.3, Prop 6.1).

For a mixture P_w = Σᵢ wᵢPᵢ, Q_w = Σᵢ wᵢQᵢ, Lemma 3.1 bounds T(P_w, Q_w) from below by the trade-off
function of the pair with the component index revealed, T((X|I, I), (Y|I, I)): revealing I is the
inverse of the post-processing that forgets it. Its Neyman–Pearson tests use one threshold t on
the likelihood ratio for every component (Prop B.2 eq 7, with t = e^λ and ℓ = log(q/p)):

    α(t) = Σᵢ wᵢ·αᵢ(t),  αᵢ(t) = (fᵢ′)⁻¹(−t) = Pᵢ(ℓ ≥ λ);    β(t) = Σᵢ wᵢ·fᵢ(αᵢ(t)) = Σᵢ wᵢ·Qᵢ(ℓ < λ).

For discrete components this is exact in closed form: the revealed-index pair has the atoms of all
components, with P-masses wᵢ·pᵢ and unchanged losses (``mixture_pair``). Other components are first
turned into certified discrete pairs (:func:`algebra.as_pairs`), and the mixture of the pessimistic
(optimistic) pairs is pessimistic (optimistic), because mixing with a revealed index preserves the
Blackwell order component-wise.

- Prop B.1 (unequal weights w ≠ w′): couple the indices, I ~ w under H₀ and J ~ w′ under H₁, with
  P[I=J=i] = min(wᵢ, w′ᵢ) and the residual mass on off-diagonal pairs; revealing the coupled label
  (i, j) gives T(P_w, Q_{w′}) ≥ T of the mixture of the pairs (Pᵢ, Qⱼ) with the coupling's weights.
  For m = 2 the weights are min(w₁,w′₁), min(w₂,w′₂), w′₂ − min(w₂,w′₂) on (P₁,Q₂), w′₁ − min(w₁,w′₁)
  on (P₂,Q₁), as in the seed; for m > 2 the residuals are coupled by the north-west-corner rule.
- Prop 6.1: equality holds iff revealing the index does not change the law of the likelihood ratio;
  ``equality_gap`` measures the difference exactly (max over π of the Bayes-error gap, [BCP]
  Cor 1), and ``ratio_condition`` checks the pointwise sufficient condition used in Examples F.1 and
  F.2: p_w/q_w(x) = pᵢ/qᵢ(x) for every component i that can produce x. (The condition as printed in
  the appendix, "p_w/q_w = Σ wᵢ pᵢ/qᵢ", is not dimensionally consistent; we implement the reading its
  examples verify.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..mechanisms import Gaussian
from ..mechanisms.continuous import PrivacyLossMechanism
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair, Rounding, delta_between_pairs
from ._checks import check_weights
from .algebra import as_pairs


# ---------------------------------------------------------------------------------------------- Lemma 3.1
def mixture_pair(weights: Any, pairs: Sequence[DiscretePair]) -> DiscretePair:
    """T((X|I, I), (Y|I, I)) for discrete components: the lower bound of [MIX] Lemma 3.1, exactly.

    Atoms of component i keep their loss and get P-mass wᵢ·pᵢ; the masses at ±∞ add up likewise.
    Roundings combine as in composition (pessimistic with optimistic is refused).

    Example: mixing randomized response (ε = log 3) with Id, weights (½, ½), gives the curve through
    (0, 1), (1/8, 5/8), (5/8, 1/8), (1, 0) — the Lemma 3.1 bound of [MIX] Example F.3's kind.

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> from dpcompare.mixtures.algebra import identity_pair
    >>> round(float(mixture_pair([0.5, 0.5], [rr, identity_pair()]).tradeoff(0.125)), 12)
    0.625
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs must not be empty")
    for i, p in enumerate(pairs):
        if not isinstance(p, DiscretePair):
            raise ValueError(f"pairs[{i}] must be a DiscretePair, got {type(p).__name__}")
    w = check_weights(weights, size=len(pairs))
    rounding = Rounding.EXACT
    loss, log_p = [], []
    p_neg = q_pos = 0.0
    for wi, pr in zip(w, pairs):
        if wi == 0:
            continue
        rounding = rounding.combine(pr.rounding)
        loss.append(pr.loss)
        log_p.append(pr.log_p + math.log(wi))
        p_neg += wi * pr.p_neg_inf
        q_pos += wi * pr.q_pos_inf
    return DiscretePair.from_atoms(
        np.concatenate(loss), np.concatenate(log_p), p_neg_inf=min(p_neg, 1.0), q_pos_inf=min(q_pos, 1.0), rounding=rounding
    )


def mixture_pairs(weights: Any, components: Sequence[Any]) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of the Lemma 3.1 bound for components in any accepted form
    (DiscretePair, mechanism, callable trade-off function; see :func:`algebra.as_pairs`)."""
    components = list(components)
    w = check_weights(weights, size=len(components))
    brackets = [as_pairs(c, name=f"components[{i}]") for i, c in enumerate(components)]
    pess = mixture_pair(w, [b[0] for b in brackets])
    if all(b[0] is b[1] for b in brackets):
        return pess, pess
    return pess, mixture_pair(w, [b[1] for b in brackets])


def _component_points(comp: Any, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(αᵢ(λ), βᵢ(λ)) = (Pᵢ(ℓ ≥ λ), Qᵢ(ℓ < λ)) of one component, from its own closed form."""
    if isinstance(comp, Gaussian):
        mu = comp.mu  # ℓ ~ N(−μ²/2, μ²) under P, N(μ²/2, μ²) under Q; (f′)⁻¹(−e^λ) = Φ(−(λ + μ²/2)/μ)
        from .._numerics import ndtr

        return ndtr(-(lam + mu * mu / 2) / mu), ndtr((lam - mu * mu / 2) / mu)
    if isinstance(comp, PrivacyLossMechanism):
        return np.exp(comp.log_sf(np.nextafter(lam, -np.inf), "P")), np.exp(comp.log_cdf(np.nextafter(lam, -np.inf), "Q"))
    if isinstance(comp, PairMechanism):
        comp = comp.pairs()[0]
    if isinstance(comp, DiscretePair):
        ge = comp.loss[None, :] >= lam[:, None]
        alpha = (comp.p[None, :] * ge).sum(axis=1)
        beta = (comp.q[None, :] * ~ge).sum(axis=1)
        return alpha, beta
    raise ValueError(f"mixture_points needs Gaussian, Laplace, pair-backed or DiscretePair components, got {type(comp).__name__}")


def mixture_points(weights: Any, components: Sequence[Any], lam: Any) -> tuple[np.ndarray, np.ndarray]:
    """Points (α(t), β(t)) of the Lemma 3.1 bound at thresholds t = e^λ, by [MIX] Prop B.2 eq (7).

    α(t) = Σᵢ wᵢ (fᵢ′)⁻¹(−t) and β(t) = Σᵢ wᵢ fᵢ((fᵢ′)⁻¹(−t)), from each component's closed form
    (for G_μ: (f′)⁻¹(−t) = Φ(−(log t + μ²/2)/μ)). Independent of ``mixture_pair``: tests check that the
    points lie on (or inside the bracket of) the discrete curve.

    >>> import dpcompare as dc
    >>> a, b = mixture_points([1.0], [dc.Gaussian(mu=1.0)], 0.0)
    >>> round(float(a[0]), 6), round(float(b[0]), 6)     # the fixed point Φ(−½)
    (0.308538, 0.308538)
    """
    components = list(components)
    w = check_weights(weights, size=len(components))
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    alpha = np.zeros_like(lam)
    beta = np.zeros_like(lam)
    for wi, comp in zip(w, components):
        if wi == 0:
            continue
        a, b = _component_points(comp, lam)
        alpha += wi * a
        beta += wi * b
    return alpha, beta


@dataclass(frozen=True, repr=False, eq=False)
class JointConcavity(PairMechanism):
    """The Lemma 3.1 lower bound of a mixture Σ wᵢ(Pᵢ, Qᵢ) as a mechanism (symmetrised like any other).

    >>> import dpcompare as dc
    >>> m = JointConcavity((0.5, 0.5), (dc.RandomizedResponse(eps=1.0), dc.RandomizedResponse(eps=3.0)))
    >>> m.exact
    True
    """

    weights: tuple[float, ...]
    components: tuple[Any, ...]
    name: str = field(default="mixture")

    def __post_init__(self) -> None:
        comps = tuple(self.components)
        w = check_weights(self.weights, size=len(comps))
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "components", comps)
        for i, c in enumerate(comps):
            as_pairs(c, name=f"components[{i}]")  # validates now (callables, unsupported types)

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        return mixture_pairs(self.weights, self.components)

    @property
    def spec(self) -> str:
        from ..mechanisms import Mechanism
        from .._validation import format_number

        if self.name == "mixture" and all(isinstance(c, Mechanism) for c in self.components):
            terms = ", ".join(f"{format_number(w)}*{c.spec}" for w, c in zip(self.weights, self.components))
            return f"mixture({terms})"
        return f"{self.name}({len(self.components)} components)"


# ---------------------------------------------------------------------------------------------- Prop B.1
def _as_distributions(name: str, dists: Sequence[Any], size: int | None = None) -> list[np.ndarray]:
    out = []
    for i, d in enumerate(dists):
        v = np.asarray(d, dtype=float).ravel()
        if size is not None and v.size != size:
            raise ValueError(f"{name}[{i}] must have {size} outcomes (a common outcome space), got {v.size}")
        size = v.size
        if not np.all(np.isfinite(v)) or np.any(v < 0):
            raise ValueError(f"{name}[{i}] must be finite non-negative masses")
        if abs(math.fsum(v.tolist()) - 1.0) > 1e-12:
            raise ValueError(f"{name}[{i}] must sum to 1, got {math.fsum(v.tolist()):.15g}")
        out.append(v)
    return out


def index_coupling(w: Any, w_prime: Any) -> np.ndarray:
    """Coupling matrix m (m[i, j] = P[I = i, J = j]) of [MIX] Prop B.1: diagonal min(wᵢ, w′ᵢ),
    residuals coupled by the north-west-corner rule (for m = 2 exactly the seed's weights).

    >>> index_coupling([0.7, 0.3], [0.4, 0.6]).round(12).tolist()
    [[0.4, 0.3], [0.0, 0.3]]
    """
    w = check_weights(w, name="w")
    wp = check_weights(w_prime, size=w.size, name="w_prime")
    m = np.diag(np.minimum(w, wp))
    r = w - np.diag(m)
    s = wp - np.diag(m)
    i = j = 0
    while i < w.size and j < w.size:
        if r[i] <= 1e-15:
            i += 1
            continue
        if s[j] <= 1e-15:
            j += 1
            continue
        t = min(r[i], s[j])
        m[i, j] += t
        r[i] -= t
        s[j] -= t
    return m


def unequal_weights_pair(w: Any, w_prime: Any, P: Sequence[Any], Q: Sequence[Any]) -> DiscretePair:
    """Lower bound on T(Σ wᵢPᵢ, Σ w′ⱼQⱼ) of [MIX] Prop B.1 (any m ≥ 2), for distributions given as
    mass vectors on a common finite outcome space: the mixture of the pairs (Pᵢ, Qⱼ) with the weights
    of :func:`index_coupling` (Lemma 3.1 with the coupled label revealed)."""
    P = _as_distributions("P", P)
    Q = _as_distributions("Q", Q, P[0].size)
    if len(P) != len(Q):
        raise ValueError(f"P and Q must have the same number of components, got {len(P)} and {len(Q)}")
    m = index_coupling(w, w_prime)
    weights, pairs = [], []
    for i in range(len(P)):
        for j in range(len(Q)):
            if m[i, j] > 0:
                weights.append(m[i, j])
                pairs.append(DiscretePair.from_masses(P[i], Q[j]))
    weights = np.asarray(weights) / math.fsum(weights)
    return mixture_pair(weights, pairs)


# ---------------------------------------------------------------------------------------------- Prop 6.1
def exact_mixture_pair(weights: Any, P: Sequence[Any], Q: Sequence[Any]) -> DiscretePair:
    """T(P_w, Q_w) of a mixture of distributions on a common finite outcome space, exactly."""
    P = _as_distributions("P", P)
    Q = _as_distributions("Q", Q, P[0].size)
    w = check_weights(weights, size=len(P))
    pw = np.sum([wi * p for wi, p in zip(w, P)], axis=0)
    qw = np.sum([wi * q for wi, q in zip(w, Q)], axis=0)
    return DiscretePair.from_masses(pw / pw.sum(), qw / qw.sum())


def equality_gap(weights: Any, P: Sequence[Any], Q: Sequence[Any]) -> float:
    """max_π (R_exact(π) − R_Lemma3.1(π)) ≥ 0: zero iff Lemma 3.1 holds with equality ([MIX] Prop 6.1).

    Exact on finite outcome spaces (Bayes errors of two discrete pairs, [BCP] Cor 1).

    >>> P, Q = [[1, 0, 0, 0], [0, 0, 1, 0]], [[0, 1, 0, 0], [0, 0, 0, 1]]   # disjoint supports (F.2)
    >>> equality_gap([0.5, 0.5], P, Q)
    0.0
    """
    P = _as_distributions("P", P)
    Q = _as_distributions("Q", Q, P[0].size)
    exact = exact_mixture_pair(weights, P, Q)
    bound = mixture_pair(weights, [DiscretePair.from_masses(p, q) for p, q in zip(P, Q)])
    gap, _ = delta_between_pairs(exact, bound)
    back, _ = delta_between_pairs(bound, exact)
    if back > 1e-12:  # the bound above the truth would contradict Lemma 3.1
        raise ArithmeticError(f"Lemma 3.1 bound exceeds the exact trade-off by {back:g}")
    return float(gap)


def ratio_condition(weights: Any, P: Sequence[Any], Q: Sequence[Any], *, rtol: float = 1e-12) -> bool:
    """The pointwise sufficient condition for equality in Lemma 3.1 ([MIX] Prop 6.1, Examples
    F.1–F.2): p_w/q_w(x) = pᵢ/qᵢ(x) for every x and every component i with wᵢpᵢ(x) > 0 or wᵢqᵢ(x) > 0
    (ratios in [0, ∞])."""
    P = _as_distributions("P", P)
    Q = _as_distributions("Q", Q, P[0].size)
    w = check_weights(weights, size=len(P))
    pw = np.sum([wi * p for wi, p in zip(w, P)], axis=0)
    qw = np.sum([wi * q for wi, q in zip(w, Q)], axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rw = np.where(qw > 0, pw / qw, np.inf)
        for wi, p, q in zip(w, P, Q):
            active = (wi > 0) & ((p > 0) | (q > 0))
            ri = np.where(q > 0, p / q, np.inf)
            same = np.isclose(ri, rw, rtol=rtol, atol=0.0) | (np.isinf(ri) & np.isinf(rw))
            if np.any(active & ~same):
                return False
    return True


def example_f1() -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """[MIX] Example F.1 on the cells [−1,0], [0,1], [2,3], [3,4] (uniform laws are constant on
    cells, so the cell pair is exact): P₁ = U[0,1], Q₁ = U[2,3], P₂ = U[−1,0], Q₂ = U[3,4]; w = (½, ½)."""
    P = [np.array([0.0, 1.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0])]
    Q = [np.array([0.0, 0.0, 1.0, 0.0]), np.array([0.0, 0.0, 0.0, 1.0])]
    return np.array([0.5, 0.5]), P, Q


def example_f2(p1: Any, q1: Any, p2: Any, q2: Any, w1: float = 0.5) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """[MIX] Example F.2: (P₁, Q₁) on points of the x-axis, (P₂, Q₂) on points of the y-axis (no
    mass at the origin); the outcome space is the disjoint union of the two sets of points."""
    p1, q1, p2, q2 = (np.asarray(v, dtype=float).ravel() for v in (p1, q1, p2, q2))
    if p1.size != q1.size or p2.size != q2.size:
        raise ValueError("p1/q1 and p2/q2 must have matching lengths")
    z1, z2 = np.zeros(p2.size), np.zeros(p1.size)
    P = [np.concatenate([p1, z1]), np.concatenate([z2, p2])]
    Q = [np.concatenate([q1, z1]), np.concatenate([z2, q2])]
    return np.array([w1, 1.0 - w1]), P, Q


__all__ = [
    "JointConcavity",
    "equality_gap",
    "exact_mixture_pair",
    "example_f1",
    "example_f2",
    "index_coupling",
    "mixture_pair",
    "mixture_pairs",
    "mixture_points",
    "ratio_condition",
    "unequal_weights_pair",
]
