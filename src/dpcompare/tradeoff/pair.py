"""Discrete dominating pairs: the one exact numeric representation of a trade-off curve.

A discrete pair (P, Q) has finitely many atoms with privacy losses ℓᵢ = log(qᵢ/pᵢ), plus a P-mass
``p_neg_inf`` at ℓ = −∞ (outcomes Q never produces) and a Q-mass ``q_pos_inf`` at ℓ = +∞.
Its trade-off curve is piecewise linear and convex, and conversely every piecewise-linear convex
trade-off curve is a discrete pair (segment k: pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(−slopeₖ)).

Conventions ([BCP] §1 and App. A): H₀ is ω ~ P, H₁ is ω ~ Q; the most powerful test rejects H₀
when ℓ is large; α is the Type I error, β = f(α) the Type II error.

Views, all exact (closed sums over the atoms):

- Bayes error ([BCP] eq 2):  R(π) = Σᵢ min(π·pᵢ, (1−π)·qᵢ) = π·P(ℓ ≥ λ) + (1−π)·Q(ℓ < λ),
  λ = log(π/(1−π)); piecewise linear in π with breakpoints πᵢ = 1/(1+e^{−ℓᵢ}).
- Privacy profile ([BCP] eq 25):  δ(ε) = 1 + f*(−e^ε) = H_{e^ε}(Q‖P) = q₊∞ + Σ_{ℓᵢ>ε} (qᵢ − e^ε pᵢ).
- Trade-off ([BCP] eq 24):  vertices (αₖ, βₖ) = (P(ℓ ≥ ℓₖ), Q(ℓ < ℓₖ)), joined by segments.

Masses are stored as log P-masses so that atoms far in the tails (q of 1e-300 and below) keep their
value; partial sums are taken from the side where they are small, so no view suffers cancellation
except δ, which is recomputed in log space where cancellation would cost precision.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.special import logsumexp

from .. import directed_rounding as _rnd
from .._numerics import expit, log1mexp, logit, logsubexp

#: Totals of P or Q masses may exceed 1 by this much (floating point) before a pair is rejected.
MASS_TOLERANCE = 1e-9
#: pairs with at most this many finite atoms get δ(ε) atom by atom, rounded outwards (``_delta_directed``)
DIRECTED_ATOMS = 16
#: unit roundoff of double precision
DIRECTED_U = 2.0**-53
#: the tail-sum read-out of δ is used where its a-priori error bound is below this fraction of δ (else the
#: log-space sum, whose bound is ~(136 + log₂ n + |log qᵢ| + |log δ|)·u): the reported δ stays within ~1e-12
TAIL_RTOL = 1e-12
#: block length of numpy's pairwise summation (``PW_BLOCKSIZE`` in numpy's loops): within a block the
#: terms are added sequentially, so a block contributes at most this many levels to the summation tree
_PAIRWISE_BLOCK = 128


#: block length of :func:`log_suffix_sums` (linear-space sums within a block)
_SUFFIX_BLOCK = 128


def log_suffix_sums(log_x: np.ndarray) -> np.ndarray:
    """sₖ = log Σ_{i ≥ k} e^{xᵢ} for k = 0 … n (sₙ = −∞), in O(n), without underflow or overflow.

    Blocks of ``_SUFFIX_BLOCK`` terms are summed in linear space after shifting by the block maximum (a
    sum of positive terms: relative error ≤ B·u); the block totals are summed the same way, recursively,
    so the error is ≈ (depth·B + |sₖ|)·u relative, with depth = ⌈log_B n⌉ (a plain ``logaddexp.accumulate``
    would add u·|sₖ| at each of n steps). Where a shifted in-block sum is below 1e-250 (terms far below
    the block maximum, which underflow when shifted by it) that block suffix is taken by
    ``logaddexp.accumulate`` instead (≤ B steps: ≤ B·u·|sₖ|).

    >>> np.round(np.exp(log_suffix_sums(np.log([1.0, 2.0, 3.0]))), 12).tolist()
    [6.0, 5.0, 3.0, 0.0]
    """
    x = np.asarray(log_x, dtype=float).ravel()
    n = x.size
    if n == 0:
        return np.array([-np.inf])
    b = _SUFFIX_BLOCK
    m = -(-n // b)
    blocks = np.full(m * b, -np.inf)
    blocks[:n] = x
    blocks = blocks.reshape(m, b)
    shift = np.max(blocks, axis=1)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    with np.errstate(divide="ignore"):
        lin = np.cumsum(np.exp(blocks - shift[:, None])[:, ::-1], axis=1)[:, ::-1]
        within = np.log(lin) + shift[:, None]  # Σ over i ≥ k in the block
        small = ~(lin > 1e-250)
        if np.any(small):  # underflow of the shifted terms: the log-space accumulation there
            rows = np.flatnonzero(np.any(small, axis=1))
            acc = np.logaddexp.accumulate(blocks[rows, ::-1], axis=1)[:, ::-1]
            within[rows] = np.where(small[rows], acc, within[rows])
        if m == 1:
            later = np.array([-np.inf])
        else:
            later = log_suffix_sums(within[:, 0])[1:]  # Σ over the later blocks
        out = np.logaddexp(within, later[:, None]).ravel()[:n]
    return np.concatenate([out, [-np.inf]])


class Rounding(enum.Enum):
    """Which side of the truth a numeric object errs on (dp-accounting's pessimistic/optimistic).

    PESSIMISTIC: at least as informative as the truth (δ ≥ δ_true, f ≤ f_true, R ≤ R_true):
    safe to report as a guarantee. OPTIMISTIC: at most as informative (δ ≤ δ_true).
    """

    EXACT = "exact"
    PESSIMISTIC = "pessimistic"
    OPTIMISTIC = "optimistic"

    def swapped(self) -> "Rounding":
        return self  # swapping P and Q keeps the information order

    def combine(self, other: "Rounding") -> "Rounding":
        """Rounding of a composition; mixing pessimistic with optimistic is refused."""
        if self is Rounding.EXACT:
            return other
        if other is Rounding.EXACT or other is self:
            return self
        raise ValueError("cannot combine a pessimistic with an optimistic object (their errors point in opposite directions)")


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class DiscretePair:
    """A discrete dominating pair with atoms at finite privacy losses and at ±∞.

    Parameters
    ----------
    loss : strictly increasing finite privacy losses ℓᵢ = log(qᵢ/pᵢ).
    log_p : log P-mass of each atom (the Q-mass is log_p + loss).
    p_neg_inf : P-mass at ℓ = −∞. ``None`` puts the whole deficit 1 − Σpᵢ there.
    q_pos_inf : Q-mass at ℓ = +∞. ``None`` puts the whole deficit 1 − Σqᵢ there.
    rounding : which side of the truth this pair errs on.
    exact_log_q : (keyword) log Q-mass of each atom when known more accurately than log_p + loss
        (e.g. ε-DP with δ > 0 at ε = 1e15, where log_p + loss loses every digit of log(1 − δ)).

    Example
    -------
    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])   # randomized response, ε = log 3
    >>> round(float(rr.delta(0.0)), 12)   # rounded up by a few ulp (never below the truth)
    0.5
    """

    loss: np.ndarray
    log_p: np.ndarray
    p_neg_inf: float | None = None
    q_pos_inf: float | None = None
    rounding: Rounding = Rounding.EXACT
    exact_log_q: np.ndarray | None = field(default=None, kw_only=True, repr=False)

    def __post_init__(self) -> None:
        loss = np.asarray(self.loss, dtype=float).ravel()
        log_p = np.asarray(self.log_p, dtype=float).ravel()
        if loss.shape != log_p.shape:
            raise ValueError(f"loss and log_p must have the same length, got {loss.size} and {log_p.size}")
        if not np.all(np.isfinite(loss)):
            raise ValueError("loss must be finite; put mass at ±∞ in p_neg_inf / q_pos_inf")
        if loss.size > 1 and not np.all(np.diff(loss) > 0):
            raise ValueError("loss must be strictly increasing (use DiscretePair.from_masses to sort and merge)")
        if np.any(np.isnan(log_p)) or np.any(log_p == np.inf):
            raise ValueError("log_p must be finite or -inf")
        object.__setattr__(self, "loss", _readonly(loss))
        object.__setattr__(self, "log_p", _readonly(log_p))
        if self.exact_log_q is not None:
            lq = np.asarray(self.exact_log_q, dtype=float).ravel()
            if lq.shape != log_p.shape or np.any(np.isnan(lq)) or np.any(lq == np.inf):
                raise ValueError("exact_log_q must have one finite (or -inf) entry per atom")
            with np.errstate(invalid="ignore"):
                off = np.abs(lq - (log_p + loss))
            if np.any(off > 1e-9 * np.maximum(1.0, np.abs(loss)) + 1e-9 * np.maximum(1.0, np.abs(log_p))):
                raise ValueError("exact_log_q must equal log_p + loss up to rounding")
            object.__setattr__(self, "exact_log_q", _readonly(lq))
        total_p = float(np.exp(logsumexp(log_p))) if log_p.size else 0.0
        total_q = float(np.exp(logsumexp(self.log_q))) if log_p.size else 0.0
        for name, total in (("P", total_p), ("Q", total_q)):
            if total > 1.0 + MASS_TOLERANCE:
                raise ValueError(f"the finite atoms carry {name}-mass {total:.12g} > 1: not a pair of probability distributions")
        p_inf = max(0.0, 1.0 - total_p) if self.p_neg_inf is None else float(self.p_neg_inf)
        q_inf = max(0.0, 1.0 - total_q) if self.q_pos_inf is None else float(self.q_pos_inf)
        for name, v in (("p_neg_inf", p_inf), ("q_pos_inf", q_inf)):
            if not (0.0 <= v <= 1.0 + MASS_TOLERANCE):
                raise ValueError(f"{name} must be in [0, 1], got {v!r}")
        # a total of 1 + (a few ulp) is floating-point rounding of a mass of exactly 1
        p_inf, q_inf = min(p_inf, 1.0), min(q_inf, 1.0)
        if total_p + p_inf > 1.0 + MASS_TOLERANCE or total_q + q_inf > 1.0 + MASS_TOLERANCE:
            raise ValueError("masses at ±∞ plus the finite atoms exceed 1")
        object.__setattr__(self, "p_neg_inf", p_inf)
        object.__setattr__(self, "q_pos_inf", q_inf)
        if not isinstance(self.rounding, Rounding):
            raise ValueError(f"rounding must be a Rounding, got {self.rounding!r}")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_masses(
        cls,
        p: np.ndarray | list[float],
        q: np.ndarray | list[float],
        *,
        rounding: Rounding = Rounding.EXACT,
    ) -> "DiscretePair":
        """Pair from two probability vectors on a common finite outcome space.

        Outcomes with q = 0 go to ℓ = −∞, with p = 0 to ℓ = +∞; outcomes with equal ℓ are merged
        (merging outcomes of equal likelihood ratio loses no information).
        """
        p = np.asarray(p, dtype=float).ravel()
        q = np.asarray(q, dtype=float).ravel()
        if p.shape != q.shape:
            raise ValueError("p and q must have the same length")
        for name, v in (("p", p), ("q", q)):
            if np.any(~np.isfinite(v)) or np.any(v < 0):
                raise ValueError(f"{name} must contain finite non-negative masses")
            if abs(v.sum() - 1.0) > MASS_TOLERANCE:
                raise ValueError(f"{name} must sum to 1, got {v.sum():.12g}")
        both = (p > 0) & (q > 0)
        p_neg_inf = float(p[(p > 0) & (q == 0)].sum())
        q_pos_inf = float(q[(q > 0) & (p == 0)].sum())
        with np.errstate(divide="ignore"):
            loss = np.log(q[both]) - np.log(p[both])
        return cls.from_atoms(loss, np.log(p[both]), p_neg_inf=p_neg_inf, q_pos_inf=q_pos_inf, rounding=rounding,
                              log_q=np.log(q[both]))

    @classmethod
    def from_atoms(
        cls,
        loss: np.ndarray,
        log_p: np.ndarray,
        *,
        p_neg_inf: float | None = None,
        q_pos_inf: float | None = None,
        rounding: Rounding = Rounding.EXACT,
        log_q: np.ndarray | None = None,
    ) -> "DiscretePair":
        """Pair from unsorted atoms; atoms with equal loss are merged, atoms with zero mass dropped.

        ``log_q`` (optional) gives the atoms' log Q-masses where they are known more accurately
        than log_p + loss."""
        loss = np.asarray(loss, dtype=float).ravel()
        log_p = np.asarray(log_p, dtype=float).ravel()
        lq = (log_p + loss) if log_q is None else np.asarray(log_q, dtype=float).ravel()
        keep = np.isfinite(log_p)
        loss, log_p, lq = loss[keep], log_p[keep], lq[keep]
        order = np.argsort(loss, kind="stable")
        loss, log_p, lq = loss[order], log_p[order], lq[order]
        if loss.size:
            uniq, start = np.unique(loss, return_index=True)
            if uniq.size != loss.size:
                log_p = np.logaddexp.reduceat(log_p, start)
                lq = np.logaddexp.reduceat(lq, start)
                loss = uniq
        return cls(loss, log_p, p_neg_inf, q_pos_inf, rounding, exact_log_q=None if log_q is None else lq)

    @classmethod
    def from_vertices(cls, alpha: np.ndarray, beta: np.ndarray, *, rounding: Rounding = Rounding.EXACT) -> "DiscretePair":
        """Pair of the convex piecewise-linear trade-off curve through the vertices (α ascending from 0).

        Segment k is an atom with pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(qₖ/pₖ); a drop
        1 − f(0) is Q-mass at ℓ = +∞; flat pieces (and α short of 1) are P-mass at ℓ = −∞. The caller
        validates the curve (convex, non-increasing, in [0, 1 − α]).

        >>> DiscretePair.from_vertices([0, 0.25, 1], [1, 0.25, 0]).loss.round(4).tolist()   # RR, ε = log 3
        [-1.0986, 1.0986]
        """
        a = np.asarray(alpha, dtype=float).ravel()
        b = np.asarray(beta, dtype=float).ravel()
        dp, dq = np.diff(a), -np.diff(b)
        seg = (dp > 0) & (dq > 0)
        with np.errstate(divide="ignore"):
            log_p, log_q = np.log(dp[seg]), np.log(dq[seg])
        q_pos_inf = float(min(max(1.0 - b[0], 0.0), 1.0))
        p_neg_inf = float(math.fsum(dp[(dp > 0) & ~seg].tolist()) + max(1.0 - a[-1], 0.0))
        return cls.from_atoms(log_q - log_p, log_p, p_neg_inf=p_neg_inf, q_pos_inf=q_pos_inf, rounding=rounding,
                              log_q=log_q)

    # ------------------------------------------------------------------ masses and partial sums
    @property
    def size(self) -> int:
        return int(self.loss.size)

    @cached_property
    def p(self) -> np.ndarray:
        return np.exp(self.log_p)

    @cached_property
    def log_q(self) -> np.ndarray:
        return self.exact_log_q if self.exact_log_q is not None else self.log_p + self.loss

    @cached_property
    def q(self) -> np.ndarray:
        return np.exp(self.log_q)

    @cached_property
    def _p_tail(self) -> np.ndarray:
        """_p_tail[k] = Σ_{i ≥ k} pᵢ (length n+1)."""
        return np.concatenate([np.cumsum(self.p[::-1])[::-1], [0.0]])

    @cached_property
    def _alpha_complement(self) -> np.ndarray:
        """1 − αₖ of the trade-off vertices (α ascending, then α = 1), from head sums of P:
        1 − αₖ = p₋∞ + Σ_{i < k} pᵢ, accurate where αₖ is close to 1 (no 1 − α cancellation)."""
        head = self.p_neg_inf + np.concatenate([[0.0], np.cumsum(self.p)])
        return np.concatenate([head[::-1], [0.0]])

    @cached_property
    def _q_head(self) -> np.ndarray:
        """_q_head[k] = Σ_{i < k} qᵢ (length n+1)."""
        return np.concatenate([[0.0], np.cumsum(self.q)])

    @cached_property
    def _q_tail(self) -> np.ndarray:
        """_q_tail[k] = Σ_{i ≥ k} qᵢ (length n+1)."""
        return np.concatenate([np.cumsum(self.q[::-1])[::-1], [0.0]])

    @property
    def tail_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """(Pₖ, Qₖ) = (Σ_{i ≥ k} pᵢ, Σ_{i ≥ k} qᵢ) for k = 0 … n (length n+1, the last 0): the cumulative sums
        every δ(ε) of this pair reads (cached; read-only views).

        >>> p, q = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25]).tail_sums
        >>> [round(float(x), 12) for x in p], [round(float(x), 12) for x in q]
        ([1.0, 0.25, 0.0], [1.0, 0.75, 0.0])
        """
        views = []
        for a in (self._p_tail, self._q_tail):
            v = a.view()
            v.flags.writeable = False
            views.append(v)
        return views[0], views[1]

    # ------------------------------------------------------------------ views of the pair as given
    def bayes_error_logit(self, lam: np.ndarray) -> np.ndarray:
        """R at π = 1/(1+e^{−λ}), from the log-odds λ (exact at extreme priors)."""
        lam = np.asarray(lam, dtype=float)
        k = np.searchsorted(self.loss, lam, side="left")
        pi, one_minus_pi = expit(lam), expit(-lam)
        return pi * self._p_tail[k] + one_minus_pi * self._q_head[k]

    def bayes_error(self, pi: np.ndarray) -> np.ndarray:
        """R(π) = Σᵢ min(π·pᵢ, (1−π)·qᵢ) ([BCP] eq 2), for the pair as given."""
        pi = np.asarray(pi, dtype=float)
        k = np.searchsorted(self.loss, logit(pi), side="left")
        return pi * self._p_tail[k] + (1.0 - pi) * self._q_head[k]

    def bayes_error_slope(self, lam: np.ndarray) -> np.ndarray:
        """dR/dπ just right of π = expit(λ): P(ℓ > λ) − Q(ℓ ≤ λ)."""
        k = np.searchsorted(self.loss, np.asarray(lam, dtype=float), side="right")
        return self._p_tail[k] - self._q_head[k]

    @cached_property
    def _tiny_from(self) -> np.ndarray:
        """_tiny_from[k]: whether an atom i ≥ k has a P- or Q-mass below e^{−700} (length n+1): the
        tail sums from k lose such atoms to underflow, so δ from k on is computed in log space."""
        tiny = (self.log_p < -700.0) | (self.log_q < -700.0)
        return np.concatenate([np.logical_or.accumulate(tiny[::-1])[::-1], [False]])

    def delta(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) = H_{e^ε}(Q‖P) = q₊∞ + Σ_{ℓᵢ>ε} qᵢ(1 − e^{ε−ℓᵢ}) ([BCP] eq 25), for the pair as given,
        rounded outwards (up for an exact or pessimistic pair, down for an optimistic one): the double is
        never on the optimistic side of the real-number δ of the pair as stored.

        Pairs with ≤ DIRECTED_ATOMS atoms: atom by atom in log space (``_delta_directed``). Larger pairs:
        from tail sums where their a-priori error bound (``_tail_sum_error``) is below TAIL_RTOL = 1e-12 of δ, else in
        log space with its own bound (``_log_delta_directed``: where the difference of the tail sums
        cancels, where e^ε overflows (ε > 700) or where tail masses underflow); the result lies in [0, 1].
        """
        eps = np.asarray(eps, dtype=float)
        if self.size <= DIRECTED_ATOMS:
            return self._delta_directed(eps)
        k = np.searchsorted(self.loss, eps, side="right")
        with np.errstate(over="ignore", invalid="ignore"):
            scale = np.exp(eps)
            head = self._q_tail[k] - scale * self._p_tail[k]
            head = np.where(k >= self.size, 0.0, head)
            val = self.q_pos_inf + head
            err = self._tail_sum_error(k, scale, head, val)
        # q − e^ε·p cancels: where the bound exceeds TAIL_RTOL of δ (or 1e-4 of the tail mass) the log-space
        # sum (no cancellation, its own bound) is used instead
        inaccurate = (k < self.size) & (~(head > 1e-4 * self._q_tail[k]) | ~(err <= TAIL_RTOL * val) | (eps > 700.0)
                                        | self._tiny_from[k])
        if self.rounding is Rounding.OPTIMISTIC:
            out = _rnd.lower(np.maximum(val, 0.0), 0.0, err)
        else:
            out = _rnd.upper(np.maximum(val, 0.0), 0.0, err, ceil=1.0)
        # no atom above ε: δ(ε) = q₊∞ exactly, the stored float itself (the solvers rely on δ(ℓ_max) = q₊∞)
        out = np.where(k >= self.size, self.q_pos_inf, out)
        if np.any(inaccurate):
            flat_eps = np.atleast_1d(eps)[np.atleast_1d(inaccurate)]
            exact = (self._delta_many_directed(flat_eps) if flat_eps.size > 8
                     else np.array([self._log_delta_directed(float(e)) for e in flat_eps]))
            if eps.ndim:
                out = np.array(out, dtype=float)
                out[inaccurate] = exact
                return np.minimum(out, 1.0)
            return np.minimum(exact[0], 1.0)
        return np.minimum(out, 1.0)

    @cached_property
    def _tail_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """(Σ_{i ≥ k} (|log qᵢ| + 8)·u·qᵢ, the same for P), k = 0 … n: the a-priori error of the tail sums
        owed to the masses themselves (qᵢ = exp(log pᵢ + ℓᵢ): the sum rounds by u·|log qᵢ|, exp by ≤ 4 ulp);
        with ``exact_log_q`` the P-side also carries |pᵢ − qᵢe^{−ℓᵢ}| (the loss labels are log(qᵢ/pᵢ) rounded)."""
        wq = (np.abs(self.log_q) + 8.0) * DIRECTED_U * self.q
        wp = (np.abs(self.log_p) + 8.0) * DIRECTED_U * self.p
        if self.exact_log_q is not None:
            # δ of the stored pair is Σ qᵢ(1 − e^{ε−ℓᵢ}): its P-side is qᵢe^{−ℓᵢ} = pᵢ·e^{log qᵢ − ℓᵢ − log pᵢ}, not pᵢ
            lq, lp, ll = self.log_q, self.log_p, self.loss
            mism = np.abs(lq - ll - lp) + 2.0 * DIRECTED_U * (np.abs(lq) + np.abs(ll) + np.abs(lp))
            wp = wp + 1.01 * np.expm1(np.minimum(mism, 700.0)) * self.p
        tail = lambda w: np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])  # noqa: E731
        return tail(wq), tail(wp)

    def _tail_sum_error(self, k: np.ndarray, scale: np.ndarray, head: np.ndarray, val: np.ndarray) -> np.ndarray:
        """A-priori bound of |fl(q₊∞ + Q_k − e^ε·P_k) − (q₊∞ + Q_k − e^ε·P_k)| (real tails of the stored pair).

        Q_k and P_k are sequential sums (``np.cumsum``) of n − k positive terms: ≤ γ_{n−k}·Σ (Higham,
        "Accuracy and Stability of Numerical Algorithms", 2002, eq 4.4), plus each term's own error
        (``_tail_weights``); e^ε (≤ 4 ulp) and the product (u) add (8 + 1)·u·e^ε·P_k; the difference and the
        addition of q₊∞ round by u each. ×1.01 covers second-order terms (n·u ≪ 0.01).
        """
        n = self.size
        wq, wp = self._tail_weights
        qt, pt = self._q_tail[k], self._p_tail[k]
        terms = np.maximum(n - k, 0) * DIRECTED_U * (qt + scale * pt)
        return 1.01 * (terms + wq[k] + scale * wp[k] + 10.0 * DIRECTED_U * scale * pt
                       + DIRECTED_U * (np.abs(head) + np.abs(val)))

    def _log_delta_directed(self, eps: float) -> float:
        """δ(ε) from the log-space sum, rounded outwards (the large-pair twin of ``_delta_directed``).

        log δ = top + log Σⱼ exp(tⱼ − top), tⱼ = log qᵢ + log(1 − e^{ε−ℓᵢ}) (ℓᵢ > ε) and log q₊∞: every term
        positive. Errors (u = 2⁻⁵³, elementary functions ≤ 4 ulp = 8u): log qᵢ = log pᵢ + ℓᵢ rounds by u·|log qᵢ|;
        d = ε − ℓᵢ rounds by u·|d| and log(1 − e^d) has slope |e^d/(1 − e^d)| ≤ 1/|d|, so that is ≤ u, plus
        log1mexp's own 16u + 8u·|wᵢ|; tⱼ adds u·|tⱼ|; tⱼ − top and exp add u·|tⱼ − top| + 8u; the sum of the m
        positive terms is within γ_h·S for a summation tree of height h (Higham 2002, §4.2): h ≤ m for any
        order, and numpy's pairwise summation of a contiguous array without axis (documented for ``np.sum``;
        blocks of ``_PAIRWISE_BLOCK`` = 128 summed in 8 interleaved runs, then halved recursively) has
        h ≤ 128 + 8 + ⌈log₂ m⌉, the smaller is used; its log adds 8u·(1 + log m) and top + log S
        adds u·|log δ|; exp adds 8u + u·|log δ|. The sum e_max of the worst term's errors and the rest is the
        absolute error of log δ, so δ lies within (e^{1.01·e_max} − 1) relative.
        """
        k = int(np.searchsorted(self.loss, eps, side="right"))
        lq = self.log_q[k:]
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.minimum(eps - self.loss[k:], 0.0)
            lw = log1mexp(d)
            t = lq + lw
            if self.q_pos_inf > 0:
                t = np.append(t, math.log(self.q_pos_inf))
                lw = np.append(lw, 0.0)
                lq = np.append(lq, math.log(self.q_pos_inf))
        if t.size == 0 or not np.any(np.isfinite(t)):
            return 0.0  # no atom above ε and q₊∞ = 0: δ(ε) = 0 exactly
        top = float(np.max(t))
        fin = np.isfinite(t)
        tt, lqf, lwf = t[fin], lq[fin], lw[fin]
        ssum = float(np.sum(np.exp(tt - top)))  # a contiguous 1-D sum without axis: numpy's pairwise summation
        ld = min(top + math.log(ssum), 0.0)
        per_term = DIRECTED_U * (np.abs(lqf) + 1.0 + 16.0 + np.abs(tt) + np.abs(tt - top) + 8.0) + 8.0 * DIRECTED_U * np.abs(lwf)
        depth = min(tt.size, _PAIRWISE_BLOCK + 8 + math.ceil(math.log2(max(tt.size, 2))))
        e_max = float(np.max(per_term)) + DIRECTED_U * (depth + 8.0 * (1.0 + math.log(tt.size)) + 2.0 * abs(ld) + 8.0)
        rel = math.expm1(1.01 * e_max)
        val = math.exp(ld)
        # a subnormal δ carries ≤ ½ subnormal unit absolute (an underflow to 0 too: the real δ is > 0 here)
        if self.rounding is Rounding.OPTIMISTIC:
            return float(_rnd.lower(val, rel, _rnd.TINY))
        return float(_rnd.upper(val, rel, _rnd.TINY, ceil=1.0))

    def _delta_directed(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) of a small pair (≤ DIRECTED_ATOMS atoms: randomized response, ε-DP, (ε, δ)-DP), rounded
        outwards: up for an exact or pessimistic pair, down for an optimistic one.

        log δ = logsumexp(log q₊∞, log qᵢ + log(−expm1(ε − ℓᵢ)) for ℓᵢ > ε): positive terms, no
        cancellation (the tail-sum form Q_k − e^ε·P_k lost 1e-12 relative at ε ≈ ℓ: ApproxDP(0.00204…,
        3.78e-97) at ε = 0.00194 was 6e-17 below the truth). Each log term is within (4 + |log qᵢ| +
        |log(−expm1)|)·u, the sum and the exp add (2n + 4 + |log δ|)·u relative; the result is widened by
        that bound and then moved one ulp further, so the float is never on the optimistic side of the
        real-number δ of the pair as stored.
        """
        e = np.atleast_1d(eps).ravel()
        loss, lq = self.loss, self.log_q
        above = loss[None, :] > e[:, None]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            lw = np.log(-np.expm1(np.minimum(e[:, None] - loss[None, :], 0.0)))
            terms = np.where(above, lq[None, :] + lw, -np.inf)
            if self.q_pos_inf > 0:
                terms = np.concatenate([terms, np.full((e.size, 1), math.log(self.q_pos_inf))], axis=1)
            top = np.max(terms, axis=1, initial=-np.inf)
            safe = np.where(np.isfinite(top), top, 0.0)
            ld = safe + np.log(np.sum(np.exp(terms - safe[:, None]), axis=1))
            ld = np.where(np.isfinite(top), ld, -np.inf)
            mag = np.max(np.where(above, np.abs(lq[None, :]) + np.abs(lw), 0.0), axis=1, initial=0.0)
        val = np.exp(ld)
        bound = DIRECTED_U * (4.0 + 2.0 * terms.shape[1] + 4.0 + mag + np.abs(np.where(np.isfinite(ld), ld, 0.0)))
        if self.rounding is Rounding.OPTIMISTIC:
            out = np.maximum(np.nextafter(val * (1.0 - bound), -np.inf), 0.0)
        else:
            out = np.minimum(np.nextafter(val * (1.0 + bound), np.inf), 1.0)
        out = np.where(val > 0, out, 0.0)
        # no atom above ε: δ(ε) = q₊∞ exactly, the stored float itself (the solvers rely on δ(ℓ_max) = q₊∞)
        out = np.where(np.any(above, axis=1), out, self.q_pos_inf)
        return out.reshape(np.shape(eps)) if np.ndim(eps) else out[0]

    def log_delta(self, eps: float) -> float:
        """log δ(ε), in log space throughout: usable where δ is below 1e-300 and for any ε.

        log δ = logsumexp(log q₊∞, log qᵢ + log(1 − e^{ε−ℓᵢ}) for ℓᵢ > ε): every term is positive,
        so nothing cancels.
        """
        k = int(np.searchsorted(self.loss, eps, side="right"))
        terms = self.log_q[k:] + log1mexp(np.minimum(eps - self.loss[k:], 0.0))
        parts = [logsumexp(terms)] if terms.size else []
        if self.q_pos_inf > 0:
            parts.append(np.log(self.q_pos_inf))
        return min(float(logsumexp(parts)), 0.0) if parts else -np.inf

    @cached_property
    def _log_delta_at_atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """(log δ(ℓₖ), log Wₖ) for every atom k, with Wₖ = qₖ + e^{ℓₖ}·P(ℓ > ℓₖ) = e^{ℓₖ}·P(ℓ ≥ ℓₖ).

        On [ℓₖ₋₁, ℓₖ) the atoms above ε are i ≥ k, so δ(ε) − δ(ℓₖ) = qₖ − e^ε pₖ + (e^{ℓₖ} − e^ε)·P(ℓ > ℓₖ)
        = (1 − e^{ε−ℓₖ})·Wₖ (with qₖ = e^{ℓₖ}pₖ): a positive term. Hence δ(ℓₖ) = q₊∞ + Σ_{i>k} (1 − e^{ℓᵢ₋₁−ℓᵢ})·Wᵢ,
        a suffix sum of positive terms; both suffix sums (this one and P(ℓ > ℓₖ)) are taken in log space
        by :func:`log_suffix_sums` (no cancellation, no underflow).
        """
        n = self.size
        log_p_above = log_suffix_sums(self.log_p)[1:]  # log P(ℓ > ℓₖ)
        log_w = np.logaddexp(self.log_q, self.loss + log_p_above)
        steps = np.full(n, -np.inf)
        if n > 1:
            steps[1:] = log1mexp(self.loss[:-1] - self.loss[1:]) + log_w[1:]
        tail = log_suffix_sums(steps)[1:]  # Σ_{i>k}
        if self.q_pos_inf > 0:
            tail = np.logaddexp(tail, math.log(self.q_pos_inf))
        return tail, log_w

    def _delta_many_directed(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) at many ε from :meth:`log_delta_many`, rounded outwards (the many-ε twin of
        ``_log_delta_directed``: one O(n + m·log n) pass instead of m O(n) sums).

        Error of log δ (u = 2⁻⁵³, elementary functions ≤ 8u, as in ``_log_delta_directed``): each of the two
        nested :func:`log_suffix_sums` has L = ⌈log_B n⌉ + 1 levels (B = 128); a level shifts (u·2S), takes
        exp (8u + u·2S relative), sums ≤ B positive terms sequentially (γ_B ≤ 1.01·B·u relative), takes log
        (8u + u·S) and adds the shift back (u·S), S the largest magnitude of a finite log-mass, loss, ε or
        log δ involved; log W adds a loss, a logaddexp and a log1mexp of a rounded difference (≤ 32u + 4u·S),
        and the read-out one more log1mexp and logaddexp (≤ 32u + 4u·S). Summed:
        E = u·(2L·(1.01·B + 16 + 6S) + 64 + 8S), and δ lies within (e^{1.01·E} − 1) relative of the float.
        """
        ld = self.log_delta_many(eps)
        finite = [np.abs(x[np.isfinite(x)]) for x in (self.log_p, self.log_q, self.loss, np.atleast_1d(eps), ld)]
        big = max((float(np.max(x)) for x in finite if x.size), default=0.0)
        levels = math.ceil(math.log(max(self.size, 2), _SUFFIX_BLOCK)) + 1
        err = DIRECTED_U * (2 * levels * (1.01 * _SUFFIX_BLOCK + 16.0 + 6.0 * big) + 64.0 + 8.0 * big)
        rel = math.expm1(1.01 * err)
        val = np.exp(ld)
        if self.rounding is Rounding.OPTIMISTIC:
            return _rnd.lower(val, rel, _rnd.TINY)
        return _rnd.upper(val, rel, _rnd.TINY, ceil=1.0)

    def log_delta_many(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε) for many ε at once, in log space throughout (as :meth:`log_delta`, O(n + m·log n)):
        log δ(ε) = logaddexp(log δ(ℓₖ), log(1 − e^{ε−ℓₖ}) + log Wₖ), ℓₖ the first atom above ε
        (:attr:`_log_delta_at_atoms`); log q₊∞ (or −∞) above the last atom.

        >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
        >>> bool(np.allclose(rr.log_delta_many(np.array([0.0, 0.5])), [rr.log_delta(0.0), rr.log_delta(0.5)], rtol=1e-13))
        True
        """
        eps = np.asarray(eps, dtype=float)
        flat = np.atleast_1d(eps).ravel()
        k = np.searchsorted(self.loss, flat, side="right")
        top = math.log(self.q_pos_inf) if self.q_pos_inf > 0 else -np.inf
        out = np.full(flat.size, top)
        inside = k < self.size
        if np.any(inside):
            at, log_w = self._log_delta_at_atoms
            kk = k[inside]
            out[inside] = np.minimum(np.logaddexp(at[kk], log1mexp(np.minimum(flat[inside] - self.loss[kk], 0.0)) + log_w[kk]), 0.0)
        return out.reshape(np.shape(eps))

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (certified); ``inf`` if no ε reaches it (delta < q₊∞).

        1. ε = inf where delta < q₊∞ (δ(ε) ≥ q₊∞ for every ε); ε = 0 where δ(0) ≤ delta; for
           delta = 0 (and q₊∞ = 0) the answer is the largest loss ℓ_max, where δ reaches 0.
        2. The first atom ℓⱼ > 0 with δ(ℓⱼ) ≤ delta, by the certified solver over atom indices
           (δ in log space at each probe, O(n) per probe, O(n log n) in all).
        3. On (ℓⱼ₋₁, ℓⱼ] δ(ε) = q₊∞ + Qⱼ − e^ε·Pⱼ (Qⱼ, Pⱼ the tail masses from j), so
           ε = log(q₊∞ + Qⱼ − delta) − log Pⱼ in closed form (log space); it starts
           :func:`dpcompare._search.solve`, which returns a point where δ ≤ delta was evaluated
           (both as log δ and as the double :meth:`delta` returns).
        """
        from .._search import Scale, Side, solve

        if delta < self.q_pos_inf:
            return float("inf")
        if self.delta(0.0) <= delta:
            return 0.0
        if delta <= 0.0:
            return float(max(self.loss[-1], 0.0))
        lt = math.log(delta)

        def g(e: float) -> float:
            v = self.log_delta(e) - lt
            if v <= 0.0 and float(self.delta(e)) > delta:
                return 1e-300  # rounding of the linear-space view: not certified
            return v

        # 2. first atom with δ(ℓⱼ) ≤ delta (index n−1 always qualifies: δ(ℓ_max) = q₊∞ ≤ delta)
        first = int(np.searchsorted(self.loss, 0.0, side="right"))
        j = int(solve(lambda i: g(float(self.loss[int(i)])), first, self.size - 1, side=Side.ABOVE,
                      scale=Scale.LINEAR, integer=True).feasible)
        lo = float(self.loss[j - 1]) if j > first else 0.0
        hi = float(self.loss[j])
        # 3. closed form on (ℓⱼ₋₁, ℓⱼ], then the certified solver around it
        la = float(logsumexp(self.log_q[j:]))
        if self.q_pos_inf > 0:
            la = float(np.logaddexp(la, math.log(self.q_pos_inf)))
        start = None
        if la > lt:
            e0 = float(logsubexp(la, lt)) - float(logsumexp(self.log_p[j:]))
            if lo < e0 < hi:
                start = e0
        return float(solve(g, lo, hi, side=Side.ABOVE, scale=Scale.LOG, start=start, step=1e-13, rtol=1e-13).feasible)

    @cached_property
    def vertices(self) -> tuple[np.ndarray, np.ndarray]:
        """Trade-off vertices (α ascending): αₖ = P(ℓ ≥ ℓₖ), βₖ = Q(ℓ < ℓₖ); then (1, 0). The kinks of the
        piecewise-linear f; read-only arrays of this pair (do not modify)."""
        alpha = self._p_tail[::-1]
        beta = self._q_head[::-1]
        return np.concatenate([alpha, [1.0]]), np.concatenate([beta, [0.0]])

    def tradeoff(self, alpha: np.ndarray) -> np.ndarray:
        """f(α): linear interpolation between the vertices (randomised Neyman–Pearson tests)."""
        alpha = np.asarray(alpha, dtype=float)
        return np.clip(self._tradeoff_raw(alpha), 0.0, np.maximum(1.0 - alpha, 0.0))

    def _tradeoff_raw(self, alpha: np.ndarray) -> np.ndarray:
        """``tradeoff`` before its clip into [0, 1 − α] (the stored masses may sum to 1 + a few u)."""
        a, b = self.vertices
        alpha = np.asarray(alpha, dtype=float)
        # on the segment [αₖ₋₁, αₖ] interpolate from its right end, f = βₖ + (αₖ − α)·(βₖ₋₁ − βₖ)/(αₖ − αₖ₋₁):
        # αₖ − α is exact near αₖ (Sterbenz), so f keeps its relative accuracy as α → 1 where f → 0
        # (the left-end form βₖ₋₁ − (α − αₖ₋₁)·slope cancels there: 1e-4 relative at α = 1 − 1e-12)
        k = np.clip(np.searchsorted(a, alpha, side="right"), 1, a.size - 1)
        a0, a1, b0, b1 = a[k - 1], a[k], b[k - 1], b[k]
        width = a1 - a0
        # αₖ − α, from the complements where α > ½: (1 − α) is exact there and 1 − αₖ comes from head
        # sums, so a vertex αₖ = 1 − 1e-15 that a double cannot hold does not shift f near α = 1
        gap = np.where(alpha > 0.5, (1.0 - alpha) - self._alpha_complement[k], a1 - alpha)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = (b0 - b1) / width
            inner = b1 + np.maximum(gap, 0.0) * slope
        # a segment so narrow that its slope overflows: the plain interpolation has no cancellation to fear
        out = np.where(np.isfinite(slope) & (width > 0), inner, np.interp(alpha, a, b))
        out = np.where(alpha >= a[-1], b[-1], out)
        # f(0) = Q(ℓ < ∞) = 1 − q₊∞ exactly, even where the first vertices' α underflowed to 0
        return np.where(alpha <= 0.0, b[0], out)

    # ------------------------------------------------------------------ directed f and R
    @cached_property
    def _sum_errors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """A-priori absolute error bounds of the cumulative sums behind R and f (k = 0 … n), as
        (P-tail Σ_{i≥k} pᵢ, Q-head Σ_{i<k} qᵢ, P-head p₋∞ + Σ_{i<k} pᵢ (the α complements), label term):
        a sequential sum of m positive terms is within γ_m·Σ (Higham 2002, eq 4.4; γ_m = m·u/(1 − m·u)),
        each mass within (|log x| + 8)·u of its real value (``_tail_weights``'s rounding of log q = log p + ℓ and
        of exp); ×1.01 for the rounding of these bounds. The label term max mᵢ covers losses that are
        log(qᵢ/pᵢ) only up to mᵢ (``exact_log_q``): an atom on the wrong side of π's threshold because of it
        raises R by at most (e^{mᵢ + dλ} − 1)·min(πpᵢ, (1 − π)qᵢ), relative to R."""
        n = self.size
        u = DIRECTED_U
        idx = np.arange(n + 1, dtype=float)
        gamma = lambda m: m * u / (1.0 - m * u)  # noqa: E731
        wq = (np.abs(self.log_q) + 8.0) * u * self.q
        wp = (np.abs(self.log_p) + 8.0) * u * self.p
        tail = lambda w: np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])  # noqa: E731
        head = lambda w: np.concatenate([[0.0], np.cumsum(w)])  # noqa: E731
        e_ptail = 1.01 * (gamma(n - idx) * self._p_tail + tail(wp))
        e_qhead = 1.01 * (gamma(idx) * self._q_head + head(wq))
        e_phead = 1.01 * (gamma(idx + 1) * (self.p_neg_inf + head(self.p)) + head(wp))
        label = 0.0
        if self.exact_log_q is not None:
            lq, lp, ll = self.log_q, self.log_p, self.loss
            mism = np.abs(lq - ll - lp) + 2.0 * u * (np.abs(lq) + np.abs(ll) + np.abs(lp))
            label = 1.01 * float(np.max(mism, initial=0.0))
        return e_ptail, e_qhead, e_phead, label

    def bayes_error_bounds(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) doubles around the real R(π) of the pair as stored ([BCP] eq 2): the computed
        π·P_k + (1 − π)·Q_k (``bayes_error``) widened by its a-priori error (``_sum_errors``; the products,
        1 − π and the sum add 4u·R). The threshold k comes from λ̂ = logit(π), off by dλ = ELEM·(|log π| +
        |log(1 − π)|) + u|λ|: an atom with loss between λ and λ̂ sits on the wrong side, which only raises the
        sum (R = min over thresholds) and by at most (e^{dλ} − 1)·R, so the lower end also takes dλ (and the
        label term of ``_sum_errors``) relative.

        >>> pair = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
        >>> lo, hi = pair.bayes_error_bounds(0.5)
        >>> bool(lo < 0.25 < hi and hi - lo < 1e-14)
        True
        """
        pi = np.asarray(pi, dtype=float)
        e_ptail, e_qhead, _, label = self._sum_errors
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lp, lq = np.log(pi), np.log1p(-pi)
            lam = lp - lq
            k = np.searchsorted(self.loss, lam, side="left")
            v = pi * self._p_tail[k] + (1.0 - pi) * self._q_head[k]
            err = 1.01 * (pi * e_ptail[k] + (1.0 - pi) * e_qhead[k]) + 4.0 * DIRECTED_U * v + 4.0 * _rnd.TINY
            dlam = _rnd.ELEM * (np.abs(lp) + np.abs(lq)) + DIRECTED_U * np.abs(lam)
            lo = _rnd.lower(v, np.where(np.isfinite(dlam), np.expm1(1.01 * (dlam + label)), 0.0), err)
            hi = _rnd.upper(v, 0.0, err)
        edge = (pi <= 0.0) | (pi >= 1.0)  # R(0) = R(1) = 0 exactly
        # (no cap at min(π, 1 − π): the stored masses may sum to 1 + a few u; the mechanism clips to its range)
        return np.where(edge, 0.0, lo), np.where(edge, 0.0, hi)

    @cached_property
    def _mass_gap(self) -> float:
        """A bound of |1 − (p₋∞ + Σ pᵢ)| for the real stored masses: the complements of ``tradeoff`` read 1 − A₁ as
        if they summed to 1. Σ by ``math.fsum`` (within half an ulp of the sum of the doubles), plus the masses'
        own errors (|log pᵢ| + 8)·u·pᵢ."""
        u = DIRECTED_U
        total = math.fsum([self.p_neg_inf, *self.p.tolist()])
        return 1.01 * (abs(1.0 - total) + u * total + float(np.sum((np.abs(self.log_p) + 8.0) * u * self.p)))

    @cached_property
    def _bound_tables(self) -> tuple[np.ndarray, ...]:
        """Per-vertex tables of :meth:`tradeoff_bounds`, built once (O(n) each; a call then costs O(m log n) for m
        values of α — a Lévy distance's bisection calls it 56 times per level): the error bounds of the P-tail,
        Q-head and P-head sums and the masses' own errors, in vertex order. Vertex j of ``vertices`` is
        (P-tail, Q-head) at index n − j, then (1, 0) exactly; segment j (from vertex j − 1 to j, j ≤ n) is atom n − j."""
        u = DIRECTED_U
        e_ptail, e_qhead, e_phead, _ = self._sum_errors
        ea = np.concatenate([e_ptail[::-1], [0.0]])
        eb = np.concatenate([e_qhead[::-1], [0.0]])
        ec = np.concatenate([e_phead[::-1], [0.0]])
        wp = np.concatenate([[0.0], ((np.abs(self.log_p) + 8.0) * u * self.p)[::-1], [0.0]])
        wq = np.concatenate([[0.0], ((np.abs(self.log_q) + 8.0) * u * self.q)[::-1], [0.0]])
        qi = np.concatenate([[0.0], self.q[::-1], [0.0]])
        return ea, eb, ec, wp, wq, qi

    def tradeoff_bounds(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) doubles around the real f(α) of the pair as stored: ``tradeoff``'s interpolation
        f̂ = b₁ + gap·ŝ on the segment [αₖ₋₁, αₖ] (atom i: real width pᵢ, real height qᵢ) widened by a
        first-order bound of its error against the real segment's line L(α) = B₁ + (A₁ − α)·s, s = qᵢ/pᵢ:

        - |b₁ − B₁| ≤ Eβ (the Q-head sum's bound, ``_sum_errors``);
        - the gap A₁ − α is read as a₁ − α (off by Eα, the P-tail's bound, + u·gap) or, for α > ½, as
          (1 − α) − (1 − a₁) from the P-head sums (off by their bound + |1 − total mass| (``math.fsum``) + u·gap); × s;
        - ŝ = (b₀ − b₁)/(a₁ − a₀): consecutive cumulative sums differ by one addition, so a₁ − a₀ is pᵢ up to
          its own error + u·a₁ (+ u for the subtraction) and b₀ − b₁ is qᵢ up to its own + u·b₀: gap·|ŝ − s| ≤
          (e_q + u·b₀) + s·(e_p + u·a₁) + 4u·qᵢ (gap·s ≤ qᵢ);
        - the interpolation's own rounding ≤ 8u·|f̂|, 4 subnormal units below the normal range.

        f is convex and L is one of its pieces, so f(α) ≥ L(α) also where α sits just outside the real
        segment: the lower end is sound there too. The upper end also allows for α lying, within the vertex's
        position error E, on the previous (steeper) segment: f(α) ≤ B₁′ + s_prev·(E − (α − a₁′))₊ there.
        Where ŝ is not finite (a width that rounded to 0) f is only bounded through monotonicity:
        f(α) ≥ B₁ − s′·Eα with s′ the next segment's slope.

        >>> pair = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
        >>> lo, hi = pair.tradeoff_bounds(0.5)    # f(½) = max(1 − 3α, (1 − α)/3) = 1/6 (randomized response, ε = log 3)
        >>> bool(lo < 1 / 6 < hi and hi - lo < 1e-14)
        True
        """
        u = DIRECTED_U
        a, b = self.vertices
        alpha = np.asarray(alpha, dtype=float)
        v = self._tradeoff_raw(alpha)
        ea, eb, ec, wp, wq, qi = self._bound_tables
        mass_gap = self._mass_gap
        k = np.clip(np.searchsorted(a, alpha, side="right"), 1, a.size - 1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = (b[k - 1] - b[k]) / (a[k] - a[k - 1])
            gap = np.where(alpha > 0.5, (1.0 - alpha) - self._alpha_complement[k], a[k] - alpha)
            e_gap = np.where(alpha > 0.5, ec[k] + mass_gap, ea[k]) + u * np.abs(gap)
            e_slope = (wq[k] + u * b[k - 1]) + slope * (wp[k] + u * a[k]) + 4.0 * u * qi[k]
            bound = 1.01 * (eb[k] + 1.01 * slope * e_gap + e_slope) + 8.0 * u * np.abs(v) + 4.0 * _rnd.TINY
            kn = np.minimum(k + 1, a.size - 1)
            s_next = (b[kn - 1] - b[kn]) / (a[kn] - a[kn - 1])
            mono = b[k] - 1.01 * (eb[k] + 1.01 * np.where(np.isfinite(s_next), s_next, np.inf) * (ea[k] + u * a[k]))
            finite = np.isfinite(bound)
            lo = np.where(finite, _rnd.lower(v, 0.0, np.where(finite, bound, 0.0)), np.nextafter(mono, -np.inf))
            hi = np.where(finite, _rnd.upper(v, 0.0, np.where(finite, bound, 0.0)),
                          np.nextafter(b[k - 1] + 1.01 * eb[k - 1] + 4.0 * _rnd.TINY, np.inf))
            # α within the vertex's position error E of a_{k−1} may really lie on the previous (steeper) segment,
            # where f(α) = B_{k−1} + (A_{k−1} − α)·s_prev ≤ b_{k−1} + Eβ + s_prev·(E − (α − a_{k−1}))₊
            kp = np.maximum(k - 1, 1)
            s_prev = np.where(k > 1, (b[kp - 1] - b[kp]) / (a[kp] - a[kp - 1]), 0.0)
            e_pos = np.where(alpha > 0.5, ec[k - 1] + mass_gap, ea[k - 1]) + u * a[k - 1]
            near = np.maximum(1.01 * e_pos - (alpha - a[k - 1]), 0.0)
            prev = b[k - 1] + 1.01 * eb[k - 1] + 1.01 * np.where(near > 0.0, s_prev * near, 0.0) + 4.0 * _rnd.TINY
            # a previous segment whose width rounded to 0: f is bounded there through monotonicity, f ≤ B_{k−2}
            prev = np.where(np.isfinite(prev), prev, b[kp - 1] + 1.01 * eb[kp - 1] + 4.0 * _rnd.TINY)
            hi = np.where(near > 0.0, np.maximum(hi, _rnd.upper(prev, 4.0 * u, 0.0)), hi)
        exact = alpha >= a[-1]  # f(1) = 0 exactly (f(0) = Σ qᵢ is a computed sum: bounded like the others)
        lo = np.where(np.isnan(lo), 0.0, lo)
        return np.where(exact, 0.0, np.maximum(lo, 0.0)), np.where(exact, 0.0, hi)

    # ------------------------------------------------------------------ transformations
    def swap(self) -> "DiscretePair":
        """The pair (Q, P): trade-off f⁻¹, ℓ ↦ −ℓ."""
        exact = self.log_p[::-1].copy() if self.exact_log_q is not None else None
        return DiscretePair(
            -self.loss[::-1], self.log_q[::-1].copy(), self.q_pos_inf, self.p_neg_inf, self.rounding,
            exact_log_q=exact,
        )

    @cached_property
    def _log_tails(self) -> tuple[np.ndarray, np.ndarray]:
        """(log Σ_{i ≥ k} pᵢ, log Σ_{i < k} qᵢ) for k = 0 … n: the tail and head sums in log space."""
        return log_tail_sums(self.log_p, self.log_q)

    def log_bayes_error_logit(self, lam: np.ndarray) -> np.ndarray:
        """log R at π = 1/(1+e^{−λ}), in log space: exact where R or 1 − π underflows (|λ| > 745)."""
        lam = np.asarray(lam, dtype=float)
        k = np.searchsorted(self.loss, lam, side="left")
        log_a, log_b = self._log_tails
        return np.logaddexp(-np.logaddexp(0.0, -lam) + log_a[k], -np.logaddexp(0.0, lam) + log_b[k])

    @cached_property
    def is_symmetric(self) -> bool:
        """f = f⁻¹, checked as R(π) = R(1−π) at every breakpoint of both, to 1e-13 relative (in log
        space, so tails where R underflows are compared too) and p₋∞ = q₊∞."""
        if not math.isclose(self.p_neg_inf, self.q_pos_inf, rel_tol=1e-13, abs_tol=1e-300):
            return False
        lam = np.union1d(self.loss, -self.loss)
        if lam.size == 0:
            return True
        a, b = self.log_bayes_error_logit(lam), self.log_bayes_error_logit(-lam)
        both_zero = np.isneginf(a) & np.isneginf(b)
        with np.errstate(invalid="ignore"):
            close = np.abs(a - b) <= 1e-13 * np.maximum(1.0, np.abs(a))
        return bool(np.all(both_zero | close))

    def symmetrize(self) -> "DiscretePair":
        """The pair of f_sym = conv(min(f, f⁻¹)) (Dong et al. 2022, Prop F.2): R_sym(π) =
        min(R(π), R(1−π)). The one lower envelope, :func:`dpcompare.tradeoff.envelope.symmetrize`."""
        from .envelope import symmetrize

        return symmetrize(self)


def log_tail_sums(log_p: np.ndarray, log_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log Σ_{i ≥ k} pᵢ, log Σ_{i < k} qᵢ), k = 0 … n, of atoms sorted by loss (no cancellation: sums of
    positive terms, accumulated in log space)."""
    log_a = np.concatenate([np.logaddexp.accumulate(log_p[::-1])[::-1], [-np.inf]])
    log_b = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_q)])
    return log_a, log_b


def bayes_errors_at_breakpoints(*pairs: DiscretePair) -> tuple[np.ndarray, list[np.ndarray]]:
    """λ = the sorted union of the pairs' losses, and each pair's R at π = 1/(1+e^{−λ}).

    The same values as ``pair.bayes_error_logit(λ)`` for each pair (R(π) = π·Σ_{ℓᵢ ≥ λ} pᵢ +
    (1−π)·Σ_{ℓᵢ < λ} qᵢ, [BCP] eq 2), but the counts #{ℓᵢ < λ} come from one merge of the sorted
    loss arrays (a stable sort of sorted runs is a linear merge) instead of a binary search per pair and
    point, and π, 1 − π are computed once for all pairs. A pair passed twice (an exact mechanism's
    pessimistic and optimistic sides are one object) is merged once and its R shared.

    >>> a = DiscretePair.from_masses([0.5, 0.5], [0.25, 0.75])
    >>> lam, (r,) = bayes_errors_at_breakpoints(a)
    >>> bool(np.array_equal(r, a.bayes_error_logit(lam)))
    True
    """
    distinct = list({id(pr): pr for pr in pairs}.values())
    losses = [pr.loss for pr in distinct]
    merged = np.concatenate(losses)
    order = np.argsort(merged, kind="stable")
    s = merged[order]
    first = np.ones(s.size, dtype=bool)
    np.not_equal(s[1:], s[:-1], out=first[1:])
    lam = s[first]
    pos = np.flatnonzero(first)
    pi, one_minus_pi = expit(lam), expit(-lam)
    r = {}
    start = 0
    for pr, loss in zip(distinct, losses):
        member = (order >= start) & (order < start + loss.size)
        start += loss.size
        k = (np.cumsum(member) - member)[pos]  # members strictly before each distinct value: #{ℓᵢ < λ}
        r[id(pr)] = pi * pr._p_tail[k] + one_minus_pi * pr._q_head[k]
    return lam, [r[id(pr)] for pr in pairs]


def delta_between_pairs(a: DiscretePair, b: DiscretePair) -> tuple[float, float]:
    """Δ(A‖B) = max_π (R_A(π) − R_B(π)) between two discrete pairs, exactly ([BCP] Cor 1).

    R_A − R_B is piecewise linear in π with kinks only at the breakpoints of A and B, so the
    maximum is attained at one of the merged breakpoints (or at π ∈ {0, 1}, where it is 0).
    Returns (Δ, π at which it is attained). O((n+m) log(n+m)).
    """
    lam, (ra, rb) = bayes_errors_at_breakpoints(a, b)
    value, pi = max_at_breakpoints(lam, ra - rb)
    return value, (pi if pi is not None else 0.0 if lam.size else 0.5)


def max_at_breakpoints(lam: np.ndarray, d: np.ndarray) -> tuple[float, float | None]:
    """(max(maxₖ dₖ, 0), π = 1/(1+e^{−λₖ}) where it is attained; None where the maximum is ≤ 0).

    ``d`` is a difference of Bayes errors at the merged breakpoints λ of
    :func:`bayes_errors_at_breakpoints`; it is piecewise linear in π with kinks there only, so this is
    its exact maximum over π ∈ [0, 1] (0 at π ∈ {0, 1}) — the one computation behind every Δ of
    discrete pairs ([BCP] Cor 1).

    >>> max_at_breakpoints(np.array([-1.0, 0.0, 1.0]), np.array([0.1, 0.3, -0.2]))
    (0.3, 0.5)
    >>> max_at_breakpoints(np.array([0.0]), np.array([-0.1]))
    (0.0, None)
    """
    if lam.size == 0:
        return 0.0, None
    k = int(np.argmax(d))
    return (float(d[k]), float(expit(lam[k]))) if d[k] > 0 else (0.0, None)
