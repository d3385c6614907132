"""Composition and output coarsening in one pass, in the Fourier domain (steps 4–8 of
:mod:`dpcompare.tradeoff.compose`, whose module docstring is the specification).

:func:`~dpcompare.tradeoff.compose.compose` returns the N-fold composition on the fine grid (10⁶ atoms),
which step 8 then coarsens by a factor F (split for the pessimistic side, merge for the optimistic
one). Both coarsenings are *linear and shift-invariant on the fine grid, followed by keeping every F-th
point*: a coarse atom J at fine position J·F + s collects

    z_J = Σ_d κ(d)·y_{J·F+s+d}                                     (d ∈ [−F, F))

with a fixed kernel κ (split weights, step 2: w_lo(o) = (e^H − e^{o·h})/(e^H − 1), w_hi(o) = 1 − w_lo(o),
H = F·h; merge: κ = 1 on [0, F)). With the DFT Y of y (length n = M·F) this is exactly

    z_J = (1/n)·Σ_k Y_k·K̃_k·e^{2πi·J·k/M},   K̃_k = Σ_d κ(d)·e^{2πi·(d+s)·k/n},

and when Y vanishes outside |k| < M/2, an inverse real FFT of length M (not n) of V_k = Y_k·K̃_k/F.
For N steps Y = ĉᴺ is numerically zero except on a few hundred low frequencies (|c| < 1 − 700/N
elsewhere; :func:`~dpcompare.tradeoff.compose.power_spectrum` keeps only those and bounds the others
by e^{−700} each), so the length-n inverse transform and all fine-grid work disappear: the cost is one
forward transform per pass, itself pruned to the live band when the step occupies few of the n points
(:mod:`~dpcompare.tradeoff.low_band_dft`).

Error bound per coarse atom (step 6 carried through the kernel): |ẑ_J − z_J| ≤
(2r/M)·(Σ_live err_k + dead·e^{−700} + c_K·Σ|Ŷ_k|) + 2κ·log₂M·u·Σ|V̂_k|/M, with r = Σ|κ|/F (= 1 for the
splits, whose weights add to 1 per fine atom in either measure) and c_K = (44 + 2F)·u the relative
error of the computed K̃ (kernel weights ≈ 10u, phases ≈ 21u, summation of 2F terms). A coarse atom is
kept, zeroed or trimmed exactly as in step 6, and counts 2·E in η as a fine atom did.

Optimistic (merged) atoms need both masses: the block's direct sum in the pass's measure and the cross
sum with kernel e^{∓o·h} (p = e^{−G}·Σ q·e^{−o·h} on the Q-pass, q = e^{G}·Σ p·e^{o·h} on the P-pass). The
cross sum is clipped to the interval its truth lies in ([e^{−(F−1)h}, 1] or [1, e^{(F−1)h}] times the
direct sum), which never moves it away from the truth; the merged loss then lies in the block.
Errors of both masses and of δ(ε) per atom stay ≤ 2·e^{F·h}·max(E_direct, E_cross), which is what the
atom counts in η.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
from scipy import fft as sfft

from .._numerics import log1mexp
from .compose import (
    DEAD_MASS,
    KAPPA,
    MAX_FFT_LEN,
    CompositionReport,
    DiscretizationTooFine,
    PowerSpectrum,
    _remove_excess,
    composed_mass_caps,
    chernoff_window,
    step_totals,
    compose,
    power_spectrum,
)
from .compose_jump import JUMP_TAIL_MASSES, chernoff_log_mgf, jump_bulk_bound, jump_spectrum
from .grid import U, GridStep, coarsen_optimistic, coarsen_pessimistic, log_expm1
from .input_error import InputTail
from .pair import Rounding


def smooth_floor(f: int) -> int:
    """Largest 5-smooth integer (2ᵃ3ᵇ5ᶜ) ≤ f (f ≥ 1): a coarsening factor that keeps n = M·F a fast FFT length.

    >>> [smooth_floor(f) for f in (1, 7, 113, 250)]
    [1, 6, 108, 250]
    """
    f = max(1, int(f))
    best = 1
    p2 = 1
    while p2 <= f:
        p3 = p2
        while p3 <= f:
            p5 = p3
            while p5 <= f:
                best = max(best, p5)
                p5 *= 5
            p3 *= 3
        p2 *= 2
    return best


def _kernel_spectrum(kappa: np.ndarray, d: np.ndarray, s: int, k: np.ndarray, n: int) -> np.ndarray:
    """K̃_k = Σ_d κ(d)·e^{2πi(d+s)k/n} at the rfft indices k (phases reduced exactly in integers)."""
    ph = ((d[None, :] + s) * k[:, None]) % n
    ang = (2.0 * math.pi / n) * ph
    return np.sum(kappa[None, :] * np.cos(ang), axis=1) + 1j * np.sum(kappa[None, :] * np.sin(ang), axis=1)


def _coarse_values(ps: PowerSpectrum, kappa: np.ndarray, d: np.ndarray, s: int, f: int, m: int) -> tuple[np.ndarray, float]:
    """z_J (J = 0 … M−1) for the kernel κ on offsets d, and the per-atom error bound E (module docstring)."""
    n = ps.n
    keep = ps.k < m // 2 + 1
    k, vals = ps.k[keep], ps.values[keep]
    kt = _kernel_spectrum(kappa, d, s, k, n)
    v = np.zeros(m // 2 + 1, dtype=complex)
    v[k] = vals * kt / f
    z = sfft.irfft(v, m)
    r = float(np.sum(np.abs(kappa))) / f * (1.0 + 1e-12)
    c_k = (44.0 + 2.0 * f) * U
    sum_abs_y = float(np.sum(np.abs(vals)))
    err = 2.0 * r / m * (ps.err_sum + ps.dead * DEAD_MASS + c_k * sum_abs_y)
    err += 2.0 * KAPPA * max(1.0, math.log2(m)) * U * float(np.sum(np.abs(v))) / m
    return z, err * (1.0 + 1e-12) + 1e-300


def _split_kernels(f: int, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets d ∈ [−F, F) and the split kernels in P-units and in Q-units (step 2 onto the coarse grid)."""
    if f == 1:
        d = np.array([0])
        return d, np.array([1.0]), np.array([1.0])
    big_h = f * h
    o = np.arange(f) * h
    with np.errstate(divide="ignore"):
        lw_hi = log_expm1(o) - float(log_expm1(np.asarray(big_h)))  # fine atom o above the coarse point below
        lw_lo = log1mexp(o - big_h) - float(log1mexp(np.asarray(-big_h)))
    # d ≥ 0: fine atom J·F + d goes to coarse point J with w_lo(d); d < 0: fine atom (J−1)·F + o with w_hi(o)
    d = np.arange(-f, f)
    kp = np.concatenate([np.exp(lw_hi), np.exp(lw_lo)])
    # Q-units: q_lo = q·e^{−o·h}·w_lo(o), q_hi = q·e^{H−o·h}·w_hi(o)
    kq = np.concatenate([np.exp(lw_hi + big_h - o), np.exp(lw_lo - o)])
    return d, kp, kq


