"""Certified composition on a uniform privacy-loss grid: an upper and a lower version, error-controlled.

Certified composition asks for a *pessimistic* pair (at least as
informative as the truth: R ≤ R_true, δ ≥ δ_true) and an *optimistic* pair (at most as informative:
R ≥ R_true) of the N-fold composition of a mechanism, with every approximation accounted for. The
construction below needs no probabilistic error analysis: both sides are exact Blackwell
statements, and only floating point is bounded a priori.

Notation: a pair (P, Q), privacy loss ℓ = log(q/p); the Bayes error R(π) = Σ min(π·p, (1−π)·q)
([BCP] eq 2). Grid g_k = k·h. "A is a post-processing of B" (A = B followed by a Markov kernel)
implies R_A ≥ R_B everywhere (Blackwell 1953; [BCP] §2) and is preserved by composition:
if A_i is a post-processing of B_i then ⊗A_i is one of ⊗B_i (apply the kernels coordinatewise).

Argument, in numbered steps (the code follows the numbering)
--------------------------------------------------------------
1. **Fine partition.** Cut the true single-step loss axis into cells aligned with the grid
   g_k = o + k·h (offset o): every cell lies inside one grid interval (g_k, g_{k+1}], plus the tails
   (−∞, g_lo] and (g_hi, ∞). A cell's P- and Q-masses (P(c), Q(c)) are computed in closed form by the
   caller, with a bound on their relative error (Gaussian CDFs and Gauss–Legendre quadrature for the
   subsampled Gaussian, :mod:`.sgm`, which also chooses o so that the bulk of the mass sits exactly
   on a grid point). The merged atom of a cell has loss λ(c) = log(Q(c)/P(c)) inside the cell.
2. **Pessimistic step (split = connect-the-dots, Doroshenko et al. 2022, Alg. 1).** An atom with loss
   λ ∈ [g_k, g_{k+1}] is split into atoms at g_k and g_{k+1} carrying P-fractions
   w_lo = (e^{g_{k+1}} − e^λ)/(e^{g_{k+1}} − e^{g_k}) and w_hi = 1 − w_lo, which preserves both its P-
   and its Q-mass. Merging the two halves gives back the atom, so the atom is a post-processing of
   the split pair. Splitting is linear in the masses, so splitting each cell's merged atom equals
   splitting every true atom of the cell (the cell lies inside one grid interval): the true
   step is a post-processing of the split pair, which is therefore pessimistic, *exactly*.
   Tails: losses above g_hi are moved down to g_hi keeping their P-mass, the missing Q-mass goes to
   ℓ = +∞; losses below g_lo are moved up to g_lo keeping their Q-mass, the missing P-mass goes to
   ℓ = −∞. Each is again the inverse of a merge (exact).
3. **Optimistic step (merge).** Merging outcomes — also fractions of outcomes, a randomised kernel —
   is a post-processing. Walk the cells in increasing loss; a group starts with (the remainder of)
   a cell, its target is the first grid point g ≥ its loss, and it absorbs whole cells below g and
   then exactly the fraction t of the next cell above g that brings its likelihood ratio to e^g:
   Σ_{members} p·(1 − e^{λ−g}) = 0. Every group lands exactly on a grid point. The last, unbalanced
   group (the top tail) is merged with a fraction θ of an earlier grid atom (loss below) so that it
   lands exactly on a grid point. The result is a post-processing of the true step: optimistic,
   exactly. Its groups span ≈ one grid interval, like the split in step 2, so both sides err by
   the same second-order amount (≈ h²/4 of extra loss variance per step, against a per-step loss
   variance s²), and the bracket width shrinks like h². Balances that hold only up to rounding
   (a deficit ≤ 64u of the group's mass, a loss within rounding of a grid point) are snapped, and the
   Q-mass this changes is added to the step's error. If no grid-supported merge exists (a grid so
   coarse that the tail has no partner), :func:`optimistic_binary` merges the step into two outcomes
   {ℓ ≤ 0}, {ℓ > 0} instead and composes them in closed form (binomial): exact, but loose.
4. **Composition.** Both grid pairs are composed N times by FFT (losses add; the masses of a product
   pair multiply). Two passes are made: on the Q-masses (used for L ≥ 0) and on the P-masses (used
   for L < 0), so that every mass is obtained in the measure in which it is ≤ the other one, and
   the absolute FFT error is never amplified by e^{|L|}.
5. **Window.** The composed support is cut to [b, a] where the Chernoff bounds
   P^N(L < b) ≤ M_P(−t)^N e^{tb} and Q^N(L > a) ≤ M_Q(t)^N e^{−ta} (M = single-step moment generating
   function, optimised over t) are ≤ τ. The cyclic FFT of length n ≥ (a−b)/h + 1 folds the mass
   outside the window into it; that mass is ≤ 2τ in each measure.
6. **Floating point.** An a-priori bound on the FFT error is propagated through the N-th power and
   the inverse transform. Forward: every output ĉ_k = Σⱼ ωʲᵏ xⱼ is evaluated along log₂n butterfly
   levels, each with a relative error of order u, so |ĉ_k − c_k| ≤ κ·log₂n·u·‖x‖₁ (the componentwise
   form of Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §24.1; κ = 5 is our
   conservative constant for scipy's mixed-radix pocketfft). Power: |ĉᴺ − cᴺ| ≤ N·max(|ĉ|,|c|)^{N−1}·
   |ĉ − c|, plus κ·u·(1 + N·|log ĉ|)·|ĉ|ᴺ for computing it as exp(N·log ĉ). Inverse: the mean of
   these errors plus the inverse transform's own κ·log₂n·u·Σ|ĉᴺ|/n gives a per-entry bound E. Entries ≤ E are zeroed (they are noise), negative
   entries with them. Excess total mass (Σq > Q-total of the exact composition, or Σp > P-total) is
   then removed from the highest (Q) or lowest (P) losses and sent to ℓ = ±∞: no renormalisation.
   The single-step masses carry a relative error from their closed forms (caller-supplied bound);
   it contributes ≤ N·‖Δx‖₁ uniformly, or — for a step split from a partition of a probability pair — it is
   charged per threshold (:mod:`dpcompare.tradeoff.input_error`: relative errors of the cells, and the
   step's own rounding measured against the exact split, move δ(ε) in proportion to the composed mass
   above ε).
   Two refinements (:func:`power_spectrum`): an entry whose bound (|ĉ| + e_f)ᴺ is ≤ e^{−700} is *dead*
   (set to 0, its truth bounded by e^{−700}), so the power is taken on the few hundred live entries
   only; and the ~10 live entries with the largest perturbation term N·e_f·|ĉ|^{N−1} are recomputed
   by a direct DFT summed in 80-bit extended precision, whose error is 3u·‖x‖₁ instead of e_f. A single step
   on few grid points of a long transform (N ≈ 10⁶: 3·10⁴ of 2·10⁶) is not transformed in full: the entries
   below a band edge are computed directly and every other one is certified dead from a shorter transform and
   the input's second moment (:mod:`dpcompare.tradeoff.low_band_dft`).
7. **Certificate.** For one atom, min(π·p, (1−π)·q) changes by at most max(|Δp|, |Δq|) and, since
   p = q·e^{−L}, by at most |Δq| if L ≥ 0 and |Δp| if L < 0. Hence every R of the returned pair is
   within ``numerical_error`` η of the exact composed grid pair of step 2 or 3, uniformly in π, with
   η = Σ(entrywise FFT errors + zeroed noise) + removed mass + 2τ + N·‖Δx‖₁. The certified bracket of
   a Δ-divergence is [Δ(A_pess‖B_opt) − η_A − η_B, Δ(A_opt‖B_pess) + η_A + η_B].
7′. **Per-threshold bound** (``CompositionReport.error_at``; pessimistic side of
   :func:`~dpcompare.tradeoff.compose_coarse.compose_coarsened`). δ(ε) = q₊∞ + Σ_{ℓᵢ>ε} qᵢ(1 − e^{ε−ℓᵢ})
   reads only the atoms above ε, each through a factor in [0, 1] (the atoms sit on fixed grid losses), and
   the swap's δ(ε) only the P-masses of the atoms below −ε. So the terms of η are sorted by where they act:
   *itemised per atom* (they move δ(ε) only if the atom lies above ε, resp. below −ε): the entrywise FFT
   error of the atom's pass, kept (≤ b) or zeroed (≤ ẑ₊ + b ≤ 2b), and the mass step 6's removal took
   from that atom; *uniform* (they can act at every ε): the window's 4τ (folded mass wraps around the
   cycle onto any entry, and the truth beyond the window lies above every ε inside it), the input's
   N·‖Δx‖₁ (a total-variation bound whose location on the composed grid is not tracked; for a step split
   from a partition it is per threshold instead, ``CompositionReport.input_tail``), the
   loss rounding 4u·max|L| (kept uniform for simplicity), the ±∞ atoms (δ(ε) ≥ q₊∞ at every ε: the caps'
   rounding, or N·(q₊∞ + p₋∞) of a probability-pair step) and the readers' 64u. Hence η(ε) = uniform + Σ_{ℓᵢ>ε, ℓᵢ≥0} eᵢ + Σ_{ℓᵢ<−ε, ℓᵢ<0} eᵢ, non-increasing in ε ≥ 0
   and ≤ η (the scalar takes the larger of the old sum and Σeᵢ). The a-priori bound of one pass is
   *uniform over its entries* (every output mixes all inputs), so with the plain pass alone the
   itemised part is (#atom positions above ε)·2E — already a gain near the window's top, but ≈ 1e-11
   for 10⁵ atoms. The far-tail passes (step 6″) make the bound of the tail atoms proportional to a small
   tail mass. Without itemised atoms (one step, the fine-grid fallback, the optimistic side, whose
   merged atoms move within their block) η(ε) = η.
6″. **Far-tail passes** (:mod:`dpcompare.tradeoff.compose_jump`). The composition is x^{*N} = a^{*N} + R
   (a = the step below a single-step cut, R = the part with at least one step above it); R's spectrum
   B·S(X, A) has every error proportional to the tail's mass m_b, and a^{*N} vanishes above N × the cut
   and is Chernoff-bounded below it. A pass per m_b ∈ ``JUMP_TAIL_MASSES`` (1e-2 … 1e-9 of the pass's
   total; the mirror image below 0 for the P-pass) gives an atom the bound ≈ N·m_b·E + (bulk bound).
   Each atom keeps the value of the pass with the smallest bound (every bound is a-priori valid for its
   own pass, so the chosen one is too). This serves tails reached through a few large steps — the
   subsampled Gaussian at small p, N = 10 or 1000; a light-tailed step reaching the tail through many
   moderate steps (the Gaussian, μ = 2 at δ = 1e-12) is helped little: there neither N·m_b nor the bulk's
   bound is small at any cut. The passes cost about as much as the rest of the composition and matter only
   where δ is within reach of η(ε), so the subsampled Gaussian's accountant composes without them and adds
   them from the same window and spectra when a question needs them
   (:func:`~dpcompare.tradeoff.compose_coarse.compose_coarsened_lazy`; the trigger is
   ``composition.sgm_certified.side_for_epsilon``/``side_for_profile``).
8. **Coarsening for output.** The composed pairs (10⁶ atoms) are coarsened once before they are
   handed to :class:`~dpcompare.tradeoff.DiscretePair`: the pessimistic one by a split onto a coarser
   grid (step 2 again, exact), the optimistic one by merging runs of atoms (step 3's post-processing,
   exact). Both add one extra step's worth of second-order error, negligible against N steps.
   Both coarsenings are linear and shift-invariant followed by decimation, so
   :mod:`dpcompare.tradeoff.compose_coarse` applies them to the live spectrum and inverts a transform
   of length n/F: steps 4–8 without the fine composed grid (what the SGM accountant uses).
9. **Tail bound.** Where δ is too small for the grid pairs to resolve (their window and η sit above
   it), a Chernoff bound on the profile of the N-fold composition of the *pessimistic* grid step
   (:class:`TailBound`, below) answers instead, in log space down to δ = 1e-300. The step is
   pessimistic, so the bound holds for the true mechanism; the relative error of the step's masses
   is included in it (no FFT is involved).

What is *not* certified: the constant κ of the FFT bound (a conservative assumption about pocketfft,
not a proved constant) and the relative accuracy of scipy's ``log_ndtr`` (assumed ≤ 8u·(1 + |log Φ|))
that the caller's cell masses rely on where quadrature is not used. Everything else is exact
(Blackwell) or bounded a priori.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .grid import U, GridStep

#: safety constant of the a-priori FFT error bounds (step 6)
KAPPA = 5.0
#: largest FFT length we allow (complex128 arrays of this size take ~0.5 GB)
MAX_FFT_LEN = 1 << 25


class DiscretizationTooFine(ValueError):
    """The requested grid needs more memory than we allow (choose a coarser discretization)."""


# ---------------------------------------------------------------------------------------------- steps 4–7
@dataclass(frozen=True)
class CompositionReport:
    """Diagnostics of one composition (all masses in absolute units)."""

    steps: int
    h: float
    fft_len: int
    window: tuple[float, float]
    tail_bound: float
    fft_error: float
    removed_mass: float
    input_error: float
    numerical_error: float = field(default=0.0)
    #: output coarsening factor F applied inside the composition (tradeoff/compose_coarse.py; 1 = none)
    coarsening: int = field(default=1)
    #: per-threshold error (step 7'): losses of every composed atom position (kept or zeroed), increasing …
    atom_loss: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: … and the bound on the error of that atom's mass (Q-units where the loss is ≥ 0, P-units below)
    atom_error: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the part of ``numerical_error`` that ``atom_error`` itemises (the rest acts at every ε)
    atom_error_total: float = field(default=0.0, compare=False)
    #: the cells' input error per threshold (:class:`~dpcompare.tradeoff.input_error.InputTail`; its ``uniform``
    #: is the part of ``numerical_error`` it replaces at large ε), or None
    input_tail: object | None = field(default=None, repr=False, compare=False)

    def error_at(self, eps) -> np.ndarray:
        """Per-threshold bound η(ε) on the error of δ(ε) and of the swap's δ(ε) (step 7'): non-increasing
        in ε ≥ 0, ≤ ``numerical_error``; ``numerical_error`` itself at ε < 0 and without itemised atoms.

        δ(ε) = q₊∞ + Σ_{ℓᵢ>ε} qᵢ(1 − e^{ε−ℓᵢ}) depends on the atoms above ε only, each through a factor in
        [0, 1], and the swap's δ(ε) = p₋∞ + Σ_{ℓᵢ<−ε} pᵢ(1 − e^{ε+ℓᵢ}) on the atoms below −ε only; the
        atoms keep their losses, so an error eᵢ of atom i moves either by ≤ eᵢ, and only if it lies
        above ε (resp. below −ε). Hence η(ε) = (``numerical_error`` − ``atom_error_total``) +
        Σ_{ℓᵢ>ε, ℓᵢ≥0} eᵢ + Σ_{ℓᵢ<−ε, ℓᵢ<0} eᵢ bounds the error of both, the first term being the parts that
        act at every ε (window folding 4τ, the input's ‖Δx‖₁ and the ±∞ atoms). With ``input_tail``
        (tradeoff/input_error.py) its ``uniform`` part of the first term is replaced by its value at ε, which
        is ≤ it and non-increasing in ε.

        >>> r = CompositionReport(2, 0.1, 8, (0.0, 0.2), 0.0, 0.0, 0.0, 0.0, 1e-9, 1,
        ...                       np.array([0.0, 0.1, 0.2]), np.array([3e-10, 3e-10, 3e-10]), 9e-10)
        >>> [round(float(v) * 1e10, 6) for v in r.error_at(np.array([-1.0, 0.05, 0.15, 0.25]))]
        [10.0, 7.0, 4.0, 1.0]
        """
        eps = np.asarray(eps, dtype=float)
        if self.atom_loss is None or self.atom_error is None or not math.isfinite(self.numerical_error):
            return np.full(eps.shape, self.numerical_error)
        loss = self.atom_loss
        hi_cum, lo_cum = self._error_sums
        k_hi = np.searchsorted(loss, eps, side="right")  # first atom with loss > ε
        k_lo = np.searchsorted(loss, -eps, side="left")  # atoms with loss < −ε
        base = self.numerical_error - self.atom_error_total
        it = self.input_tail
        if it is not None:  # the cells' input error, per threshold (tradeoff/input_error.py), instead of uniformly
            base = base - it.uniform + it.at(eps).reshape(eps.shape)
        # a cumulative sum in floating point is below the exact one by ≤ n·u of it (Higham §4.2): raise it
        slack = 1.0 + 2.0 * U * (loss.size + 2)
        out = base * (1.0 + 4 * U) + (hi_cum[k_hi] + lo_cum[k_lo]) * slack
        out = np.minimum(out, self.numerical_error)  # both are valid bounds
        return np.where(eps >= 0.0, out, self.numerical_error)

    @functools.cached_property
    def _error_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """(Σ_{i ≥ k} of the bounds of the atoms with loss ≥ 0, Σ_{i < k} of those below 0), k = 0 … n, for
        :meth:`error_at` (computed once: a search for ε(δ) reads η(ε) a dozen times)."""
        loss, err = self.atom_loss, self.atom_error
        up = np.where(loss >= 0.0, err, 0.0)
        down = np.where(loss < 0.0, err, 0.0)
        hi_cum = np.concatenate([np.cumsum(up[::-1])[::-1], [0.0]])  # Σ_{i ≥ k}
        lo_cum = np.concatenate([[0.0], np.cumsum(down)])  # Σ_{i < k}
        return hi_cum, lo_cum


#: atoms per block in the coarse search of :func:`chernoff_window`
CHERNOFF_BLOCK = 32
#: in the refinement of :func:`chernoff_window`, a block enters with its upper bound (not atom by atom) when that
#: is e^{−CHERNOFF_PRUNE} below the sum: the moment generating function is then overstated by ≤ nb·e^{−50} relative
CHERNOFF_PRUNE = 50.0


def unimodal_search(val: Callable[[int], float], n: int) -> None:
    """Read ``val`` at the indices a golden-section search for the minimum of a unimodal sequence val(0 … n − 1)
    visits (≈ 1.44·log₂ n + 4 of them, some twice): the minimum is among them where the sequence is unimodal.

    >>> seen = []
    >>> unimodal_search(lambda i: seen.append(i) or (i - 13) ** 2, 24)
    >>> 13 in seen, len(set(seen)) < 24
    (True, True)
    """
    lo, hi = 0, n - 1
    while hi - lo > 3:  # keep the side of the smaller of two interior points (ties: the lower side)
        m1 = lo + int(round(0.381966 * (hi - lo)))
        m2 = max(lo + int(round(0.618034 * (hi - lo))), m1 + 1)
        if val(m1) <= val(m2):
            hi = m2
        else:
            lo = m1
    for i in range(lo, hi + 1):
        val(i)


def chernoff_window(step: GridStep, steps: int, tau: float) -> tuple[int, int]:
    """Indices [i_lo, i_hi] of the composed grid N·offset + I·h outside which P^N(L < ·) ≤ τ and
    Q^N(L > ·) ≤ τ (step 5), from the Chernoff bounds Q^N(L > a) ≤ τ at a(t) = (N log M_Q(t) − log τ)/t and
    P^N(L < b) ≤ τ at b(t) = (log τ − N log M_P(−t))/t, valid at every t > 0; the best t is searched on
    blocks of atoms (upper bounds of the MGFs, so valid values too) and refined on the atoms (those of the blocks that
    matter at that t; the others enter with their block's upper bound, so every value is still a valid bound), on a
    fine grid of t read where a golden-section search for its extremum looks (:func:`unimodal_search`: the bounds
    are quasi-convex in t, so that is the extremum over the whole fine grid, and each value read is the one the
    whole grid's evaluation gives)."""
    g = step.losses
    lp = step.log_p
    fin = np.isfinite(lp)
    g, lp = g[fin], lp[fin]
    lq = lp + g
    lo_true, hi_true = steps * step.k_lo, steps * (step.k_lo + step.log_p.size - 1)
    if g.size == 0:
        return lo_true, lo_true
    spread = max(float(g[-1] - g[0]), step.h)
    log_tau = math.log(tau)

    def lse(v: np.ndarray) -> np.ndarray:  # log Σ e^v along each row
        m = v.max(axis=1)
        return m + np.log(np.sum(np.exp(v - m[:, None]), axis=1))

    # the coarse search runs on blocks of CHERNOFF_BLOCK atoms, each moved to its block's largest loss (for
    # the Q upper tail) or smallest loss (for the P lower tail) with the block's mass: that only raises
    # M_Q(t) and M_P(−t) for t > 0, so every coarse value is a valid (looser) bound too
    nb = -(-g.size // CHERNOFF_BLOCK)
    starts = np.arange(nb) * CHERNOFF_BLOCK
    lens = np.diff(np.append(starts, g.size))

    def block_lse(v: np.ndarray) -> np.ndarray:
        m = np.maximum.reduceat(v, starts)
        return m + np.log(np.add.reduceat(np.exp(v - np.repeat(m, lens)), starts))

    g_hi_blk, g_lo_blk = g[starts + lens - 1], g[starts]  # g is increasing
    lq_blk, lp_blk = block_lse(lq), block_lse(lp)
    blk_of = np.repeat(np.arange(nb), lens)

    def pruned_prep(w: np.ndarray, w_blk: np.ndarray, s: np.ndarray) -> tuple:
        """The blocks :func:`pruned_lse` keeps for the rows ``s`` (those any row keeps), and what its rows read."""
        s = s[:, None]
        a, b = s * g_lo_blk[None, :], s * g_hi_blk[None, :]
        up = w_blk[None, :] + np.maximum(a, b)
        floor = np.max(w_blk[None, :] + np.minimum(a, b), axis=1)
        keep = np.any(up >= floor[:, None] - CHERNOFF_PRUNE, axis=0)
        atoms = keep[blk_of]
        ga, wa = (g, w) if keep.all() else (g[atoms], w[atoms])
        return s, up, keep, ga, wa

    def pruned_rows(prep: tuple, rows: np.ndarray | None = None) -> np.ndarray:
        """:func:`pruned_lse` of the rows ``rows`` (default all) of the rows prepared by :func:`pruned_prep`: each
        row's value is the one the whole call computes (its own row of the same buffer layout)."""
        s, up, keep, ga, wa = prep
        if rows is not None:
            s, up = s[rows], up[rows]
        v = np.empty((s.shape[0], ga.size + int(np.count_nonzero(~keep))))  # one buffer, updated in place
        np.multiply(s, ga[None, :], out=v[:, : ga.size])
        v[:, : ga.size] += wa[None, :]
        v[:, ga.size :] = up[:, ~keep]
        m = v.max(axis=1)
        v -= m[:, None]
        np.exp(v, out=v)
        return m + np.log(np.sum(v, axis=1))

    def pruned_lse(w: np.ndarray, w_blk: np.ndarray, s: np.ndarray) -> np.ndarray:
        """log Σᵢ e^{wᵢ + s·gᵢ} per row s (an upper bound, ≤ the exact value + nb·e^{−CHERNOFF_PRUNE} relative): the
        blocks whose upper bound w_blk + max(s·g) lies CHERNOFF_PRUNE below a lower bound of the whole sum (the
        largest w_blk + min(s·g)) enter with that upper bound, the others atom by atom."""
        return pruned_rows(pruned_prep(w, w_blk, s))

    def a_of(t: np.ndarray, prep: tuple | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """Q upper tail: a(t) = (N log M_Q(t) − log τ)/t (``prep``, ``rows``: those rows of ``a_prep(t)``)."""
        if prep is None:
            return (steps * pruned_lse(lq, lq_blk, t) - log_tau) / t
        return (steps * pruned_rows(prep, rows) - log_tau) / t[rows]

    def b_of(t: np.ndarray, prep: tuple | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """P lower tail: b(t) = (log τ − N log M_P(−t))/t (``prep``, ``rows``: those rows of ``b_prep(t)``)."""
        if prep is None:
            return (log_tau - steps * pruned_lse(lp, lp_blk, -t)) / t
        return (log_tau - steps * pruned_rows(prep, rows)) / t[rows]

    def a_prep(t: np.ndarray) -> tuple:
        return pruned_prep(lq, lq_blk, t)

    def b_prep(t: np.ndarray) -> tuple:
        return pruned_prep(lp, lp_blk, -t)

    def a_coarse(t: np.ndarray) -> np.ndarray:
        return (steps * lse(lq_blk[None, :] + t[:, None] * g_hi_blk[None, :]) - log_tau) / t

    def b_coarse(t: np.ndarray) -> np.ndarray:
        return (log_tau - steps * lse(lp_blk[None, :] - t[:, None] * g_lo_blk[None, :])) / t

    # every t > 0 gives a valid bound; search a log grid on the blocks, then refine around the best point on
    # the atoms themselves (one row of a (t × atoms) array per t, in chunks of ~1e6 entries)
    ts = np.geomspace(1e-3 / (spread * math.sqrt(steps)), 1e3 / step.h, 48)

    def values(fun, t: np.ndarray, worst: float, width: int) -> np.ndarray:  # a NaN (inf − inf) bounds nothing
        rows = max(1, (1 << 20) // width)
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.concatenate([fun(t[i : i + rows]) for i in range(0, t.size, rows)])
        return np.where(np.isnan(v), worst, v)

    def unimodal_values(fun, prep, t: np.ndarray, worst: float, width: int, minimise: bool) -> np.ndarray:
        """The values of ``values(fun, t, worst, width)`` that a search for the extremum of a unimodal sequence
        reads (each row as that call computes it: in its chunk of rows, with the blocks that chunk keeps). The bounds
        are quasi-convex in t (a(t)·t = N log M(t) − log τ is convex and −log τ > 0, so t·a'(t) has the sign of an
        increasing function), so the search finds the extremum of the sequence; were it not unimodal, each value read
        is still a valid bound."""
        rows = max(1, (1 << 20) // width)
        got: dict[int, float] = {}
        chunks: dict[int, tuple] = {}

        def val(i: int) -> float:
            if i not in got:
                c0 = (i // rows) * rows
                with np.errstate(over="ignore", invalid="ignore"):
                    if c0 not in chunks:
                        chunks[c0] = prep(t[c0 : c0 + rows])
                    v = float(fun(t[c0 : c0 + rows], chunks[c0], np.array([i - c0]))[0])
                got[i] = worst if math.isnan(v) else v
            return got[i] if minimise else -got[i]

        unimodal_search(val, t.size)
        return np.array(list(got.values()))

    a_best, b_best = math.inf, -math.inf
    for fun, prep, coarse, minimise in ((a_of, a_prep, a_coarse, True), (b_of, b_prep, b_coarse, False)):
        worst = math.inf if minimise else -math.inf
        vals = values(coarse, ts, worst, nb)
        k = int(np.argmin(vals) if minimise else np.argmax(vals))
        fine = np.geomspace(ts[max(k - 1, 0)], ts[min(k + 1, ts.size - 1)], 24)
        both = np.concatenate([vals, unimodal_values(fun, prep, fine, worst, g.size, minimise)])
        if minimise:
            a_best = float(np.min(both))
        else:
            b_best = float(np.max(both))
    base = steps * step.offset  # composed grid: N·offset + I·h
    i_hi = min(hi_true, math.ceil((a_best - base) / step.h) if math.isfinite(a_best) else hi_true)
    i_lo = max(lo_true, math.floor((b_best - base) / step.h) if math.isfinite(b_best) else lo_true)
    return min(i_lo, i_hi), max(i_lo, i_hi)


#: a spectral entry is *dead* when its N-th power is certainly ≤ e^{−DEAD_LOG} ≈ 1e-304 (computed as 0)
DEAD_LOG = 700.0
#: the bound e^{−DEAD_LOG} on the modulus of a dead entry's N-th power
DEAD_MASS = math.exp(-DEAD_LOG)


@dataclass(frozen=True, eq=False)
class PowerSpectrum:
    """The N-th power of a real input's half spectrum (rfft of length n), kept only where it is alive (step 6).

    ``k``: rfft indices of the live entries, ``values``: their computed ĉᴺ, ``err_sum``: Σ over them of the
    a-priori bound on |ĉᴺ − cᴺ| (forward transform, power, and the inverse transform's own rounding, as in
    step 6), ``dead``: number of the other entries, each with |cᴺ| ≤ DEAD_MASS (they are 0 here).
    For a composition of many steps almost every entry is dead (|c| < 1 − 700/N away from the lowest
    frequencies), so the power is taken on a few hundred entries instead of n/2.
    """

    n: int
    k: np.ndarray
    values: np.ndarray
    err_sum: float
    dead: int

    def dense(self) -> np.ndarray:
        """The full half spectrum (zeros at the dead entries)."""
        out = np.zeros(self.n // 2 + 1, dtype=complex)
        out[self.k] = self.values
        return out


#: live spectral entries recomputed in extended precision by :func:`power_spectrum` (the largest error terms)
REFINE = 10
#: shortest transform whose forward FFT :func:`power_spectrum` prunes (:mod:`.low_band_dft`; below, the full FFT
#: costs a few ms at most)
PRUNE_MIN_N = 1 << 16


#: inner block J of :func:`_extended_dft`: the inputs are read as rows of J consecutive entries (inner products of J
#: terms, γ_J of its bound: ≈ 0.24u in all at J = 256; the fewer blocks, the fewer outer twiddles — 256 took 2.1 ms
#: against 2.7 ms at 64 and 3.5 ms at 32 for the 10 entries of a 3.9·10⁴-point step)
DFT_BLOCK = 256
#: the relative error of a twiddle T_hi[r div B]·T_lo[r mod B] from :func:`_extended_dft`'s tables, in units of
#: ε_ext = 2⁻⁶⁴ (each table entry is the extended-precision exponential of a phase rounded once, then one product)
DFT_TWIDDLE_ERROR = 50.0


def _extended_dft_error(j_block: int, blocks: int) -> float:
    """The bound of :func:`_extended_dft`'s extended-precision arithmetic relative to Σx, in units of ε_ext = 2⁻⁶⁴, for
    inner blocks of ``j_block`` inputs and ``blocks`` blocks (its docstring):
    √2·(e_T + γ_J·(1 + e_T)) + e_T + √5 + γ_⌈log₂ A⌉, γ_m = m/(1 − m·ε_ext), taken ×1.01 for the second-order terms.

    >>> round(_extended_dft_error(64, 617))   # ≈ 0.11u (u = 2048 ε_ext)
    226
    """
    eps = 2.0**-64
    e_t = DFT_TWIDDLE_ERROR

    def gamma(m: int) -> float:
        return m / (1.0 - m * eps)

    levels = max(1, (max(1, blocks) - 1).bit_length())
    return 1.01 * (math.sqrt(2.0) * (e_t + gamma(j_block) * (1.0 + e_t * eps)) + e_t + math.sqrt(5.0) + gamma(levels))


def _dft_range(x: np.ndarray, j0: int, j1: int) -> tuple[int, int]:
    """The index range [j0, j1) :func:`_extended_dft` sums: the inputs between the first and the last nonzero one
    (``j0``, ``j1``) without a prefix and a suffix of inputs x ≥ 0 whose true totals are each ≤ u/2·Σx (the partial
    sums are computed in double, within γ_L = 1.01·L·u of theirs, and compared with a budget lowered by as much; the
    suffix of a DP-SGD step's masses, its far tail, is 30–40 % of its entries). Unchanged where some input is < 0.

    >>> _dft_range(np.array([1e-40, 1.0, 2.0, 1e-30, 1e-300]), 0, 5)
    (1, 3)
    """
    xs = x[j0:j1]
    if xs.size < 2 or not bool(np.all(xs >= 0.0)):
        return j0, j1
    tot = float(np.sum(xs))
    g = 1.01 * xs.size * U
    budget = 0.5 * U * tot * (1.0 - g) / (1.0 + g) ** 2
    head = int(np.searchsorted(np.cumsum(xs), budget, side="right"))
    tail = int(np.searchsorted(np.cumsum(xs[::-1]), budget, side="right"))
    if head + tail >= xs.size:
        return j0, j1
    return j0 + head, j1 - tail


@functools.lru_cache(maxsize=4)
def _twiddle_tables(n: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(B, T_lo, T_hi): e^{−2πi·r/n} for r < B and for r = B·q, q ≤ n div B (B = ⌊√n⌋), by the extended-precision
    exponential of the phases rounded once (:func:`_extended_dft`; read-only, cached per n: the same n serves every σ
    whose composition window is as wide)."""
    ld = np.longdouble
    b = max(1, math.isqrt(n))
    two_pi_n = 2 * np.arccos(ld(-1)) / ld(n)
    t_lo = np.exp(-1j * (two_pi_n * np.arange(b, dtype=ld)).astype(np.clongdouble))
    t_hi = np.exp(-1j * (two_pi_n * (b * np.arange(n // b + 1, dtype=ld))).astype(np.clongdouble))
    t_lo.setflags(write=False)
    t_hi.setflags(write=False)
    return b, t_lo, t_hi


def _extended_dft(x: np.ndarray, n: int, k: np.ndarray) -> np.ndarray | None:
    """ĉ_k = Σ_j x_j·e^{−2πi·jk/n} at a few rfft indices k, summed in 80-bit extended precision and rounded to
    complex128 (None where long double is not wider than double).

    With the inputs read in blocks of J = DFT_BLOCK consecutive indices from the first nonzero one j₀,
    j = j₀ + J·a + b (b < J, a < A), ĉ_k = Σ_a ω^{(j₀ + J·a)k}·C(a, k) with C(a, k) = Σ_b x_{j₀+J·a+b}·ω^{b·k}
    (ω = e^{−2πi/n}): C is two real matrix products (A × J)·(J × #k) in long double (cos and sin parts), the outer
    sum a pairwise halving over a. Phases are reduced exactly in integers (r = jk mod n), and ω^r =
    T_hi[r div B]·T_lo[r mod B] from two tables computed by the extended-precision exponential (relative error
    e_T ≤ DFT_TWIDDLE_ERROR·ε_ext per twiddle, ε_ext = 2⁻⁶⁴ = u/2048).

    Error relative to Σx (ε_ext units; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1: an
    inner product of m terms in any order errs by ≤ γ_m·Σ|terms|, and a pairwise sum of depth d by ≤ γ_d·Σ|terms|):
    each real part of C(a, k) is within (e_T + γ_J·(1 + e_T))·S_a of the truth (S_a = the block's Σx), so C within
    √2 times that; the product with the outer twiddle adds e_T + √5 (Brent, Percival & Zimmermann, "Error bounds on
    complex floating-point multiplication", Math. Comp. 2007) times |C| ≤ S_a; the halving over the A blocks
    γ_⌈log₂A⌉. :func:`_extended_dft_error` adds these (≈ 0.11u at J = 64, A = 617; ≈ 0.24u at J = 256). A prefix and a suffix of
    the inputs with true totals ≤ u/2·Σx each are left out (:func:`_dft_range`: ≤ u·Σx). With rounding to complex128
    (≤ 1.5u) the result is within (1.5 + 1 + 0.25)u·Σx ≤ 3u·Σx of the truth (at J = 256), the bound :func:`power_spectrum` uses
    (None if the arithmetic's bound exceeded 0.5u, e.g. for a block size J ≥ 620)."""
    ld = np.longdouble
    if float(np.finfo(ld).eps) > 1e-18:
        return None
    out = np.empty(k.size, dtype=complex)
    kp = np.unique(k)
    if kp.size == 0:
        return out
    nonzero = x != 0.0
    j0 = int(np.argmax(nonzero))
    if not nonzero[j0]:
        out[:] = 0.0
        return out
    j1 = x.size - int(np.argmax(nonzero[::-1]))
    j0, j1 = _dft_range(x, j0, j1)
    jb = DFT_BLOCK
    blocks = -(-(j1 - j0) // jb)
    if _extended_dft_error(jb, blocks) * 2.0**-64 > 0.5 * U:  # not at J = 256 (≈ 0.24u for < 2⁶⁰ inputs)
        return None
    xs = np.zeros(blocks * jb, dtype=ld)
    xs[: j1 - j0] = x[j0:j1]  # exact: every double is a long double
    xs = xs.reshape(blocks, jb)
    b, t_lo, t_hi = _twiddle_tables(n)
    kn = kp % n

    def twiddle(r: np.ndarray) -> np.ndarray:  # e^{−2πi·r/n} from the tables (0 ≤ r < n)
        hi, lo = np.divmod(r, b)
        return t_hi[hi] * t_lo[lo]

    w_in = twiddle((np.arange(jb)[:, None] * kn[None, :]) % n)  # (J × #k): ω^{b·k}
    cs = np.dot(xs, np.concatenate([w_in.real, w_in.imag], axis=1))  # (A × 2#k) in one product: cos and sin parts
    c = cs[:, : kp.size] + 1j * cs[:, kp.size :]  # C(a, k), long double (exact: imaginary unit times a real)
    starts = (j0 + jb * np.arange(blocks)) % n
    c *= twiddle((starts[:, None] * kn[None, :]) % n)
    levels = (blocks - 1).bit_length()
    if (1 << levels) > blocks:
        c = np.concatenate([c, np.zeros(((1 << levels) - blocks, kp.size), dtype=c.dtype)])
    while c.shape[0] > 1:  # pairwise halving: depth ⌈log₂ A⌉
        half = c.shape[0] // 2
        c = c[:half] + c[half:]
    vals = dict(zip(kp.tolist(), c[0].astype(complex).tolist()))
    out[:] = [vals[int(kk)] for kk in k]
    return out


#: longest transform whose half spectrum :func:`_forward_rfft` writes into a buffer kept per thread (n/2 + 1 complex:
#: ≤ 16 MB); longer ones get a fresh array
RFFT_BUFFER_MAX = 1 << 20
_RFFT_OUT = threading.local()
#: numpy ≥ 2 transforms into a given output (``out=``) with pocketfft's C++ code, as scipy.fft does
_NUMPY_RFFT_OUT = int(np.__version__.split(".")[0]) >= 2


def _forward_rfft(x: np.ndarray, n: int, workers: int) -> np.ndarray:
    """The half spectrum of x zero-padded to n (pocketfft, the forward transform of :func:`power_spectrum`).

    On numpy ≥ 2 (for n ≤ RFFT_BUFFER_MAX) ``numpy.fft.rfft`` writes it into a buffer reused by the next call in the
    same thread: the same pocketfft algorithm as ``scipy.fft.rfft`` (identical values in our tests), without the
    fresh 16·n-byte output and zero-padded input that made up ≈ 30% of the pages a warm composition faults in. The
    result is overwritten by the next call: the caller copies what it keeps."""
    if not _NUMPY_RFFT_OUT or n > RFFT_BUFFER_MAX:
        from scipy import fft as sfft

        return sfft.rfft(x, n, workers=workers)
    buf = getattr(_RFFT_OUT, "buf", None)
    if buf is None or buf.size != n // 2 + 1:
        buf = np.empty(n // 2 + 1, dtype=complex)
        _RFFT_OUT.buf = buf
    return np.fft.rfft(x, n, out=buf)


def power_spectrum(x: np.ndarray, n: int, steps: int, workers: int) -> PowerSpectrum:
    """Half spectrum of the cyclic N-fold self-convolution of x with its error bounds (step 6); x has at most
    n entries (zero-padded to n).

    Entry c is dead when (|ĉ| + e_f)ᴺ ≤ e^{−DEAD_LOG} (e_f = forward-transform bound): then |cᴺ| ≤ DEAD_MASS
    for the true c too, and it is returned as 0 with that bound.

    For a short input (x nonzero on L ≪ n points) the forward transform is pruned (:mod:`.low_band_dft`): the
    entries below a band edge K are computed directly (bound e_f of that computation, ≈ 70u·Σx instead of the
    full FFT's κ(log₂n + 1)u·Σx) and every entry above it is *certified* dead from a length-n/s transform and the
    input's second moment; where that certificate does not close (or would cost more) the full FFT is taken."""
    m = float(np.sum(x))
    log2n = max(1.0, math.log2(n))
    size = n // 2 + 1
    # dead ⟺ the true |c| < e^{−DEAD_LOG/N}(1 − 8u)/(1 + 8u) =: level (then |cᴺ| ≤ DEAD_MASS)
    level = math.exp(-DEAD_LOG / steps) * (1.0 - 8 * U) / (1.0 + 8 * U)
    band = None
    if n >= PRUNE_MIN_N:
        nonzero = x != 0.0
        last = x.size - int(np.argmax(nonzero[::-1]))  # one past the last nonzero input (x.size − 0: none)
        if nonzero[last - 1]:
            from .low_band_dft import low_band

            band = low_band(x[:last], n, level, workers)
    if band is None:
        c = _forward_rfft(x, n, workers)
        e_f = KAPPA * log2n * U * m + KAPPA * U * m  # forward transform (+ folding of the input)
    else:  # entries k ≥ band size are certified below ``level``: dead
        c, e_f = band.values, band.error
    absc = np.abs(c)
    # live ⟺ (|ĉ| + e_f)(1 + 8u) ≥ e^{−DEAD_LOG/N}(1 − 8u), compared in place (no n-sized temporaries)
    thr = level - e_f
    live = np.flatnonzero(np.greater_equal(absc, thr * (1.0 - 4 * U), out=np.empty(c.size, dtype=bool)))
    cl, al = c[live], absc[live]
    del c, absc
    # the perturbation bound N·e_f·|c|^{N−1} dominates the error: recompute the entries where it is largest
    # in extended precision, whose bound e_x = 3u·Σx (rounding to double) is ~40× below e_f
    e_k = np.full(live.size, e_f)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        weight = (steps - 1) * np.log(np.minimum(al + e_f, m)) if steps > 1 else np.zeros(live.size)
    top = live[np.argsort(-weight, kind="stable")[:REFINE]] if live.size else live
    # (only where that bound matters: N·e_f ≥ 1e-10; below, the refinement would cost more than it saves)
    exact = _extended_dft(x, n, top) if top.size and steps * e_f >= 1e-10 else None
    if exact is not None:
        where = np.searchsorted(live, top)
        cl[where] = exact
        al[where] = np.abs(exact)
        e_k[where] = 3.0 * U * m
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        lc = np.log(cl)  # log ĉ
        # power error κu(1 + N|log ĉ|)|ĉ|ᴺ and perturbation N·max(|ĉ|,|c|)^{N−1}·e (step 6)
        abs_log = np.abs(lc)
        abs_log[~np.isfinite(abs_log)] = 0.0
        absz = np.exp(steps * lc.real)
        err = KAPPA * U * (1.0 + steps * abs_log) * absz
        err += KAPPA * log2n * U * absz  # the inverse transform's own rounding (per entry, summed)
        a1 = np.minimum(al + e_k, m)
        pw = np.exp((steps - 1) * np.log(a1)) if steps > 1 else np.ones_like(a1)
        err += steps * e_k * pw
        vals = np.exp(steps * lc)
        vals[~np.isfinite(vals)] = 0.0
    return PowerSpectrum(n, live, vals, float(np.sum(err)), int(size - live.size))


def _fft_power(x: np.ndarray, n: int, steps: int, workers: int) -> tuple[np.ndarray, float]:
    """Cyclic N-fold self-convolution of x (length n) and an a-priori bound E on every entry's error (step 6)."""
    ps = power_spectrum(x, n, steps, workers)
    # irfft uses the Hermitian spectrum: the full sum counts every half-spectrum term at most twice
    e_inf = 2.0 * (ps.err_sum + ps.dead * DEAD_MASS) / n
    from scipy import fft as sfft

    y = sfft.irfft(ps.dense(), n, workers=workers)
    return y, e_inf


def compose(step: GridStep, steps: int, *, tau: float = 1e-18, workers: int = 2) -> tuple[np.ndarray, int, CompositionReport]:
    """N-fold composition of a grid pair (steps 4–7).

    Returns (log P-masses on the composed grid window, index I₀ of its first point, report); the
    losses are N·offset + (I₀ + i)·h.
    The pair they define is within ``report.numerical_error`` (uniformly in π, in Bayes error) of the
    exact N-fold composition of ``step``.
    """
    h = step.h
    i_lo, i_hi = chernoff_window(step, steps, tau)
    width = i_hi - i_lo + 1
    if width > MAX_FFT_LEN:  # refused before any allocation (next_fast_len itself fails beyond 2^63)
        raise DiscretizationTooFine(
            f"steps={steps}: the composition window has {width:.3g} grid points of spacing {h:.3g} (≈ "
            f"{width * 48 / 1e9:.3g} GB; the limit is {MAX_FFT_LEN} points ≈ {MAX_FFT_LEN * 48 / 1e9:.2g} GB): "
            "use fewer steps, a larger noise, or a coarser discretization"
        )
    from scipy import fft as sfft

    n = sfft.next_fast_len(width, real=True)
    from .._limits import FFT_BYTES_FINE, fft_refusal

    if (why := fft_refusal(n, FFT_BYTES_FINE, steps=steps, h=h)) is not None:  # the 1 GiB budget, before allocating
        raise DiscretizationTooFine(why)
    if n > MAX_FFT_LEN:
        raise DiscretizationTooFine(
            f"composition needs an FFT of length {n} (≈ {n * 48 / 1e9:.3g} GB; the limit is {MAX_FFT_LEN} ≈ "
            f"{MAX_FFT_LEN * 48 / 1e9:.2g} GB): use fewer steps, a larger noise, or a coarser discretization"
        )
    k = np.arange(step.log_p.size)
    fin = np.isfinite(step.log_p)
    g = step.losses
    # place single-step index k (relative to k_lo) at position k mod n; composed index j = Σk relative
    pos = k[fin] % n
    p_step = np.exp(step.log_p[fin])
    with np.errstate(over="ignore"):
        q_step = np.exp(step.log_p[fin] + g[fin])
    q_step = np.where(np.isfinite(q_step), q_step, 0.0)
    xp = np.bincount(pos, weights=p_step, minlength=n)
    xq = np.bincount(pos, weights=q_step, minlength=n)
    # composed absolute index I = j + N·k_lo; we want I ∈ [i_lo, i_hi]: position (I − N k_lo) mod n
    shift = (i_lo - steps * step.k_lo) % n
    L = steps * step.offset + (i_lo + np.arange(width)) * h
    out_logp = np.full(width, -np.inf)
    fft_err_total = 0.0
    for which, x in (("Q", xq), ("P", xp)):
        use = L >= 0 if which == "Q" else L < 0
        if not np.any(use):
            continue
        y, e_inf = _fft_power(x, n, steps, workers)
        y = np.roll(y, -shift)[:width]
        # zero the noise (and negative entries); bound: each kept or zeroed entry is within 2E of the truth
        y = np.where(y > e_inf, y, 0.0)
        fft_err_total += 2.0 * e_inf * int(np.count_nonzero(use))
        with np.errstate(divide="ignore"):
            ly = np.log(y[use])
        out_logp[use] = ly - L[use] if which == "Q" else ly
        del y
    # masses of the exact composition of the grid step (finite part)
    p_max, q_max, cap_err = composed_mass_caps(step.log_p[fin], g[fin], steps, width)
    removed = _remove_excess(out_logp, L, p_max, q_max)
    # the losses N·offset + I·h themselves carry a rounding error ≤ 4u·max|L|: a relative Q-error; the ±∞
    # atoms of the filled pair fall short of the exact ones by at most the caps' rounding (composed_mass_caps)
    input_err = steps * step.err + 4 * U * float(np.max(np.abs(L))) + cap_err + width * U * removed
    eta = fft_err_total + removed + 4.0 * tau + input_err
    report = CompositionReport(steps, h, n, (float(L[0]), float(L[-1])), 4.0 * tau, fft_err_total, removed, input_err, eta)
    return out_logp, i_lo, report


def correctly_rounded_sum(x: np.ndarray) -> float:
    """``math.fsum(x)`` (the sum of the non-negative doubles ``x``, correctly rounded) without a Python float per term
    where a long-double sum decides it.

    The terms are summed exactly converted to long double (64-bit significand, unit roundoff ε = 2⁻⁶⁴) by halving a
    zero-padded power-of-two vector L = ⌈log₂ n⌉ times: each term passes L additions of non-negative numbers, so the
    computed s is within ((1 + ε)^L − 1)·S ≤ 1.01·L·ε·S of the exact sum S (Higham, "Accuracy and Stability of
    Numerical Algorithms", 2002, §4.2). With e = 2(L + 2)·ε·s the computed ends s ∓ e (rounded once more) enclose
    S; rounding to double is monotone, so where both ends round to the same double d, S rounds to d too — the
    correctly rounded sum, which is what ``math.fsum`` returns (a tie S between two doubles has ends rounding
    apart). Otherwise, and where long double is not wider than double, ``math.fsum`` answers.

    >>> x = np.array([1.0, 1e-16, 1e-16, 3e-300])
    >>> correctly_rounded_sum(x) == math.fsum(x.tolist())
    True
    """
    x = np.asarray(x, dtype=float).ravel()
    ld = np.longdouble
    if x.size == 0:
        return 0.0
    if float(np.finfo(ld).eps) > 1e-18 or not np.all(x >= 0.0) or not np.all(np.isfinite(x)):
        return math.fsum(x.tolist())
    levels = (x.size - 1).bit_length()
    if levels == 0:
        s = ld(x[0])
    else:  # the zero-padded vector of 2^L entries halved L times, in place (its first halving: x's two halves)
        half = 1 << (levels - 1)
        v = x[:half].astype(ld)
        v[: x.size - half] += x[half:]  # (each double is exact in long double; + 0 for the padding)
        while half > 1:
            half //= 2
            v[:half] += v[half : 2 * half]
        s = v[0]
    if s == 0:
        return 0.0
    e = s * ld(2 * (levels + 2)) * ld(2.0**-64)
    lo, hi = float(s - e), float(s + e)
    if lo == hi:
        return lo
    return math.fsum(x.tolist())


def composed_mass_caps(log_p: np.ndarray, g: np.ndarray, steps: int, n_out: int,
                       totals: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """(p_max, q_max, err): the finite P- and Q-mass of the exact N-fold composition of a grid step
    (P_fin^N, Q_fin^N; step 6 caps the composed masses at them) and a bound on how far the ±∞ atoms of the
    filled pair can fall below the exact composition's because of the caps' rounding (step 7′).

    With deficits filled, q₊∞ = 1 − Σq̂ and p₋∞ = 1 − Σp̂ over every finite atom, so every atom's error
    would reach δ(ε) through them at every ε — were the sums not capped: step 6 keeps Σq̂ ≤ q_max, hence
    q₊∞ ≥ 1 − q_max, the exact value up to the rounding of q_max and of the sum compared with it. The step
    totals are correctly rounded sums (:func:`correctly_rounded_sum`: ``math.fsum``'s value) of exponentials
    within 4 ulp (8u relative), log adds 8u·(1 + |log tot|) absolute, the N-fold product exp(N·log tot) multiplies
    that by N and adds
    8u + u·N·|log tot|; the composed total compared with the cap (a sum of n_out exponentials, pairwise
    summation) is within (log₂ n_out + 136)·u. err = Σ over both sides of (e^{1.01·r} − 1)·cap.
    (The cumulative sums of the removal err by ≤ n_out·u of the mass removed: the caller adds that.)

    ``totals``: the step totals (P, Q) where the caller has them already — :func:`step_totals` of the same ``log_p``
    and ``g`` (the same numbers).

    >>> p_max, q_max, err = composed_mass_caps(np.log([0.5, 0.5]), np.array([-1.0, 1.0]), 10, 21)
    >>> p_max == 1.0 and 0.0 < err < 1e-12
    True
    """
    def cap(tot: float) -> tuple[float, float]:
        if not tot > 0.0:
            return 0.0, 0.0
        lg = abs(math.log(min(tot, 1.0)))
        m = math.exp(steps * math.log(min(tot, 1.0)))
        rel = U * (steps * (16.0 + 9.0 * (1.0 + lg)) + 8.0 + math.log2(max(n_out, 2)) + 136.0)
        return m, math.expm1(1.01 * rel) * m

    p_tot, q_tot = step_totals(log_p, g) if totals is None else totals
    p_max, p_err = cap(p_tot)
    q_max, q_err = cap(q_tot)
    return p_max, q_max, p_err + q_err


def step_totals(log_p: np.ndarray, g: np.ndarray, p: np.ndarray | None = None, q: np.ndarray | None = None
                ) -> tuple[float, float]:
    """(Σ e^{log p}, Σ e^{log p + g}) correctly rounded (:func:`correctly_rounded_sum`): the step totals of
    :func:`composed_mass_caps` (0 for an empty step). ``p``, ``q``: those exponentials where the caller has them
    (``np.exp(log_p)``, ``np.exp(log_p + g)``: the same numbers)."""
    log_p = np.asarray(log_p, dtype=float)
    if log_p.size == 0:
        return 0.0, 0.0
    if p is None:
        p = np.exp(log_p)
    if q is None:
        q = np.exp(log_p + np.asarray(g, dtype=float))
    return correctly_rounded_sum(p), correctly_rounded_sum(q)


def _remove_excess(log_p: np.ndarray, L: np.ndarray, p_max: float, q_max: float) -> float:
    """Remove Q-mass above q_max from the highest losses and P-mass above p_max from the lowest (in place).

    Returns the mass removed (in the measure it was removed in). The removed mass goes to ℓ = ±∞ when
    the pair is built with deficits filled (pessimistic direction, step 6).
    """
    removed = 0.0
    fin = np.isfinite(log_p)
    if not np.any(fin):
        return 0.0
    # Q from the top (the totals as pairwise sums of the exponentials: numpy's blocked pairwise sum within
    # (19 + log₂ n)·u, forming log q = log p + L a mass-weighted u·|log q| ≤ u·log n_out more: ≈ (44 + log₂ n)·u in
    # all, inside the (log₂ n_out + 136)·u that composed_mass_caps charges for the comparison)
    log_q = log_p + L
    with np.errstate(over="ignore"):
        q_tot = float(np.sum(np.exp(log_q[fin])))
    if q_tot > q_max:
        excess = q_tot - q_max
        removed += excess
        idx = np.flatnonzero(fin)[::-1]
        _cut_mass(log_p, idx, np.exp(log_q[idx]), excess, L)
    fin = np.isfinite(log_p)
    if not np.any(fin):
        return removed
    p_tot = float(np.sum(np.exp(log_p[fin])))
    if p_tot > p_max:
        excess = p_tot - p_max
        removed += excess
        idx = np.flatnonzero(fin)
        _cut_mass(log_p, idx, np.exp(log_p[idx]), excess, None)
    return removed


def _cut_mass(log_p: np.ndarray, idx: np.ndarray, mass: np.ndarray, excess: float, L: np.ndarray | None) -> None:
    """Take ``excess`` of the measure whose masses at the atoms ``idx`` (in the order they are taken) are ``mass``
    (in place on ``log_p``): whole atoms first, then the part of the next one; the Q-measure (``L`` given, the
    atoms' losses) is written back as log P = log Q − L."""
    cum = np.cumsum(mass)
    cut = int(np.searchsorted(cum, excess, side="left"))
    log_p[idx[:cut]] = -np.inf
    if cut < idx.size:
        left = cum[cut] - excess
        j = idx[cut]
        if not left > 0:
            log_p[j] = -np.inf
        else:
            log_p[j] = math.log(left) - L[j] if L is not None else math.log(left)




# ---------------------------------------------------------------------------------------------- step 9
#: exponents t of the Chernoff bound (any t > 0 is valid; the grid only sets how close to the best)
_CHERNOFF_T = np.geomspace(1e-3, 1e4, 281)


@dataclass(frozen=True)
class TailBound:
    """Certified Chernoff bounds on the profile of the N-fold composition of a *pessimistic* grid step
    (step 9), valid at every δ down to 1e-300 (log space).

    For a pair with privacy loss L (composed: a sum of N i.i.d. single-step losses) and t > 0:

        δ_rem(ε) = E_Q[(1 − e^{ε−L})₊] ≤ Q(L = +∞) + c_t·e^{−tε}·M_Q(t)ᴺ,
        δ_add(ε) = E_P[(1 − e^{ε+L})₊] ≤ P(L = −∞) + c_t·e^{−tε}·M_P(−t)ᴺ,

    with M_Q(t) = Σ qᵢ e^{tℓᵢ}, M_P(−t) = Σ pᵢ e^{−tℓᵢ} over the finite atoms of one step and
    c_t = sup_{y>0} (1 − e^{−y})e^{−ty} = t^t/(t+1)^{t+1} (the RDP-to-DP conversion of Canonne, Kamath &
    Steinke 2020, "The discrete Gaussian for differential privacy", Prop. 12, in Chernoff form);
    Q(L = +∞) ≤ 1 − (1 − q₊∞)ᴺ ≤ N·q₊∞. The symmetrised profile is max(δ_rem, δ_add). Because the
    step is pessimistic (the true step is a post-processing of it), the bounds hold for the true
    mechanism. ``log_m_q``/``log_m_p`` already include the relative error of the step's masses
    (a factor (1 + r) per step, r = ``rel_err``) and the rounding of their log-space evaluation, which is
    *absolute* in log space and grows with the exponents: the terms vᵢ = (log pᵢ + ℓᵢ) ± t·ℓᵢ are formed
    with an error ≤ 3u·(|log pᵢ| + 2|ℓᵢ| + t|ℓᵢ|) (three roundings of operands at most that large), the
    shift by the row maximum adds ≤ 2u of the same size, the exponentials 2u and the pairwise sum of n
    terms ≤ n·u relative, the final log and addition ≤ 2u·|log M|: in all ≤ 8u·Vₜ + (n + 8)·u + 2u·|log M|
    with Vₜ = maxᵢ(|log pᵢ| + 2|ℓᵢ|) + t·maxᵢ|ℓᵢ| (up to 5e5 at t = 1e4, where a fixed 64u would be
    1e-9 of it). The readers add the rounding of N·log M + log c_t − tε (≤ 4u times the sum of the
    moduli of its terms) to the exponent before comparing it with log δ.

    >>> import numpy as np
    >>> from dpcompare.tradeoff.grid import GridStep
    >>> from dpcompare.tradeoff import Rounding
    >>> # randomized response with e^ε₀ = 3 as a two-atom pair (ℓ = ±log 3)
    >>> st = GridStep(float(np.log(3)), 0.0, -1, np.array([np.log(0.75), -np.inf, np.log(0.25)]), 0.0, 0.0, Rounding.EXACT, 0.0)
    >>> tb = TailBound.from_step(st, 1)
    >>> float(tb.delta(0.0)[0]) >= 0.5  # the true δ(0) = TV = 0.5
    True
    >>> bool(np.log(3.0) < tb.epsilon(1e-300) < 1.2)  # true ε(δ) = log 3 for every δ > 0
    True
    """

    t: np.ndarray
    log_m_q: np.ndarray
    log_m_p: np.ndarray
    log_q_inf: float
    log_p_inf: float
    steps: int

    @classmethod
    def from_step(cls, step: GridStep, steps: int, rel_err: float = 0.0) -> "TailBound":
        g = step.losses
        lp = step.log_p
        fin = np.isfinite(lp)
        g, lp = g[fin], lp[fin]
        t = _CHERNOFF_T
        log_r = math.log1p(rel_err) * (1.0 + 4 * U)
        with np.errstate(over="ignore", invalid="ignore"):
            a = (lp + g)[None, :] + t[:, None] * g[None, :]
            b = lp[None, :] - t[:, None] * g[None, :]
        # log-space rounding, absolute and growing with the exponents (docstring)
        big = (float(np.max(np.abs(lp) + 2.0 * np.abs(g), initial=0.0)) + t * float(np.max(np.abs(g), initial=0.0)))
        slack = 8 * U * big + (g.size + 8) * U

        def bound(rows: np.ndarray) -> np.ndarray:
            lse = _lse_rows(rows)
            return lse + slack + 2 * U * np.abs(lse) + log_r

        log_m_q = bound(a)
        log_m_p = bound(b)
        n = float(steps)
        log_q_inf = math.log(n * step.q_pos_inf) if step.q_pos_inf > 0 else -math.inf
        log_p_inf = math.log(n * step.p_neg_inf) if step.p_neg_inf > 0 else -math.inf
        return cls(t, log_m_q, log_m_p, log_q_inf, log_p_inf, int(steps))

    def _log_ct(self) -> np.ndarray:
        t = self.t
        return t * np.log(t) - (t + 1.0) * np.log1p(t)

    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log of the certified upper bound of the symmetrised δ(ε) (ε ≥ 0)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        log_ct = self._log_ct()[None, :]
        te = self.t[None, :] * np.where(np.isfinite(eps), eps, 0.0)[:, None]  # ε = +∞ is answered below
        with np.errstate(invalid="ignore"):
            # the exponent's own rounding: ≤ 4u times the moduli of its terms (docstring)
            def exponent(log_m: np.ndarray) -> np.ndarray:
                nm = self.steps * log_m[None, :]
                return log_ct - te + nm + 4 * U * (np.abs(log_ct) + np.abs(te) + np.abs(nm))

            rem = np.min(exponent(self.log_m_q), axis=1)
            add = np.min(exponent(self.log_m_p), axis=1)
        rem = np.logaddexp(rem, self.log_q_inf)
        add = np.logaddexp(add, self.log_p_inf)
        out = np.minimum(np.maximum(rem, add), 0.0)
        return np.where(np.isposinf(eps), max(self.log_q_inf, self.log_p_inf, -math.inf), out)

    def delta(self, eps: np.ndarray) -> np.ndarray:
        """The bound itself; a positive bound below the smallest float is reported as that float, never 0."""
        ld = self.log_delta(eps)
        with np.errstate(under="ignore"):
            out = np.exp(ld)
        return np.where(np.isfinite(ld), np.maximum(out, np.nextafter(0.0, 1.0)), out)

    def epsilon(self, delta: float) -> float:
        """Smallest ε the bound certifies for δ (∞ if the ±∞ atoms alone exceed δ)."""
        if delta >= 1.0:
            return 0.0
        if delta <= 0.0:
            return math.inf
        log_d = math.log(delta)
        # give the ±∞ atoms their share, the finite part the rest: ε_t = (N log M(t) + log c_t − log δ')/t
        worst = -math.inf
        for log_inf, log_m in ((self.log_q_inf, self.log_m_q), (self.log_p_inf, self.log_m_p)):
            if log_inf >= log_d:
                return math.inf
            log_rest = log_d + (math.log(-math.expm1(log_inf - log_d)) if log_inf > -math.inf else 0.0)
            nm, lct = self.steps * log_m, self._log_ct()
            # rounding of the numerator (≤ 4u of its terms' moduli) and of the division (u), outwards
            num = nm + lct - log_rest + 4 * U * (np.abs(nm) + np.abs(lct) + abs(log_rest))
            eps_t = num / self.t * np.where(num > 0.0, 1.0 + 2 * U, 1.0 - 2 * U)
            worst = max(worst, float(np.min(eps_t)))
        return max(worst, 0.0)


def _lse_rows(a: np.ndarray) -> np.ndarray:
    m = np.max(a, axis=1)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(under="ignore"):
        return m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))
