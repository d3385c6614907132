"""Certified composition of the Poisson-subsampled Gaussian mechanism (DP-SGD's privacy analysis).

One step in closed form, on a grid-aligned partition, then :mod:`dpcompare.tradeoff.compose` for the N-fold
composition with an upper (pessimistic) and a lower (optimistic) version.

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

import dataclasses
import functools
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from .._numerics import log1mexp, log_ndtr, ndtri
from ..tradeoff import Bracket, DiscretePair, Rounding, Sense
from ..tradeoff import compose as certified_compose
from ..tradeoff import grid as certified_grid
from ..tradeoff.compose import CompositionReport, DiscretizationTooFine
from ..tradeoff.grid import U, StepPartition

#: largest single-step grid (grid points) before the discretisation is coarsened
MAX_STEP_POINTS = 1 << 19
#: largest number of fine cells (greedy merge is a Python loop over them)
MAX_CELLS = 1 << 20


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


def _log_gauss_interval(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log(Φ(b) − Φ(a)) for a ≤ b, and a bound on its relative error.

    Narrow cells near the bulk are integrated by Gauss–Legendre (no cancellation); the others are
    differences of log_ndtr on the side where the CDF is small, whose relative error is the
    cancellation factor Φ_hi/(Φ_hi − Φ_lo) times log_ndtr's accuracy (≈ 8u·(1 + |log Φ|)).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    upper = a > 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        hi = np.where(upper, log_ndtr(-a), log_ndtr(b))
        lo = np.where(upper, log_ndtr(-b), log_ndtr(a))
        d = np.minimum(lo - hi, 0.0)
        out = np.where(np.isneginf(hi) | (lo >= hi), -np.inf, hi + log1mexp(d))
        amp = np.where(d < 0, -1.0 / np.expm1(np.where(d < 0, d, -1.0)), np.inf)
        rel = 8 * U * (1.0 + np.abs(np.where(np.isfinite(hi), hi, 0.0)) + np.abs(np.where(np.isfinite(lo), lo, 0.0))) * amp
        # Gauss–Legendre where it is provably accurate
        width = b - a
        far = np.maximum(np.abs(a), np.abs(b))
        cand = np.isfinite(width) & (width > 0) & (far <= 12.0) & (width <= 0.5)
        if np.any(cand):
            ac, bc = a[cand], b[cand]
            mid, half = 0.5 * (ac + bc), 0.5 * (bc - ac)
            x = mid[:, None] + half[:, None] * _GL_NODES[None, :]
            # log ∫ = log(half) + log Σ wᵢ φ(xᵢ), with φ in log space
            lphi = -0.5 * x * x - 0.5 * math.log(2 * math.pi)
            m = lphi.max(axis=1)
            lq = np.log(half) + m + np.log(np.sum(np.exp(lphi - m[:, None]) * _GL_WEIGHTS, axis=1))  # no BLAS: see _HERMITE
            rq = _gl_rel_bound(bc - ac, far[cand]) + (40.0 + far[cand] ** 2) * U
            better = rq < rel[cand]
            idx = np.flatnonzero(cand)[better]
            out[idx] = lq[better]
            rel[idx] = rq[better]
    rel = np.where(np.isfinite(out), rel, 0.0)
    return out, rel


#: probabilists' Gauss–Hermite rule (200 nodes, weights normalised to 1), computed once. The hot paths use
#: element-wise products and sums rather than BLAS (@, np.dot): multi-threaded OpenBLAS spin-waits when
#: several sweep processes share the cores, which made 2 processes slower than 1.
_HERMITE = (lambda nw: (nw[0], nw[1] / nw[1].sum()))(np.polynomial.hermite_e.hermegauss(200))


def loss_std(mu: float, p: float) -> float:
    """Standard deviation of ℓ under Q (Gauss–Hermite quadrature, 200 nodes): sets the grid spacing."""
    if p >= 1.0:
        return mu
    nodes, weights = _HERMITE
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
    if p >= 1.0:
        return log_p1 * 0.0 + log_p, log_p1, np.maximum(rel_p, rel_p1)
    log_q = np.logaddexp(math.log1p(-p) + log_p, math.log(p) + log_p1)
    return log_p, log_q, np.maximum(rel_p, rel_p1) + 4 * U


def sgm_partition(sigma: float, p: float, h: float, *, sub: int = 4, tail: float = 1e-30) -> StepPartition:
    """The grid-aligned fine partition (tradeoff/compose.py step 1) of one subsampled-Gaussian step (remove pair).

    Anchor: for p < 1 most of the P-mass sits just above the infimum ℓ_min = log(1 − p) of the loss (all
    of it, for small σ). The grid offset is chosen so that the merged loss of the anchor cell
    (ℓ_min, ℓ_min + h/(2·sub)] is exactly a grid point; the optimistic merge (step 3) then lands that
    cell as it is, instead of trading its mass against the rare large losses.
    """
    mu = 1.0 / sigma
    z = float(-ndtri(tail))
    hi = float(privacy_loss(mu + z, mu, p))
    lo = float(privacy_loss(-z, mu, p))
    offset = 0.0
    anchor_edge = None
    if p < 1.0:
        c = math.log1p(-p)
        a = h / (2 * sub)
        xa = float(inverse_privacy_loss(c + a, mu, p))
        if xa > -z:
            lp_a, lq_a, _ = _log_masses(-math.inf, xa, mu, p)
            lam_a = float(lq_a[0] - lp_a[0])
            offset = lam_a - h * math.floor(lam_a / h)
            lo, anchor_edge = c, c + a
    k_lo = math.floor((lo - offset) / h)
    k_hi = max(math.ceil((hi - offset) / h), k_lo + 1)
    edges = offset + (k_lo + np.arange(sub * (k_hi - k_lo) + 1) / sub) * h
    if anchor_edge is not None:
        j = int(np.searchsorted(edges, anchor_edge))
        if 0 < j < edges.size and min(anchor_edge - edges[j - 1], edges[j] - anchor_edge) > 1e-9 * h:
            edges = np.insert(edges, j, anchor_edge)
    mid = 0.5 * (edges[:-1] + edges[1:])
    cell_k = np.clip(np.floor((mid - offset) / h).astype(np.int64) - k_lo, 0, k_hi - k_lo - 1)
    x = inverse_privacy_loss(edges, mu, p)
    log_p, log_q, rel = _log_masses(x[:-1], x[1:], mu, p)
    # tails ℓ ≤ g_lo (x ≤ x_0) and ℓ > g_hi (x > x_last)
    x0, x1 = float(x[0]), float(x[-1])
    tail_lo = (-math.inf, -math.inf)
    if x0 > -math.inf:
        tl = _log_masses(-math.inf, x0, mu, p)
        tail_lo = (float(tl[0][0]), float(tl[1][0]))
    th = _log_masses(x1, math.inf, mu, p)
    tail_hi = (float(th[0][0]), float(th[1][0]))
    return StepPartition(h, offset, k_lo, k_hi, cell_k, log_p, log_q, tail_lo, tail_hi, rel)


# ---------------------------------------------------------------------------------------------- orchestration
#: grid spacing as a fraction of the single-step loss standard deviation (bracket width ∝ KAPPA_H²)
KAPPA_H = 0.01
#: grid spacing for the one-step exact Gaussian (p = 1), as a fraction of μ
KAPPA_GAUSS = 0.002
#: sub-cells per grid interval in the fine partition (tradeoff/compose.py step 1)
SUB_CELLS = 4
#: mass allowed outside the composition window, per tail and measure (tradeoff/compose.py step 5)
WINDOW_TAIL = 1e-18
#: largest FFT length the automatic discretisation aims for (≈ 0.5 GB peak)
AUTO_MAX_FFT = 1 << 23
#: largest |privacy loss| a returned pair may carry: q = p·e^ℓ is then exact to ≈ 1e-9 relative
MAX_ABS_LOSS = 1e7
#: largest factor by which the default grid may be coarsened to fit memory before the input is refused
MAX_COARSENING = 25.0
#: below this μ = √N/σ of the dominating Gaussian the mechanism is served by that bound alone
NEGLIGIBLE_MU = 1e-12
#: target number of atoms of the output pairs (tradeoff/compose.py step 8)
OUTPUT_ATOMS = 20_000


@dataclass(frozen=True, eq=False)
class CertifiedComposition:
    """The N-fold subsampled Gaussian as a pessimistic and an optimistic *remove-adjacency* pair.

    Every Bayes error of ``pessimistic`` is ≤ the true one + ``numerical_error``, every Bayes error of
    ``optimistic`` is ≥ the true one − ``numerical_error`` (tradeoff/compose.py step 7). The pairs are
    asymmetric; symmetrise them (f_sym = conv(min(f, f⁻¹))) for the mechanism.
    """

    pessimistic: DiscretePair
    optimistic: DiscretePair
    numerical_error: float
    discretization: float
    steps: int
    reports: tuple[CompositionReport, ...]
    seconds: float
    #: the error bounds of each side alone (η of the pessimistic pair, η of the optimistic pair);
    #: ``numerical_error`` is their maximum
    side_errors: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        # direction is a type: a pessimistic field holding an optimistic pair (or vice versa) is refused
        ok = (Rounding.PESSIMISTIC, Rounding.EXACT)
        if self.pessimistic.rounding not in ok:
            raise ValueError(f"pessimistic must be a pessimistic pair, got {self.pessimistic.rounding.name}")
        if self.optimistic.rounding not in (Rounding.OPTIMISTIC, Rounding.EXACT):
            raise ValueError(f"optimistic must be an optimistic pair, got {self.optimistic.rounding.name}")

    @property
    def pessimistic_error(self) -> float:
        return self.numerical_error if self.side_errors is None else self.side_errors[0]

    @property
    def optimistic_error(self) -> float:
        return self.numerical_error if self.side_errors is None else self.side_errors[1]

    def to_dict(self) -> dict[str, object]:
        rep = self.reports[0] if self.reports else None
        return {
            "discretization": self.discretization,
            "numerical_error": self.numerical_error,
            "fft_len": rep.fft_len if rep else 0,
            "window": list(rep.window) if rep else None,
            "atoms": [self.pessimistic.size, self.optimistic.size],
            "seconds": self.seconds,
        }


def auto_discretization(sigma: float, p: float, steps: int) -> float:
    """Grid spacing h = KAPPA_H·s (s = single-step loss std under Q), so that the splitting/merging of
    tradeoff/compose.py steps 2–3 adds ≈ KAPPA_H²/4 relative variance to the composed loss (independent of N).
    p = 1 is composed exactly (one Gaussian step with μ = √N/σ), with h = KAPPA_GAUSS·μ."""
    if p >= 1.0:
        return KAPPA_GAUSS * math.sqrt(steps) / sigma
    return KAPPA_H * loss_std(1.0 / sigma, p)


def _estimated_fft_len(sigma: float, p: float, steps: int, h: float) -> int:
    """Rough size of the composition window (for choosing h before the partition is built)."""
    s = loss_std(1.0 / sigma, p)
    mean = 0.5 * s * s * steps  # KL ≈ Var/2 for small losses
    spread = 10.0 * s * math.sqrt(steps)
    return int(2 * (mean + spread) / h) + 16


def default_discretization(sigma: float, p: float, steps: int) -> float:
    """The grid spacing used when none is given: :func:`auto_discretization`, widened so that the
    single-step grid stays within MAX_STEP_POINTS points and the composition FFT within AUTO_MAX_FFT.
    Any spacing gives a certified result; this one only sets the accuracy/speed balance."""
    h = auto_discretization(sigma, p, steps)
    if p >= 1.0:
        return h
    tail = min(1e-18, 1e-16 / steps)
    k_lo, k_hi = grid_range(1.0 / sigma, p, h, tail)
    if k_hi - k_lo > MAX_STEP_POINTS:
        h *= (k_hi - k_lo) / MAX_STEP_POINTS
    n_est = _estimated_fft_len(sigma, p, steps, h) if steps > 1 else 0
    if n_est > AUTO_MAX_FFT:
        h *= n_est / AUTO_MAX_FFT
    return float(h)


#: excess of the pessimistic δ(ε) over the truth ≈ K_EXCESS·√N·h²/s at grid spacing h (s = single-step loss
#: std). The form is the Gaussian (CLT) approximation of the split's extra variance, ≈ N·h²/c added to a
#: composed loss variance N·s², through ∂δ/∂μ = φ(ε/μ − μ/2) ≤ 1/√(2π); K is calibrated on
#: (σ, p, N) = (0.7, 0.05, 300) and (2, 0.2, 50) (measured 0.034 and 0.030; benchmarks/bench_tightness.py)
#: and rounded up. It only chooses h: the achieved accuracy is the certified bracket the composition returns.
K_EXCESS = 0.05


def discretization_for_tolerance(sigma: float, p: float, steps: int, tolerance: float) -> float:
    """Grid spacing h for which the pessimistic δ(ε) exceeds the truth by about ``tolerance`` or less
    (absolute, at every ε): h = √(tolerance·s/(K_EXCESS·√N)), never coarser than the default.

    >>> h = discretization_for_tolerance(0.7, 0.05, 300, 1e-7)
    >>> 5e-5 < h < 2e-4
    True
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0.0 < tolerance < 1.0:
        raise ValueError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    h_default = default_discretization(sigma, p, steps)
    s = loss_std(1.0 / sigma, p)
    if p >= 1.0 or not (s > 0.0):
        return h_default
    return float(min(h_default, math.sqrt(tolerance * s / (K_EXCESS * math.sqrt(steps)))))