def compose_coarsened(
    step: GridStep, steps: int, factor: int | Callable[[int], int], *, tau: float = 1e-18, workers: int = 2,
    tail_masses: tuple[float, ...] = JUMP_TAIL_MASSES, input_tail: InputTail | None = None,
) -> tuple[np.ndarray, np.ndarray, CompositionReport]:
    """N-fold composition of a grid pair, coarsened by F for output (steps 4–8), without the fine grid.

    ``factor``: the coarsening F, or a function of the window width (fine grid points) giving it; it is
    lowered to a 5-smooth number; if the live spectrum is too wide for it, the composition is done on the
    fine grid and coarsened there by F as given (the specification's steps 4–8). A pessimistic step
    is split onto the coarse grid, an optimistic one merged in blocks of F. Returns (losses, log P-masses,
    report) of the coarse atoms; they are within ``report.numerical_error`` of the exact N-fold
    composition of ``step`` coarsened exactly, in every Bayes error and every δ(ε), ε ≥ 0 (and δ of the swap).

    A pessimistic step also gets the per-threshold bound ``report.error_at(ε)`` (step 7′ of
    :mod:`dpcompare.tradeoff.compose`): every composed atom position carries its own error bound, and for
    each single-step Q-tail mass in ``tail_masses`` (empty: none) a far-tail pass
    (:mod:`dpcompare.tradeoff.compose_jump`) recomputes the atoms above N × its cut from the tail's spectrum,
    with an error proportional to that tail mass; each atom keeps the value with the smallest bound.

    ``input_tail`` (:func:`~dpcompare.tradeoff.input_error.input_tail` of the partition ``step`` was split from
    by :func:`~dpcompare.tradeoff.grid.pessimistic_step`, unchanged): the part ``input_tail.replaced`` of
    ``step.err`` (the cells' share, or all of it when the step's rounding was measured) is then charged per
    threshold (tradeoff/input_error.py), and the ±∞ atoms by N·(q₊∞ + p₋∞) where that is below the caps'
    rounding (the exact step is then a probability pair).
    """
    return _finish(_prepare(step, steps, factor, tau, workers, input_tail), tail_masses)


