"""The ±∞ atoms of a composed pessimistic pair: the certified bound δ(ε) reads, the deficit the trade-off reads.

A pessimistic side composed by FFT (tradeoff/compose.py steps 4–8) returns finite atoms (ℓᵢ, p̂ᵢ, q̂ᵢ) and is
stored *filled* (``grid.to_pair``): p̂₋∞ = 1 − Σp̂ᵢ, q̂₊∞ = 1 − Σq̂ᵢ. That deficit is mostly numerical — FFT noise
zeroed, mass removed by step 6, mass outside the window, the cells' rounding — not mass the composition puts at
±∞: for (σ, p, N) = (0.5, 1e-4, 1000) it is 2.3e-13 in Q and 3.2e-13 in P, while the composition's real ±∞ masses
are below 1e-20. Read as q₊∞, the deficit floors δ(ε) at 2.3e-13 for every ε, which at δ = 1e-12 costs 2 % of ε.
This module gives the real bound and the pair δ(ε) and ε(δ) read (:attr:`PessimisticSide.profile
<dpcompare.composition.sgm_compose.PessimisticSide.profile>`); every other view keeps the filled pair.

Setting
-------
C is the exact partition of one step of the pair (P, Q) into grid-aligned cells, the tails (ℓ ≤ g_lo),
(ℓ > g_hi) and the step's own ±∞ masses p₋∞(C), q₊∞(C) (tradeoff/compose.py step 1; ``StepPartition``); A = T(C)
its exact pessimistic split (step 2) and T = split_F(A^{*N}) the exact N-fold composition split onto the output
grid (step 8). The true N-fold pair is a post-processing of T (Blackwell; steps 1, 2, 8), so its δ(ε) is ≤ δ_T(ε)
and its Bayes errors and trade-off are ≥ those of T. The engine returns the finite atoms and the error bound η(ε)
of step 7′ (``PessimisticSide.error_at``); F is the filled pair, G the same atoms with the ±∞ masses

    p₋∞(G) = min(p̂₋∞(F), B_p),  q₊∞(G) = min(q̂₊∞(F), B_q),  B_p ≥ P_T(−∞),  B_q ≥ Q_T(+∞)  (:func:`infinity_bound`).

The bound (:func:`infinity_bound`)
-----------------------------------
The cells, the tails and C's ±∞ masses partition the whole loss axis, so A is a probability pair; step 2 keeps
the upper tail's P-mass at g_hi and sends its missing Q-mass to +∞, so Q_A(+∞) = q₊∞(C) + Q(ℓ > g_hi) −
e^{g_hi}·P(ℓ > g_hi) ≤ q₊∞(C) + Q(ℓ > g_hi), and mirror-wise P_A(−∞) ≤ p₋∞(C) + P(ℓ ≤ g_lo). The tail masses are
closed forms with a relative error far below 1 (the bound ``sgm_step._log_masses`` returns for them: 4e-14 … 4e-13
over the grids of docs/edges.md's far-tail table and σ = 0.05 … 5), so twice the computed value bounds them (the
factor 2 of tradeoff/input_error.py's ±∞ paragraph); the bound uses the tail itself, not the difference above
(which cancels, and rounds to 0 where the truth is positive). Under Q no step is at −∞ (Q has no mass there), so
the composed law is at +∞ exactly when some step is: Q_{A^{*N}}(+∞) = 1 − (1 − Q_A(+∞))^N ≤ N·Q_A(+∞); likewise P
at −∞. The split of step 8 moves no mass to or from ±∞, so T has these masses. 1 − (1 − m)^N is evaluated as
−expm1(N·log1p(−m)), within 3·ELEM (``SubsampledGaussian.never_sampled_bound``), and rounded up.

Proof that δ(ε) = Σ_{ℓᵢ>ε}(q̂ᵢ − e^ε·p̂ᵢ) + q₊∞(G) + η(ε) upper-bounds the truth
-------------------------------------------------------------------------------
δ_T(ε) = Q_T(+∞) + Σ_{finite ℓ > ε} φ_ε(ℓ)·q_T(ℓ) with φ_ε(ℓ) = 1 − e^{ε−ℓ} ∈ [0, 1]. Step 7′ bounds the finite
sum's error Σ_{finite ℓ>ε} φ_ε·(q_T − q̂) by the terms of η(ε) other than its ±∞ term, and none of them reads the
deficit:

- the itemised terms charge each computed atom with its FFT error, the noise it was zeroed with, and the mass step
  6's removal took *from that atom* (``compose_coarse._finish``: ``atom_err[ch] += taken``) — so the removed mass is
  accounted where it was, not through the +∞ atom it was sent to;
- the window's 4τ covers T's finite atoms outside the window (Q_T(L > a) ≤ τ) and the mass folded into it;
- the input term (uniform N·‖Δx‖₁, or per threshold, tradeoff/input_error.py) compares the finite parts of A^{*N}
  and of the float step's N-fold (an atom at ±∞ convolved with anything stays at ±∞, so the finite part of a
  composition is the composition of the finite parts); loss rounding and the readers' 64u act on finite atoms.

The deficit is the sum of exactly these (finite mass missing from the computed atoms, each piece charged in η
where it acts) plus the real ±∞ mass; so nothing of it is left to add. η(ε) also holds a term for the ±∞ atoms (the
caps' rounding or 2N·(q₊∞ + p₋∞) of the step, and N·(q₊∞ + p₋∞) again in ``sgm_compose``): what lets F's deficit
stand for Q_T(+∞). G does not need it; it is kept (it is ≥ 0, so it only widens η). Hence

    δ_T(ε) ≤ Q_T(+∞) + Σ_{ℓᵢ>ε} φ_ε(ℓᵢ)·q̂ᵢ + η(ε) ≤ δ_G'(ε) + η(ε)   with q₊∞(G') = B_q ≥ Q_T(+∞),

and step 7′ as it stands gives δ_T(ε) ≤ δ_F(ε) + η(ε). δ_F and δ_G' differ only in the +∞ term, so δ_G with
min(q̂₊∞(F), B_q) is their pointwise minimum: both certified, so is it. The swap (add adjacency) is the mirror image:
δ_swap(ε) = p₋∞ + Σ_{ℓᵢ<−ε} p̂ᵢ(1 − e^{ε+ℓᵢ}), with B_p. ε(δ) is read off the same pair with the same η(ε), so
δ(ε(δ)) ≤ δ across both readers.

Why the trade-off and Bayes-error views keep the filled pair F
--------------------------------------------------------------
The Bayes error R(π) = Σᵢ min(π·pᵢ, (1−π)·qᵢ) has no term for the ±∞ atoms (min(π·p, 0) = 0), so F and G have the
same R and step 7's bound R_F ≤ R_T + η never involved them. The trade-off curve does: ``DiscretePair.tradeoff``
reads α near 1 from the complements 1 − αₖ = p₋∞ + Σ_{i<k} pᵢ, and ``symmetrize``/``lower_envelope`` telescope the
masses to a total of 1; both assume a pair whose masses sum to 1. G is short of 1 by the deficit minus B
(3.2e-13 in P above), so the complement read-out would move every vertex right by that much and state an f up to
slope × 3.2e-13 *above* G's — f overstated. F sums to 1 up to rounding (``tradeoff_bounds`` widens by that
``_mass_gap``), so f, R, the symmetrised curve and every Δ bracket are read off F, as before. A side therefore
carries two pairs with the same atoms: ``pair`` (F: trade-off, Bayes error, envelopes, Δ) and ``profile``
(G: δ(ε), ε(δ)); ``profile`` is ``pair`` where no bound is known (a partition that need not cover the whole pair:
mixtures, random allocation).

Tested against the exact composition in mpmath (``benchmarks/audit_far_tail.py`` reads G with B from the exact
step masses; ``--input`` reads G with this module's bound) and on the far-tail row: ``tests/composition/
test_infinity_atoms.py``.

>>> from dpcompare.composition.sgm_step import sgm_partition
>>> b_p, b_q = infinity_bound(sgm_partition(1.0, 0.01, 0.01, sub=1, tail=1e-20), 100)
>>> 0.0 <= b_p < 1e-17 and 0.0 < b_q < 1e-17
True
"""

