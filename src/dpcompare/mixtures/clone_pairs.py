"""The clone-count pair (P₀, Q₀) of the shuffle model, exactly or with a certified bracket.

[MIX] App. C (after Feldman, McMillan & Talwar): with C ~ Bin(n−1, p) clones and A | C ~ Bin(C, ½),

    P₀ = law of (A + 1, C − A),     Q₀ = law of (A, C − A + 1).

An outcome (a, b) has a + b = C + 1, so C is observed and (P₀, Q₀) is the mixture over c of the
components (P₀|c, Q₀|c) with *disjoint supports*; Lemma 3.1 (joint concavity) therefore holds with
equality (Prop 4.1; Prop 6.1 with disjoint supports, Example F.2). Component c has outcomes
a ∈ {0, …, c+1}, masses p(a) = b_c(a−1), q(a) = b_c(a) with b_c the Bin(c, ½) pmf, and likelihood
ratio q/p = (c + 1 − a)/a (App. C.1.1), so privacy loss ℓ = log(b/a): a = 0 is Q-only (ℓ = +∞),
a = c + 1 is P-only (ℓ = −∞), each with mass 2^{−c}. In total p₋∞ = q₊∞ = E[2^{−C}] = (1 − p/2)^{n−1}.

The clone probability is p = 2/(e^{ε₀} + 1) in [MIX] (the "stronger clone" reduction) and
p = e^{−ε₀} in Feldman, McMillan & Talwar 2021 ("Hiding among the clones", Thm 3.2).

Algorithm (``clone_count_pairs``):

1. **Exact** when Σ_c c = n(n−1)/2 finite atoms fit in ``exact_atoms``: every (c, a), masses
   log w_c + log b_c(a−1) in log space, atoms with the same reduced fraction b/a merged. One pair.
2. **Bracketed** otherwise. Two facts make a certified bracket out of few components:
   a. *More clones are more private*: (P₀|c+1, Q₀|c+1) is the post-processing "add a fair coin
      to a" of (P₀|c, Q₀|c). Replacing every c of a block [c_j, c_{j+1}) by c_j (fewer clones)
      gives a pair that dominates the truth in the Blackwell order (pessimistic); by c_{j+1} − 1, one
      that is dominated (optimistic). c is observed, so the replacement acts component-wise.
   b. *Tails*. C outside [c_lo, c_hi] (each tail ≤ ``tail`` by a Chernoff bound, so the law of C
      is evaluated only on its bulk: O(√n) memory, n = 10⁹ in seconds) and, within a
      component, a outside a window of half-width h = √(c·log(2/tail)/2) (Hoeffding: mass ≤ tail)
      are, in the pessimistic pair, made perfectly distinguishable (P-mass to ℓ = −∞, Q-mass to
      ℓ = +∞) — never dropped (the Chernoff bounds, not the smaller true masses, are moved); in
      the optimistic pair each window tail is merged into one atom (a post-processing) and the
      mass of C outside the bulk becomes an atom at ℓ = 0 (forgetting those outcomes).
   The number of blocks is the largest that keeps each pair within the atom budget, and the blocks
   are cut at equal quantiles of √w (w the law of C): narrow where C has its mass, wide in its tails,
   which minimises Σ_j w_j·width_j, the first-order size of the bracket (``block_starts``). Both pairs are
   exact discrete pairs of modified mixtures, so every view of them is exact, and the truth lies
   between them.

Binomial masses come from ``scipy.stats.binom.pmf`` (relative error ~1e-15 also for c ~ 10⁶, where
``gammaln`` differences lose 9 digits), and ``logpmf`` only where the pmf underflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc

from .._search import Scale, Side, solve
from ..tradeoff import DiscretePair, Rounding

__all__ = ["ClonePlan", "block_starts", "bulk_range", "clone_count_pairs", "estimate_memory", "log_binom_pmf",
           "log_chernoff_lower", "log_chernoff_upper"]

#: finite atoms per pair of the certified bracket: with √w-quantile blocks, ε₀ = 1 and δ = 1e-6, the pessimistic ε
#: is 0.04 % (n = 10⁴) and 0.09 % (n = 10⁶) above its value with 1.5 million atoms (uniform blocks needed
#: 100 000 atoms for 0.04 % / 0.03 %); benchmarks/bench_shuffle.py
DEFAULT_MAX_ATOMS = 30_000
#: the pair is computed exactly (every clone count) while n(n−1)/2 atoms fit in this budget (n ≤ 1732)
DEFAULT_EXACT_ATOMS = 1_500_000
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
    from scipy.stats import binom  # scipy.stats costs ~0.3 s to import: only where a binomial is needed

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


def block_starts(log_w: np.ndarray, components: int) -> np.ndarray:
    """Start indices (into the bulk) of ``components`` blocks of consecutive clone counts, at equal quantiles
    of √w (w the law of C): replacing a block by one of its ends changes each view by ≈ Σ_j w_j·width_j, which
    is smallest for a given number of blocks when width_j ∝ w_j^{−1/2} (Lagrange), i.e. equal shares of √w.
    Any partition into blocks gives a certified bracket (step 2a); this one only makes it narrow."""
    if components <= 1 or log_w.size <= 1:
        return np.zeros(1, dtype=np.int64)
    if components >= log_w.size:
        return np.arange(log_w.size, dtype=np.int64)
    root = np.exp(0.5 * (log_w - np.max(log_w)))
    cum = np.cumsum(root)
    cum /= cum[-1]
    starts = np.searchsorted(cum, np.arange(1, components) / components, side="right")
    return np.unique(np.concatenate([[0], starts[starts < log_w.size]])).astype(np.int64)


def _half_binom_cdf(k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Pr[A ≤ k] for A ~ Bin(c, ½) = I_{½}(c − k, k + 1) (regularised incomplete beta); any c.

    scipy's ``bdtr`` returns nan for c ≥ 2³¹ (n ≳ 4·10⁹ users), ``betainc`` takes float counts.
    """
    k = np.asarray(k, dtype=float)
    c = np.asarray(c, dtype=float)
    inside = (k >= 0) & (k < c)
    out = np.where(k >= c, 1.0, 0.0)
    kk, cc = np.where(inside, k, 0.0), np.where(inside, c, 1.0)
    return np.where(inside, betainc(cc - kk, kk + 1.0, 0.5), out)