def compose_coarsened_lazy(
    step: GridStep, steps: int, factor: int | Callable[[int], int], *, tau: float = 1e-18, workers: int = 2,
    input_tail: InputTail | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray, CompositionReport], Callable[..., tuple[np.ndarray, np.ndarray, CompositionReport]] | None]:
    """:func:`compose_coarsened` without the far-tail passes, and a function that adds them later.

    Returns (result without step 6″, ``with_far_tails``); ``with_far_tails(t)`` returns what
    ``compose_coarsened(step, steps, factor, tau=tau, workers=workers, input_tail=t)`` (default ``tail_masses``;
    ``t`` defaults to this call's ``input_tail``) returns, bit for bit, reusing this call's window and composed
    spectra (only the passes themselves are computed): a caller can defer the per-threshold input error too. It
    is None where no pass would be built (an optimistic step). Both results are certified; the passes only
    tighten the per-threshold bound η(ε) of the far tail (step 6″ of :mod:`dpcompare.tradeoff.compose`),
    so a caller builds them when its question reaches that tail.
    """
    prep = _prepare(step, steps, factor, tau, workers, input_tail)
    plain = _finish(prep, ())
    if step.rounding is Rounding.OPTIMISTIC or not JUMP_TAIL_MASSES:
        return plain, None

    def with_far_tails(input_tail: InputTail | None = input_tail):
        """The passes, and ``input_tail`` (default: this call's) charged per threshold."""
        return _finish(dataclasses.replace(prep, input_tail=input_tail), JUMP_TAIL_MASSES)

    return plain, with_far_tails


@dataclasses.dataclass(frozen=True, eq=False)
class _Prepared:
    """What :func:`compose_coarsened` computes before the far-tail passes: the window, the coarse FFT sizes and
    the composed spectra (steps 4–6); ``fine``: the live band does not fit M (the fine-grid route instead)."""

    step: GridStep
    steps: int
    tau: float
    workers: int
    requested: int
    fine: bool
    f: int = 1
    m: int = 0
    n: int = 0
    i_lo: int = 0
    i_hi: int = 0
    spectra: dict | None = None
    input_tail: InputTail | None = None
    #: the step's finite atoms (mask) and their losses, and its correctly rounded totals (P, Q) (compose.step_totals)
    fin: np.ndarray | None = None
    g: np.ndarray | None = None
    totals: tuple[float, float] | None = None


