"""Advanced joint concavity in its general form ([MIX] Lemma 6.2, Lemma 6.3; App. E.1).

Two-component mixtures P = (1−w)P₀ + wP₁ and Q = (1−w)Q₀ + wQ₁, w ∈ (0, 1). Hockey-stick
divergence H_γ(A‖B) = sup_E A(E) − γ·B(E) = ∫(a − γb)₊.

**Lemma 6.2** ([MIX]; after Balle et al.'s advanced joint convexity). For γ, η ∈ [0, 1] with
γ < w < η or η < w < γ, and ε′ ∈ ℝ, let ε₀, ε₁ solve (eqs 9, 10)

    e^{ε′} = (1−w)·e^{ε₀} + w·e^{ε₁},     w·e^{ε′} = (1−w)·γ·e^{ε₀} + w·η·e^{ε₁},

i.e. e^{ε₀} = e^{ε′}(η − w)/((1−w)(η − γ)), e^{ε₁} = e^{ε′}(w − γ)/(w(η − γ)). Then

    H_{e^{ε′}}(P‖Q) ≤ (1−w)·H_{e^{ε₀}}(P₀ ‖ (1−γ)Q₀ + γQ₁) + w·H_{e^{ε₁}}(P₁ ‖ (1−η)Q₀ + ηQ₁).

(The proof writes P − e^{ε′}Q as the sum of the two signed measures on the right; ∫(A + B)₊ ≤
∫A₊ + ∫B₊.) ``lemma62_terms`` evaluates both sides on explicit discrete distributions.

**Lemma 6.3** (general form). With δ_{ij}(ε) ≥ H_{e^ε}(Pᵢ‖Qⱼ) for all real ε — e.g. the privacy
profile of any trade-off function f_{ij} ≤ T(Qⱼ, Pᵢ), δ_{ij}(ε) = 1 + f_{ij}*(−e^ε) — joint convexity of
H in its second argument gives, for every ε′ ∈ ℝ,

    H_{e^{ε′}}(P‖Q) ≤ δ_F(ε′) := (1−w)[(1−γ)δ₀₀(ε₀) + γδ₀₁(ε₀)] + w[(1−η)δ₁₀(ε₁) + ηδ₁₁(ε₁)],

the conjugate form of eq 11, and hence T(Q, P) ≥ F with

    F(x) = max(0, sup_{ε′ ∈ ℝ} 1 − δ_F(ε′) − e^{ε′}·x)     (F = (F*)**, [MIX] App. E.1).

``lemma63_general`` evaluates F with the supremum over a finite grid of ε′ — a sub-supremum, so
the value is ≤ F ≤ T(Q, P): still a valid lower bound (certified direction) — and takes the pointwise
maximum over the (γ, η) choices given (each is a valid bound). No symmetrisation C(·) is needed
because δ_F bounds H for every real ε′, not only ε′ ≥ 0 (contrast Prop 6.4 / Prop E.1, which bound
ε′ ≥ 0 only and therefore need C, [MIX] Lemma A.3).

Special cases (tested): Prop E.1 (Q₀ = P₀: sub-sampling) and Prop 6.4 (P₁ = Q₀, Q₁ = P₀: the
swapped mixture of Thm 4.2) are implemented in :mod:`.subsampling` by their closed forms; both are
checked by brute force against the exact trade-off of small discrete mixtures, as is this module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ._checks import check_weight

#: ε′ grid of the supremum in ``lemma63_general`` (a finer grid only raises F towards the truth)
EPS_GRID = np.linspace(-12.0, 12.0, 4801)


class _Profile(Protocol):
    def delta(self, eps: Any) -> Any: ...


def _hockey(a: np.ndarray, b: np.ndarray, gamma: float) -> float:
    return float(np.maximum(a - gamma * b, 0.0).sum())


def split_exponents(w: float, gamma: float, eta: float, eps_prime: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ε₀, ε₁) solving [MIX] eqs (9)–(10) for given w, γ, η and ε′ (γ < w < η or η < w < γ).

    e^{ε₀} = e^{ε′}(η − w)/((1−w)(η − γ)),  e^{ε₁} = e^{ε′}(w − γ)/(w(η − γ)).

    >>> e0, e1 = split_exponents(0.5, 0.25, 0.75, 0.0)
    >>> float(e0[0]), float(e1[0])
    (0.0, 0.0)
    """
    w = check_weight("w", w)
    gamma = check_weight("gamma", gamma)
    eta = check_weight("eta", eta)
    if not (0.0 < w < 1.0):
        raise ValueError(f"w must be in (0, 1), got {w!r}")
    if not ((gamma < w < eta) or (eta < w < gamma)):
        raise ValueError(f"Lemma 6.2 needs gamma < w < eta or eta < w < gamma, got gamma={gamma!r}, w={w!r}, eta={eta!r}")
    ep = np.atleast_1d(np.asarray(eps_prime, dtype=float))
    if np.any(np.isnan(ep)):
        raise ValueError("eps_prime must be real numbers, got nan")
    e0 = ep + math.log((eta - w) / ((1.0 - w) * (eta - gamma)))
    e1 = ep + math.log((w - gamma) / (w * (eta - gamma)))
    return e0, e1


