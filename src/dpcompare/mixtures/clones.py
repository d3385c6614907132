"""Baseline: the numerical shuffling bound of Feldman, McMillan & Talwar, "Hiding among the clones" (2021).

Their Thm 3.2 reduces n shuffled ε₀-DP reports to the pair (our notation, w = 1/(e^{ε₀}+1))

    C ~ Bin(n−1, e^{−ε₀}),  A | C ~ Bin(C, ½),  Δ ~ Bern(1 − w),
    P = law(A + Δ, C − A + 1 − Δ),  Q = law(A + 1 − Δ, C − A + Δ),

i.e. the pair of [MIX] App. C with clone probability e^{−ε₀} instead of 2/(e^{ε₀}+1) (the later
"stronger clone" of the same authors, which [MIX] uses): given C = c, with a the first count,

    P|c = (1−w)·(A+1) + w·A,   Q|c = (1−w)·A + w·(A+1)        (mixtures over Δ).

Their empirical method (App. E of the paper; "M₁"/``deltacomp`` and "B"/``onestep`` in their code),
re-derived and implemented here from the definitions:

1. **Per-c divergence** B_c(ε) = H_{e^ε}(P|c ‖ Q|c) = Σ_a (P|c(a) − γ·Q|c(a))₊, γ = e^ε. With
   b_c the Bin(c, ½) pmf, P|c(a) − γQ|c(a) = (1−w−γw)·b_c(a−1) − (γ(1−w)−w)·b_c(a); the ratio
   b_c(a)/b_c(a−1) = (c+1−a)/a decreases in a, so the positive terms are a > k* with
   k* = ⌊(c+1)/(1+ρ)⌋, ρ = (1−w−γw)/(γ(1−w)−w), and with S(j) = Pr[A > j]:

       B_c(ε) = max_k [(1−w−γw)·S(k−1) − (γ(1−w)−w)·S(k)]   over k ∈ {k*−1, k*, k*+1} and the empty set,

   (the max over k* ± 1 makes a floating-point floor at an exact tie harmless; B_c = 0 for ε ≥ ε₀).
2. **Mixture over c** δ(ε) = Σ_c P[C=c]·B_c(ε) (c is observed: a + b = c + 1). Their algorithm
   covers c in steps of ``step`` around the mode and charges each block its largest B_c — at the
   block's smallest c, since more clones are more private (B_c decreases in c) — and charges the
   uncovered mass of C fully (B ≤ 1). Here the covered range is [c_lo, c_hi] with each tail ≤ 1e-20
   by a Chernoff bound (the bound, not the smaller true mass, is charged),
   and ``step = 1`` (the default) evaluates every c: an exact value up to that tail.
3. **ε(δ)** by bisection on the non-increasing δ(ε) (their ``binarysearch``); here Brent's method on
   [0, ε₀], then stepped up until δ(ε) ≤ target, so the reported ε is never too small.

Both orderings give the same divergence (a ↦ c+1−a maps P|c to Q|c), so one is computed.

Note on their public code (apple/ml-shuffling-amplification, ``deltacomp``): in the upper bound the
second ordering's block charge is ``max(deltaq_upperc, deltaq_upperc)``, i.e. the value at the
block's *largest* c, which is the smaller one — with ``step > 1`` that ordering is under-charged.
By the symmetry above the first ordering's (correct) value is the same quantity, so their returned
max(δ_p, δ_q) is unaffected; we implement the bound as described in their paper.

``HidingAmongClones`` is the same reduction as a mechanism: the exact pair (or a certified bracket)
via :mod:`.clone_pairs`, so it can be compared with everything else; its δ equals ``fmt_delta``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import bdtrc

from .._validation import check_in_interval, check_integer, format_number
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair
from ._checks import check_eps0, check_users
from .clone_pairs import DEFAULT_MAX_ATOMS, DEFAULT_TAIL, MEMORY_LIMIT, ClonePlan, bulk_range, clone_count_pairs, log_binom_pmf

#: bytes per clone count of ``FMTBound`` (log weights, pmf temporaries, per-c divergences)
FMT_BYTES_PER_COUNT = 256
from .algebra import map_pairs, swap_mixture, symmetrize_eq3
from .shuffling import shuffle_weight


def fmt_clone_prob(eps0: float) -> float:
    """Clone probability e^{−ε₀} of Feldman, McMillan & Talwar 2021, Thm 3.2."""
    return math.exp(-check_eps0(eps0))


def _survival(j: np.ndarray, c: np.ndarray) -> np.ndarray:
    """S(j) = Pr[A > j], A ~ Bin(c, ½): 1 for j < 0, 0 for j ≥ c."""
    ji = np.clip(j, 0, c).astype(np.int64)  # scipy's bdtrc wants integer counts
    out = bdtrc(ji, c.astype(np.int64), 0.5)
    return np.where(j < 0, 1.0, np.where(j >= c, 0.0, out))


def conditional_delta(c: Any, eps: float, eps0: float) -> np.ndarray:
    """B_c(ε) = H_{e^ε}(P|c ‖ Q|c) for the clone counts c (module docstring, step 1), vectorised.

    Example: c = 0 is randomized response with ε₀ (the report alone): B₀(0) = TV = (1 − 2w).

    >>> round(float(conditional_delta(0, 0.0, math.log(3))[0]), 12)
    0.5
    """
    c = np.atleast_1d(np.asarray(c, dtype=float))
    w = shuffle_weight(eps0)
    # up = 1 − w − e^ε·w and down = e^ε·(1 − w) − w, written with expm1 (w/(1 − w) = e^{−ε₀}): the
    # differences cancel as ε₀ → 0 (w rounds to ½ below ε₀ ≈ 1e-16, and 1 − 2w to 0, where δ ≈ ε₀/2)
    up = -(1.0 - w) * math.expm1(eps - eps0)
    s_ = eps + eps0
    down = (1.0 - w) * (math.exp(-eps0) * math.expm1(s_) if s_ < 700.0 else math.exp(eps) - math.exp(-eps0))
    if up <= 0:
        return np.zeros_like(c)
    rho = up / down
    k_star = np.floor((c + 1.0) / (1.0 + rho))
    best = np.zeros_like(c)
    for shift in (-1.0, 0.0, 1.0):
        k = k_star + shift
        val = up * _survival(k - 1, c) - down * _survival(k, c)
        best = np.maximum(best, val)
    return best


@dataclass(frozen=True)
class FMTBound:
    """δ(ε) of the Feldman–McMillan–Talwar reduction by their numerical method (an upper bound).

    Parameters: ε₀, n, ``step`` (block width over c; 1 = every c, exact up to the 1e-20 tails), and
    ``tail`` (mass of C left out on each side, charged in full).
    """

    eps0: float
    n: int
    step: int = 1
    tail: float = DEFAULT_TAIL
    _c: np.ndarray = field(init=False, repr=False, compare=False)
    _weights: np.ndarray = field(init=False, repr=False, compare=False)
    _uncovered: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", check_eps0(self.eps0))
        object.__setattr__(self, "n", check_users(self.n))
        object.__setattr__(self, "step", check_integer("step", self.step, minimum=1))
        check_in_interval("tail", self.tail, 0.0, 1e-6, low_open=True)
        n, p = self.n, fmt_clone_prob(self.eps0)
        # the law of C on its bulk only (Chernoff tails, each ≤ tail, charged in full): O(√n) memory
        c_lo, c_hi, t_lo, t_hi = bulk_range(n, p, float(self.tail))
        need = FMT_BYTES_PER_COUNT * (c_hi - c_lo + 1)
        if need > MEMORY_LIMIT:
            raise ValueError(
                f"n = {n} users needs an estimated {need / 2**30:.3g} GiB for the clones bound's "
                f"{c_hi - c_lo + 1} clone counts (limit {MEMORY_LIMIT / 2**30:.3g} GiB)"
            )
        log_w = log_binom_pmf(np.arange(c_lo, c_hi + 1, dtype=float), n - 1, p)
        edges = np.arange(c_lo, c_hi + 1, self.step)
        weights = np.exp(np.logaddexp.reduceat(log_w, edges - c_lo))
        uncovered = t_lo + t_hi
        object.__setattr__(self, "_c", edges.astype(float))  # each block charged at its smallest c
        object.__setattr__(self, "_weights", weights)
        object.__setattr__(self, "_uncovered", uncovered)

    def delta(self, eps: float) -> float:
        """Upper bound on δ(ε) = H_{e^ε}(P‖Q) (module docstring, step 2).

        >>> b = FMTBound(eps0=4.0, n=10**5)
        >>> 0 < b.delta(0.17) < 1e-5
        True
        """
        eps = check_in_interval("eps", eps, 0.0, math.inf)
        if eps >= self.eps0:  # the shuffled output is ε₀-DP (post-processing of the one report): δ(ε₀) = 0
            return 0.0
        b = conditional_delta(self._c, eps, self.eps0)
        return float(min(math.fsum((self._weights * b).tolist()) + self._uncovered, 1.0))

    def epsilon(self, delta: float) -> float:
        """Smallest ε ∈ [0, ε₀] with δ(ε) ≤ delta (module docstring, step 3); never understated."""
        delta = check_in_interval("delta", delta, 0.0, 1.0, low_open=True)
        if self.delta(0.0) <= delta:
            return 0.0
        from scipy import optimize

        g = lambda e: self.delta(e) - delta  # noqa: E731
        eps = optimize.brentq(g, 0.0, self.eps0, xtol=1e-12, rtol=1e-12, maxiter=200)
        for _ in range(100):
            if self.delta(eps) <= delta:
                return eps
            eps = min(eps + max(1e-12, 1e-10 * eps), self.eps0)
        return self.eps0


def fmt_delta(eps: float, eps0: float, n: int, *, step: int = 1) -> float:
    """δ(ε) of the shuffled ε₀-DP randomisers by Feldman, McMillan & Talwar's numerical method."""
    return FMTBound(eps0, n, step).delta(eps)