def _prepare(step: GridStep, steps: int, factor: int | Callable[[int], int], tau: float, workers: int,
             input_tail: InputTail | None = None) -> _Prepared:
    """Steps 4–6 of :func:`compose_coarsened`: the window, the coarse FFT sizes, the composed spectra."""
    h = step.h
    i_lo, i_hi = chernoff_window(step, steps, tau)
    width = i_hi - i_lo + 1
    requested = max(1, int(factor(width) if callable(factor) else factor))
    f = smooth_floor(requested)
    m = sfft.next_fast_len(-(-(width + 4 * f) // f), real=True)
    n = m * f
    from .._limits import FFT_BYTES_COARSE, fft_refusal

    if (why := fft_refusal(n, FFT_BYTES_COARSE, steps=steps, h=h)) is not None:  # the 1 GiB budget, before allocating
        raise DiscretizationTooFine(why)
    if n > MAX_FFT_LEN:
        raise DiscretizationTooFine(
            f"composition needs an FFT of length {n} (≈ {n * 24 / 1e9:.3g} GB; the limit is {MAX_FFT_LEN}): use "
            "fewer steps, a larger noise, or a coarser discretization"
        )
    fin = np.isfinite(step.log_p)
    kk = np.flatnonzero(fin)
    g = step.losses[fin]
    pos = kk % n
    base = steps * step.offset
    # which passes: Q for coarse atoms with loss ≥ 0, P below (steps 4 and 7)
    l_min, l_max = base + (i_lo - 2 * f) * h, base + (i_hi + 2 * f) * h
    passes = [w for w in ("Q", "P") if not ((w == "Q" and l_max < 0) or (w == "P" and l_min >= 0))]
    lp = step.log_p[fin]
    with np.errstate(over="ignore"):
        masses = {"Q": np.exp(lp + g), "P": np.exp(lp)}
    # the step totals of the caps (_finish): the same exponentials, summed once here
    totals = step_totals(lp, g, masses["P"], masses["Q"])

    def spectrum(which: str) -> PowerSpectrum:
        w = masses[which]
        # single-step index k at position k mod n (at most n entries; rfft pads them to n)
        x = np.bincount(pos, weights=np.where(np.isfinite(w), w, 0.0))
        return power_spectrum(x, n, steps, workers)

    spectra = {w: spectrum(w) for w in passes}  # one after the other: half the peak memory of two threads
    k_max = max((int(ps.k.max()) for ps in spectra.values() if ps.k.size), default=0)
    if f > 1 and 2 * k_max >= m:
        # the live band does not fit M (few steps; or a step whose masses alternate, a Nyquist peak): the
        # composition on the fine grid, coarsened there by the requested factor (steps 4–8 as specified)
        return _Prepared(step, steps, tau, workers, requested, True, input_tail=input_tail)
    return _Prepared(step, steps, tau, workers, requested, False, f, m, n, i_lo, i_hi, spectra, input_tail,
                     fin, g, totals)


def _finish(prep: _Prepared, tail_masses: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, CompositionReport]:
    """Steps 6″–8 of :func:`compose_coarsened` from :func:`_prepare`'s window and spectra."""
    step, steps, tau, workers, input_tail = prep.step, prep.steps, prep.tau, prep.workers, prep.input_tail
    if prep.fine:
        return _on_fine_grid(step, steps, prep.requested, tau, workers, tail_masses, input_tail)
    f, m, n, i_lo, i_hi, spectra = prep.f, prep.m, prep.n, prep.i_lo, prep.i_hi, prep.spectra
    pess = step.rounding is not Rounding.OPTIMISTIC
    h = step.h
    fin, g = prep.fin, prep.g
    base = steps * step.offset
    # step 6″: far-tail passes, {pass: [(spectrum of R, range [lo, hi] of absolute composed indices where x^{*N} = R)]}
    # (coarse atom J reads fine entries I_J + d, d ∈ [−F, F) for F > 1, d = 0 for F = 1)
    jumps: dict[str, list] = {"Q": [], "P": []}
    margin = f if f > 1 else 0
    kk = np.flatnonzero(fin) if pess and tail_masses else None
    for which in spectra if pess and tail_masses else ():
        with np.errstate(over="ignore"):
            w = np.exp(step.log_p[fin] + g) if which == "Q" else np.exp(step.log_p[fin])
        x = np.bincount(kk, weights=np.where(np.isfinite(w), w, 0.0))  # position j = single-step index k_lo + j
        total = float(np.sum(x))
        if which == "Q":  # upper tail: the smallest cut with Σ_{j ≥ cut} x ≤ m_b·Σx
            tail_m = np.cumsum(x[::-1])[::-1]
            cuts = {int(np.searchsorted(-tail_m, -mb * total, side="left")) for mb in tail_masses}
        else:  # lower tail: the largest cut with Σ_{j < cut} x ≤ m_b·Σx
            cuts = {int(np.searchsorted(np.cumsum(x), mb * total, side="right")) for mb in tail_masses}
        for cut in sorted(cuts):
            if not 0 < cut < x.size:
                continue
            ps_r, _ = jump_spectrum(x, cut, n, steps, workers, lower=which == "P")
            if f > 1 and ps_r.k.size and 2 * int(ps_r.k.max()) >= m:
                continue  # its band does not fit the coarse transform
            if which == "Q":  # all read entries above N(k_lo + cut − 1)
                rng = (steps * (step.k_lo + cut - 1) + 1 + margin, math.inf)
                bulk = chernoff_log_mgf(x[:cut], step.offset + (step.k_lo + np.arange(cut)) * h, steps, upper=True)
            else:  # all read entries below N(k_lo + cut)
                rng = (-math.inf, steps * (step.k_lo + cut) - 1 - margin)
                bulk = chernoff_log_mgf(x[cut:], step.offset + (step.k_lo + np.arange(cut, x.size)) * h, steps, upper=False)
            jumps[which].append((ps_r, rng, bulk))
    # coarse point J sits at fine position J·F + s, i.e. absolute composed index ≡ 0 (mod F)
    s = (-steps * step.k_lo) % f
    lo_abs = i_lo - 2 * f  # unwrap window: absolute index in [lo_abs, lo_abs + n)
    rel = (np.arange(m) * f + s - (lo_abs - steps * step.k_lo)) % n
    idx_abs = lo_abs + rel
    order = np.argsort(idx_abs, kind="stable")
    idx_abs = idx_abs[order]
    if pess:
        sel = (idx_abs > i_lo - f) & (idx_abs <= i_hi + f)
    else:
        sel = (idx_abs > i_lo - f) & (idx_abs <= i_hi)
    idx_abs = idx_abs[sel]
    gl = base + idx_abs * h  # coarse grid losses G_J
    out_loss = gl.copy()
    out_logp = np.full(gl.size, -np.inf)
    atom_err = np.zeros(gl.size)  # step 7′: each position's own bound (Q-units at G ≥ 0, P-units below)
    fft_err_total = 0.0
    slack = math.exp(min(f * h, 700.0))
    if pess:
        d, kp, kq = _split_kernels(f, h)
    else:
        d = np.arange(f)
        o = d * h
    for which, ps in spectra.items():
        use = gl >= 0 if which == "Q" else gl < 0
        if not np.any(use):
            continue
        if pess:
            z, e = _coarse_values(ps, kq if which == "Q" else kp, d, s, f, m)
            z = z[order][sel][use]
            fft_err_total += 2.0 * e * int(np.count_nonzero(use))
            b = np.full(z.shape, e)
            for ps_r, (lo, hi), bulk in jumps[which]:  # step 6″: the far-tail passes
                kern = kq if which == "Q" else kp
                zr, er = _coarse_values(ps_r, kern, d, s, f, m)
                zr = zr[order][sel][use]
                iu, gu = idx_abs[use], gl[use]
                # x^{*N} = R + a^{*N}: a^{*N} is 0 inside [lo, hi], Chernoff-bounded outside (jump_bulk_bound)
                exact = (iu >= lo) & (iu <= hi)
                need = ~exact & (er < b)  # the Chernoff term only where this pass could still win
                er_j = np.where(exact, er, np.inf)
                er_j[need] = er + jump_bulk_bound(bulk, gu[need], margin * h, float(np.sum(np.abs(kern))), upper=which == "Q")
                better = er_j < b
                z, b = np.where(better, zr, z), np.where(better, er_j, b)
            kept = z > b
            # kept: |ẑ − z| ≤ b; zeroed: the truth is ≤ ẑ₊ + b (≤ 2b ≤ 2e, so the scalar above still holds)
            atom_err[use] = np.where(kept, b, b + np.maximum(z, 0.0))
            with np.errstate(divide="ignore"):
                lz = np.log(np.where(kept, z, 0.0))
            out_logp[use] = lz - gl[use] if which == "Q" else lz
            continue
        z, e_d = _coarse_values(ps, np.ones(f), d, s, f, m)
        cross = np.exp(-o) if which == "Q" else np.exp(o)
        zc, e_c = _coarse_values(ps, cross, d, s, f, m)
        z, zc = z[order][sel][use], zc[order][sel][use]
        fft_err_total += 2.0 * slack * max(e_d, e_c) * int(np.count_nonzero(use))
        ok = z > e_d
        lo_r, hi_r = (math.exp(-(f - 1) * h), 1.0) if which == "Q" else (1.0, math.exp((f - 1) * h))
        zc = np.clip(zc, lo_r * z, hi_r * z)  # the truth of the cross sum lies in this interval
        with np.errstate(divide="ignore"):
            lzc = np.log(np.where(ok, zc, 0.0))
            lz = np.log(np.where(ok, z, 0.0))
        gu = gl[use]
        shift = np.zeros(gu.size)
        if which == "Q":  # q = Σq, p = e^{−G}·Σ q e^{−o·h}
            out_logp[use] = lzc - gu
            shift[ok] = lz[ok] - lzc[ok]
        else:  # p = Σp, q = e^{G}·Σ p e^{o·h}
            out_logp[use] = lz
            shift[ok] = lzc[ok] - lz[ok]
        out_loss[use] = gu + shift
    # masses of the exact composition of the grid step (finite part): the totals of step 6
    p_max, q_max, cap_err = composed_mass_caps(step.log_p[fin], g, steps, gl.size, prep.totals)
    before = out_logp.copy()
    removed = _remove_excess(out_logp, out_loss, p_max, q_max)
    if removed > 0.0:  # the mass taken from each atom, in its unit (Q at G ≥ 0, P below): step 7′
        ch = np.flatnonzero(before != out_logp)
        unit = np.where(gl[ch] >= 0.0, out_loss[ch], 0.0)  # log of the Q/P ratio where the unit is Q (≤ 1 masses)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            taken = np.exp(before[ch] + unit) - np.exp(out_logp[ch] + unit)
        atom_err[ch] += np.where(np.isfinite(taken), np.maximum(taken, 0.0), math.inf)
    # the losses N·offset + I·h carry a rounding error ≤ 4u·max|L| (a relative Q-error); a merged loss
    # log(Σq/Σp) adds ≤ 8u·(1 + |log mass|) relative, and Σ mass·|log mass| ≤ 1/e per atom
    # the ±∞ atoms of the filled pair fall short of the exact ones by at most the caps' rounding (composed_mass_caps)
    use_tail = pess and input_tail is not None
    if use_tail:
        # tradeoff/input_error.py: the exact step is a probability pair, so the composition's ±∞ atoms are
        # ≤ N·(q₊∞ + p₋∞) (×2 for the tails' closed-form error) and the filled pair's are ≥ 0; the part of
        # ‖Δx‖₁ it takes over is replaced by the lemma's term (its uniform part here, its per-ε form in error_at)
        # the filled ±∞ atoms are 1 − Σ(finite composed masses): the cells' input error moves that sum by at most
        # the lemma's uniform (total) term, which the caps' rounding does not include
        cap_err = min(cap_err + input_tail.uniform, 2.0 * steps * (step.q_pos_inf + step.p_neg_inf))
        cells = input_tail.uniform + steps * max(step.err - input_tail.replaced, 0.0) * (1.0 + 4 * U)
    else:
        cells = steps * step.err
    input_err = cells + 4 * U * float(np.max(np.abs(gl), initial=0.0)) + cap_err + gl.size * U * removed
    if not pess:
        input_err += 8 * U * gl.size
    itemised = fft_err_total + removed
    extra = {}
    if pess:
        # Σ of the per-atom bounds, rounded up (a floating-point sum is within n·u of the exact one)
        atom_sum = float(np.sum(atom_err)) * (1.0 + 2.0 * U * (atom_err.size + 2))
        itemised = max(itemised, atom_sum)
        extra = dict(atom_loss=gl, atom_error=atom_err, atom_error_total=itemised)
        if use_tail:  # the coarse read-out reaches fine atoms within F·h (input_error.py, part 3)
            extra["input_tail"] = input_tail.shifted(margin * h)
    eta = itemised + 4.0 * tau + input_err
    window = (float(base + i_lo * h), float(base + i_hi * h))
    report = CompositionReport(steps, h, n, window, 4.0 * tau, fft_err_total, removed, input_err, eta, f, **extra)
    keep = np.isfinite(out_logp)
    return out_loss[keep], out_logp[keep], report


def _on_fine_grid(
    step: GridStep, steps: int, factor: int, tau: float, workers: int, tail_masses: tuple[float, ...] = JUMP_TAIL_MASSES,
    input_tail: InputTail | None = None,
) -> tuple[np.ndarray, np.ndarray, CompositionReport]:
    """Steps 4–7 on the fine grid (:func:`~dpcompare.tradeoff.compose.compose`), then step 8 there.

    A pessimistic step is composed by :func:`compose_coarsened` at F = 1 instead (the same steps 4–7, with the
    per-atom bounds and far-tail passes of steps 6″–7′) and split onto the coarse grid (step 2 again). The split
    moves each fine atom at L onto coarse atoms in (L − H, L + H) (H = F·h), linearly and preserving both masses,
    so the coarse δ(ε) reads only fine atoms above ε − H, and the swap's only those below −ε + H: the fine
    bounds are carried over with their losses shifted by +H (Q side, fine atoms above −H: a P-unit bound
    there also bounds the Q-error, e^{L} ≤ 1) and by −H (P side, fine atoms below H, likewise)."""
    if step.rounding is not Rounding.OPTIMISTIC:
        loss_f, clp_f, rep = compose_coarsened(step, steps, 1, tau=tau, workers=workers, tail_masses=tail_masses,
                                               input_tail=input_tail)
        base = steps * step.offset
        idx = np.rint((loss_f - base) / step.h).astype(np.int64)
        i_lo = int(idx.min()) if idx.size else 0
        log_p = np.full(int(idx.max()) - i_lo + 1 if idx.size else 1, -np.inf)
        log_p[idx - i_lo] = clp_f
        loss, clp = coarsen_pessimistic(log_p, i_lo, step.h, factor, base)
        if rep.atom_loss is not None and rep.atom_error is not None:
            big_h = factor * step.h
            al, ae = rep.atom_loss, rep.atom_error
            up, down = al > -big_h, al < big_h
            loss_map = np.concatenate([al[up] + big_h, al[down] - big_h])
            err_map = np.concatenate([ae[up], ae[down]])
            o = np.argsort(loss_map, kind="stable")
            rep = dataclasses.replace(rep, atom_loss=loss_map[o], atom_error=err_map[o])
        if rep.input_tail is not None:  # the split onto the coarse grid reads fine atoms within H
            rep = dataclasses.replace(rep, input_tail=rep.input_tail.shifted(factor * step.h))
        return loss, clp, dataclasses.replace(rep, coarsening=factor)
    log_p, i_lo, rep = compose(step, steps, tau=tau, workers=workers)
    coarsen = coarsen_optimistic if step.rounding is Rounding.OPTIMISTIC else coarsen_pessimistic
    loss, clp = coarsen(log_p, i_lo, step.h, factor, steps * step.offset)
    return loss, clp, dataclasses.replace(rep, coarsening=factor)