_fft_workers = -1  # threads of the composition FFT: -1 = all cores (see set_fft_workers)


def set_fft_workers(workers: int) -> int:
    """Set the number of threads every later composition's FFT uses (−1: all cores, the default); returns
    the previous setting. Sweeps running one process per core set 1 in each process so that the threads
    do not oversubscribe the machine."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not (workers == -1 or workers >= 1):
        raise ValueError(f"workers must be -1 (all cores) or an integer >= 1, got {workers!r}")
    global _fft_workers
    prev, _fft_workers = _fft_workers, workers
    return prev


def fft_workers() -> int:
    """The number of threads the composition FFT uses now (see :func:`set_fft_workers`)."""
    return _fft_workers if _fft_workers >= 1 else (os.cpu_count() or 1)


def _check_grid(sigma: float, p: float, steps: int, discretization: float | None) -> tuple[float, float, int]:
    """(h, tail, sub) for a composition; raises DiscretizationTooFine for a grid that cannot be built."""
    h = default_discretization(sigma, p, steps) if discretization is None else float(discretization)
    if discretization is None and p < 1.0:
        s = loss_std(1.0 / sigma, p)
        if h > MAX_COARSENING * KAPPA_H * s:
            n_auto = _estimated_fft_len(sigma, p, steps, KAPPA_H * s)
            raise DiscretizationTooFine(
                f"sgm(sigma={sigma:g}, p={p:g}, steps={steps}) is too large to compose: a certified composition "
                f"at useful accuracy needs an FFT of about {n_auto:.3g} points (≈ {n_auto * 48 / 1e9:.3g} GB), the "
                f"limit is {AUTO_MAX_FFT} points (≈ {AUTO_MAX_FFT * 48 / 1e9:.2g} GB). What works: fewer steps, a "
                "larger sigma, or sampling_rate=1 (a closed form at any number of steps)"
            )
    tail = min(1e-18, 1e-16 / steps)
    k_lo, k_hi = grid_range(1.0 / sigma, p, h, tail)
    if k_hi - k_lo > 4 * MAX_STEP_POINTS:
        raise DiscretizationTooFine(
            f"discretization={h:g} needs {k_hi - k_lo} grid points for one step; choose a coarser discretization"
        )
    sub = max(1, min(SUB_CELLS, MAX_CELLS // max(1, k_hi - k_lo)))
    return h, tail, sub


def _sides_or_error(sigma: float, p: float, steps: int, h: float, sub: int, tail: float, roundings):
    try:
        return _build_sides(sigma, p, steps, h, sub, tail, roundings)
    except DiscretizationTooFine:
        raise
    except (RuntimeError, ValueError, OverflowError, FloatingPointError) as exc:
        raise ValueError(
            f"sgm(sigma={sigma:g}, p={p:g}, steps={steps}) is outside the numerically supported range: the "
            f"privacy loss of its {steps} steps spans more nats than double precision can hold in a "
            f"privacy-loss distribution at grid spacing {h:.3g} ({exc}); such a mechanism is blatantly "
            "non-private for every practical purpose (use a larger sigma or fewer steps)"
        ) from None


@functools.lru_cache(maxsize=16)
def compose_subsampled_gaussian(
    sigma: float,
    p: float,
    steps: int,
    discretization: float | None = None,
    *,
    exact_gaussian: bool = True,
) -> CertifiedComposition:
    """Certified pessimistic/optimistic pairs of N steps of the Poisson-subsampled Gaussian.

    ``discretization`` is the privacy-loss grid spacing h (default: :func:`default_discretization`).
    With p = 1 and ``exact_gaussian`` the N steps are one Gaussian step with σ/√N (the composition of
    Gaussians is Gaussian: Dong, Roth & Su 2022, Cor. 2.1), discretised without FFT. The FFT runs on
    :func:`fft_workers` threads.
    """
    t0 = time.perf_counter()
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return negligible_composition(sigma, p, steps)
    if p >= 1.0 and exact_gaussian and steps > 1:
        out = compose_subsampled_gaussian(sigma / math.sqrt(steps), 1.0, 1, discretization)
        return CertifiedComposition(
            out.pessimistic, out.optimistic, out.numerical_error, out.discretization, steps, out.reports,
            time.perf_counter() - t0, out.side_errors,
        )
    h, tail, sub = _check_grid(sigma, p, steps, discretization)
    sides, reports = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.PESSIMISTIC, Rounding.OPTIMISTIC))
    errs = (reports[0].numerical_error + 64 * U, reports[1].numerical_error + 64 * U)
    return CertifiedComposition(sides[0], sides[1], max(errs), h, steps, tuple(reports), time.perf_counter() - t0, errs)


def negligible_composition(sigma: float, p: float, steps: int) -> CertifiedComposition:
    """Pairs for a mechanism whose dominating Gaussian G_μ (μ = √N/σ ≤ NEGLIGIBLE_MU) is below what a
    loss grid can resolve: pessimistic = the (0, δ₀)-DP pair with δ₀ ≥ TV(G_μ) = 2Φ(μ/2) − 1 (every
    mechanism with TV ≤ δ₀ has f(α) ≥ 1 − δ₀ − α, so it is a post-processing of this pair); optimistic
    = no information (one atom at ℓ = 0). Subsampling only lowers TV (seed 002 Prop E.1)."""
    mu = math.sqrt(steps) / sigma
    tv = math.erf(mu / (2.0 * math.sqrt(2.0)))  # 2Φ(μ/2) − 1
    d0 = min(1.0, tv * (1.0 + 1e-12) + 1e-320)
    zero = np.array([0.0])
    pess = DiscretePair(zero, np.array([math.log1p(-d0)]), d0, d0, Rounding.PESSIMISTIC)
    opt = DiscretePair(zero, zero.copy(), 0.0, 0.0, Rounding.OPTIMISTIC)
    return CertifiedComposition(pess, opt, 0.0, 0.0, steps, (), 0.0)


@functools.lru_cache(maxsize=16)
def pessimistic_pair(sigma: float, p: float, steps: int, discretization: float | None = None) -> DiscretePair:
    """The pessimistic (remove-adjacency, asymmetric) pair of :func:`compose_subsampled_gaussian` alone —
    what an upper bound of δ(ε) or of ε(δ) needs — at half the cost (the optimistic side is not built).

    Bit for bit the ``pessimistic`` field of ``compose_subsampled_gaussian(σ, p, N, h)`` (same code path)."""
    return pessimistic_side(sigma, p, steps, discretization).pair


def _build_sides(sigma: float, p: float, steps: int, h: float, sub: int, tail: float, roundings):
    """The pairs of the requested ``roundings`` (tradeoff/compose.py steps 1–8) and their reports."""
    part = sgm_partition(sigma, p, h, sub=sub, tail=tail)
    sides = []
    reports = []
    builders = {Rounding.PESSIMISTIC: certified_grid.pessimistic_step, Rounding.OPTIMISTIC: certified_grid.optimistic_step}
    workers = fft_workers()
    for rounding in roundings:
        build = builders[rounding]
        try:
            step = build(part)
        except RuntimeError:  # the grid is too coarse to land the optimistic groups: closed-form fallback
            loss, clp, eta = certified_grid.optimistic_binary(part, steps)
            if float(np.max(np.abs(loss))) > MAX_ABS_LOSS:
                raise
            sides.append(certified_grid.to_pair(loss, clp, rounding))
            reports.append(CompositionReport(steps, h, 0, (float(loss.min()), float(loss.max())), 0.0, 0.0, 0.0, eta, eta))
            continue
        # the ±∞ atoms of the step: N steps put at most N·(q₊∞ + p₋∞) there. The pair below represents
        # them only as 1 − Σ(finite masses), which cannot resolve masses below ~1e-16, so they are
        # added to the error bound explicitly ("never understated" has no size exemption)
        inf_mass = float(steps) * (step.q_pos_inf + step.p_neg_inf)
        if steps == 1:
            log_p, i_lo = step.log_p.copy(), step.k_lo
            eta = step.err + inf_mass
            reports.append(CompositionReport(1, h, 0, (float(step.losses[0]), float(step.losses[-1])), 0.0, 0.0, 0.0, eta, eta))
        else:
            log_p, i_lo, rep = certified_compose.compose(step, steps, tau=WINDOW_TAIL, workers=workers)
            reports.append(dataclasses.replace(rep, numerical_error=rep.numerical_error + inf_mass))
        factor = _coarsening_factor(log_p.size, steps)
        coarsen = certified_grid.coarsen_pessimistic if rounding is Rounding.PESSIMISTIC else certified_grid.coarsen_optimistic
        loss, clp = coarsen(log_p, i_lo, h, factor, steps * part.offset)
        if float(np.max(np.abs(loss[np.isfinite(clp)]), initial=0.0)) > MAX_ABS_LOSS:
            raise ValueError(f"composed losses reach {float(np.max(np.abs(loss))):.3g} nats")
        sides.append(certified_grid.to_pair(loss, clp, rounding))
        del log_p
    return sides, reports


def _coarsening_factor(n_atoms: int, steps: int) -> int:
    """Output coarsening (tradeoff/compose.py step 8): ≤ OUTPUT_ATOMS atoms, and factor ≤ 0.1·√N so that the one
    extra split/merge adds ≤ 1% of the variance the N steps' splits/merges add."""
    want = max(1, n_atoms // OUTPUT_ATOMS)
    cap = max(1, int(0.1 * math.sqrt(steps)))
    return max(1, min(want, cap))


@dataclass(frozen=True)
class DeltaBracket:
    """Δ(A‖B) certified: lower ≤ Δ ≤ upper, including both mechanisms' numerical error bounds."""

    lower: float
    upper: float
    pi: float
    numerical_error: float

    @property
    def width(self) -> float:
        return self.upper - self.lower

    @property
    def value(self) -> float:
        return 0.5 * (self.lower + self.upper)


def delta_bracket(a, b) -> DeltaBracket:
    """Certified Δ(A‖B) = max_π (R_A − R_B) for two pair-backed mechanisms (tradeoff/compose.py step 7):
    lower = Δ(A_pess‖B_opt) − η_A − η_B, upper = Δ(A_opt‖B_pess) + η_A + η_B, on the symmetrised pairs
    of ``mech.pairs()``; η = ``mech.numerical_error`` (0 for mechanisms without one)."""
    from ..tradeoff import delta_between_pairs

    (a_pess, a_opt), (b_pess, b_opt) = a.pairs(), b.pairs()
    eta = float(getattr(a, "numerical_error", 0.0)) + float(getattr(b, "numerical_error", 0.0))
    lo, pi_lo = delta_between_pairs(a_pess, b_opt)
    hi, pi_hi = delta_between_pairs(a_opt, b_pess)
    lower = max(0.0, lo - eta)
    upper = max(hi, lo) + eta
    return DeltaBracket(lower, upper, pi_lo if lo > 0 else pi_hi, eta)


# ---------------------------------------------------------------------------------------------- profile views
#: grid points of the single step used for the Chernoff tail bound (tradeoff/compose.py step 9)
TAIL_POINTS = 1 << 15
#: the tail bound is consulted where the FFT bound is within this factor of its error bound
TAIL_FACTOR = 1e3


@functools.lru_cache(maxsize=16)
def tail_bound(sigma: float, p: float, steps: int) -> certified_compose.TailBound:
    """Certified Chernoff bound of the profile of N steps (tradeoff/compose.py step 9), from a pessimistic
    single step whose truncated tail (moved to ℓ = +∞) is sized for δ down to 1e-300.

    >>> tb = tail_bound(1.0, 0.01, 100)
    >>> 0.0 < tb.epsilon(1e-300) < float("inf")
    True
    """
    mu = 1.0 / sigma
    tail = max(1e-300 / (4.0 * steps), 1e-306)
    k_lo, k_hi = grid_range(mu, p, 1.0, tail)
    h = max(KAPPA_H * loss_std(mu, p), (k_hi - k_lo + 2) / TAIL_POINTS)
    part = sgm_partition(sigma, p, h, sub=2, tail=tail)
    step = certified_grid.pessimistic_step(part)
    rel = np.asarray(part.rel_err, dtype=float)
    rel_max = float(np.max(rel)) if rel.size else 0.0
    return certified_compose.TailBound.from_step(step, steps, rel_max)


def profile_bracket(comp: CertifiedComposition, eps: np.ndarray) -> Bracket:
    """Certified bracket of the symmetrised δ(ε) of a composition, read off the *asymmetric* pairs.

    δ_sym(ε) = max(δ_rem(ε), δ_add(ε)): the conjugate of f_sym = conv(min(f, f⁻¹)) is the maximum of
    the conjugates (seed 000 eq 25–26), and δ_add of the remove pair is δ of its swap. Reading it off
    the asymmetric pairs avoids the cancellation of building the symmetrised curve. Both ends are
    widened by the composition's ``numerical_error`` (which bounds the error of every δ at ε ≥ 0: the
    masses with L ≥ 0 come from the Q-pass, so |Δδ| ≤ Σ|Δq|, tradeoff/compose.py steps 4 and 7) and
    clipped to [0, 1].
    """
    eps = np.asarray(eps, dtype=float)
    pess, opt = comp.pessimistic, comp.optimistic
    hi = np.maximum(pess.delta(eps), pess.swap().delta(eps)) + comp.pessimistic_error
    lo = np.maximum(opt.delta(eps), opt.swap().delta(eps)) - comp.optimistic_error
    return Bracket(np.clip(hi, 0.0, 1.0), np.clip(lo, 0.0, 1.0), Sense.UPPER)


def pair_epsilon(pess: DiscretePair, eta: float, delta: float) -> float:
    """Smallest ε with max(δ_rem, δ_add)(ε) + η ≤ δ on the pessimistic asymmetric pair (∞ if δ ≤ η)."""
    d = delta - eta
    if d <= 0.0:
        return math.inf
    eps = max(pess.epsilon(d), pess.swap().epsilon(d))
    if math.isfinite(eps) and max(float(pess.delta(eps)), float(pess.swap().delta(eps))) > d:
        return math.inf  # not certified at the reported point: let the other bounds answer
    return eps


@dataclass(frozen=True, eq=False)
class PessimisticSide:
    """The pessimistic asymmetric pair of N steps and its error bound η (tradeoff/compose.py step 7)."""

    pair: DiscretePair
    numerical_error: float


@functools.lru_cache(maxsize=16)
def pessimistic_side(sigma: float, p: float, steps: int, discretization: float | None = None) -> PessimisticSide:
    """:func:`pessimistic_pair` with its numerical error bound (only the pessimistic side is composed)."""
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return PessimisticSide(negligible_composition(sigma, p, steps).pessimistic, 0.0)
    if p >= 1.0 and steps > 1:
        return pessimistic_side(sigma / math.sqrt(steps), 1.0, 1, discretization)
    h, tail, sub = _check_grid(sigma, p, steps, discretization)
    sides, reports = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.PESSIMISTIC,))
    return PessimisticSide(sides[0], max(r.numerical_error for r in reports) + 64 * U)