def _tail_masses(reps: np.ndarray, a_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(S), Q(S)) of S = {a < a_lo} in component c: Pr[A ≤ a_lo − 2], Pr[A ≤ a_lo − 1]."""
    k = a_lo.astype(float)
    return _half_binom_cdf(k - 2, reps), _half_binom_cdf(k - 1, reps)


def log_chernoff_lower(j: float, m: int, p: float) -> float:
    """log of the Chernoff bound Pr[C ≤ j] ≤ exp(−m·D(j/m ‖ p)), C ~ Bin(m, p), for j ≤ m·p.

    D(a‖p) = a·log(a/p) + (1−a)·log((1−a)/(1−p)) is the binary relative entropy (Chernoff 1952;
    e.g. Arratia & Gordon 1989, Thm 1); −∞ for j < 0, 0 (the trivial bound) for j ≥ m·p. Evaluated
    with log1p so that m = 10⁹ keeps ~13 digits.

    >>> round(math.exp(log_chernoff_lower(0, 10, 0.5)), 12)    # Pr[C = 0] = 2⁻¹⁰ exactly
    0.0009765625
    """
    if j < 0:
        return -math.inf
    if j >= m * p:
        return 0.0
    if p >= 1.0:  # C = m surely (p = e^{−ε₀} rounds to 1 for ε₀ ≲ 1e-16): Pr[C ≤ j < m] = 0
        return -math.inf
    a = j / m
    d = (1.0 - a) * math.log1p((p - a) / (1.0 - p))
    if a > 0:
        d += a * math.log1p((a - p) / p)
    return -m * d


def log_chernoff_upper(j: float, m: int, p: float) -> float:
    """log of the Chernoff bound Pr[C ≥ j] ≤ exp(−m·D(j/m ‖ p)) for j ≥ m·p (−∞ for j > m).

    >>> round(math.exp(log_chernoff_upper(10, 10, 0.5)), 12)   # Pr[C = 10] = 2⁻¹⁰ exactly
    0.0009765625
    """
    if j > m:
        return -math.inf
    return log_chernoff_lower(m - j, m, 1.0 - p)


def bulk_range(n: int, clone_prob: float, tail: float) -> tuple[int, int, float, float]:
    """(c_lo, c_hi, t_lo, t_hi): C ~ Bin(n−1, p) lies in [c_lo, c_hi] except for certified tails.

    t_lo ≥ Pr[C < c_lo] and t_hi ≥ Pr[C > c_hi] are Chernoff bounds (each ≤ ``tail``); c_lo is the
    largest and c_hi the smallest count with that property, found by the certified solver. O(1)
    memory: the binomial law is never evaluated outside the bulk (n = 10⁹ needs ~3·10⁵ counts).

    >>> c_lo, c_hi, t_lo, t_hi = bulk_range(10**9, 0.5, 1e-20)
    >>> c_hi - c_lo < 400_000, t_lo <= 1e-20, t_hi <= 1e-20
    (True, True, True)
    """
    m = n - 1
    log_tail = math.log(tail)
    mode = int(math.floor(m * clone_prob))
    lo = solve(
        lambda k: log_chernoff_lower(k - 1, m, clone_prob) - log_tail,
        0, mode, side=Side.BELOW, scale=Scale.LINEAR, integer=True,
    )
    hi = solve(
        lambda k: log_chernoff_upper(k + 1, m, clone_prob) - log_tail,
        min(mode + 1, m), m, side=Side.ABOVE, scale=Scale.LINEAR, integer=True,
    )
    c_lo, c_hi = int(lo.feasible), int(hi.feasible)
    t_lo = math.exp(log_chernoff_lower(c_lo - 1, m, clone_prob))
    t_hi = math.exp(log_chernoff_upper(c_hi + 1, m, clone_prob))
    return c_lo, c_hi, t_lo, t_hi


#: bytes of working memory per finite atom of a pair while it is built (measured: peak RSS / atoms)
BYTES_PER_ATOM = 400
#: bytes per clone count of the bulk (log weights, cumulative sums, representatives)
BYTES_PER_COUNT = 64
#: memory the bracketed construction may use before it is refused
MEMORY_LIMIT = 1 << 30


def estimate_memory(n: int, clone_prob: float, *, max_atoms: int = DEFAULT_MAX_ATOMS, tail: float = DEFAULT_TAIL) -> int:
    """Bytes the bracketed construction of :func:`clone_count_pairs` needs (an estimate, before any work).

    One component c needs ≈ 2·√(c·log(2/tail)/2) atoms (its Hoeffding window); with B blocks the
    pairs have ≈ B times that many atoms, and B ≥ 1, so a component wider than the atom budget
    cannot be served.

    >>> estimate_memory(10**9, 0.5) < MEMORY_LIMIT
    True
    """
    c_lo, c_hi, _, _ = bulk_range(n, clone_prob, tail)
    per_component = 2.0 * math.sqrt(max(c_hi, 1) * math.log(2.0 / tail) / 2.0) + 2.0
    atoms = max(per_component, min(max_atoms, per_component * (c_hi - c_lo + 1)))
    return int(BYTES_PER_ATOM * atoms + BYTES_PER_COUNT * (c_hi - c_lo + 1))


def clone_count_pairs(
    n: int,
    clone_prob: float,
    *,
    max_atoms: int = DEFAULT_MAX_ATOMS,
    tail: float = DEFAULT_TAIL,
    exact_atoms: int = DEFAULT_EXACT_ATOMS,
) -> tuple[DiscretePair, DiscretePair, ClonePlan]:
    """(pessimistic, optimistic, plan) for the pair (P₀, Q₀) of the module docstring.

    ``pessimistic is optimistic`` (and ``plan.exact``) when the pair is computed exactly. A size
    whose construction would need more than ``MEMORY_LIMIT`` bytes is refused (ValueError with the
    estimate and the limit) before any work starts.

    Example: n = 2 users, p = ½: C ∈ {0, 1}; T(P₀, Q₀) is the exact pair with p₋∞ = q₊∞ = ¾.

    >>> pess, opt, plan = clone_count_pairs(2, 0.5)
    >>> plan.exact, pess is opt, round(pess.q_pos_inf, 12)
    (True, True, 0.75)
    """
    if n * (n - 1) // 2 <= exact_atoms:
        pair = _exact_pair(n, clone_prob)
        plan = ClonePlan(n, clone_prob, True, 1, 0, n - 1, n, pair.size, 0.0)
        return pair, pair, plan

    need = estimate_memory(n, clone_prob, max_atoms=max_atoms, tail=tail)
    if need > MEMORY_LIMIT:
        atoms_max = 0.75 * MEMORY_LIMIT / BYTES_PER_ATOM  # one component (≈ 2√(c·log(2/tail)/2) atoms) + the bulk
        n_max = (atoms_max / 2.0) ** 2 * 2.0 / (math.log(2.0 / tail) * clone_prob)
        raise ValueError(
            f"n = {n} users needs an estimated {need / 2**30:.3g} GiB to bracket the clone pair "
            f"(limit {MEMORY_LIMIT / 2**30:.3g} GiB; one clone count alone has "
            f"~{2 * math.sqrt(n * clone_prob * math.log(2 / tail) / 2):.3g} atoms); "
            f"at this clone probability n up to about {n_max:.2g} fits"
        )

    # 1. the bulk of C (certified Chernoff tails, never evaluated outside the bulk)
    c_lo, c_hi, t_lo, t_hi = bulk_range(n, clone_prob, tail)
    c_bulk = np.arange(c_lo, c_hi + 1, dtype=np.int64)
    log_w = log_binom_pmf(c_bulk, n - 1, clone_prob)
    bulk_mass = math.fsum(np.exp(log_w).tolist())
    rest = max(1.0 - bulk_mass, 0.0)  # the true mass outside the bulk, up to rounding (≤ t_lo + t_hi)

    # 2. blocks: as many as the atom budget allows, narrow where C has mass and wide in its tails
    width = c_hi - c_lo + 1
    per_component = 2.0 * math.sqrt(max(c_hi, 1) * math.log(2.0 / tail) / 2.0) + 2.0
    components = max(1, min(width, int(max_atoms // per_component)))
    edges = block_starts(log_w, components) + c_lo
    block = int(math.ceil(width / edges.size))  # the mean block width (for the plan)
    ends = np.append(edges[1:], c_hi + 1) - 1  # inclusive block ends
    log_W = np.logaddexp.reduceat(log_w, edges - c_lo)

    # 3. pessimistic: block minimum; both tails of C (Chernoff bounds) go to ±∞
    a_lo_p = _window_lo(edges.astype(float), tail)
    loss_p, logp_p = _component_atoms(edges, log_W, a_lo_p)
    ps, qs = _tail_masses(edges, a_lo_p)
    excluded = t_lo + t_hi + float(np.sum(np.exp(log_W) * (ps + qs)))  # P-mass = Q-mass by symmetry
    pess = DiscretePair.from_atoms(loss_p, logp_p, rounding=Rounding.PESSIMISTIC)
    inf_mass = min(max(pess.p_neg_inf, pess.q_pos_inf, excluded), 1.0)
    pess = DiscretePair(pess.loss, pess.log_p, inf_mass, inf_mass, Rounding.PESSIMISTIC)

    # 4. optimistic: block maximum; the mass outside the bulk becomes an atom at ℓ = 0 (the pair
    #    (P, P): forgetting everything about those outcomes is a post-processing, hence optimistic)
    a_lo_o = _window_lo(ends.astype(float), tail)
    loss_o, logp_o = _component_atoms(ends, log_W, a_lo_o)
    ps, qs = _tail_masses(ends, a_lo_o)
    # each window tail merged into one atom: S_low = (P(S), Q(S)), S_high its mirror (Q(S), P(S))
    has_p = ps > 0
    with np.errstate(divide="ignore"):
        t_loss = np.log(qs[has_p]) - np.log(ps[has_p])
        t_logp_low = log_W[has_p] + np.log(ps[has_p])
        t_logp_high = log_W[has_p] + np.log(qs[has_p])
    inf_opt = float(np.sum(np.exp(log_W[~has_p]) * qs[~has_p]))
    mid_loss, mid_logp = ([0.0], [math.log(rest)]) if rest > 0 else ([], [])
    opt = DiscretePair.from_atoms(
        np.concatenate([loss_o, t_loss, -t_loss, mid_loss]),
        np.concatenate([logp_o, t_logp_low, t_logp_high, mid_logp]),
        p_neg_inf=inf_opt,
        q_pos_inf=inf_opt,
        rounding=Rounding.OPTIMISTIC,
    )
    plan = ClonePlan(n, clone_prob, False, block, c_lo, c_hi, int(edges.size), int(max(pess.size, opt.size)), tail)
    return pess, opt, plan
