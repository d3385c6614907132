"""Privacy of the shuffle model in f-DP ([MIX] §4.1: Prop 4.1, Thm 4.2, Cor 4.3; App. C).

n users each apply an ε₀-DP local randomiser; a shuffler permutes the n reports. By the clone
reduction ([MIX] App. C, after Feldman, McMillan & Talwar), the shuffled output on neighbouring
data sets is a post-processing of X ~ P vs Y ~ Q with

    w = 1/(e^{ε₀} + 1),   C ~ Bin(n−1, 2w),   A | C ~ Bin(C, ½),
    P₀ = law(A + 1, C − A),   Q₀ = law(A, C − A + 1),
    P = (1−w)·P₀ + w·Q₀,      Q = (1−w)·Q₀ + w·P₀.

Three results of [MIX], each implemented here and checked against an independent computation:

- **Prop 4.1** — T(P₀, Q₀) is the joint-concavity combination (Lemma 3.1, with equality) of the
  components given C = c; at the threshold t = e^λ on q₀/p₀ = b/a, with k_c = ⌊(c+1)/(1+e^λ)⌋
  and F_c the Bin(c, ½) cdf,

      α₀(λ) = Σ_c P[C=c]·F_c(k_c − 1),      β₀(λ) = Σ_c P[C=c]·(1 − F_c(k_c)).

  ``prop41_points`` evaluates these sums; :mod:`.clone_pairs` builds the whole curve as one exact
  discrete pair (or a certified bracket for large n).
- **Thm 4.2** — the shuffled mechanism is f-DP with f = C(2w·Id + (1−2w)·T(P₀, Q₀)), C of eq 3.
  Here 2w·Id + (1−2w)·T(P₀, Q₀) = T(P₀, 2wP₀ + (1−2w)Q₀) exactly (``algebra.mix_with_identity``).
- **Cor 4.3** — its privacy profile: with e^{ε} = (e^{ε'} − 2w)/(1 − 2w),

      δ(ε') = (1 − 2w)·H_{e^ε}(Q₀‖P₀) = (1−2w)·(1 − β₀(ε)) − (e^{ε'} − 2w)·α₀(ε)   (ε' ≥ 0).

  ``cor43_delta`` evaluates this from the Binomial sums of Prop 4.1.

**Thm 4.2 is a bound, not the exact trade-off of (P, Q).** The proof's step "f_{P,Q}(x) =
2w(1−x) + (1−2w)f₀(x) for x ≤ x̄" does not hold: the advanced joint convexity it rests on (Balle
et al. 2018 Thm 2, [MIX] Lemma A.4) gives H_{e^{ε'}}(P‖Q) = (1−2w)·H_{e^ε}(P₀‖(1−η)M + ηQ₀),
M = (P₀+Q₀)/2, η = e^{ε'−ε} ≤ 1, which is ≤ (1−2w)·H_{e^ε}(P₀‖Q₀) with strict inequality
whenever δ₀ > 0 and η < 1. For n = 5, ε₀ = 1 the exact T(P, Q) lies up to 0.13 above Thm 4.2's
curve. ``ShuffleAnalysis.CLONE_PAIR`` computes that exact T(P, Q) (``algebra.swap_mixture``): the
tightest guarantee this reduction can give, and always at least as tight as Thm 4.2.

Both analyses are :class:`~dpcompare.mechanisms.PairMechanism` s: exact discrete pairs for small n,
and a certified (pessimistic, optimistic) bracket for large n (see :mod:`.clone_pairs`; the public
views, as everywhere, report the pessimistic side).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from scipy.special import bdtr

from .._validation import format_number
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair
from ._checks import EPS0, USERS, check_eps0, check_users
from .clone_pairs import DEFAULT_EXACT_ATOMS, DEFAULT_MAX_ATOMS, DEFAULT_TAIL, ClonePlan, clone_count_pairs, log_binom_pmf
from .algebra import local_dp_floor, map_pairs, mix_with_identity, swap_mixture, symmetrize_eq3


class ShuffleAnalysis(enum.Enum):
    """Which guarantee of the clone reduction a :class:`Shuffled` mechanism reports."""

    #: [MIX] Thm 4.2: C(2w·Id + (1−2w)·T(P₀, Q₀)) — spec ``shuffle(eps0=…, n=…)``
    THEOREM_4_2 = "theorem_4_2"
    #: the exact trade-off T(P, Q) of [MIX] App. C's pair (tighter) — spec ``shuffle_pair(eps0=…, n=…)``
    CLONE_PAIR = "clone_pair"


def shuffle_weight(eps0: float) -> float:
    """w = 1/(e^{ε₀} + 1) ([MIX] App. C), computed without overflow.

    >>> round(shuffle_weight(math.log(3)), 12)
    0.25
    """
    eps0 = check_eps0(eps0)
    return math.exp(-eps0) / (1.0 + math.exp(-eps0))


def prop41_pairs(
    eps0: float, n: int, *, max_atoms: int = DEFAULT_MAX_ATOMS, tail: float = DEFAULT_TAIL, exact_atoms: int = DEFAULT_EXACT_ATOMS
) -> tuple[DiscretePair, DiscretePair, ClonePlan]:
    """(pessimistic, optimistic, plan) of T(P₀, Q₀) ([MIX] Prop 4.1); one exact pair for small n.

    >>> pess, opt, plan = prop41_pairs(1.0, 10)
    >>> plan.exact and pess is opt
    True
    """
    w = shuffle_weight(eps0)
    return clone_count_pairs(check_users(n), 2.0 * w, max_atoms=max_atoms, tail=tail, exact_atoms=exact_atoms)


def _clone_law(eps0: float, n: int) -> tuple[float, np.ndarray, np.ndarray]:
    w = shuffle_weight(eps0)
    c = np.arange(n, dtype=float)
    return w, c, np.exp(log_binom_pmf(c, n - 1, 2.0 * w))


def prop41_points(eps0: float, n: int, lam: Any) -> tuple[np.ndarray, np.ndarray]:
    """(α₀(λ), β₀(λ)) of T(P₀, Q₀) at log-thresholds λ, by the Binomial sums of [MIX] Prop 4.1.

    α₀(λ) = P₀(ℓ ≥ λ) = Σ_c P[C=c]·F_c(k_c − 1),  β₀(λ) = Q₀(ℓ < λ) = Σ_c P[C=c]·(1 − F_c(k_c)),
    k_c = ⌊(c+1)/(1+e^λ)⌋ (App. C.1.1; there t = e^λ and the roles of A+1 and C−A are written
    with p₀/q₀ = a/b). O(n) per threshold: meant for checks and moderate n.

    Example: n = 2, ε₀ = log 3 (w = ¼, C ~ Bin(1, ½)). At λ = 0 only c = 1, a ∈ {0, 1} rejects:
    α₀ = ½·b₁(0) = ¼, and β₀ = Q₀(ℓ < 0) = ½·b₁(2) = 0.

    >>> a, b = prop41_points(math.log(3), 2, 0.0)
    >>> round(float(a[0]), 12), round(float(b[0]), 12)
    (0.25, 0.0)
    """
    eps0 = check_eps0(eps0)
    n = check_users(n)
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    if np.any(np.isnan(lam)):
        raise ValueError("lam must be real numbers, got nan")
    _, c, wc = _clone_law(eps0, n)
    ci = c.astype(np.int64)[None, :]  # scipy's bdtr wants integer counts
    with np.errstate(over="ignore"):
        k = np.floor((c[None, :] + 1.0) / (1.0 + np.exp(lam[:, None]))).astype(np.int64)
    k = np.minimum(k, ci)  # a = c + 1 (ℓ = −∞) never passes a finite threshold (float rounds it in)
    # F_c(j) = 0 for j < 0 and 1 for j ≥ c (scipy returns nan for j > c)
    cdf_km1 = np.where(k >= 1, bdtr(np.clip(k - 1, 0, ci), ci, 0.5), 0.0)
    cdf_k = np.where(k >= ci, 1.0, bdtr(np.clip(k, 0, ci), ci, 0.5))
    alpha = cdf_km1 @ wc
    beta = (1.0 - cdf_k) @ wc
    return alpha, beta


def cor43_delta(eps0: float, n: int, eps: Any) -> np.ndarray:
    """Privacy profile of Thm 4.2's trade-off by [MIX] Cor 4.3, from the sums of Prop 4.1.

    For ε' ≥ 0 let e^ε = (e^{ε'} − 2w)/(1 − 2w); then

        δ(ε') = 1 + f*(−e^{ε'}) = (1 − 2w)·(1 − β₀(ε)) − (e^{ε'} − 2w)·α₀(ε),

    the supremum of Cor 4.3 being attained at the threshold t_y = e^ε. O(n) per ε.

    Example: as n grows the profile shrinks (amplification); at ε' = 0 it is the total variation.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("eps must be >= 0 (Cor 4.3 bounds δ(ε) for ε ≥ 0)")
    w = shuffle_weight(eps0)
    gamma = np.exp(eps)
    lam = np.log(gamma - 2 * w) - math.log1p(-2 * w)
    alpha, beta = prop41_points(eps0, n, lam)
    return np.maximum((1 - 2 * w) * (1 - beta) - (gamma - 2 * w) * alpha, 0.0)


@dataclass(frozen=True, repr=False)
class Shuffled(PairMechanism):
    """n users with ε₀-DP local randomisers, shuffled ([MIX] Thm 4.2 / App. C).

    Parameters
    ----------
    eps0 : ε₀ > 0 of each local randomiser.
    n : number of users (integer ≥ 2; 1e6 accepted).
    analysis : ``ShuffleAnalysis.THEOREM_4_2`` (default, [MIX]'s f-DP bound) or
        ``ShuffleAnalysis.CLONE_PAIR`` (the exact trade-off of the clone pair; tighter).
    max_atoms, tail, exact_atoms : atoms per pair of the certified bracket, the truncated tail
        mass (moved to the pessimistic side, never dropped), and the size up to which the pair is
        computed exactly (n(n−1)/2 ≤ exact_atoms); see :mod:`.clone_pairs`. A size that would
        need more than 1 GiB is refused with the estimate before any work starts.

    **Never worse than ε₀-DP.** The reported trade-off is max(f_Thm 4.2, f_{ε₀,0})
    (:func:`~dpcompare.mixtures.algebra.local_dp_floor`): the shuffled output is a post-processing
    of the differing user's ε₀-DP report together with n − 1 reports that do not depend on that
    user's record, so it is ε₀-DP (post-processing; Dong, Roth & Su, "Gaussian differential
    privacy", Lemma 2.9), and the maximum of two valid lower bounds on T(P, Q) is one. Thm 4.2
    alone is not ε₀-DP for small n (its atom at ℓ = +∞ of mass (1−2w)·(1 − w)^{n−1} made ε(δ) = ∞
    for δ below it, e.g. n = 10, ε₀ = 1). The clone-pair analysis is ε₀-DP by construction.

    Example
    -------
    >>> import dpcompare as dc
    >>> m = dc.parse("shuffle(eps0=1, n=1000)")
    >>> round(float(m.epsilon(1e-6)), 4) < 1.0       # amplified below ε₀
    True
    """

    eps0: float
    n: int
    analysis: ShuffleAnalysis = ShuffleAnalysis.THEOREM_4_2
    max_atoms: int = field(default=DEFAULT_MAX_ATOMS, compare=False)
    tail: float = field(default=DEFAULT_TAIL, compare=False)
    exact_atoms: int = field(default=DEFAULT_EXACT_ATOMS, compare=False)

    #: the one declaration of ε₀ and n's domains (the spec language's ``shuffle`` keys derive from it)
    PARAMS = (EPS0, USERS)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", check_eps0(self.eps0))
        object.__setattr__(self, "n", check_users(self.n))
        if not isinstance(self.analysis, ShuffleAnalysis):
            try:
                object.__setattr__(self, "analysis", ShuffleAnalysis(self.analysis))
            except ValueError:
                allowed = ", ".join(a.value for a in ShuffleAnalysis)
                raise ValueError(f"analysis must be one of {allowed}, got {self.analysis!r}") from None
        if not (0.0 < float(self.tail) < 1e-6):
            raise ValueError(f"tail must be in (0, 1e-6), got {self.tail!r}")
        if int(self.max_atoms) < 1000:
            raise ValueError(f"max_atoms must be >= 1000, got {self.max_atoms!r}")

    @property
    def w(self) -> float:
        """w = 1/(e^{ε₀} + 1): the weight of the swapped component in P and Q."""
        return shuffle_weight(self.eps0)

    @cached_property
    def _base(self) -> tuple[DiscretePair, DiscretePair, ClonePlan]:
        return prop41_pairs(
            self.eps0, self.n, max_atoms=int(self.max_atoms), tail=float(self.tail), exact_atoms=int(self.exact_atoms)
        )

    @property
    def plan(self) -> ClonePlan:
        """How T(P₀, Q₀) was computed (exact, or block width and atom counts of the bracket)."""
        return self._base[2]

    def base_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        """(pessimistic, optimistic) pairs of T(P₀, Q₀) (Prop 4.1)."""
        return self._base[0], self._base[1]

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        w = self.w
        if self.analysis is ShuffleAnalysis.THEOREM_4_2:
            # Thm 4.2, floored at ε₀-DP (post-processing; see the class docstring)
            op = lambda pr: local_dp_floor(symmetrize_eq3(mix_with_identity(pr, 2.0 * w)), self.eps0)  # noqa: E731
        else:
            # T(P, Q) is symmetric; eq 3 re-mirrors it so that it is symmetric to the last bit
            op = lambda pr: symmetrize_eq3(swap_mixture(pr, w))  # noqa: E731
        return map_pairs(op, self.base_pairs())

    @property
    def spec(self) -> str:
        name = "shuffle" if self.analysis is ShuffleAnalysis.THEOREM_4_2 else "shuffle_pair"
        return f"{name}(eps0={format_number(self.eps0)}, n={self.n})"


__all__ = ["ShuffleAnalysis", "Shuffled", "cor43_delta", "prop41_pairs", "prop41_points", "shuffle_weight"]