def _spacing(sigma: float, p: float, steps: int, discretization: float | None, tolerance: float | None) -> float | None:
    if tolerance is None:
        return discretization
    if discretization is not None:
        raise ValueError("give either tolerance or discretization, not both")
    return discretization_for_tolerance(sigma, p, steps, tolerance)


def certified_delta(
    sigma: float, p: float, steps: int, eps, discretization: float | None = None, *, tolerance: float | None = None
) -> np.ndarray:
    """Certified upper bound of the symmetrised δ(ε) of N steps of SGM(σ, p), pessimistic side only:
    max(δ_rem, δ_add) of the pessimistic pair + its error bound η, and the Chernoff tail bound where that
    is smaller (tradeoff/compose.py steps 7 and 9). ``tolerance`` chooses the grid
    (:func:`discretization_for_tolerance`).

    >>> d = certified_delta(1.0, 0.01, 100, [0.5, 1.0])
    >>> bool(d[0] > d[1] > 0)
    True
    """
    eps = np.asarray(eps, dtype=float)
    side = pessimistic_side(sigma, p, steps, _spacing(sigma, p, steps, discretization, tolerance))
    hi = np.minimum(np.maximum(side.pair.delta(eps), side.pair.swap().delta(eps)) + side.numerical_error, 1.0)
    if np.any(hi <= TAIL_FACTOR * side.numerical_error):
        hi = np.minimum(hi, tail_bound(sigma, p, steps).delta(eps).reshape(hi.shape))
    return hi


def certified_epsilon(
    sigma: float, p: float, steps: int, delta: float, discretization: float | None = None, *, tolerance: float | None = None
) -> float:
    """Certified upper bound of ε(δ) of N steps of SGM(σ, p) — the entry point for calibration.

    min of (i) the pessimistic composed pair with its error bound η (:func:`pair_epsilon`), (ii) the
    Chernoff tail bound (:func:`tail_bound`, consulted where δ is within TAIL_FACTOR of η). Both are
    upper bounds, so their minimum is. (``SubsampledGaussian.epsilon`` adds the closed form at p = 1 and
    the Gaussian bound μ = √N/σ, which live in the mechanisms layer.)

    >>> e = certified_epsilon(1.0, 0.01, 100, 1e-5)
    >>> 0.5 < e < 1.5
    True
    """
    side = pessimistic_side(sigma, p, steps, _spacing(sigma, p, steps, discretization, tolerance))
    eps = pair_epsilon(side.pair, side.numerical_error, delta)
    if delta <= TAIL_FACTOR * side.numerical_error or not math.isfinite(eps):
        eps = min(eps, tail_bound(sigma, p, steps).epsilon(delta))
    return eps
