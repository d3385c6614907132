"""Certified N-fold composition of closed-form one-step privacy-loss laws (Laplace; any discrete pair).

The same construction as the subsampled Gaussian (:mod:`dpcompare.composition.sgm_certified`), with the one
split/merge engine (:mod:`dpcompare.tradeoff.grid`) and the one FFT composition
(:mod:`dpcompare.tradeoff.compose`, whose module docstring is the argument, steps 1–8):

1. a grid-aligned partition of one step's privacy-loss axis with closed-form cell masses
   (:func:`laplace_partition`, :func:`discrete_partition`);
2. the pessimistic split and the optimistic merge of that partition (exact Blackwell statements);
3. each composed N times by FFT with an a-priori floating-point bound η;
4. the two pairs, coarsened once for output, as a :class:`~dpcompare.composition.sgm_certified.CertifiedComposition`:
   R_pess − η ≤ R_true ≤ R_opt + η at every prior π.

Laplace (P = Lap(0, b), Q = Lap(Δ, b), m = Δ/b): the loss L = (|x| − |x − Δ|)/b has an atom at −m
(x ≤ 0: P-mass ½, Q-mass ½e^{−m}), an atom at +m (x ≥ Δ: P-mass ½e^{−m}, Q-mass ½) and, in between,
the P-density ¼e^{−(t+m)/2} and Q-density ¼e^{(t−m)/2} on (−m, m) (x = b(t + m)/2 is linear in t).
A cell (a, c] ⊂ (−m, m) therefore has

    P(a, c] = ½·e^{−(a+m)/2}·(1 − e^{−(c−a)/2}),   Q(a, c] = ½·e^{(c−m)/2}·(1 − e^{−(c−a)/2}),

in log space without cancellation (derived here from the two densities; the tails P(L > t), Q(L > t)
agree with :class:`dpcompare.mechanisms.Laplace`'s closed forms, checked in tests/composition/test_closed_form.py). The grid is g_k = k·h with h = m/K, K a power of two, so ±m are grid points exactly and
the two atoms are not rounded at all: only the continuous middle is split/merged.

>>> c = compose_laplace(1.0, 10)
>>> lo = float(c.optimistic.delta(1.0)) - c.optimistic_error
>>> hi = float(c.pessimistic.delta(1.0)) + c.pessimistic_error
>>> bool(0 < lo <= hi < lo + 1e-4)
True
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np

from .._numerics import log1mexp
from ..tradeoff import DiscretePair, Rounding
from ..tradeoff import compose as certified_compose
from ..tradeoff import grid as certified_grid
from ..tradeoff.compose import CompositionReport, DiscretizationTooFine
from ..tradeoff.grid import U, StepPartition
from .sgm_certified import AUTO_MAX_FFT, MAX_ABS_LOSS, OUTPUT_ATOMS, WINDOW_TAIL, CertifiedComposition, fft_workers

#: grid spacing as a fraction of the one-step loss standard deviation (bracket width ∝ KAPPA²)
KAPPA = 0.01
#: sub-cells per grid interval of the Laplace partition
SUB_CELLS = 4
#: largest one-step grid (grid intervals) before the spacing is widened
MAX_STEP_INTERVALS = 1 << 18
#: largest m = Δ/b composed: beyond it one step is blatantly non-private (δ(ε) = 1 − e^{(ε−m)/2})
MAX_LAPLACE_M = 700.0


# ---------------------------------------------------------------------------------------------- Laplace
def laplace_loss_std(m: float) -> float:
    """Standard deviation of the Laplace privacy loss under Q (the law in the module docstring).

    Var = E[L²] − E[L]² with E[L] = m − 1 + e^{−m} (the KL divergence, [BCP] eq 8) and
    E[L²] = ½e^{−m}m² + ½m² + ∫_{−m}^{m} t²·¼e^{(t−m)/2} dt, the integral in closed form:
    ½[(t² − 4t + 8)e^{(t−m)/2}]_{−m}^{m} = ½(m² − 4m + 8) − ½(m² + 4m + 8)e^{−m}.

    >>> round(laplace_loss_std(1.0), 6)
    0.810795
    """
    e = math.exp(-m)
    mean = m - 1.0 + e  # written as m − (1 − e^{−m}): accurate for small m below
    if m < 1e-3:
        mean = m * m / 2.0 - m ** 3 / 6.0
    second = 0.5 * e * m * m + 0.5 * m * m + 0.5 * (m * m - 4 * m + 8) - 0.5 * (m * m + 4 * m + 8) * e
    var = second - mean * mean
    if not (var > 1e-3 * m * m):  # small m: cancellation; L = ±m with probability ≈ ½ each
        var = m * m * (1.0 - 0.5 * m)
    return math.sqrt(max(var, 0.0))


def laplace_grid_intervals(m: float, steps: int, discretization: float | None = None) -> int:
    """K (a power of two) for the grid spacing h = m/K: h ≤ KAPPA·s (s = :func:`laplace_loss_std`) by
    default, or h ≤ ``discretization``; at most MAX_STEP_INTERVALS. The default is halved until the
    composition window (≈ ±(N·KL + 10·s·√N), KL = m − 1 + e^{−m} the mean loss) fits in AUTO_MAX_FFT
    grid points, as for the subsampled Gaussian: any spacing is certified, this one sets speed/accuracy.

    >>> laplace_grid_intervals(1.0, 1), laplace_grid_intervals(0.1, 10**7)
    (128, 8)
    """
    s = laplace_loss_std(m)
    target = KAPPA * s if discretization is None else float(discretization)
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"discretization must be a positive finite number, got {discretization!r}")
    k = min(1 << max(0, math.ceil(math.log2(max(m / target, 1.0)))), MAX_STEP_INTERVALS)
    if discretization is None:
        kl = m * m / 2.0 if m < 1e-3 else m - 1.0 + math.exp(-m)
        width = 2.0 * (steps * kl + 10.0 * s * math.sqrt(steps)) + 2.0 * m
        while k > 1 and width * k / m > AUTO_MAX_FFT:
            k //= 2
    return k


def laplace_partition(m: float, k: int, sub: int = SUB_CELLS) -> StepPartition:
    """One Laplace step (m = Δ/b) on the grid g_j = j·m/k, j = −k … k (tradeoff/compose.py step 1).

    The atom at −m is the lower tail (ℓ ≤ g_lo = −m: P = ½, Q = ½e^{−m}); the atom at +m is the last
    cell (it lies in (g_{k−1}, g_k]); the middle is cut into ``sub`` cells per grid interval, with the
    masses of the module docstring (relative error a few ulp: bounded by 8u·(1 + |log mass|)).

    >>> part = laplace_partition(1.0, 4, sub=2)
    >>> part.size, part.cell_k.size
    (9, 17)
    """
    if k < 1 or k & (k - 1):
        raise ValueError(f"k must be a power of two >= 1, got {k!r}")
    h = m / k  # exact (power of two): g_{±k} = ±m exactly
    w = h / sub
    n = 2 * k * sub
    a = -m + np.arange(n) * w
    c = -m + np.arange(1, n + 1) * w
    c[-1] = m
    log_half = math.log(0.5)
    log_width = log1mexp(-(c - a) / 2.0)
    log_p = log_half - (a + m) / 2.0 + log_width
    log_q = log_half + (c - m) / 2.0 + log_width
    cell_k = np.repeat(np.arange(2 * k), sub)
    # the atom at +m: one more cell in the last grid interval (ordered last: its loss m is the largest)
    log_p = np.append(log_p, log_half - m)
    log_q = np.append(log_q, log_half)
    cell_k = np.append(cell_k, 2 * k - 1)
    rel = 8 * U * (1.0 + np.abs(log_p) + np.abs(log_q))
    return StepPartition(h, 0.0, -k, k, cell_k, log_p, log_q, (log_half, log_half - m), (-math.inf, -math.inf), rel)


@functools.lru_cache(maxsize=16)
def compose_laplace(m: float, steps: int, discretization: float | None = None) -> CertifiedComposition:
    """Certified pessimistic/optimistic pairs of N steps of the Laplace mechanism with m = Δ/b.

    The Laplace pair is symmetric (f = f⁻¹), so the pairs are the mechanism's own (no symmetrisation
    needed; swapping P and Q gives the same trade-off). ``discretization`` is an upper bound on the
    grid spacing h = m/K (default KAPPA·s, s the one-step loss standard deviation).
    """
    if not (isinstance(m, (int, float)) and not isinstance(m, bool) and 0.0 < m <= MAX_LAPLACE_M):
        raise ValueError(f"m = sensitivity/b must be in (0, {MAX_LAPLACE_M:g}], got {m!r}")
    t0 = time.perf_counter()
    k = laplace_grid_intervals(float(m), steps, discretization)
    part = laplace_partition(float(m), k, sub=max(1, min(SUB_CELLS, (1 << 20) // (2 * k))))
    return compose_partition(part, steps, seconds_from=t0)


# ---------------------------------------------------------------------------------------------- Gaussian
@functools.lru_cache(maxsize=16)
def compose_gaussian(mu: float, discretization: float | None = None) -> CertifiedComposition:
    """Certified pessimistic/optimistic pairs of the Gaussian mechanism G_μ (one step; G_μ^⊗N = G_{μ√N},
    Dong, Roth & Su 2022, Cor 3.3). The partition is the subsampled Gaussian's at p = 1
    (:func:`dpcompare.composition.sgm_certified.sgm_partition`: Gauss–Legendre / log_ndtr cell masses with a
    relative error bound), spacing h = KAPPA_GAUSS·μ (widened so that one step has ≤ MAX_STEP_INTERVALS
    grid intervals). The closed form is exact; these pairs exist so that Δ against another pair-backed
    mechanism is an exact merge of breakpoints rather than a branch and bound (comparison/delta.py).

    >>> c = compose_gaussian(2.0)
    >>> import dpcompare as dc
    >>> d = float(dc.Gaussian(mu=2.0).delta(1.0))   # the closed form, rounded up by at most 1e-12 relative
    >>> bool(c.optimistic.delta(1.0) - c.numerical_error <= d <= (c.pessimistic.delta(1.0) + c.numerical_error) * (1 + 1e-12))
    True
    """
    from .sgm_certified import KAPPA_GAUSS, sgm_partition

    if not (isinstance(mu, (int, float)) and not isinstance(mu, bool) and 0.0 < mu <= 1e3):
        raise ValueError(f"mu must be in (0, 1000] for a gridded Gaussian, got {mu!r}")
    t0 = time.perf_counter()
    mu = float(mu)
    span = mu * mu + 2.0 * 12.0 * mu  # ±(μ²/2 + zμ), z ≈ 11.3 at tail 1e-30
    h = KAPPA_GAUSS * mu if discretization is None else float(discretization)
    h = max(h, span / MAX_STEP_INTERVALS)
    sub = max(1, min(SUB_CELLS, int((1 << 20) * h / span)))
    return compose_partition(sgm_partition(1.0 / mu, 1.0, h, sub=sub, tail=1e-30), 1, seconds_from=t0)


# ---------------------------------------------------------------------------------------------- discrete pairs
#: the declared absolute error of a one-step log-mass, in units of u·(1 + |log p| + |log q|) (its atom's two
#: log-masses): the derivation is :func:`log_mass_rel_error`'s; the same 32 as ``binomial.INPUT_ULPS``, whose
#: two-atom route charges 32u·(1 + |x|) per log-mass
LOG_MASS_ULPS = 32.0


def log_mass_rel_error(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """Bound on the relative error of an atom's stored masses e^{log p̃}, e^{log q̃} against the real mechanism's,
    per atom: e^{e} − 1 with e = ``LOG_MASS_ULPS``·u·(1 + |log p| + |log q|) the declared absolute error of its
    log-masses (a log-mass at −∞ is exact and adds nothing; 0 where both are).

    A mass m stored through x̃ = fl(log m) has m̃/m = e^{x̃ − log m}: the log's *absolute* error becomes the
    mass's relative error, and that absolute error grows with |log m| (every rounding and elementary function
    on the way errs relative to the size of its result): a flat bound falls below even the correct rounding of
    log m (u·|log m|) once |log m| is large, i.e. in the far tails. Where the ulps come from, per builder
    (ELEM = 8u per numpy elementary function, the package's convention; u per rounding; every partial result
    of the same sign and at most |log p| + |log q| in size):

    - ``_rr_pair`` (randomized response, ε-DP, (ε, δ)-DP): log1p(−δ) (ELEM), e^{−ε} and log1p of it (2·ELEM),
      two subtractions (2u); log q is a copy: ≤ (3·ELEM + 2u)·|x| = 26u·|x|.
    - ``DiscretePair.from_masses`` / ``from_vertices`` (``TradeoffCurve``, ``FromPair`` of masses): the
      difference of two vertices (u relative: u absolute after the log) and its log (ELEM): ≤ u + 8u·|x|;
      atoms of equal loss merged by logaddexp: 8u·(1 + |x|) more.
    - ``events.discrete_laplace_pair``: log P ≤ ELEM + (2·ELEM + 2u)·|log p| (log tanh(a/2) from two
      elementary functions, the product a·x and a subtraction); the loss a·(2x − Δ) (u·|ℓ| ≤ u(|log p| + |log q|))
      and log q = log p + ℓ (u·|log q|) add ≤ u·(|log p| + 2|log q|): ≤ 19u·(1 + |log p| + |log q|).
    - ``events.randomized_response_pair``: log((1 − p) + p/k) (2u relative, then ELEM), log(p/k), log((k − 2)p/k)
      (≤ 3u + ELEM·|x|), the loss (u·|ℓ|) and log q = log p + ℓ: ≤ 12u·(1 + |log p| + |log q|).

    All are within 26u·(1 + |log p| + |log q|) ≤ ``LOG_MASS_ULPS``·u·(…). Measured against 50-digit mpmath at
    far-tail atoms (|log m| up to 1500) in tests/composition/test_closed_form_input_error.py; a ``FromPair`` of
    the caller's own log-masses is exact by definition (its doubles are the mechanism), and is charged the same.

    >>> r = log_mass_rel_error(np.array([-700.0, -np.inf]), np.array([0.0, -np.inf]))
    >>> bool(r[0] > 700 * 2.0**-53), float(r[1])
    (True, 0.0)
    """
    lp, lq = np.asarray(log_p, dtype=float), np.asarray(log_q, dtype=float)
    fp, fq = np.isfinite(lp), np.isfinite(lq)
    e = LOG_MASS_ULPS * U * (1.0 + np.where(fp, np.abs(lp), 0.0) + np.where(fq, np.abs(lq), 0.0))
    return np.where(fp | fq, np.expm1(e) * (1.0 + 4 * U), 0.0)


def discrete_partition(pair: DiscretePair, h: float) -> StepPartition:
    """A discrete pair's atoms as zero-width cells of the grid g_k = k·h (tradeoff/compose.py step 1): the
    atom at loss λ lies in (g_{j−1}, g_j] with j = ⌈λ/h⌉. The masses at ℓ = ±∞ are carried over unchanged.

    Each cell's relative error (``rel_err``) is the atom's input error :func:`log_mass_rel_error` (its
    masses are stored through their logarithms) plus the Q-mass change of putting an atom within rounding
    of a grid point on it (|e^{λ − g_j} − 1|) and 16u for the rounding of that term.

    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
    >>> part = discrete_partition(rr, 0.5)
    >>> part.k_lo, part.k_hi, part.cell_k.tolist()
    (-3, 3, [0, 5])
    """
    if not (h > 0 and math.isfinite(h)):
        raise ValueError(f"h must be a positive finite number, got {h!r}")
    loss = np.asarray(pair.loss, dtype=float)
    keep = np.isfinite(pair.log_p)
    loss, log_p, log_q = loss[keep], np.asarray(pair.log_p)[keep], np.asarray(pair.log_q)[keep]
    if loss.size == 0:
        raise ValueError("the pair has no atom at a finite privacy loss")
    # an atom within rounding (8u·(1 + |λ/h|) grid steps) of a grid point is put on it: the top of its
    # interval; the Q-mass this changes (relative ≤ the shift in λ) is in the cells' relative error
    tol = 8 * U * (1.0 + np.abs(loss / h))
    j = np.ceil(loss / h - tol).astype(np.int64)
    j = np.where(j * h < loss - 2 * tol * h, j + 1, j)  # the atom must not lie above its interval's top
    k_lo = int(j.min()) - 1
    k_hi = int(j.max())
    rel = np.abs(np.expm1(np.maximum(loss - j * h, 0.0))) + 16 * U + log_mass_rel_error(log_p, log_q)
    return StepPartition(h, 0.0, k_lo, k_hi, j - 1 - k_lo, log_p, log_q, rel_err=rel,
                         p_neg_inf=float(pair.p_neg_inf), q_pos_inf=float(pair.q_pos_inf))


def pair_loss_std(pair: DiscretePair) -> float:
    """Standard deviation of the loss of a discrete pair under Q (finite atoms, renormalised)."""
    q = np.exp(np.asarray(pair.log_q))
    tot = float(q.sum())
    if not tot > 0:
        return 0.0
    mean = float(np.sum(q * pair.loss)) / tot
    return math.sqrt(max(float(np.sum(q * (pair.loss - mean) ** 2)) / tot, 0.0))


def compose_discrete(pair: DiscretePair, steps: int, discretization: float | None = None) -> CertifiedComposition:
    """Certified pessimistic/optimistic pairs of the N-fold composition of an *exact* discrete pair
    (grid spacing h = KAPPA·s by default, s its loss standard deviation; a grid point at 0).

    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
    >>> c = compose_discrete(rr, 5)
    >>> bool(c.pessimistic.delta(0.0) >= c.optimistic.delta(0.0))
    True
    """
    if pair.rounding is not Rounding.EXACT:
        raise ValueError("compose_discrete needs an exact pair (compose a bracket's two sides separately)")
    t0 = time.perf_counter()
    s = pair_loss_std(pair)
    spread = float(np.max(np.abs(pair.loss))) if pair.size else 0.0
    if discretization is not None:
        h = float(discretization)
    elif s > 0:
        h = KAPPA * s
    else:
        h = max(spread, 1.0) / 64
    h = max(h, 2 * max(spread, 1e-300) / MAX_STEP_INTERVALS)
    return compose_partition(discrete_partition(pair, aligned_spacing(pair.loss, h)), steps, seconds_from=t0)


def aligned_spacing(loss: np.ndarray, h: float) -> float:
    """A spacing ≤ h that puts every loss on a grid point when the losses are integer multiples of the
    smallest non-zero |loss| λ₀ (randomized response, (ε, δ)-DP: ±ε): h' = λ₀/2^j. Atoms on grid
    points are neither split nor merged, so the bracket of such a pair stays at rounding level.
    Otherwise h itself (the atoms are then split/merged: a wider, still certified bracket).

    >>> aligned_spacing(np.array([-1.0, 1.0]), 0.3)
    0.25
    """
    loss = np.asarray(loss, dtype=float)
    nz = np.abs(loss[loss != 0.0])
    if nz.size == 0:
        return h
    lam0 = float(nz.min())
    ratio = loss / lam0
    if np.any(np.abs(ratio - np.round(ratio)) > 1e-9 * np.maximum(1.0, np.abs(ratio))) or float(np.max(np.abs(ratio))) * lam0 / h > MAX_STEP_INTERVALS:
        return h
    return lam0 / float(1 << max(0, math.ceil(math.log2(lam0 / h))))


# ---------------------------------------------------------------------------------------------- the composition
def compose_partition(part: StepPartition, steps: int, *, seconds_from: float | None = None) -> CertifiedComposition:
    """Both sides of the N-fold composition of one step's partition (tradeoff/compose.py steps 2–8).

    Pessimistic: split (grid.pessimistic_step), FFT, coarsen by a split. Optimistic: merge
    (grid.optimistic_step; if the grid is too coarse to land the merge, the closed-form binary
    fallback grid.optimistic_binary), FFT, coarsen by a merge.

    Masses at ℓ = ±∞ (an (ε, δ)-DP step): the FFT composes the finite atoms as sub-probability
    measures, so the composed finite part is right and only the ±∞ masses are missing. Both pairs get
    them explicitly, P^N(ℓ = −∞) = 1 − (1 − p₋∞)^N (some step at −∞) and the same for Q at +∞
    (:func:`_with_infinities`): a kernel applied to the all-finite outcomes only is still a
    post-processing, so each side keeps its direction. The pessimistic pair takes at least its
    deficit there (which also holds the FFT's removed mass).
    """
    t0 = time.perf_counter() if seconds_from is None else seconds_from
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    steps = int(steps)
    h = part.h
    sides, reports = [], []
    for rounding, build in ((Rounding.PESSIMISTIC, certified_grid.pessimistic_step),
                            (Rounding.OPTIMISTIC, certified_grid.optimistic_step)):
        try:
            step = build(part)
        except RuntimeError:  # optimistic merge cannot land on this grid: binary closed form (exact, loose)
            loss, clp, eta = certified_grid.optimistic_binary(part, steps)
            sides.append(certified_grid.to_pair(loss, clp, rounding))
            reports.append(CompositionReport(steps, h, 0, (float(loss.min()), float(loss.max())), 0.0, 0.0, 0.0, eta, eta))
            continue
        if steps == 1:
            log_p, i_lo = step.log_p.copy(), step.k_lo
            eta = step.err
            reports.append(CompositionReport(1, h, 0, (float(step.losses[0]), float(step.losses[-1])), 0.0, 0.0, 0.0, eta, eta))
        else:
            log_p, i_lo, rep = certified_compose.compose(step, steps, tau=WINDOW_TAIL, workers=fft_workers())
            reports.append(rep)
        factor = output_coarsening(log_p.size, steps)
        coarsen = certified_grid.coarsen_pessimistic if rounding is Rounding.PESSIMISTIC else certified_grid.coarsen_optimistic
        loss, clp = coarsen(log_p, i_lo, h, factor, steps * part.offset)
        if float(np.max(np.abs(loss[np.isfinite(clp)]), initial=0.0)) > MAX_ABS_LOSS:
            raise DiscretizationTooFine(f"composed losses reach {float(np.max(np.abs(loss))):.3g} nats")
        if step.p_neg_inf > 0 or step.q_pos_inf > 0:
            pair = _with_infinities(loss, clp, rounding, step.p_neg_inf, step.q_pos_inf, steps)
        else:
            pair = certified_grid.to_pair(loss, clp, rounding)
        sides.append(pair)
    errs = (reports[0].numerical_error + 64 * U, reports[1].numerical_error + 64 * U)
    return CertifiedComposition(sides[0], sides[1], max(errs), h, steps, tuple(reports), time.perf_counter() - t0, errs)


def _with_infinities(loss: np.ndarray, log_p: np.ndarray, rounding: Rounding, p_neg_inf: float, q_pos_inf: float,
                     steps: int) -> DiscretePair:
    """The composed pair with its ±∞ masses 1 − (1 − mass)^N (at least the deficit, pessimistic side)."""
    def composed(x: float) -> float:
        return 1.0 if x >= 1.0 else -math.expm1(steps * math.log1p(-x))

    p_inf, q_inf = composed(p_neg_inf), composed(q_pos_inf)
    pair = DiscretePair.from_atoms(loss, log_p, p_neg_inf=0.0, q_pos_inf=0.0, rounding=rounding)
    if rounding is Rounding.PESSIMISTIC:
        p_inf = max(p_inf, 1.0 - float(np.sum(pair.p)))
        q_inf = max(q_inf, 1.0 - float(np.sum(pair.q)))
    return DiscretePair(pair.loss, pair.log_p, min(p_inf, 1.0), min(q_inf, 1.0), rounding)


def output_coarsening(n_atoms: int, steps: int) -> int:
    """Output coarsening factor (tradeoff/compose.py step 8): ≤ OUTPUT_ATOMS atoms, and ≤ 0.1·√N so that
    the one extra split/merge adds ≤ 1% of the variance the N steps' splits/merges add."""
    want = max(1, n_atoms // OUTPUT_ATOMS)
    cap = max(1, int(0.1 * math.sqrt(steps)))
    return max(1, min(want, cap))