def lemma62_terms(
    w: float, gamma: float, eta: float, eps_prime: float, P: Sequence[Any], Q: Sequence[Any]
) -> tuple[float, float]:
    """(H_{e^{ε′}}(P‖Q), right-hand side of [MIX] Lemma 6.2) for discrete P = (P₀, P₁), Q = (Q₀, Q₁).

    The first is ≤ the second (module docstring). Distributions are probability vectors on one
    finite outcome space; w is the weight of component 1.

    >>> P = ([0.7, 0.3], [0.2, 0.8]); Q = ([0.5, 0.5], [0.4, 0.6])
    >>> lhs, rhs = lemma62_terms(0.5, 0.2, 0.9, 0.1, P, Q)
    >>> bool(lhs <= rhs)
    True
    """
    p0, p1 = (np.asarray(x, dtype=float) for x in P)
    q0, q1 = (np.asarray(x, dtype=float) for x in Q)
    if not (p0.shape == p1.shape == q0.shape == q1.shape):
        raise ValueError("P₀, P₁, Q₀, Q₁ must live on the same outcome space (same length)")
    (e0,), (e1,) = split_exponents(w, gamma, eta, eps_prime)
    lhs = _hockey((1 - w) * p0 + w * p1, (1 - w) * q0 + w * q1, math.exp(eps_prime))
    rhs = (1 - w) * _hockey(p0, (1 - gamma) * q0 + gamma * q1, math.exp(e0)) + w * _hockey(
        p1, (1 - eta) * q0 + eta * q1, math.exp(e1)
    )
    return lhs, rhs


def lemma63_profile(
    w: float, gamma: float, eta: float, profiles: Sequence[Sequence[_Profile]], eps_prime: Any
) -> np.ndarray:
    """δ_F(ε′) of the general Lemma 6.3: an upper bound on H_{e^{ε′}}(P‖Q) for every real ε′.

    ``profiles[i][j]`` has ``.delta(ε)`` ≥ H_{e^ε}(Pᵢ‖Qⱼ) for all real ε (a mechanism or a
    DiscretePair (A, B) with A = law of Qⱼ, B = law of Pᵢ: its δ is H(B‖A)).

    >>> from dpcompare.tradeoff import DiscretePair
    >>> same = DiscretePair.from_masses([0.5, 0.5], [0.5, 0.5])        # Pᵢ = Qⱼ: H_γ = (1 − γ)₊
    >>> float(lemma63_profile(0.5, 0.25, 0.75, [[same, same], [same, same]], 0.0)[0])
    0.0
    """
    e0, e1 = split_exponents(w, gamma, eta, eps_prime)
    d = [[np.asarray(profiles[i][j].delta(e), dtype=float) for j in range(2)] for i, e in ((0, e0), (1, e1))]
    return (1 - w) * ((1 - gamma) * d[0][0] + gamma * d[0][1]) + w * ((1 - eta) * d[1][0] + eta * d[1][1])


def lemma63_general(
    w: float,
    choices: Sequence[tuple[float, float]],
    profiles: Sequence[Sequence[_Profile]],
    x: Any,
    *,
    eps_grid: np.ndarray = EPS_GRID,
) -> np.ndarray:
    """F(x) of the general Lemma 6.3, maximised over the (γ, η) ``choices``: a lower bound on T(Q, P).

    F(x) = max(0, max_{(γ,η)} max_{ε′ ∈ grid} 1 − δ_F(ε′) − e^{ε′}·x); each (γ, η) needs γ < w < η
    or η < w < γ. The finite grid makes the value ≤ the exact F, so it stays a valid bound.

    >>> from dpcompare.tradeoff import DiscretePair
    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])     # H(Pᵢ‖Qⱼ) of RR, ε = log 3
    >>> f = lemma63_general(0.5, [(0.25, 0.75)], [[rr, rr], [rr, rr]], [0.0, 0.25, 1.0])
    >>> [round(float(v), 6) for v in f]                                # the mixture of equal RRs is RR
    [1.0, 0.25, 0.0]
    """
    xs = np.atleast_1d(np.asarray(x, dtype=float))
    if np.any(~np.isfinite(xs)) or np.any((xs < 0) | (xs > 1)):
        raise ValueError("x must lie in [0, 1]")
    if len(choices) == 0:
        raise ValueError("choices must name at least one (gamma, eta) pair")
    grid = np.asarray(eps_grid, dtype=float)
    best = np.zeros_like(xs)
    for gamma, eta in choices:
        d = lemma63_profile(w, gamma, eta, profiles, grid)
        vals = 1.0 - d[None, :] - np.exp(grid)[None, :] * xs[:, None]
        best = np.maximum(best, vals.max(axis=1))
    return np.minimum(best, 1.0 - xs)


__all__ = ["EPS_GRID", "lemma62_terms", "lemma63_general", "lemma63_profile", "split_exponents"]