def fmt_epsilon(delta: float, eps0: float, n: int, *, step: int = 1) -> float:
    """ε at δ of the shuffled ε₀-DP randomisers by Feldman, McMillan & Talwar's numerical method.

    Their README reports ε ∈ [0.1675, 0.1728] for n = 10⁵, ε₀ = 4, δ = 10⁻⁶ (step 100, 10 bisections).
    """
    return FMTBound(eps0, n, step).epsilon(delta)


@dataclass(frozen=True, repr=False)
class HidingAmongClones(PairMechanism):
    """The Feldman–McMillan–Talwar 2021 clone pair as a mechanism (exact T(P, Q) of their reduction).

    >>> m = HidingAmongClones(eps0=1.0, n=50)
    >>> m.exact
    True
    """

    eps0: float
    n: int
    max_atoms: int = field(default=DEFAULT_MAX_ATOMS, compare=False)
    tail: float = field(default=DEFAULT_TAIL, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", check_eps0(self.eps0))
        object.__setattr__(self, "n", check_users(self.n))

    def _clone_pairs(self) -> tuple[DiscretePair, DiscretePair, ClonePlan]:
        return clone_count_pairs(self.n, fmt_clone_prob(self.eps0), max_atoms=int(self.max_atoms), tail=float(self.tail))

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        pess, opt, _ = self._clone_pairs()
        w = shuffle_weight(self.eps0)
        return map_pairs(lambda pr: symmetrize_eq3(swap_mixture(pr, w)), (pess, opt))

    @property
    def spec(self) -> str:
        return f"clones(eps0={format_number(self.eps0)}, n={self.n})"


__all__ = ["FMTBound", "HidingAmongClones", "conditional_delta", "fmt_clone_prob", "fmt_delta", "fmt_epsilon"]
