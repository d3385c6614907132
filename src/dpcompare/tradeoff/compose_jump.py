"""Far-tail passes of the certified composition: the part of the N-fold law with at least one large step
(step 6″ of :mod:`dpcompare.tradeoff.compose`).

Why: the FFT of step 6 errs by about the same absolute amount E ≈ κ·log₂n·u·‖x‖₁ at *every* composed atom
(every output mixes all inputs), so the per-threshold bound Σ_{ℓᵢ>ε} eᵢ of step 7′ stays ≈ (#atoms above
ε)·E ≈ 1e-11 for 10⁵ atoms — above δ = 1e-12. Relative accuracy in the tail needs the tail computed from
small inputs.

Split one step's (Q-)masses at a single-step index c into a bulk a = x·[j < c] and a tail b = x·[j ≥ c] of
small mass m_b = Σb. Then x^{*N} = a^{*N} + R with

    R = x^{*N} − a^{*N} = b * S,   S = Σ_{j=0}^{N−1} x^{*j} * a^{*(N−1−j)},

and a^{*N} vanishes above composed index N·(c − 1) (relative to N·k_lo): there x^{*N} = R exactly. The
lower tail (for the P-pass, losses below 0) is the mirror image: b = x·[j < c], R = x^{*N} below N·c. In
Fourier terms R̂ = B·S(X, A), S(X, A) = Σⱼ Xʲ A^{N−1−j} (X, A, B the DFTs of x, a, b; X = A + B), so every
error of R̂ is proportional to the small B (|B| ≤ m_b): the far-tail atoms come out with an absolute error
≈ N·m_b·E instead of E.

Error bounds (per spectral index k; e_X, e_B the forward-transform bounds κ(log₂n + 1)·u·‖·‖₁ of step 6,
Â = X̂ − B̂ with e_A = e_X + e_B + 2u(|X̂| + |B̂|), M = max(|X̂| + e_X, |Â| + e_A) ≥ every modulus involved):

* perturbation: every monomial of S is a product of N − 1 factors of moduli ≤ M, each off by ≤ e_X or
  e_A, so |S(X̂, Â) − S(X, A)| ≤ N(N − 1)/2·(e_X + e_A)·M^{N−2}, and |S| ≤ N·M^{N−1};
* evaluation: S is evaluated by binary powering with S_{2n} = S_n·(Xⁿ + Aⁿ), S_{n+1} = X·S_n + Aⁿ.
  The same recurrences hold for T_n = Σⱼ |X|ʲ|A|^{n−1−j} (with moduli), and each complex product or
  sum errs by ≤ √5·u of the product of the moduli (Brent, Percival & Zimmermann, "Error bounds on complex
  floating-point multiplication", Math. Comp. 2007), so by induction |fl(S) − S(X̂, Â)| ≤ γ·T_N ≤
  γ·N·M^{N−1} with γ = :func:`s_rounding` (N). The relative error of a power grows *linearly* in its
  exponent (fl(Xⁿ)² has twice the relative error of fl(Xⁿ), plus √5·u), so fl(Xⁿ) errs by ≤ ρₙ = (n − 1)·√5·u
  relatively (to first order). Relative to T, S_{2n} = S_n·(Xⁿ + Aⁿ) adds ≤ ρₙ + (1 + √5)·u to the error of
  S_n, and S_{2n+1} = X·S_{2n} + A^{2n} (a weighted mean of the two terms' relative errors, bounded by their
  sum) ≤ ρ_{2n} + (1 + √5)·u; the n of the doubling levels add up to ≤ N, those of the odd levels to ≤ 2N,
  so γ = (3√5·N + 8(log₂N + 2)²)·u·(1 + 2N·u) (the last factor covers the second-order terms). [A bound 8u·(log₂N + 2)² without the linear term fails from
  N ≈ 2000 on: 2040u > 1568u at N = 4096, tests/tradeoff/test_far_tail_audit.py.]
* product: R̂ = fl(B̂·fl(S)) errs by ≤ e_B·|fl S| + (|B̂| + e_B)·|fl S − S| + √5·u·|B̂|·|fl S|;
* the inverse transform's own rounding, κ·log₂n·u·|R̂| per entry (step 6).

Outside the region where a^{*N} vanishes, x^{*N} = R + a^{*N} with 0 ≤ a^{*N}, and a composed entry of the
bulk at loss L is bounded by Chernoff: (a^{*N})_L ≤ e^{−sL}·(Σⱼ aⱼ e^{s·gⱼ})ᴺ for every s > 0 (upper tail;
the mirror image e^{sL}·(Σⱼ aⱼ e^{−s·gⱼ})ᴺ for the lower one), minimised over a grid of s, with the
bulk's atoms moved in blocks of 32 to the block's worst end (only raises the sum: still a bound), and
the rounding of the log-space evaluation added (absolute in log space, so ∝ |s·g| and |s·L|, up to ~2e6·u). A coarse
atom reads fine entries within F·h of its loss with kernel weights summing to Σ|κ|, so it adds
Σ|κ|·(that bound at the nearest fine loss it reads). Where the bulk cannot reach (the sum of N bulk
steps very unlikely to get there) this is astronomically small, so the pass serves every atom whose
tail is reached through a few large steps.

An index is *dead* when |B̂| + e_B times N·M^{N−1} is ≤ e^{−700}: then |R_k| ≤ e^{−700} (|R| = |B|·|S|).
The result is a :class:`~dpcompare.tradeoff.compose.PowerSpectrum` of R, so the coarse read-out of
:mod:`dpcompare.tradeoff.compose_coarse` (and its error bound) applies unchanged. Cyclic folding: the
exact cyclic R differs from R by mass outside the FFT cycle, which is ≤ that of x^{*N} (0 ≤ R ≤ x^{*N}),
already in the uniform 4τ of step 5.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import fft as sfft

from .compose import DEAD_LOG, KAPPA, PowerSpectrum
from .grid import U

#: single-step tail masses m_b (fractions of the pass's total) at which the far-tail passes cut
JUMP_TAIL_MASSES = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9)
#: exponents s of the Chernoff bound of the bulk's composition (any s > 0 is valid; the grid sets how close to best)
_S_GRID = np.geomspace(1e-2, 1e5, 36)
#: atoms per block in the bulk's moment generating function (each block moved to its worst end: an upper bound)
_BLOCK = 32
_SQRT5 = math.sqrt(5.0)


def _binary_s(x: np.ndarray, a: np.ndarray, steps: int) -> np.ndarray:
    """S(X, A) = Σ_{j=0}^{N−1} Xʲ A^{N−1−j} by binary powering (S_{2n} = S_n(Xⁿ + Aⁿ), S_{n+1} = X·S_n + Aⁿ)."""
    s = np.ones_like(x)  # S_1 = 1
    xp, ap = x.copy(), a.copy()  # X^1, A^1
    for bit in bin(steps)[3:]:
        s = s * (xp + ap)  # S_{2n}
        xp, ap = xp * xp, ap * ap
        if bit == "1":
            s = x * s + ap  # S_{2n+1} = X·S_{2n} + A^{2n}
            xp, ap = xp * x, ap * a
    return s


def s_rounding(steps: int) -> float:
    """γ with |fl(S) − S(X̂, Â)| ≤ γ·Σⱼ|X̂|ʲ|Â|^{N−1−j} for :func:`_binary_s` (module docstring):
    (3√5·N + 8(log₂N + 2)²)·u·(1 + 2N·u), the linear term from the powers' relative errors.

    >>> round(s_rounding(4096) / 2.0**-53)
    29045
    """
    n = max(1, int(steps))
    return (3.0 * _SQRT5 * n + 8.0 * (math.log2(n) + 2.0) ** 2) * U * (1.0 + 2.0 * n * U)


def jump_spectrum(x: np.ndarray, cut: int, n: int, steps: int, workers: int, lower: bool = False) -> tuple[PowerSpectrum, float]:
    """Spectrum of R = x^{*N} − a^{*N} (length-n cyclic) with its error bounds, and the tail mass m_b = Σb.

    ``x`` holds the single-step masses at relative indices j = 0, 1, … (single-step index k_lo + j); entries
    beyond n are folded modulo n (exact for a cyclic convolution). Upper tail (default): b = x·[j ≥ cut],
    a = x·[j < cut], and R equals x^{*N} at composed relative indices above N·(cut − 1). ``lower``: the
    mirror image, b = x·[j < cut], a = x·[j ≥ cut], and R equals x^{*N} below N·cut (module docstring).

    >>> x = np.array([0.5, 0.3, 0.15, 0.05])
    >>> ps, m_b = jump_spectrum(x, 3, 16, 2, 1)
    >>> round(m_b, 12)
    0.05
    >>> r = sfft.irfft(ps.dense(), 16)[:7]
    >>> exact = np.convolve(x, x) - np.pad(np.convolve(x[:3], x[:3]), (0, 2))  # x*x − a*a
    >>> bool(np.max(np.abs(r - exact)) <= 2 * ps.err_sum / 16)
    True
    """
    j = np.arange(x.size)
    tail = slice(0, cut) if lower else slice(cut, None)
    b = np.bincount(j[tail] % n, weights=x[tail], minlength=min(n, x.size))
    x = np.bincount(j % n, weights=x, minlength=min(n, x.size))
    m_x, m_b = float(np.sum(x)), float(np.sum(b))
    log2n = max(1.0, math.log2(n))
    e_x = KAPPA * log2n * U * m_x + KAPPA * U * m_x
    e_b = KAPPA * log2n * U * m_b + KAPPA * U * m_b
    cx = sfft.rfft(x, n, workers=workers)
    cb = sfft.rfft(b, n, workers=workers)
    abx, abb = np.abs(cx), np.abs(cb)
    ca = cx - cb
    e_a = e_x + e_b + 2.0 * U * (abx + abb)
    # M bounds the moduli of the exact and the computed X, A (|X| ≤ Σx, |X̂| ≤ |X| + e_X)
    big_m = np.minimum(np.maximum(abx + e_x, np.abs(ca) + e_a), m_x * (1.0 + 4.0 * U) + e_x + e_a)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        log_m = np.log(big_m)
        log_bound = np.log(abb + e_b) + math.log(steps) + (steps - 1) * log_m
    live = np.flatnonzero(log_bound >= -DEAD_LOG)
    dead = int(cx.size - live.size)
    xl, al, bl = cx[live], ca[live], cb[live]
    ml, eal = big_m[live], e_a[live]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        s = _binary_s(xl, al, steps)
        pw1 = np.exp((steps - 1) * np.log(ml))  # M^{N−1}
        pw2 = np.exp((steps - 2) * np.log(ml)) if steps >= 2 else np.zeros_like(ml)  # M^{N−2}
        gamma = s_rounding(steps)
        s_bound = steps * pw1 * (1.0 + gamma)  # ≥ |fl S|
        ds = gamma * steps * pw1 + 0.5 * steps * (steps - 1) * (e_x + eal) * pw2  # |fl S − S(X, A)|
        r = bl * s
        abs_b = np.abs(bl)
        err = e_b * s_bound + (abs_b + e_b) * ds + _SQRT5 * U * abs_b * s_bound
        err += KAPPA * log2n * U * np.abs(r)  # the inverse transform's own rounding (step 6)
    if not (np.all(np.isfinite(err)) and np.all(np.isfinite(r))):
        raise FloatingPointError("far-tail pass: non-finite spectrum")
    return PowerSpectrum(n, live, r, float(np.sum(err)) * (1.0 + 1e-12), dead), m_b


def chernoff_log_mgf(a: np.ndarray, g: np.ndarray, steps: int, *, upper: bool) -> np.ndarray:
    """N·log Σⱼ aⱼ e^{±s·gⱼ} at every s of the grid (+ for the upper tail, − for the lower), bounded above by moving
    blocks of atoms to their worst end (largest loss for +, smallest for −); −inf for an empty bulk."""
    fin = a > 0
    a, g = a[fin], g[fin]
    if a.size == 0:
        return np.full(_S_GRID.size, -np.inf)
    nb = -(-a.size // _BLOCK)
    starts = np.arange(nb) * _BLOCK
    mass = np.add.reduceat(a, starts)
    gb = np.maximum.reduceat(g, starts) if upper else np.minimum.reduceat(g, starts)
    sign = 1.0 if upper else -1.0
    with np.errstate(divide="ignore", over="ignore"):
        v = np.log(mass)[None, :] + sign * _S_GRID[:, None] * gb[None, :]
        m = np.max(v, axis=1)
        lse = m + np.log(np.sum(np.exp(v - m[:, None]), axis=1))
        # rounding: the sums and logs 64u·(1 + block count) per step; the exponents v = log mass ± s·g (s up to
        # 1e5) and m err by ≤ 2u·|v| each, *absolute* in log space (3e-7 at s·g ≈ 2e6, N = 1000); then ×N
        big_v = np.max(np.abs(np.where(np.isfinite(v), v, 0.0)), axis=1)
        out = steps * (lse + 64 * U * (1.0 + nb) + 6 * U * big_v)
    return out + 2 * U * np.abs(out)


def jump_bulk_bound(log_mgf: np.ndarray, loss: np.ndarray, reach: float, weight: float, *, upper: bool) -> np.ndarray:
    """Σ|κ|·max over the fine entries a coarse atom at ``loss`` reads (within ``reach``) of the bulk's composed
    mass there: min_s e^{∓s·L}·M(±s)ᴺ at the nearest such L (module docstring)."""
    s = _S_GRID
    edge = loss - reach if upper else loss + reach
    rows = max(1, (1 << 20) // max(1, s.size))
    mag = np.where(np.isfinite(log_mgf), log_mgf, 0.0)  # an empty bulk (−inf) stays a bound of 0
    out = np.empty(edge.size)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(0, edge.size, rows):
            e = edge[i : i + rows]
            se = s[:, None] * e[None, :]
            v = log_mgf[:, None] - (se if upper else -se)
            v = v + 4 * U * (np.abs(mag)[:, None] + np.abs(se))  # rounding of s·L and of the difference
            v = np.where(np.isnan(v), np.inf, v)
            out[i : i + rows] = np.min(v, axis=0)
        res = weight * (1.0 + 1e-12) * np.exp(np.minimum(out, 700.0))
    return np.where(out > 700.0, np.inf, res)
