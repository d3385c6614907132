"""The half spectrum of a short input on a long cyclic grid, pruned: the low entries computed, the rest certified small.

A composition of N steps (tradeoff/compose.py step 4) takes the length-n DFT of a single step x that occupies L ≪ n
grid points (the subsampled Gaussian at N ≈ 10⁶: L ≈ 3·10⁴, n ≈ 2·10⁶), and then only the entries whose N-th power
is alive, |c_k| ≥ e^{−700/N}, matter (a few hundred lowest frequencies: step 6's ``power_spectrum``). A full FFT
spends n·log n on entries that are then discarded. This module returns the same information for a fraction of it:

1. **Samples.** For a divisor s of n with n' = n/s ≥ L, the length-n' real FFT of x (zero-padded, no folding:
   every index j < L < n') is exactly the length-n DFT at every s-th index, X(s·r) = Σⱼ xⱼ e^{−2πi·j·s·r/n}, with
   the a-priori error e_s = κ·(log₂n' + 1)·u·‖x‖₁ of step 6 (same κ, a shorter transform).
2. **Between samples.** Y(t) = Σⱼ xⱼ e^{−2πi(j−j₀)t/n} (real t; |Y(k)| = |X(k)| at integer k, any integer j₀)
   is smooth with |Y''| ≤ (2π/n)²·M₂, M₂ = Σⱼ xⱼ(j − j₀)². Linear interpolation between t₀ and t₀ + s errs by at
   most (t − t₀)(t₀ + s − t)/2·max|Y''| ≤ s²/8·(2π/n)²·M₂ (the Peano-kernel form of the interpolation remainder,
   whose kernel is ≥ 0, so it holds for a complex-valued Y as for a real one: Atkinson, *An Introduction to
   Numerical Analysis*, 2nd ed., §3.1–3.2), and the interpolant's modulus is ≤ the larger endpoint modulus. So on
   [s·r, s·(r + 1)] every |X(k)| ≤ max(|X̂(s·r)|, |X̂(s·(r+1))|) + e_s + s²/8·(2π/n)²·M₂. (|X(n − k)| = |X(k)|
   for real x closes the last interval when n' is odd.) Where this is below the caller's ``level``, every entry
   of the interval is certified below it. s is chosen with s²/8·(2π/n)²·M₂ ≤ ¼·(1 − level), so that the intervals
   just beyond the live band are certified.
3. **The band.** The entries below the last uncertified interval, k ∈ [0, K), are computed directly: with
   j = J·j₁ + j₂ (J = ``BLOCK``), X(k) = Σ_{j₁} ω^{J·j₁·k}·C(k, j₁), C(k, j₁) = Σ_{j₂<J} ω^{j₂·k}·x_{J·j₁+j₂}
   (ω = e^{−2πi/n}, phases reduced exactly in integers), C by two real matrix products (K × J)·(J × L/J) (einsum), the sum
   over j₁ by a pairwise tree. Error (relative to ‖x‖₁): twiddles ω^r = T_hi[r div b]·T_lo[r mod b] from tables
   rounded from extended precision, e_w ≤ 2e_T + √5·u (Brent, Percival & Zimmermann, "Error bounds on complex
   floating-point multiplication", Math. Comp. 2007); each real inner product of J terms in any order (BLAS)
   errs by ≤ γ_J·Σ|terms| (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1, eq. 3.5),
   so |Ĉ − C| ≤ √2·(γ_J·(1 + e_w) + e_w)·Σ_block x =: e_C·Σ_block x; the product with ω^{J·j₁·k} adds
   e_w + √5·u (to first order, all second-order terms kept below); the tree of ⌈log₂(L/J)⌉ levels adds γ_ℓ.
   In all ≈ 70u·‖x‖₁ at J = 32, below the full FFT's κ·(log₂n + 1)·u·‖x‖₁ ≈ 110u at n = 2·10⁶.

If the uncertified intervals reach far (a step whose masses alternate: a Nyquist peak), or the band would cost
more than the full transform, or no divisor s > 1 fits, :func:`low_band` returns None and the caller takes the
full FFT. Nothing is approximated: every returned value carries an a-priori bound, every other entry is certified
below ``level``.

>>> x = np.exp(-0.5 * ((np.arange(400) - 200.0) / 30.0) ** 2)
>>> band = low_band(x, 1 << 16, 0.999 * x.sum())
>>> band.values.size, band.step
(24, 8)
>>> from scipy import fft as sfft
>>> full = sfft.rfft(x, 1 << 16)
>>> bool(np.max(np.abs(band.values - full[:24])) <= band.error + 1e-13 * x.sum())
True
>>> bool(np.all(np.abs(full[24:]) < 0.999 * x.sum()))
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .grid import U

__all__ = ["LowBand", "band_dft", "low_band"]

#: safety constant of the a-priori FFT error bound (tradeoff/compose.py step 6; repeated here to avoid the import cycle)
KAPPA = 5.0
#: inner block J of :func:`band_dft` (inner products of J terms: γ_J of the bound)
BLOCK = 32
#: the interpolation remainder of step 2 is kept below this fraction of the gap 1 − level/‖x‖₁
GAP_SHARE = 0.25
#: the band is computed directly only while K·(L + ROW_OVERHEAD) ≤ COST_RATIO·n·log₂n (measured: ≈ 2.4 ns per K·L term against
#: ≈ 2.1 ns per n·log₂n of scipy's real FFT on one core); otherwise the full FFT is cheaper
COST_RATIO = 0.5
#: the fixed cost of one band entry, in K·L terms: its J + L/J twiddles (two table gathers and a complex product
#: each), the tree and the chunking — measured ≈ 1.3 µs per entry for an input of 26 points (an N = 10⁶ step with
#: μ = 33 per step: a band of 6.75·10⁶ entries took 8 s against 0.9 s for the full FFT when only K·L was counted)
ROW_OVERHEAD = 16 * BLOCK
#: rows of the band computed per chunk of :func:`band_dft` (bounds its temporaries to ≈ 16 MB)
CHUNK_ENTRIES = 1 << 20


@dataclass(frozen=True, eq=False)
class LowBand:
    """The entries k ∈ [0, K) of the length-n DFT of x (``values``, each within ``error`` of the truth) and the
    certificate that every other half-spectrum entry k ∈ [K, n/2] has |X(k)| < ``level``; ``step``: the sample
    spacing s of the certificate."""

    values: np.ndarray
    error: float
    level: float
    step: int


def _gamma(k: int) -> float:
    """γ_k = k·u/(1 − k·u) (Higham §3.1)."""
    return k * U / (1.0 - k * U)


#: whether long double is wider than double here (the twiddle tables are then rounded from it)
_EXTENDED = float(np.finfo(np.longdouble).eps) <= 1e-18


@functools.lru_cache(maxsize=4)
def _tables(n: int) -> tuple[int, np.ndarray, np.ndarray, float]:
    """(b, T_lo, T_hi, e_T): ω^r = T_hi[r div b]·T_lo[r mod b] up to the product's rounding, each table entry within
    e_T (relative) of the truth: computed in extended precision (≲ 50·ε_ext) and rounded to double (u), or, where
    long double is not wider than double, from a double angle 2π·(a/n) ≤ 2π (three roundings: argument error ≤ 6πu;
    cos/sin ≤ 2 ulp)."""
    b = max(1, math.isqrt(n))
    ld = np.longdouble
    a_lo = np.arange(b, dtype=np.int64)
    a_hi = b * np.arange(n // b + 1, dtype=np.int64)
    if _EXTENDED:
        two_pi_n = 2 * np.arccos(ld(-1)) / ld(n)
        t_lo = np.exp(-1j * (two_pi_n * a_lo.astype(ld)).astype(np.clongdouble)).astype(complex)
        t_hi = np.exp(-1j * (two_pi_n * a_hi.astype(ld)).astype(np.clongdouble)).astype(complex)
        e_t = U + 50.0 * float(np.finfo(ld).eps)
    else:  # platforms without an extended long double
        t_lo = np.exp(-2j * math.pi * (a_lo / n))
        t_hi = np.exp(-2j * math.pi * (a_hi / n))
        e_t = (6.0 * math.pi + 4.0) * U
    return b, t_lo, t_hi, e_t


def band_dft(x: np.ndarray, n: int, count: int) -> tuple[np.ndarray, float]:
    """X(k) = Σⱼ xⱼ·e^{−2πi·jk/n} for k = 0 … count − 1 (real x, len(x) ≤ n) and the bound on every entry's error
    (module docstring, step 3, with ‖x‖₁ = Σ|xⱼ|).

    >>> x = np.array([0.25, 0.5, 0.25])
    >>> v, e = band_dft(x, 8, 3)
    >>> bool(np.max(np.abs(v - np.fft.rfft(x, 8)[:3])) <= e + 4e-16), e < 1e-13
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    size = x.size
    if size > n:
        raise ValueError(f"x must have at most n = {n} entries, got {size}")
    b, t_lo, t_hi, e_t = _tables(n)
    width = BLOCK
    l1 = max(1, -(-size // width))
    xm = np.zeros(l1 * width)
    xm[:size] = x
    xm = np.ascontiguousarray(xm.reshape(l1, width).T)  # (J, L/J): xm[j2, j1] = x[J·j1 + j2]
    levels = max(0, (l1 - 1).bit_length())
    span = 1 << levels
    j2 = np.arange(width, dtype=np.int64)
    j1 = width * np.arange(l1, dtype=np.int64)
    out = np.empty(count, dtype=complex)
    rows = max(1, CHUNK_ENTRIES // span)

    def twiddle(r: np.ndarray) -> np.ndarray:
        hi, lo = np.divmod(r, b)
        return t_hi[hi] * t_lo[lo]

    for start in range(0, count, rows):
        k = np.arange(start, min(count, start + rows), dtype=np.int64)[:, None]
        inner = twiddle((k * j2[None, :]) % n)  # ω^{j2·k}
        # einsum, not matmul: a threaded BLAS spins its threads on these small products (16 ms of CPU for 0.3 ms of
        # work on two loaded cores); γ_J holds for any summation order
        c = np.einsum("kj,jl->kl", inner.real, xm) + 1j * np.einsum("kj,jl->kl", inner.imag, xm)
        del inner
        acc = np.zeros((k.shape[0], span), dtype=complex)
        np.multiply(twiddle((k * j1[None, :]) % n), c, out=acc[:, :l1])  # ω^{J·j1·k}·C(k, j1)
        del c
        while acc.shape[1] > 1:  # pairwise tree: ⌈log₂(L/J)⌉ levels
            acc = acc[:, 0::2] + acc[:, 1::2]
        out[k[:, 0]] = acc[:, 0]
    # the bound, relative to ‖x‖₁ (module docstring, step 3), with every second-order term kept
    s5 = math.sqrt(5.0) * U
    e_w = 2.0 * e_t + e_t * e_t + s5 * (1.0 + e_t) ** 2
    e_c = math.sqrt(2.0) * (_gamma(width) * (1.0 + e_w) + e_w)
    e_p = (1.0 + e_w) * e_c + e_w + s5 * (1.0 + e_w) * (1.0 + e_c)
    rel = e_p + _gamma(levels) * (1.0 + e_p)
    mass = float(np.sum(np.abs(x))) * (1.0 + 2.0 * _gamma(size))  # ≥ ‖x‖₁ (a sum of non-negative terms)
    return out, rel * mass * (1.0 + 1e-9)


def _sample_step(n: int, size: int, s_max: float) -> int:
    """The largest divisor s ≤ s_max of n with n/s ≥ size (1 if none)."""
    s = int(min(s_max, n // max(size, 1)))
    while s > 1 and n % s:
        s -= 1
    return max(s, 1)


def low_band(x: np.ndarray, n: int, level: float, workers: int = 1) -> LowBand | None:
    """The low entries of the length-n real DFT of x ≥ 0 (zero-padded) and the certificate that all others have
    modulus < ``level`` (module docstring), or None where the full transform should be taken instead.

    ``level``: a threshold on the *true* modulus |X(k)| (step 6: the dead level); the certificate includes the
    samples' own FFT error, so an entry outside the band is below ``level`` whatever the rounding."""
    x = np.asarray(x, dtype=float)
    size = x.size
    if size == 0 or n < 4 or size > n // 2 or not float(np.min(x)) >= 0.0:  # (a NaN fails the last test too)
        return None
    m = float(np.sum(x)) * (1.0 + 2.0 * _gamma(size))  # ≥ ‖x‖₁ (a sum of non-negative terms)
    if not (m > 0.0) or not math.isfinite(m) or not (0.0 < level < m):
        return None
    gap = 1.0 - level / m
    j = np.arange(size, dtype=float)
    j0 = float(round(float(np.sum(j * x)) / m))
    m2 = float(np.sum((j - j0) ** 2 * x)) * (1.0 + 2.0 * _gamma(size + 4))  # ≥ Σ xⱼ(j − j₀)² (squares exact)
    curv = (2.0 * math.pi / n) ** 2 * m2 * (1.0 + 8 * U)  # ≥ max|Y''|
    budget = COST_RATIO * n * math.log2(n)
    # the band edge a Gaussian of this variance would have, |X(k)| ≈ ‖x‖₁·e^{−(2πk/n)²·var/2} = level: only a
    # predictor (the certificate below decides), to skip the samples where the band could not pay for itself
    if m2 > 0.0 and n / (2.0 * math.pi) * math.sqrt(2.0 * gap * m / m2) * (size + ROW_OVERHEAD) > budget:
        return None
    s_max = math.sqrt(8.0 * GAP_SHARE * gap * m / curv) if curv > 0.0 else float(n)
    s = _sample_step(n, size, s_max)
    if s <= 1:
        return None
    n_s = n // s
    from scipy import fft as sfft

    samples = np.abs(sfft.rfft(x, n_s, workers=workers)) * (1.0 + 2 * U)  # |X̂(s·r)|, r = 0 … n_s//2 (hypot: ≤ u)
    if n_s % 2:  # |X(n − k)| = |X(k)|: the interval past the last sample ends at the mirror of it
        samples = np.append(samples, samples[-1])
    e_s = KAPPA * (math.log2(n_s) + 1.0) * U * m
    rem = s * s / 8.0 * curv
    bound = (np.maximum(samples[:-1], samples[1:]) + (e_s + rem)) * (1.0 + 4 * U)  # on [s·r, s·(r + 1)]
    bad = np.flatnonzero(~(bound < level))
    # the entries below the end of the last uncertified interval are computed; its end is covered by the next
    # interval, or, where it is the last one, is the Nyquist end itself (then the band runs to n/2 inclusive)
    count = 1 if not bad.size else (n // 2 + 1 if int(bad[-1]) == bound.size - 1 else s * (int(bad[-1]) + 1))
    if count > n // 2 + 1 or count * (size + ROW_OVERHEAD) > budget:
        return None
    values, err = band_dft(x, n, count)
    return LowBand(values, err, level, s)