from __future__ import annotations

import math

import numpy as np

from .. import directed_rounding as rnd
from ..tradeoff import DiscretePair
from ..tradeoff.grid import StepPartition

#: the tails' closed-form masses are taken to be within this factor of their computed values (relative error < 1)
TAIL_FACTOR = 2.0


def _composed(m: float, steps: int) -> float:
    """A double ≥ 1 − (1 − m)^N (m ∈ [0, 1]): −expm1(N·log1p(−m)) within 3·ELEM, rounded up."""
    if m <= 0.0:
        return 0.0
    if m >= 1.0:
        return 1.0
    return float(min(rnd.upper(-math.expm1(steps * math.log1p(-m)), 3.0 * rnd.ELEM), 1.0))


def infinity_bound(part: StepPartition, steps: int) -> tuple[float, float]:
    """(B_p, B_q): doubles ≥ the P-mass at ℓ = −∞ and the Q-mass at ℓ = +∞ of the exact N-fold composition of the
    exact pessimistic split of ``part`` (module docstring): 1 − (1 − m)^N with m = the partition's own ±∞ mass + 2 ×
    the tail's closed-form mass (P of ℓ ≤ g_lo, Q of ℓ > g_hi), rounded up.

    ``part`` must partition the *whole* pair (cells, tails and ±∞ masses), as ``sgm_partition``'s does.

    >>> lp = np.log([0.5, 0.5 - 1e-9])
    >>> part = StepPartition(0.1, 0.0, -1, 1, np.arange(2), lp, lp + np.array([-0.05, 0.05]), tail_hi=(-30.0, -25.0))
    >>> b_p, b_q = infinity_bound(part, 10)
    >>> b_p == 0.0 and 10 * 2 * math.exp(-25.0) * (1 - 1e-9) < b_q < 10 * 2 * math.exp(-25.0) * (1 + 1e-12)
    True
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    lp_lo = float(part.tail_lo[0])
    lq_hi = float(part.tail_hi[1])
    m_p = float(part.p_neg_inf) + (TAIL_FACTOR * math.exp(lp_lo) if math.isfinite(lp_lo) else 0.0)
    m_q = float(part.q_pos_inf) + (TAIL_FACTOR * math.exp(lq_hi) if math.isfinite(lq_hi) else 0.0)
    # the sum of two doubles (u) and exp (ELEM): raise m before composing it
    m_p = float(rnd.upper(m_p, 2.0 * rnd.ELEM)) if m_p > 0.0 else 0.0
    m_q = float(rnd.upper(m_q, 2.0 * rnd.ELEM)) if m_q > 0.0 else 0.0
    return _composed(min(m_p, 1.0), int(steps)), _composed(min(m_q, 1.0), int(steps))


def profile_pair(pair: DiscretePair, bound: tuple[float, float] | None) -> DiscretePair:
    """The pair δ(ε) and ε(δ) read (G of the module docstring): ``pair``'s atoms with the ±∞ masses
    min(``pair``'s filled ones, ``bound``); ``pair`` itself without a bound or where the bound is no smaller.

    >>> f = DiscretePair(np.array([-0.1, 0.1]), np.log([0.55, 0.45 - 1e-13]))   # filled: q₊∞ is the deficit
    >>> g = profile_pair(f, (0.0, 1e-20))
    >>> f.q_pos_inf > 1e-14, g.q_pos_inf, bool(g.delta(0.5) < f.delta(0.5))
    (True, 1e-20, True)
    """
    if bound is None:
        return pair
    b_p, b_q = (float(v) for v in bound)
    p_inf, q_inf = min(pair.p_neg_inf, b_p), min(pair.q_pos_inf, b_q)
    if p_inf == pair.p_neg_inf and q_inf == pair.q_pos_inf:
        return pair
    return DiscretePair(pair.loss, pair.log_p, p_inf, q_inf, pair.rounding, exact_log_q=pair.exact_log_q)
