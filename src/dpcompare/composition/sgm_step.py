"""One step of the Poisson-subsampled Gaussian (tradeoff/compose.py step 1): the privacy-loss law and the
log masses of a grid-aligned partition. Part of :mod:`dpcompare.composition.sgm_certified`, which re-exports every name.

Dominating pair (remove adjacency; Balle et al. 2018, "Privacy amplification by subsampling";
Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic functions",
Prop. 30), in units of the noise standard deviation, with μ = 1/σ (sensitivity 1):

    P = N(0, 1)                      (the null: the example is absent)
    Q = (1 − p)·N(0, 1) + p·N(μ, 1)  (the example is present with probability p)
    ℓ(x) = log(q(x)/p(x)) = log(1 − p + p·e^{μx − μ²/2}),  increasing in x,  ℓ > log(1 − p).

The add adjacency gives the swapped pair (Q, P) (mirror x ↦ −x): dp-accounting's
``AdjacencyType.ADD`` has mu_upper = N(0, σ²), mu_lower = (1−p)N(0, σ²) + pN(1, σ²). Because
composition commutes with swapping, the N-fold add pair is the swap of the N-fold remove pair, and the
symmetrised trade-off conv(min(f, f⁻¹)) of either is the same; we therefore compose the remove pair only.

Cell masses: a loss interval (a, b] is the x-interval (x(a), x(b)] with
x(ℓ) = (log(e^ℓ − (1 − p)) − log p + μ²/2)/μ, so P(a, b] = Φ(x(b)) − Φ(x(a)) and
Q(a, b] = (1 − p)·P(a, b] + p·(Φ(x(b) − μ) − Φ(x(a) − μ)), evaluated in log space: by Gauss–Legendre
quadrature of φ on narrow cells (a proved relative error bound, no cancellation) and otherwise as
differences of log_ndtr on the tail side where the CDFs are small. The grid offset is chosen so that
the P-bulk just above ℓ_min = log(1 − p) lands exactly on a grid point (:func:`sgm_partition`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._numerics import log1mexp, log_ndtr, ndtri
from ..tradeoff.grid import U, StepPartition


def privacy_loss(x: np.ndarray, mu: float, p: float) -> np.ndarray:
    """ℓ(x) = log(1 − p + p·e^{μx − μ²/2}) (log-sum-exp form, no overflow)."""
    z = mu * np.asarray(x, dtype=float) - 0.5 * mu * mu
    if p >= 1.0:
        return z
    return np.logaddexp(math.log1p(-p), math.log(p) + z)


def inverse_privacy_loss(loss: np.ndarray, mu: float, p: float) -> np.ndarray:
    """x(ℓ); −inf for ℓ ≤ log(1 − p)."""
    loss = np.asarray(loss, dtype=float)
    if p >= 1.0:
        return (loss + 0.5 * mu * mu) / mu
    c = math.log1p(-p)
    with np.errstate(divide="ignore", invalid="ignore"):
        # log(e^ℓ − (1 − p)) = ℓ + log(1 − e^{c − ℓ})
        z = np.where(loss > c, loss + log1mexp(np.minimum(c - loss, 0.0)), -np.inf) - math.log(p)
    return (z + 0.5 * mu * mu) / mu


#: Gauss–Legendre nodes used for narrow cells (no cancellation, relative accuracy ≈ 60u)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)


def _gl_rel_bound(width: np.ndarray, far: np.ndarray, k: int = 8) -> np.ndarray:
    """Relative error bound of k-point Gauss–Legendre for ∫φ over an interval of ``width`` whose farthest
    point from 0 is ``far``: E ≤ w^{2k+1}(k!)⁴/((2k+1)((2k)!)³)·max|φ^{(2k)}| (Abramowitz & Stegun 25.4.30),
    |φ^{(n)}(x)| = |He_n(x)|φ(x) ≤ 1.086·√(n!)/√(2π) (Cramér's inequality), and ∫φ ≥ w·φ(far)."""
    c = math.factorial(k) ** 4 / ((2 * k + 1) * float(math.factorial(2 * k)) ** 3) * 1.086 * math.sqrt(math.factorial(2 * k))
    with np.errstate(over="ignore"):
        return c * width ** (2 * k) * np.exp(0.5 * far * far)


#: the 3-point rule for narrow cells: every cell of width ≤ THREE_NODE_WIDTH with |x| ≤ 12 has a 3-point quadrature
#: bound ≤ THREE_NODE_MAX (:func:`_gl3_rel_bound` is increasing in the width and in ``far``, and e^{(far² − near²)/2}
#: ≤ e^{12·w}: its value at (w, far, near) = (THREE_NODE_WIDTH, 12, 12 − THREE_NODE_WIDTH) bounds them all, 0.173u)
_GL3_NODES, _GL3_WEIGHTS = np.polynomial.legendre.leggauss(3)
#: a quarter of u: a 3-point cell's relative error bound (40 + far²)·u + this is within 0.6% of the 8-point rule's
THREE_NODE_MAX = 0.25 * U
#: the widest cell (in x) that takes the 3-point rule
THREE_NODE_WIDTH = 1.5e-3
#: (3!)⁴/(7·(6!)³): the constant of the 3-point remainder (Abramowitz & Stegun 25.4.30)
_C3 = math.factorial(3) ** 4 / (7.0 * float(math.factorial(6)) ** 3)


def _gl3_rel_bound(width: np.ndarray, far: np.ndarray, near: np.ndarray) -> np.ndarray:
    """Relative error bound of 3-point Gauss–Legendre for ∫φ over [a, b] (width w, largest |x| ``far``, smallest
    ``near``; 0 if a ≤ 0 ≤ b): the remainder is w⁷·(3!)⁴/(7·(6!)³)·φ⁽⁶⁾(ξ) at some ξ in [a, b] (Abramowitz & Stegun
    25.4.30), φ⁽⁶⁾ = He₆·φ with He₆(x) = x⁶ − 15x⁴ + 45x² − 15, so |φ⁽⁶⁾(ξ)| ≤ (far⁶ + 15far⁴ + 45far² + 15)·φ(near);
    and ∫φ ≥ w·φ(far). So the relative error is ≤ C₃·w⁶·(far⁶ + 15far⁴ + 45far² + 15)·e^{(far² − near²)/2}: a bound
    on the interval itself, where :func:`_gl_rel_bound` takes the maximum of |φ⁽²ᵏ⁾| over the line (1% is added for
    the rounding of this evaluation).

    >>> w = THREE_NODE_WIDTH
    >>> bool(_gl3_rel_bound(np.array([w]), np.array([12.0]), np.array([12.0 - w]))[0] <= THREE_NODE_MAX)
    True
    """
    f2 = far * far
    poly = ((f2 + 15.0) * f2 + 45.0) * f2 + 15.0
    with np.errstate(over="ignore"):
        return 1.01 * _C3 * width ** 6 * poly * np.exp(0.5 * (f2 - near * near))


#: the 3-point quadrature bound charged to every cell that takes it (module constants above)
_GL3_BOUND = float(_gl3_rel_bound(np.array([THREE_NODE_WIDTH]), np.array([12.0]), np.array([12.0 - THREE_NODE_WIDTH]))[0])


def _gl_log_sum(mid: np.ndarray, half: np.ndarray, nodes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """log(half·Σᵢ wᵢ φ(mid + half·tᵢ)) with φ in log space, one node at a time (n-vectors: an (n × k) array is
    several × slower to broadcast and reduce, and to allocate), each node's −½x² − ½log 2π formed in place."""
    c2 = 0.5 * math.log(2 * math.pi)
    lphi = np.empty((nodes.size, mid.size))  # one buffer for the nodes' rows (fresh n-arrays fault in pages)
    x = np.empty_like(mid)
    for v, node in zip(lphi, nodes):
        np.multiply(half, node, out=x)
        x += mid
        np.multiply(x, -0.5, out=v)
        v *= x
        v -= c2
    m = lphi[0].copy()
    for v in lphi[1:]:
        np.maximum(m, v, out=m)
    acc = np.zeros_like(m)
    for v, w in zip(lphi, weights):
        v -= m
        np.exp(v, out=v)
        v *= w
        acc += v  # no BLAS: see hermite_rule
    return _log_half(half) + m + np.log(acc)


def _gl3_log_sum(mid: np.ndarray, half: np.ndarray) -> np.ndarray:
    """:func:`_gl_log_sum` of the 3-point rule in closed form, for cells with half ≤ THREE_NODE_WIDTH/2 and |mid| ≤ 12.

    With nodes mid + half·t, t ∈ {−τ, 0, τ}, τ² = 3/5, weights (5/9, 8/9, 5/9) and φ(mid + half·t) =
    φ(mid)·e^{−α·t/τ − β·t²/τ²} (α = τ·half·mid, β = 0.3·half²), the rule is exactly

        half·Σᵢ wᵢ φ(xᵢ) = 2·half·φ(mid)·(1 + s),   s = (5/9)·(e^{−β}·cosh α − 1),

    and log(1 + s) is read from short series: cosh α − 1 = α²/2·(1 + α²/12·(1 + α²/30)) (remainder ≤ α⁸/40320),
    e^{−β} − 1 = −β·(1 − β/2) (≤ β³/6), log(1 + s) = s·(1 − s·(1/2 − s/3)) (≤ s⁴/4/(1 − |s|)). Here |α| ≤ 0.0070,
    β ≤ 1.7e-7, |s| ≤ 1.4e-5, so the three remainders move the log mass by < 2e-20 (< 0.001u). One log (of half, by
    :func:`_log_half`) instead of three exponentials and two logs.

    Rounding (units of u): the computed mid and half are the exact ones' within u·|mid| and u·half, which moves the
    rule's log by ≤ far² + 1.01; −mid²/2 − ½log 2π ≤ far² + 1.84; log(2·half) ≤ |log half| + 6.3 (2·half exact); s
    and its series ≤ 1e-4 (|s| ≤ 1.4e-5, a few roundings each); the two final additions ≤ 2·(|log half| + far²/2 +
    1). In all ≤ 3·far² + 3·|log half| + 12.2, inside the (45 + 4.1·far² + 3.1·|log half|)·u that
    :func:`_gl_rounding` charges (its bound for the node-by-node sum).

    >>> mid, half = np.array([3.0, -11.9]), np.array([5e-5, 7e-4])
    >>> bool(np.all(np.abs(_gl3_log_sum(mid, half) - _gl_log_sum(mid, half, _GL3_NODES, _GL3_WEIGHTS)) < 1e-13))
    True
    """
    c2 = 0.5 * math.log(2 * math.pi)
    h2 = half * half
    a2 = 0.6 * h2
    a2 *= mid
    a2 *= mid  # α² = τ²·half²·mid²
    beta = 0.3 * h2
    c1 = a2 * (1.0 / 12.0) * (1.0 + a2 * (1.0 / 30.0))
    c1 += 1.0
    c1 *= 0.5 * a2  # cosh α − 1
    e = 1.0 - 0.5 * beta
    e *= -beta  # e^{−β} − 1
    sv = c1 + 1.0
    sv *= e
    sv += c1
    sv *= 5.0 / 9.0  # s
    l1p = (1.0 / 3.0) * sv
    l1p = 0.5 - l1p
    l1p *= sv
    l1p = 1.0 - l1p
    l1p *= sv  # log(1 + s)
    lphi = mid * mid
    lphi *= -0.5
    lphi -= c2
    out = _log_half(2.0 * half)
    out += lphi
    out += l1p
    return out


#: ln 2 split for exact multiples (Cody–Waite, as fdlibm): LN2_HI has 21 trailing zero bits, so k·LN2_HI is exact for
#: |k| < 2²¹, and LN2_HI + LN2_LO is ln 2 to ~1e-27 relative
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _log_half(half: np.ndarray) -> np.ndarray:
    """log(half) as k·ln 2 + log f (half = f·2ᵏ, f ∈ [½, 1), ``np.frexp``): k·LN2_HI is exact and |log f| ≤ ln 2, so
    the error is ≤ u·|log half| + 6.3u (log f's ELEM·ln 2, two roundings), not ELEM·|log half| as for ``np.log`` of
    a narrow cell's half-width (|log half| ≈ 10–20)."""
    f, k = np.frexp(half)
    return k * _LN2_HI + (np.log(f) + k * _LN2_LO)


def _gl_rounding(half: np.ndarray, far: np.ndarray) -> np.ndarray:
    """(45 + 4.1·far² + 3.1·|log half|)·u: a bound on the floating-point error of :func:`_gl_log_sum`'s log mass (an
    absolute error of the log, i.e. relative of the mass), for at most 8 nodes, far = max(|a|, |b|) ≤ 12, half ≤ ¼.

    Term by term, in units of u = 2⁻⁵³ (ELEM = 8u, the accuracy of numpy's exp and log): each node x = mid + half·t
    is off by ≤ u(|mid| + half + |x|) (mid's own rounding shifts the cell, half's scales it), which moves
    log φ(x) = −x²/2 − ½log 2π by ≤ 2·far² + 1 (first order); forming −x²/2 − c₂ adds ≤ far² + 1.4; v − m ≤ 1; exp
    ≤ 8, the weights 1, the sum of ≤ 8 positive terms 7; log(acc), |log acc| ≤ 2.1, ≤ 17; log(half) by
    :func:`_log_half` ≤ |log half| + 6.3; the two final additions ≤ 2·|log half| + far² + 2.6. The sum, 4·far² +
    3·|log half| + 44.3, is taken ×1.01 for the second-order products and rounded up to the constants above. The
    first version charged (40 + far²)·u with ``np.log(half)``, which missed the node and log(half) terms: an
    independent check found cells at |x| ≈ 12 off by 283u against 184u charged (tests/composition/test_gl_rounding.py).
    """
    return (45.0 + 4.1 * far ** 2 + 3.1 * np.abs(np.log(half))) * U


def _gauss_legendre_log_mass(a: np.ndarray, b: np.ndarray, far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log ∫_a^b φ by Gauss–Legendre (narrow cells, |x| ≤ 12: no cancellation) and its relative error bound
    (quadrature bound + :func:`_gl_rounding`); elementwise (the same numbers for a cell whatever else is computed).

    A cell of width ≤ THREE_NODE_WIDTH takes the 3-point rule (its quadrature bound is then ≤ _GL3_BOUND ≤ u/4,
    :func:`_gl3_rel_bound`, charged to every such cell), the others the 8-point one (:func:`_gl_rel_bound`): at the
    default grids of DP-SGD most cells lie in the loss tail, where a cell of width h in loss is ≈ h/μ ≈ 1e-4 wide in
    x (39 227 of 39 323 cells at (σ, p, N) = (1.01, 0.01, 10⁴)). The rounding term holds for either rule (it
    counts at most 8 nodes), and for the 3-point rule's closed form (:func:`_gl3_log_sum`), which computes it."""
    mid, half = 0.5 * (a + b), 0.5 * (b - a)
    width = b - a
    three = (width <= THREE_NODE_WIDTH) & (far <= 12.0)  # (the callers' cells have far ≤ 12)
    if bool(three.all()):
        return _gl3_log_sum(mid, half), _GL3_BOUND + _gl_rounding(half, far)
    if not bool(three.any()):
        lq = _gl_log_sum(mid, half, _GL_NODES, _GL_WEIGHTS)
        return lq, _gl_rel_bound(width, far) + _gl_rounding(half, far)
    lq = np.empty(mid.shape)
    rq = np.full(mid.shape, _GL3_BOUND)
    i3, i8 = np.flatnonzero(three), np.flatnonzero(~three)
    lq[i3] = _gl3_log_sum(mid[i3], half[i3])
    lq[i8] = _gl_log_sum(mid[i8], half[i8], _GL_NODES, _GL_WEIGHTS)
    rq[i8] = _gl_rel_bound(width[i8], far[i8])
    rq += _gl_rounding(half, far)
    return lq, rq


def _log_gauss_interval(a: np.ndarray, b: np.ndarray, tails: tuple[np.ndarray, np.ndarray] | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """log(Φ(b) − Φ(a)) for a ≤ b, and a bound on its relative error.

    Narrow cells near the bulk are integrated by Gauss–Legendre (no cancellation); the others are
    differences of log_ndtr on the side where the CDF is small, whose relative error is the
    cancellation factor Φ_hi/(Φ_hi − Φ_lo) times log_ndtr's accuracy (≈ 8u·(1 + |log Φ|)).
    ``tails``: (log Φ(hi), log Φ(lo)) of that side (``log_ndtr(where(a > 0, −a, b))``, ``log_ndtr(where(a > 0, −b,
    a))``) where the caller has them (:func:`_log_gauss_cells`: one log_ndtr per edge instead of two).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    upper = a > 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        # the side where the CDF is small: log Φ(b), log Φ(a) below 0, log Φ(−a), log Φ(−b) above
        if tails is None:
            hi = log_ndtr(np.where(upper, -a, b))
            lo = log_ndtr(np.where(upper, -b, a))
        else:
            hi, lo = tails
        d = np.minimum(lo - hi, 0.0)
        dead = np.isneginf(hi) | (lo >= hi)
        ndtr_cells = ~dead  # the cells read off the log_ndtr difference (those Gauss–Legendre wins are dropped below)
        lq_cells = None
        amp = np.where(d < 0, -1.0 / np.expm1(np.where(d < 0, d, -1.0)), np.inf)
        rel = 8 * U * (1.0 + np.abs(np.where(np.isfinite(hi), hi, 0.0)) + np.abs(np.where(np.isfinite(lo), lo, 0.0))) * amp
        # Gauss–Legendre where it is provably accurate
        width = b - a
        far = np.maximum(np.abs(a), np.abs(b))
        cand = np.isfinite(width) & (width > 0) & (far <= 12.0) & (width <= 0.5)
        if np.any(cand):
            every = bool(cand.all())
            ac, bc = (a, b) if every else (a[cand], b[cand])
            farc = far if every else far[cand]
            lq, rq = _gauss_legendre_log_mass(ac, bc, farc)
            better = rq < (rel if every else rel[cand])
            idx = np.flatnonzero(cand)[better]
            lq_cells = (idx, lq[better])
            rel[idx] = rq[better]
            ndtr_cells[idx] = False
        # log(Φ_hi − Φ_lo) = log Φ_hi + log(1 − e^{d}) only where it is the answer (elementwise: the same numbers)
        out = np.full(np.shape(d), -np.inf)
        out[ndtr_cells] = hi[ndtr_cells] + log1mexp(d[ndtr_cells])
        if lq_cells is not None:
            out[lq_cells[0]] = lq_cells[1]
    rel = np.where(np.isfinite(out), rel, 0.0)
    return out, rel


def _log_gauss_cells(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_log_gauss_interval` of the consecutive cells (xᵢ, xᵢ₊₁] of increasing edges ``x``, bit for bit, with
    log_ndtr taken once per edge (both cells next to an edge read log Φ(−|xᵢ|) there, the side where the CDF is
    small, but for the one cell with a ≤ 0 < b, whose upper end is read as log Φ(b)), and only for the cells where
    Gauss–Legendre is not certainly the answer.

    A cell (a, b] on one side of 0, t its end nearer 0 (t = a > 0, or t = −b > 0) and w = b − a: its tail-side CDF is
    Φ_hi = Φ(−t) > φ(t)·t/(1 + t²) (Gordon's inequality, "Values of Mills' ratio of area to bounding ordinate",
    Ann. Math. Stat. 1941) and its mass Φ_hi − Φ_lo ≤ φ(t)·w (φ decreases away from 0), so the cancellation
    factor amp = Φ_hi/(Φ_hi − Φ_lo) of the log_ndtr difference exceeds t/((1 + t²)·w), and that route's bound
    8u·(1 + |log Φ_hi| + |log Φ_lo|)·amp exceeds 8u·t/((1 + t²)·w). Where Gauss–Legendre's bound r is below half
    of that, :func:`_log_gauss_interval` takes Gauss–Legendre (its answer there needs no log_ndtr value) also with amp
    as computed from log Φ (absolute error ≲ 1e-13 at |x| ≤ 12): that is within a factor 2 of the exact amp wherever
    amp ≤ 1e11, which holds for w ≥ 0.01; narrower cells have a quadrature term below u, so r ≤ 700u (:func:`_gl_rounding` at |x| ≤ 12), and a computed
    amp ≥ 1e10. (Cells across 0, or not narrow, read log_ndtr as before; the test suite compares both routes.)"""
    x = np.asarray(x, dtype=float)
    a, b = x[:-1], x[1:]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        width = b - a
        if x.size > 1 and (0.0 < x[0] and x[-1] <= 12.0 or -12.0 <= x[0] and x[-1] < 0.0) \
                and 0.0 < float(width.min()) and float(width.max()) <= 0.5:
            # every cell on one side of 0, narrow and within |x| ≤ 12 (the partition's chunks but the one at 0): all
            # are candidates, far and t are one end each (the values the general route computes, without its masks)
            far, t = (b, a) if x[0] > 0.0 else (-a, -b)
            lq, rq = _gauss_legendre_log_mass(a, b, far)
            ok = rq < 4.0 * U * (t / ((1.0 + t * t) * width))
            if bool(ok.all()):
                return lq, np.where(np.isfinite(lq), rq, 0.0)
        far = np.maximum(np.abs(a), np.abs(b))
        cand = np.isfinite(width) & (width > 0) & (far <= 12.0) & (width <= 0.5)
        t = np.where(a > 0, a, -b)  # the end nearer 0 (≤ 0 for the cell across 0: no bound)
        sure = cand & (t > 0)
        if bool(sure.all()):  # (the tail chunks of a partition: every cell a candidate, no gathers)
            lq, rq = _gauss_legendre_log_mass(a, b, far)
            ok = rq < 4.0 * U * (t / ((1.0 + t * t) * width))
            if bool(ok.all()):
                return lq, np.where(np.isfinite(lq), rq, 0.0)
            sure = ok
            lq_sure, rq_sure = lq[ok], rq[ok]
        elif np.any(sure):
            ci = np.flatnonzero(sure)
            tc = t[ci]
            lq, rq = _gauss_legendre_log_mass(a[ci], b[ci], far[ci])
            ok = rq < 4.0 * U * (tc / ((1.0 + tc * tc) * width[ci]))
            sure[ci[~ok]] = False
            lq_sure, rq_sure = lq[ok], rq[ok]
        rest = ~sure
        out = np.empty(a.shape)
        rel = np.empty(a.shape)
        if np.any(sure):
            out[sure] = lq_sure
            rel[sure] = np.where(np.isfinite(lq_sure), rq_sure, 0.0)
        if np.any(rest):
            need = np.zeros(x.shape, dtype=bool)  # the edges of the other cells
            need[:-1] |= rest
            need[1:] |= rest
            v = np.full(x.shape, np.nan)
            xe = x[need]
            v[need] = log_ndtr(np.where(xe > 0, -xe, xe))
            ar, br = a[rest], b[rest]
            upper = ar > 0
            left, right = v[:-1][rest], v[1:][rest]
            hi = np.where(upper, left, right)
            lo = np.where(upper, right, left)
            across = np.flatnonzero(~upper & (br > 0))
            if across.size:
                hi[across] = log_ndtr(br[across])
            out[rest], rel[rest] = _log_gauss_interval(ar, br, (hi, lo))
    return out, rel


@functools.cache
def hermite_rule() -> tuple[np.ndarray, np.ndarray]:
    """Probabilists' Gauss–Hermite rule (200 nodes, weights normalised to 1), built on first use and cached
    (not at import: the CLI's start-up does not pay for it). The hot paths use element-wise products and
    sums rather than BLAS (@, np.dot): multi-threaded OpenBLAS spin-waits when several sweep processes share
    the cores, which made 2 processes slower than 1.

    >>> nodes, weights = hermite_rule()
    >>> round(float((weights * nodes**2).sum()), 12)   # E Z² = 1
    1.0
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    nodes.setflags(write=False)
    weights = weights / weights.sum()
    weights.setflags(write=False)
    return nodes, weights


def loss_std(mu: float, p: float) -> float:
    """Standard deviation of ℓ under Q (Gauss–Hermite quadrature, 200 nodes): sets the grid spacing."""
    if p >= 1.0:
        return mu
    nodes, weights = hermite_rule()
    l0 = privacy_loss(nodes, mu, p)
    l1 = privacy_loss(nodes + mu, mu, p)
    m1 = (1 - p) * np.sum(weights * l0) + p * np.sum(weights * l1)
    m2 = (1 - p) * np.sum(weights * l0**2) + p * np.sum(weights * l1**2)
    var = m2 - m1 * m1
    if math.isfinite(var) and var > 0:
        return math.sqrt(var)
    return p * math.sqrt(math.expm1(min(mu * mu, 700.0)))  # first order in p


def grid_range(mu: float, p: float, h: float, tail: float) -> tuple[int, int]:
    """Grid indices [k_lo, k_hi] (offset 0) covering the single-step loss except tails of mass ≤ ``tail``:
    P(ℓ < g_lo) ≤ tail and Q(ℓ > g_hi) ≤ tail (used to size the grid before the partition is built)."""
    z = float(-ndtri(tail))
    hi = float(privacy_loss(mu + z, mu, p))
    lo = float(privacy_loss(-z, mu, p))
    k_lo = math.floor(lo / h)
    return k_lo, max(math.ceil(hi / h), k_lo + 1)


def _log_masses(xa: np.ndarray | float, xb: np.ndarray | float, mu: float, p: float):
    """(log P, log Q, relative error) of the x-interval (xa, xb]."""
    log_p, rel_p = _log_gauss_interval(np.atleast_1d(xa) + 0.0, np.atleast_1d(xb) + 0.0)
    log_p1, rel_p1 = _log_gauss_interval(np.atleast_1d(xa) - mu, np.atleast_1d(xb) - mu)
    return _mix_masses(log_p, rel_p, log_p1, rel_p1, p)


#: cells per chunk of :func:`_log_masses_cells` (its temporaries stay ≈ 32 kB: cached, and reused by the allocator
#: instead of faulting in fresh pages for each of the ≈ 60 temporaries of a 4·10⁴-cell partition; measured on that
#: partition, in one process: 6.4–9.4 ms at 4096 cells, 7.0–10.1 at 8192, 9.4–10.7 at 16 384, 14.4–16.4 unchunked)
CELL_CHUNK = 4096


def _log_masses_cells(x: np.ndarray, mu: float, p: float):
    """:func:`_log_masses` of the consecutive cells (xᵢ, xᵢ₊₁] of increasing edges ``x`` (bit for bit; one log_ndtr
    per edge and measure, :func:`_log_gauss_cells`), in chunks of CELL_CHUNK cells (every value is elementwise, so
    the chunks give the same numbers as one call)."""
    cells = x.size - 1
    if cells <= CELL_CHUNK:
        return _mix_masses(*_log_gauss_cells(x + 0.0), *_log_gauss_cells(x - mu), p)
    log_p, log_q, rel = np.empty(cells), np.empty(cells), np.empty(cells)
    for lo in range(0, cells, CELL_CHUNK):
        hi = min(lo + CELL_CHUNK, cells)
        xe = x[lo : hi + 1]
        log_p[lo:hi], log_q[lo:hi], rel[lo:hi] = _mix_masses(*_log_gauss_cells(xe + 0.0), *_log_gauss_cells(xe - mu), p)
    return log_p, log_q, rel


def _mix_masses(log_p, rel_p, log_p1, rel_p1, p: float):
    """(log P, log Q, relative error) from the cells' log masses under N(0, 1) and N(μ, 1): Q = (1 − p)·P + p·P₁.

    The error of log Q = logaddexp(a, b), a = log(1 − p) + log P, b = log p + log P₁ (an absolute error of the log,
    i.e. relative of the mass), in units of u = 2⁻⁵³: the inputs' errors pass with weights summing to 1, so at most
    max(rel_P, rel_P₁); log1p(−p) and log p are within 2·|·| (libm, ≤ 1 ulp); forming a and b rounds by ≤ |a|, |b|
    (a term that is −∞ is exact); logaddexp = max + log1p(e^{−|a−b|}) adds ≤ 10 (the difference's rounding damped by
    e^{−d}/(1 + e^{−d}), exp and log1p at 8u on a result ≤ ln 2) and its final addition ≤ |log Q|. So
    rel_Q ≤ max(rel_P, rel_P₁) + (10 + 2|log(1 − p)| + 2|log p| + |a| + |b| + |log Q|)·u, which is what is returned
    (it covers P's own error too)."""
    if p >= 1.0:
        return np.array(log_p, dtype=float), log_p1, np.maximum(rel_p, rel_p1)  # (a copy: no NaN where P₁ = 0)
    c1, c2 = math.log1p(-p), math.log(p)
    a = log_p + c1
    b = log_p1 + c2
    log_q = np.logaddexp(a, b)
    # a, b, log Q ≤ 0 (log masses): |x| = −x, and a −∞ term is exact (it contributes 0)
    far = np.where(a > -np.inf, a, 0.0)
    far += np.where(b > -np.inf, b, 0.0)
    far += np.where(log_q > -np.inf, log_q, 0.0)
    rel = np.maximum(rel_p, rel_p1)
    rel -= far * U
    rel += (10.0 + 2.0 * (abs(c1) + abs(c2))) * U
    return log_p, log_q, rel


def aligned_edges(lo: float, hi: float, offset: float, h: float, sub: int,
                  anchor_edge: float | None = None) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Cell edges of a loss grid of spacing h through ``offset``, covering [lo, hi], each grid interval cut
    in ``sub`` cells (and ``anchor_edge`` inserted as one more edge unless it is within 1e-9·h of one);
    returns (edges, the grid interval k − k_lo of each cell, k_lo, k_hi)."""
    k_lo = math.floor((lo - offset) / h)
    k_hi = max(math.ceil((hi - offset) / h), k_lo + 1)
    edges = offset + (k_lo + np.arange(sub * (k_hi - k_lo) + 1) / sub) * h
    if anchor_edge is not None:
        j = int(np.searchsorted(edges, anchor_edge))
        if 0 < j < edges.size and min(anchor_edge - edges[j - 1], edges[j] - anchor_edge) > 1e-9 * h:
            edges = np.insert(edges, j, anchor_edge)
    mid = 0.5 * (edges[:-1] + edges[1:])
    cell_k = np.clip(np.floor((mid - offset) / h).astype(np.int64) - k_lo, 0, k_hi - k_lo - 1)
    return edges, cell_k, k_lo, k_hi


def sgm_partition(sigma: float, p: float, h: float, *, sub: int = 4, tail: float = 1e-30,
                  anchor_sub: int | None = None) -> StepPartition:
    """The grid-aligned fine partition (tradeoff/compose.py step 1) of one subsampled-Gaussian step (remove pair).

    Anchor: for p < 1 most of the P-mass sits just above the infimum ℓ_min = log(1 − p) of the loss (all
    of it, for small σ). The grid offset is chosen so that the merged loss of the anchor cell
    (ℓ_min, ℓ_min + h/(2·anchor_sub)] is exactly a grid point; the optimistic merge (step 3) then lands that
    cell as it is, instead of trading its mass against the rare large losses. ``anchor_sub`` (default
    ``sub``) lets a coarser partition (``sub`` = 1, for the pessimistic split alone) keep the grid of a finer one.
    """
    mu = 1.0 / sigma
    z = float(-ndtri(tail))
    hi = float(privacy_loss(mu + z, mu, p))
    lo = float(privacy_loss(-z, mu, p))
    offset = 0.0
    anchor_edge = None
    if p < 1.0:
        c = math.log1p(-p)
        a = h / (2 * (sub if anchor_sub is None else anchor_sub))
        xa = float(inverse_privacy_loss(c + a, mu, p))
        if xa > -z:
            lp_a, lq_a, _ = _log_masses(-math.inf, xa, mu, p)
            lam_a = float(lq_a[0] - lp_a[0])
            offset = lam_a - h * math.floor(lam_a / h)
            lo, anchor_edge = c, c + a
    edges, cell_k, k_lo, k_hi = aligned_edges(lo, hi, offset, h, sub, anchor_edge)
    x = inverse_privacy_loss(edges, mu, p)
    log_p, log_q, rel = _log_masses_cells(x, mu, p)
    # tails ℓ ≤ g_lo (x ≤ x_0) and ℓ > g_hi (x > x_last)
    x0, x1 = float(x[0]), float(x[-1])
    tail_lo = (-math.inf, -math.inf)
    if x0 > -math.inf:
        tl = _log_masses(-math.inf, x0, mu, p)
        tail_lo = (float(tl[0][0]), float(tl[1][0]))
    th = _log_masses(x1, math.inf, mu, p)
    tail_hi = (float(th[0][0]), float(th[1][0]))
    return StepPartition(h, offset, k_lo, k_hi, cell_k, log_p, log_q, tail_lo, tail_hi, rel)
