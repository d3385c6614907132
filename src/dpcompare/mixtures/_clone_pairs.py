"""The clone-count pair (P₀, Q₀) of the shuffle model, exactly or with a certified bracket.

Seed 002 App. C (after Feldman, McMillan & Talwar): with C ~ Bin(n−1, p) clones and A | C ~ Bin(C, ½),

    P₀ = law of (A + 1, C − A),     Q₀ = law of (A, C − A + 1).

An outcome (a, b) has a + b = C + 1, so C is observed and (P₀, Q₀) is the mixture over c of the
components (P₀|c, Q₀|c) with *disjoint supports*; Lemma 3.1 (joint concavity) therefore holds with
equality (Prop 4.1; Prop 6.1 with disjoint supports, Example F.2). Component c has outcomes
a ∈ {0, …, c+1}, masses p(a) = b_c(a−1), q(a) = b_c(a) with b_c the Bin(c, ½) pmf, and likelihood
ratio q/p = (c + 1 − a)/a (App. C.1.1), so privacy loss ℓ = log(b/a): a = 0 is Q-only (ℓ = +∞),
a = c + 1 is P-only (ℓ = −∞), each with mass 2^{−c}. In total p₋∞ = q₊∞ = E[2^{−C}] = (1 − p/2)^{n−1}.

The clone probability is p = 2/(e^{ε₀} + 1) in seed 002 (the "stronger clone" reduction) and
p = e^{−ε₀} in Feldman, McMillan & Talwar 2021 ("Hiding among the clones", Thm 3.2).

Algorithm (``clone_count_pairs``):

1. **Exact** when Σ_c c = n(n−1)/2 finite atoms fit in the budget: every (c, a), masses
   log w_c + log b_c(a−1) in log space, atoms with the same reduced fraction b/a merged. One pair.
2. **Bracketed** otherwise. Two facts make a certified bracket out of few components:
   a. *More clones are more private*: (P₀|c+1, Q₀|c+1) is the post-processing "add a fair coin
      to a" of (P₀|c, Q₀|c). Replacing every c of a block [c_j, c_{j+1}) by c_j (fewer clones)
      gives a pair that dominates the truth in the Blackwell order (pessimistic); by c_{j+1} − 1, one
      that is dominated (optimistic). c is observed, so the replacement acts component-wise.
   b. *Tails*. C outside [c_lo, c_hi] (each tail ≤ ``tail``, from the exact pmf) and, within a
      component, a outside a window of half-width h = √(c·log(2/tail)/2) (Hoeffding: mass ≤ tail)
      are, in the pessimistic pair, made perfectly distinguishable (P-mass to ℓ = −∞, Q-mass to
      ℓ = +∞) — never dropped; in the optimistic pair each tail is merged into one atom (a
      post-processing) and the lowest/highest C go to the end blocks' largest c.
   The block width is the smallest that keeps each pair within the atom budget. Both pairs are
   exact discrete pairs of modified mixtures, so every view of them is exact, and the truth lies
   between them.

Binomial masses come from ``scipy.stats.binom.pmf`` (relative error ~1e-15 also for c ~ 10⁶, where
``gammaln`` differences lose 9 digits), and ``logpmf`` only where the pmf underflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import bdtr
from scipy.stats import binom

from ..tradeoff import DiscretePair, Rounding

#: finite atoms per pair above which the bracketed construction is used
DEFAULT_MAX_ATOMS = 1_500_000
#: mass of each truncated tail (of C, and of A given C), accounted pessimistically
DEFAULT_TAIL = 1e-20


@dataclass(frozen=True)
class ClonePlan:
    """How a clone-count pair was computed (for reports and benchmarks)."""

    n: int
    clone_prob: float
    exact: bool
    block: int
    c_lo: int
    c_hi: int
    components: int
    atoms: int
    tail: float


def log_binom_pmf(k: np.ndarray, trials: np.ndarray | int, p: float) -> np.ndarray:
    """log of the Binomial(trials, p) pmf at k, accurate to ~1e-15 relative (−inf outside the support)."""
    k = np.asarray(k, dtype=float)
    v = binom.pmf(k, trials, p)
    with np.errstate(divide="ignore"):
        out = np.log(v)
    small = v < 1e-280
    if np.any(small):
        tr = np.broadcast_to(np.asarray(trials, dtype=float), k.shape)[small]
        out[small] = binom.logpmf(k[small], tr, p)
    return out


def _reduced_loss(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(b/a) computed from the reduced fraction, so equal ratios give bit-identical losses and
    mirrored outcomes give exactly negated losses."""
    g = np.gcd(a, b)
    return np.log((b // g).astype(float)) - np.log((a // g).astype(float))


def _component_atoms(reps: np.ndarray, log_w: np.ndarray, a_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite atoms a ∈ [a_lo, c + 1 − a_lo] of components c = reps with log weights log_w."""
    a_hi = reps + 1 - a_lo
    counts = np.maximum(a_hi - a_lo + 1, 0)
    total = int(counts.sum())
    if total == 0:
        return np.array([]), np.array([])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    c = np.repeat(reps, counts)
    a = np.repeat(a_lo, counts) + (np.arange(total) - np.repeat(starts, counts))
    b = c + 1 - a
    log_p = np.repeat(log_w, counts) + log_binom_pmf(a - 1, c, 0.5)
    return _reduced_loss(a, b), log_p


def _exact_pair(n: int, p: float) -> DiscretePair:
    c = np.arange(n, dtype=np.int64)
    log_w = log_binom_pmf(c, n - 1, p)
    loss, log_p = _component_atoms(c, log_w, np.ones_like(c))
    inf_mass = math.exp((n - 1) * math.log1p(-p / 2))  # E[2^{−C}]: the outcomes a = 0 and a = C + 1
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=inf_mass, q_pos_inf=inf_mass, rounding=Rounding.EXACT)


def _window_lo(c: np.ndarray, tail: float) -> np.ndarray:
    """a_lo with Pr[|A − c/2| ≥ h] ≤ tail (Hoeffding, h = √(c log(2/tail)/2)); a ∈ [a_lo, c+1−a_lo]."""
    h = np.sqrt(c * math.log(2.0 / tail) / 2.0)
    return np.maximum(1, np.floor((c + 1) / 2.0 - h)).astype(np.int64)


def _tail_masses(reps: np.ndarray, a_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(S), Q(S)) of S = {a < a_lo} in component c: Pr[A ≤ a_lo − 2], Pr[A ≤ a_lo − 1]."""
    c = reps.astype(np.int64)  # scipy's bdtr wants integer counts
    k = a_lo.astype(np.int64)
    p_s = np.where(k >= 2, bdtr(np.maximum(k - 2, 0), c, 0.5), 0.0)
    q_s = bdtr(np.maximum(k - 1, 0), c, 0.5)
    return p_s, q_s


def clone_count_pairs(
    n: int, clone_prob: float, *, max_atoms: int = DEFAULT_MAX_ATOMS, tail: float = DEFAULT_TAIL
) -> tuple[DiscretePair, DiscretePair, ClonePlan]:
    """(pessimistic, optimistic, plan) for the pair (P₀, Q₀) of the module docstring.

    ``pessimistic is optimistic`` (and ``plan.exact``) when the pair is computed exactly.

    Example: n = 2 users, p = ½: C ∈ {0, 1}; T(P₀, Q₀) is the exact pair with p₋∞ = q₊∞ = ¾.

    >>> pess, opt, plan = clone_count_pairs(2, 0.5)
    >>> plan.exact, pess is opt, round(pess.q_pos_inf, 12)
    (True, True, 0.75)
    """
    if n * (n - 1) // 2 <= max_atoms:
        pair = _exact_pair(n, clone_prob)
        plan = ClonePlan(n, clone_prob, True, 1, 0, n - 1, n, pair.size, 0.0)
        return pair, pair, plan

    # 1. the law of C, and its tails in log space
    c_all = np.arange(n, dtype=np.int64)
    log_w = log_binom_pmf(c_all, n - 1, clone_prob)
    log_tail = math.log(tail)
    lcum = np.logaddexp.accumulate(log_w)
    lrev = np.logaddexp.accumulate(log_w[::-1])[::-1]
    c_lo = int(np.argmax(lcum > log_tail))  # Pr[C < c_lo] ≤ tail
    c_hi = int(n - 1 - np.argmax(lrev[::-1] > log_tail))  # Pr[C > c_hi] ≤ tail
    low_tail = float(np.exp(lcum[c_lo - 1])) if c_lo > 0 else 0.0

    # 2. block width: the smallest that keeps each pair within the atom budget
    width = c_hi - c_lo + 1
    per_component = 2.0 * math.sqrt(max(c_hi, 1) * math.log(2.0 / tail) / 2.0) + 2.0
    block = max(1, int(math.ceil(width * per_component / max_atoms)))
    edges = np.arange(c_lo, c_hi + 1, block, dtype=np.int64)
    ends = np.append(edges[1:], c_hi + 1) - 1  # inclusive block ends
    log_W = np.logaddexp.reduceat(log_w[c_lo : c_hi + 1], edges - c_lo)

    # 3. pessimistic: block minimum; the high C tail joins the last block, the low tail goes to ±∞
    log_W_pess = log_W.copy()
    if c_hi < n - 1:
        log_W_pess[-1] = np.logaddexp(log_W_pess[-1], lrev[c_hi + 1])
    a_lo_p = _window_lo(edges.astype(float), tail)
    loss_p, logp_p = _component_atoms(edges, log_W_pess, a_lo_p)
    ps, qs = _tail_masses(edges, a_lo_p)
    excluded = low_tail + float(np.sum(np.exp(log_W_pess) * (ps + qs)))  # P-mass = Q-mass by symmetry
    pess = DiscretePair.from_atoms(loss_p, logp_p, rounding=Rounding.PESSIMISTIC)
    inf_mass = min(max(pess.p_neg_inf, pess.q_pos_inf, excluded), 1.0)
    pess = DiscretePair(pess.loss, pess.log_p, inf_mass, inf_mass, Rounding.PESSIMISTIC)

    # 4. optimistic: block maximum; the low C tail joins the first block, the high tail is c = n − 1
    reps_o = ends.copy()
    log_W_opt = log_W.copy()
    if c_lo > 0:
        log_W_opt[0] = np.logaddexp(log_W_opt[0], lcum[c_lo - 1])
    if c_hi < n - 1:
        reps_o = np.append(reps_o, n - 1)
        log_W_opt = np.append(log_W_opt, lrev[c_hi + 1])
    a_lo_o = _window_lo(reps_o.astype(float), tail)
    loss_o, logp_o = _component_atoms(reps_o, log_W_opt, a_lo_o)
    ps, qs = _tail_masses(reps_o, a_lo_o)
    # each window tail merged into one atom: S_low = (P(S), Q(S)), S_high its mirror (Q(S), P(S))
    has_p = ps > 0
    with np.errstate(divide="ignore"):
        t_loss = np.log(qs[has_p]) - np.log(ps[has_p])
        t_logp_low = log_W_opt[has_p] + np.log(ps[has_p])
        t_logp_high = log_W_opt[has_p] + np.log(qs[has_p])
    inf_opt = float(np.sum(np.exp(log_W_opt[~has_p]) * qs[~has_p]))
    opt = DiscretePair.from_atoms(
        np.concatenate([loss_o, t_loss, -t_loss]),
        np.concatenate([logp_o, t_logp_low, t_logp_high]),
        p_neg_inf=inf_opt,
        q_pos_inf=inf_opt,
        rounding=Rounding.OPTIMISTIC,
    )
    plan = ClonePlan(n, clone_prob, False, block, c_lo, c_hi, int(edges.size), int(max(pess.size, opt.size)), tail)
    return pess, opt, plan
