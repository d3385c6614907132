"""Grid choice for the certified SGM composition: the spacing h from the accuracy asked for, the memory
limits, and the checks that refuse a grid that cannot be built (for :mod:`dpcompare.composition.sgm_certified`)."""

from __future__ import annotations

import math
import numbers

from ..tradeoff.compose import DiscretizationTooFine
from .sgm_step import grid_range, loss_std

#: largest single-step grid (grid points) before the discretisation is coarsened
MAX_STEP_POINTS = 1 << 19
#: largest number of fine cells (greedy merge is a Python loop over them)
MAX_CELLS = 1 << 20
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


def auto_discretization(sigma: float, p: float, steps: int) -> float:
    """Grid spacing h = KAPPA_H·s (s = single-step loss std under Q), so that the splitting/merging of
    tradeoff/compose.py steps 2–3 adds ≈ KAPPA_H²/4 relative variance to the composed loss (independent of N).
    p = 1 is composed exactly (one Gaussian step with μ = √N/σ), with h = KAPPA_GAUSS·μ."""
    if p >= 1.0:
        return KAPPA_GAUSS * math.sqrt(steps) / sigma
    return KAPPA_H * loss_std(1.0 / sigma, p)


def estimated_fft_len(sigma: float, p: float, steps: int, h: float) -> int:
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
    if not h > 0.0:  # the single-step loss spread underflows (p ≲ 1e-300): no grid can be built
        raise DiscretizationTooFine(
            f"sampling_rate={p:g}: the privacy loss of one step is within rounding of its minimum (the grid "
            f"spacing underflows to 0); every δ(ε) ≤ 1 − (1 − p)^N ≈ {steps * p:.3g} here (the probability that "
            "the example is ever sampled)")
    if p >= 1.0:
        return h
    tail = min(1e-18, 1e-16 / steps)
    k_lo, k_hi = grid_range(1.0 / sigma, p, h, tail)
    if k_hi - k_lo > MAX_STEP_POINTS:
        h *= (k_hi - k_lo) / MAX_STEP_POINTS
    n_est = estimated_fft_len(sigma, p, steps, h) if steps > 1 else 0
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


def _too_coarse_message(sigma: float, p: float, steps: int, s: float) -> str:
    """Why the default grid would be more than MAX_COARSENING times the accurate spacing KAPPA_H·s, in one line: the
    composition window (too many steps or too little noise) or one step's own loss range (a tiny sampling rate: the
    step's losses reach far beyond their spread s), whichever needs the more coarsening."""
    h_acc = KAPPA_H * s
    n_auto = estimated_fft_len(sigma, p, steps, h_acc)
    k_lo, k_hi = grid_range(1.0 / sigma, p, h_acc, min(1e-18, 1e-16 / steps))
    head = f"sgm(sigma={sigma:g}, p={p:g}, steps={steps}) is too large to compose at useful accuracy: "
    if (k_hi - k_lo) / MAX_STEP_POINTS >= n_auto / AUTO_MAX_FFT:
        reach = max(abs(k_lo), abs(k_hi)) * h_acc
        h_min = (k_hi - k_lo) * h_acc / (4 * MAX_STEP_POINTS) * 1.01  # check_grid's bound on a given grid
        scale = 10.0 ** (math.floor(math.log10(h_min)) - 1)
        h_min = math.ceil(h_min / scale) * scale  # two significant digits, rounded up (the printed value works)
        return (head + f"one step's privacy loss reaches {reach:.3g} while its spread is {s:.3g}, so its grid would "
                f"need about {k_hi - k_lo:.3g} points, the limit is {MAX_STEP_POINTS}. What works: a coarser grid given "
                f"explicitly, discretization ≥ {h_min:.2g} (certified, looser), or a larger sampling rate or sigma; every "
                f"δ(ε) at ε ≥ 0 is at most 1 − (1 − p)^N ≈ {-math.expm1(steps * math.log1p(-p)):.3g} (the probability "
                "that the example is ever sampled: SubsampledGaussian.never_sampled_bound)")
    return (head + f"it needs an FFT of about {n_auto:.3g} points (≈ {n_auto * 48 / 1e9:.3g} GB), the limit is "
            f"{AUTO_MAX_FFT} points (≈ {AUTO_MAX_FFT * 48 / 1e9:.2g} GB). What works: fewer steps, a larger sigma, or "
            "sampling_rate=1 (a closed form at any number of steps)")


def step_tail(steps: int) -> float:
    """The single step's default tail: mass P(ℓ < g_lo), Q(ℓ > g_hi) left outside its grid, min(1e-18, 1e-16/N)
    (sized for δ(ε) down to the far tail; the tails are kept as cells, moved to ±∞ where rounding needs it,
    and charged: tradeoff/grid.py)."""
    return min(1e-18, 1e-16 / steps)


#: the largest single-step tail mass a grid accepts (:func:`check_grid`)
MAX_STEP_TAIL = 1e-3


def checked_tail(tail, low: float, high: float = MAX_STEP_TAIL, *, low_open: bool = False, note: str = "") -> float:
    """A single step's tail mass as a float: ``tail`` where it is a real number in [low, high] ((low, high] with
    ``low_open``), else ValueError naming that range (``note``: said after it). The one check of a tail given to a
    grid (:func:`check_grid`: (0, MAX_STEP_TAIL]) or to a side cut for a question (``sgm_sides``: [default, 1e-6]).

    >>> checked_tail(1e-12, 1e-20, 1e-6), checked_tail(1e-3, 0.0, low_open=True)
    (1e-12, 0.001)
    >>> checked_tail(0.0, 0.0, low_open=True)
    Traceback (most recent call last):
    ...
    ValueError: tail must be in (0, 0.001], got 0.0
    """
    real = not isinstance(tail, bool) and isinstance(tail, numbers.Real)
    if not (real and (low < tail if low_open else low <= tail) and tail <= high):  # (NaN fails too)
        rng = f"({low:g}, {high:g}]" if low_open else f"[{low:g}, {high:g}]"
        raise ValueError(f"tail must be in {rng}{note}, got {tail!r}")
    return float(tail)


def check_grid(sigma: float, p: float, steps: int, discretization: float | None,
               tail: float | None = None) -> tuple[float, float, int]:
    """(h, tail, sub) for a composition; raises DiscretizationTooFine for a grid that cannot be built.
    ``tail``: the single step's tail mass (default :func:`step_tail`; a question that tolerates more, such as
    a Δ of a given width, may pass a larger one: the tail cells are charged the same way)."""
    h = default_discretization(sigma, p, steps) if discretization is None else float(discretization)
    if discretization is None and p < 1.0:
        s = loss_std(1.0 / sigma, p)
        if h > MAX_COARSENING * KAPPA_H * s:
            raise DiscretizationTooFine(_too_coarse_message(sigma, p, steps, s))
    tail = step_tail(steps) if tail is None else checked_tail(tail, 0.0, low_open=True,
                                                              note=" (mass left outside one step's grid)")
    k_lo, k_hi = grid_range(1.0 / sigma, p, h, tail)
    if k_hi - k_lo > 4 * MAX_STEP_POINTS:
        raise DiscretizationTooFine(
            f"discretization={h:g} needs {k_hi - k_lo} grid points for one step; choose a coarser discretization"
        )
    sub = max(1, min(SUB_CELLS, MAX_CELLS // max(1, k_hi - k_lo)))
    return h, tail, sub
