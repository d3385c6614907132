"""Certified ε(δ) of the subsampled Gaussian to a requested relative accuracy: the grid is chosen from the
question (ε at one δ), not from the default that serves every δ and every trade-off point at once.

The certified pessimistic pair gives an upper bound ε_hi(δ) and the certified optimistic pair a lower
bound ε_lo(δ) (tradeoff/compose.py steps 1–8: the pessimistic pair dominates the true pair, the optimistic
one is dominated by it, each up to its floating-point error η):

    ε_hi = min{ε : max(δ_rem, δ_add)(ε) + η_pess ≤ δ}  on the pessimistic pair (≥ the true ε),
    ε_lo = a point ε with max(δ_rem, δ_add)(ε) − η_opt > δ on the optimistic pair (< the true ε),

so the true ε lies in [ε_lo, ε_hi], whose relative width (ε_hi − ε_lo)/ε_hi is the accuracy achieved.
Each gap to the truth shrinks like h² in its side's grid spacing h (the split/merge of one step adds variance
∝ h²; see ``K_EXCESS`` in :mod:`dpcompare.composition.sgm_grid`), each with its own constant, so the two ends come
from two sides on two grids (:mod:`dpcompare.composition.sgm_sides`): we start on the grids that law predicts
(REL_PESS_AT_DEFAULT, REL_OPT_AT_DEFAULT, OPT_GRID_RATIO), measure the width, and refine both once or twice with
h ← h·√(SAFETY·rel_tol/width). Every answer is certified whatever the grids; they only set how tight it is.

δ(ε) at given ε is answered the same way (:func:`delta_to_accuracy`): the certified pessimistic pair gives
δ_hi(ε) = max(δ_rem, δ_add)(ε) + η_pess ≥ the true δ and the optimistic pair δ_lo(ε) = max(…) − η_opt ≤ it
(:func:`dpcompare.composition.sgm_certified.profile_bracket`); the width δ_hi − δ_lo, which bounds the excess of
the reported δ over the truth, shrinks like h². The accuracy asked for is a width

    tol(ε) = min(rel_tol·δ_hi(ε), abs_tol),

so a small δ is answered to a relative accuracy and a moderate one (δ ≈ 0.1–0.5, where an absolute error is
what matters) to an absolute one. The first composition is the default grid h₀; the next uses h₀/k with the
integer k = ⌈k_prev·√(width/tol)⌉ (h² law), k ≤ MAX_REFINE, so that repeated questions reuse the
compositions' cache. Brackets of successive grids are intersected (each is certified); two that do not overlap
raise :class:`~dpcompare.tradeoff.intersection.BracketsDisagree` (one of them is wrong: a bug, never clamped).

The default of ``SubsampledGaussian.delta`` also asks for a grid no coarser than DEFAULT_MAX_SPACING in
privacy loss (``max_spacing``): the default grid h₀ = 0.01·s follows the single-step loss spread s, so where
s is large (p = 0.2, or σ ≤ 0.6 at p = 0.01) a fixed loss spacing of 1e-4, as dp-accounting's default is, is
several times finer than h₀ and, by the h² law, its excess many times smaller than a width target of
1.5e-7 leaves (4.5× at (σ, p, N) = (2, 0.2, 50)), even at the δ ≈ 1e-5–1e-3 of DP-SGD, where it is ~1e-6 of δ.
The default grid is always composed first: its pessimistic side is the one ε(δ) and the trade-off curve use,
and the δ reported is the minimum over the grids composed, so it is never above what those views certify
(δ(ε(δ)) ≤ δ holds across views).

``SubsampledGaussian.delta`` reports the upper end alone (``upper_only``), so it composes no optimistic side: the
excess of h₀'s pessimistic δ̂ is estimated from its pessimistic sides on h₀ and 2·h₀ (:func:`richardson_excess`,
δ̂_h − δ ≈ (δ̂_{2h} − δ̂_h)/3 by the h² law) and h₀/k is composed where the estimate, divided by k², would still
exceed EXCESS_SHARE of the width target. The estimate chooses the grid only; the δ reported is a certified upper
end as always. ``delta_bounds``/``accuracy`` report the width, so they compose both sides.

Why the default ε(δ) keeps the default grid h₀ (``SubsampledGaussian.epsilon`` without a grid) and is not
chosen from the question: the views must agree on the reported pessimistic ε, δ(ε(δ)) ≤ δ, whether δ is
read off the trade-off curve f (the composition on h₀), off the profile δ(ε) (the minimum over the grids it
composes, h₀ among them) or off ε itself. An ε certified on another grid h′ is certified for the truth, but
δ_{h₀}(ε) ≤ δ does not follow from it: the pessimistic pairs of two grids are not ordered pointwise (each
rounds the single step to its own grid points and carries its own error bound η; in the far tail a coarser
grid's smaller η even gives the smaller ε). So an ε from a coarser grid chosen for a relative width of 1e-4
(2·h₀) may lie below ε_{h₀}(δ) — at (σ, p, N) = (2, 0.01, 1000), δ = 1e-9 it is 3.2e-5 below — and the f view
would then report δ_f(ε) > δ; certifying it on h₀ as well costs the composition the coarser grid was to save (and
:func:`epsilon_to_accuracy` also cuts the single step at a tail of its own, ``sgm_sides.question_tail``).
:func:`epsilon_to_accuracy` answers ε(δ) to a requested relative accuracy for a caller that uses that view alone.

>>> a = epsilon_to_accuracy(1.0, 0.01, 1000, 1e-5, rel_tol=1e-3)
>>> a.lower <= a.epsilon and a.rel_accuracy <= 1e-3
True
>>> d = delta_to_accuracy(1.0, 0.01, 1000, 1.0, rel_tol=1e-3)
>>> bool(d.lower <= d.delta) and d.rel_accuracy <= 1e-3
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._limits import FFT_BYTES_COARSE, fft_points_that_fit
from ..tradeoff.intersection import intersect_brackets
from .sgm_certified import (
    _could_gain, certified_delta, composition_for_profile, pair_epsilon, profile_bracket, side_for_profile)
from .sgm_compose import TAIL_FACTOR, compose_subsampled_gaussian, pessimistic_side, tail_bound
from .sgm_sides import question_tail
from .sgm_grid import AUTO_MAX_FFT, NEGLIGIBLE_MU, check_grid, estimated_fft_len, default_discretization

#: relative gap ε_hi − ε_true of the pessimistic side on the default grid h₀, over ε: 0.84–1.22e-5 measured at
#: (σ, p, N, δ) = (1.01, 0.01, 10⁴, 1e-5), (0.7, 0.05, 10³, 1e-5), (1, 0.01, 10³, 1e-5), (0.6, 0.01, 10⁴, 1e-5)
#: against a bracket on h₀/4 (the default spacing keeps the relative variance the grid adds independent of N),
#: and it grows like m² on the grid m·h₀ (m = 1–3 measured). Only sets the first grid; the answer's accuracy is
#: the certified bracket.
REL_PESS_AT_DEFAULT = 1.2e-5
#: relative gap ε_true − ε_lo of the optimistic side (``sgm_sides.optimistic_side``, 2 cells per interval) on
#: h₀: 0.9e-5 at (1.01, 0.01, 10⁴, 1e-5), 0.4–2.1e-5 over the rows above; m² on m·h₀ likewise
REL_OPT_AT_DEFAULT = 1.0e-5
#: the optimistic side's grid over the pessimistic side's: the two gaps add up to the width, each ∝ its h², and the
#: optimistic side costs ≈ 2.5× the pessimistic one on the same grid (the greedy merge's Python loop, a partition of 2
#: cells per interval instead of 1), so the cost a/h_p + b/h_o at a given width c_p·h_p² + c_o·h_o² is least at
#: h_o/h_p = (b·c_p/(a·c_o))^{1/3} ≈ 1.4; measured at (1.01, 0.01, 10⁴, 1e-5) the cost is flat within the noise of a
#: shared machine for ratios 1–1.6, and 1.25 keeps the optimistic gap (the one that varies more between mechanisms)
#: below the pessimistic one's share
OPT_GRID_RATIO = 1.25
#: the first grid aims at this share of ``rel_tol`` by the law above (the constants are the typical gaps, so a
#: mechanism with a larger optimistic gap, up to 2.1e-5, is refined once)
FIRST_AIM = 0.85
#: aim below the tolerance by this factor when refining (the h² law is an approximation)
SAFETY = 0.6
#: most compositions tried before the best one is returned with the accuracy it achieved
MAX_ATTEMPTS = 4


@dataclass(frozen=True)
class EpsilonAnswer:
    """A certified bracket [lower, epsilon] of the true ε(δ), and how it was obtained."""

    epsilon: float  #: certified upper bound (what to report as the privacy guarantee)
    lower: float  #: certified lower bound
    delta: float
    discretization: float  #: grid spacing h of the pessimistic side that answered ``epsilon``
    attempts: int  #: compositions built
    #: grid spacing of the optimistic side that answered ``lower`` (``sgm_sides.optimistic_side``; NaN: none)
    lower_discretization: float = math.nan

    @property
    def rel_accuracy(self) -> float:
        """(ε_hi − ε_lo)/ε_hi: the relative accuracy achieved (∞ if no finite upper bound)."""
        if not math.isfinite(self.epsilon):
            return math.inf
        return (self.epsilon - self.lower) / self.epsilon if self.epsilon > 0 else 0.0


@dataclass(frozen=True, eq=False)
class _Sides:
    """A pessimistic side on grid ``discretization`` and an optimistic side on grid ``optimistic_discretization``:
    what :func:`_upper` and :func:`_lower` read (the fields of a ``CertifiedComposition`` they read)."""

    pessimistic_profile: object
    pessimistic_error: float
    optimistic: object
    optimistic_error: float
    discretization: float
    optimistic_discretization: float
    reports: tuple


def _compose_sides(sigma: float, p: float, steps: int, h_pess: float, h_opt: float, tail: float | None = None) -> _Sides:
    """The pessimistic side on ``h_pess`` and the optimistic side on ``h_opt``, each certified on its own, with the
    single step cut at ``tail`` (``sgm_sides``: what lies above is charged to η on the pessimistic side, merged on
    the optimistic one; None: the default tail, the pessimistic side then is ``pessimistic_side``'s, shared)."""
    from .sgm_sides import optimistic_side, pessimistic_side_cut

    pess = pessimistic_side_cut(sigma, p, steps, h_pess, tail)
    opt = optimistic_side(sigma, p, steps, h_opt, tail=tail)
    reports = tuple(r for r in (pess.report, opt.report) if r is not None)
    return _Sides(pess.profile, pess.numerical_error, opt.pair, opt.numerical_error, h_pess, h_opt, reports)


def _upper(comp, sigma: float, p: float, steps: int, delta: float) -> float:
    eps = pair_epsilon(comp.pessimistic_profile, comp.pessimistic_error, delta)
    if delta <= TAIL_FACTOR * comp.pessimistic_error or not math.isfinite(eps):
        eps = min(eps, tail_bound(sigma, p, steps).epsilon(delta))
    return eps


def _lower(comp, delta: float) -> float:
    """Largest certified point below the true ε: the optimistic pair's ε at δ + η_opt, confirmed by
    evaluating max(δ_rem, δ_add) − η_opt > δ there (0 when nothing is confirmed)."""
    opt, eta = comp.optimistic, comp.optimistic_error
    sw = opt.swap()
    e = pair_epsilon(opt, -eta, delta, sw)
    if not math.isfinite(e) or e <= 0.0:
        return 0.0
    for margin in (1e-12, 1e-9, 1e-6, 1e-3):
        x = e * (1.0 - margin)
        if max(float(opt.delta(x)), float(sw.delta(x))) - eta > delta:
            return x
    return 0.0


def epsilon_to_accuracy(sigma: float, p: float, steps: int, delta: float, rel_tol: float = 1e-4) -> EpsilonAnswer:
    """Certified bracket of ε(δ) of N steps of SGM(σ, p) whose relative width is at most ``rel_tol``
    where the grid allows it (module docstring); the width achieved is ``rel_accuracy``.

    The upper end is read off the pessimistic side on h_p, the lower end off the optimistic side on
    h_o = OPT_GRID_RATIO·h_p (each certified on its own grid); h_p is chosen by the h² law so that the predicted
    width REL_PESS_AT_DEFAULT·(h_p/h₀)² + REL_OPT_AT_DEFAULT·(h_o/h₀)² is FIRST_AIM·``rel_tol``, and both grids are
    refined together, by the same factor (to SAFETY·``rel_tol`` by the measured width), while the measured width
    exceeds ``rel_tol``. Both sides cut the single step at ``sgm_sides.question_tail`` (N·tail ≤ 1% of rel_tol·δ:
    charged to the pessimistic side's η, merged on the optimistic side, never dropped).

    ``rel_tol`` in (0, 0.5]; ``sigma`` > 0, ``p`` in (0, 1), ``steps`` ≥ 1, ``delta`` in (0, 1).
    """
    _check(sigma, p, steps, rel_tol)
    if not (isinstance(delta, (int, float)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    h_default = default_discretization(sigma, p, int(steps))
    ratio = OPT_GRID_RATIO
    law = REL_PESS_AT_DEFAULT + REL_OPT_AT_DEFAULT * ratio * ratio  # predicted width on h_p = h₀, h_o = ratio·h₀
    h = h_default * min(max(math.sqrt(FIRST_AIM * rel_tol / law), 0.5), 16.0)
    tail = question_tail(int(steps), float(delta), float(rel_tol))  # N·tail ≤ 1e-3·rel_tol·δ: charged, not dropped
    hi_best, lo_best, h_best, h_lo_best = math.inf, 0.0, h, math.nan
    attempt = 0
    spacings: list[float] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        comp = _compose_sides(float(sigma), float(p), int(steps), float(h), float(h * ratio), tail)
        hi, lo = _upper(comp, sigma, p, steps, delta), _lower(comp, delta)
        if hi < hi_best:
            h_best = h
        if lo > lo_best:
            h_lo_best = h * ratio
        # every bracket is certified, so their intersection is (disjoint ones mean a bug: tradeoff/intersection.py)
        lo_best, hi_best = (float(x) for x in intersect_brackets(
            lo_best, hi_best, lo, hi, f"ε(δ = {delta!r}) of SGM(σ={sigma!r}, p={p!r}, N={int(steps)})",
            "grid h = " + (", ".join(repr(x) for x in spacings) if spacings else "none (ε ≥ 0)"), f"grid h = {h!r}"))
        spacings.append(h)
        width = EpsilonAnswer(hi_best, lo_best, delta, h, attempt).rel_accuracy
        if width <= rel_tol:
            break
        # width ∝ h²: refine to SAFETY·rel_tol, at most 8× finer per attempt, never finer than 1/4 of the default
        factor = math.sqrt(SAFETY * rel_tol / width) if math.isfinite(width) and width > 0 else 0.125
        h_new = max(h * min(max(factor, 0.125), 0.8), 0.25 * h_default)
        # the window's FFT length is ∝ 1/h: never finer than the spacing whose FFT fits the memory budget
        # (_limits.py; it would be refused), with 10% margin for the window's and next_fast_len's rounding
        # (both sides' grids scale by h_new/h: the side with the longer FFT sets the bound)
        fft = max((r.fft_len for r in comp.reports), default=0)
        h_new = max(h_new, h * 1.1 * fft / fft_points_that_fit(FFT_BYTES_COARSE))
        if h_new >= h:
            break
        h = h_new
    return EpsilonAnswer(hi_best, lo_best, delta, float(h_best), attempt, float(h_lo_best))


# ---------------------------------------------------------------------------------------------- δ(ε)
#: default relative accuracy of δ(ε) (``SubsampledGaussian.delta`` without ``discretization``/``tolerance``)
DELTA_REL_DEFAULT = 1e-3
#: the loosest absolute accuracy of δ(ε) by default: the certified width asked for is min(DELTA_REL_DEFAULT·δ,
#: this) on a grid no coarser than DEFAULT_MAX_SPACING. At (σ, p, N) = (0.7, 0.05, 300), ε = 1–3 (δ ≈
#: 0.16–0.45), dp-accounting's default PLD accountant (value_discretization_interval 1e-4) errs by 3.2e-8–5.3e-8
#: above the truth; a width of 1.5e-7 gives an excess of ≈ 0.6× the width (≈ 6e-8 there); where the single-step
#: loss spread s is small that accountant errs by more (1.9e-7–3.0e-6 at s ≤ 0.005 on bench_tightness's rows)
DELTA_ABS_DEFAULT = 1.5e-7
#: the default δ(ε) reports the pessimistic side of a grid no coarser than this privacy-loss spacing (where the
#: default grid is coarser; ``delta_to_accuracy(max_spacing=…)``). The excess of a pessimistic δ(ε) follows the
#: same h² law for our grid and for dp-accounting's PLD accountant (``sgm_grid.K_EXCESS``: measured 0.030–0.034
#: for ours, 0.030–0.035 for its default spacing 1e-4 on the rows of benchmarks/bench_tightness.py), and at equal
#: spacing ours was 0.4–1.0× its excess on those rows; a spacing of 1.3e-4 is then ≤ 1.3²·1.0 ≈ 1.7× its excess
#: at its default. Where the default grid is finer (single-step loss std s ≤ 0.013) it answers as before.
DEFAULT_MAX_SPACING = 1.3e-4
#: finest grid the width rule refines to, as a divisor of the default spacing (bounds time and memory; the FFT
#: length limit AUTO_MAX_FFT also applies, :func:`_max_refine`)
MAX_REFINE = 16
#: finest grid the loss-spacing floor (``max_spacing``) refines to: at p = 0.2, σ = 1 the default grid is 19×
#: coarser than DEFAULT_MAX_SPACING
MAX_SPACING_REFINE = 64
#: ε where the width is within this factor of the two error bounds η_pess + η_opt are not refined (a finer
#: grid cannot shrink the floating-point part of the width; it grows with the grid's length)
ETA_FLOOR = 8.0
#: ``upper_only``: the excess of the pessimistic δ aimed at, as a share of the width target. The width rule
#: (``delta_bounds``) leaves an excess of this share of the width where σ ≥ 1 (0.63–0.66 measured on the rows of
#: benchmarks/bench_tightness.py; 0.33–0.40 at σ ≤ 0.7), so the two rules choose the same grid there
EXCESS_SHARE = 0.6


@dataclass(frozen=True, eq=False)
class DeltaAnswer:
    """A certified bracket [lower, delta] of the true δ(ε) at each ε asked, and how it was obtained."""

    delta: np.ndarray  #: certified upper bound (what to report as the privacy guarantee)
    lower: np.ndarray  #: certified lower bound
    epsilon: np.ndarray
    discretization: float  #: grid spacing h of the finest composition that answered
    attempts: int  #: compositions built (or found in the cache)

    @property
    def abs_accuracy(self) -> float:
        """max over ε of δ_hi − δ_lo: the absolute accuracy achieved (a bound on the excess of ``delta``)."""
        w = np.asarray(self.delta - self.lower, dtype=float)
        return float(np.max(w, initial=0.0))

    @property
    def rel_accuracy(self) -> float:
        """max over ε of (δ_hi − δ_lo)/δ_hi: the relative accuracy achieved (0 where δ_hi = 0)."""
        hi = np.asarray(self.delta, dtype=float)
        w = np.asarray(self.delta - self.lower, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(hi > 0.0, w / hi, 0.0)
        return float(np.max(r, initial=0.0))


def _delta_bracket(comp, sigma: float, p: float, steps: int, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(δ_lo, δ_hi) of one composition at ``eps``, with the Chernoff tail bound where the FFT's is near η."""
    comp = composition_for_profile(comp, eps)  # with the far-tail passes where ``eps`` needs them
    b = profile_bracket(comp, eps)
    hi, lo = np.asarray(b.pessimistic, dtype=float), np.asarray(b.optimistic, dtype=float)
    if np.any(hi <= TAIL_FACTOR * comp.pessimistic_error_at(eps)):
        hi = np.minimum(hi, tail_bound(sigma, p, steps).delta(eps).reshape(hi.shape))
    return lo, hi


def _max_refine(sigma: float, p: float, steps: int, h0: float, most: int = MAX_REFINE) -> int:
    """Largest k ≤ ``most`` with the composition at h₀/k within the automatic FFT limit."""
    n0 = estimated_fft_len(sigma, p, steps, h0) if steps > 1 else 1
    return int(max(1, min(most, AUTO_MAX_FFT // max(n0, 1))))


def delta_to_accuracy(
    sigma: float, p: float, steps: int, eps, rel_tol: float = DELTA_REL_DEFAULT, abs_tol: float = 1.0,
    *, upper_only: bool = False, max_spacing: float | None = None,
) -> DeltaAnswer:
    """Certified bracket of δ(ε) of N steps of SGM(σ, p) at each ``eps`` whose width is at most
    min(rel_tol·δ, abs_tol) where the grid allows it (module docstring); the width achieved is
    ``abs_accuracy`` / ``rel_accuracy``.

    ``upper_only``: for a caller that reports δ_hi alone (``SubsampledGaussian.delta``): no optimistic side is
    composed; the excess of the default grid's pessimistic δ is estimated from its pessimistic sides on h₀ and 2·h₀
    (:func:`richardson_excess`), and the finer grid h₀/k (k from that estimate and ``max_spacing``, one step)
    composes the pessimistic side alone. ``delta`` is certified as always (the minimum of certified upper ends);
    only the choice of k rests on the estimate. ``lower`` is then 0 (no lower end is computed; where 2·h₀ cannot be
    built or μ = √N/σ is negligible, the width is measured as without ``upper_only`` and ``lower`` is the default grid's).

    ``max_spacing``: where the default grid h₀ is coarser, the grid is refined to h₀/k with k ≥ ⌈h₀/max_spacing⌉
    (within MAX_SPACING_REFINE and the FFT limit) whatever the width: an accuracy stated as a privacy-loss spacing, as
    another accountant's is (``DEFAULT_MAX_SPACING``).

    ``rel_tol`` in (0, 0.5]; ``abs_tol`` in (0, 1]; ``max_spacing`` > 0 or None; ``sigma`` > 0, ``p`` in (0, 1),
    ``steps`` ≥ 1, ``eps`` real.
    """
    _check(sigma, p, steps, rel_tol)
    if isinstance(abs_tol, bool) or not isinstance(abs_tol, (int, float)) or not 0.0 < abs_tol <= 1.0:
        raise ValueError(f"abs_tol must be in (0, 1], got {abs_tol!r}")
    if max_spacing is not None and (isinstance(max_spacing, bool) or not isinstance(max_spacing, (int, float))
                                    or not 0.0 < max_spacing < math.inf):
        raise ValueError(f"max_spacing must be a positive number or None, got {max_spacing!r}")
    e = np.asarray(eps, dtype=float)
    if np.any(np.isnan(e)):
        raise ValueError("eps must be a real number or ±inf, got NaN")
    h0 = default_discretization(sigma, p, int(steps))
    k_cap = _max_refine(sigma, p, int(steps), h0)  # the width rule's finest grid
    # the grid floor asked for: h ≤ max_spacing (1 where the default grid is already as fine)
    k_floor = 1 if max_spacing is None else int(min(_max_refine(sigma, p, int(steps), h0, MAX_SPACING_REFINE),
                                                    max(1, math.ceil(h0 / max_spacing * (1.0 - 1e-12)))))
    k_max = max(k_cap, k_floor)
    if upper_only and math.sqrt(steps) / sigma > NEGLIGIBLE_MU:
        up = _upper_end(float(sigma), float(p), int(steps), e, h0, rel_tol, abs_tol, k_cap, k_floor)
        if up is not None:
            return up
    quick = _pessimistic_and_max_test(float(sigma), float(p), int(steps), e, h0, rel_tol, abs_tol, k_floor > 1)
    if quick is not None:
        return quick
    k, attempt = 1, 0
    lo_best = hi_best = None
    h_used = h0
    spacings: list[float] = []

    def what() -> str:
        return f"δ(ε) of SGM(σ={sigma!r}, p={p!r}, N={int(steps)})"

    def grids() -> str:
        return "grid h = " + ", ".join(repr(x) for x in spacings)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:  # k = 1 is the default grid: the cache entry every other default question shares
            comp = compose_subsampled_gaussian(float(sigma), float(p), int(steps), None if k == 1 else h0 / k)
        except (ValueError, MemoryError):  # too fine to build here: the coarser grids' bracket stands
            if k == 1:  # the default grid's refusal is the mechanism's (its message names the limit)
                raise
            attempt -= 1
            break
        lo, hi = _delta_bracket(comp, sigma, p, int(steps), e)
        h_used = comp.discretization
        if hi_best is None:
            lo_best, hi_best = lo, hi
        else:  # every bracket is certified: intersect (disjoint ones mean a bug: tradeoff/intersection.py)
            lo_best, hi_best = intersect_brackets(lo_best, hi_best, lo, hi, what(), grids(), f"grid h = {h_used!r}", at=e)
        spacings.append(h_used)
        width = hi_best - lo_best
        floor = ETA_FLOOR * (comp.pessimistic_error + comp.optimistic_error)
        tol = np.maximum(np.minimum(rel_tol * hi_best, abs_tol), floor)
        short = np.isfinite(e) & (width > tol)
        if ((not np.any(short) or k >= k_cap) and k >= k_floor) or k >= k_max:
            break
        k_width = k
        if np.any(short) and k < k_cap:
            ratio = float(np.max(width[short] / tol[short]))
            k_width = min(k_cap, max(k + 1, math.ceil(k * math.sqrt(ratio))))
        k = min(k_max, max(k_width, k_floor))
        if upper_only:
            try:  # the pessimistic side alone, read as every certified δ is (per-ε error bound, tail bound)
                hi = certified_delta(float(sigma), float(p), int(steps), e, h0 / k)
            except (ValueError, MemoryError):
                break
            lo_best, hi_best = intersect_brackets(lo_best, hi_best, np.zeros_like(lo_best), np.clip(hi, 0.0, 1.0), what(),
                                                  grids(), f"pessimistic side on grid h = {h0 / k!r}", at=e)
            h_used, attempt = h0 / k, attempt + 1
            break
    assert lo_best is not None and hi_best is not None  # the default grid always builds (or raises)
    return DeltaAnswer(hi_best, lo_best, e, float(h_used), max(attempt, 1))


def richardson_excess(sigma: float, p: float, steps: int, eps: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(estimated excess of the pessimistic δ̂_h(ε) over the true δ(ε), its error bound η_h(ε)) on grid ``h``.

    The pessimistic δ̂_h(ε) = max(δ_rem, δ_add)(ε) of the composed pair exceeds the truth by ≈ c(ε)·h² (the split of
    one step adds a variance ∝ h², ``sgm_grid.K_EXCESS``), so δ̂_{2h} − δ̂_h ≈ 3c·h² and

        δ̂_h − δ ≈ (δ̂_{2h} − δ̂_h)/3    (Richardson extrapolation; L. F. Richardson, "The deferred approach to the
                                        limit", Phil. Trans. R. Soc. A 226, 1927)

    (≥ 0: a negative difference, floating-point noise, reads as 0). It composes the pessimistic side on 2h (a
    quarter to a half of h's cost) and on h (cached). An estimate, not a bound: it only chooses a grid; what
    is reported stays a certified upper end.

    >>> x, eta = richardson_excess(1.0, 0.01, 300, np.array([1.0]), 2.5e-4)
    >>> bool(0.0 < x[0] < 1e-6 and 0.0 < eta[0] < 1e-8)
    True
    """
    side, coarse = pessimistic_side(sigma, p, steps, h), pessimistic_side(sigma, p, steps, 2.0 * h)
    d_h = np.maximum(side.profile.delta(eps), side.swapped.delta(eps))
    d_2h = np.maximum(coarse.profile.delta(eps), coarse.swapped.delta(eps))
    return np.maximum(d_2h - d_h, 0.0) / 3.0, side.error_at(eps)


#: ``upper_only``: on the finer grid h₀/k the far-tail passes (tradeoff/compose.py step 6″) are built only where they
#: could lower its certified δ by more than this share of the excess aimed at (there only the answer's accuracy
#: depends on them, not the views' agreement; without them the side is certified as well)
FAR_TAIL_SHARE = 0.1


#: ``upper_only``: h₀'s far-tail passes are built only where they could lower its certified δ by more than this share
#: of the width target min(rel_tol·δ, abs_tol) (:func:`far_tail_slack`): the excess aimed at is EXCESS_SHARE of it,
#: so leaving them adds at most this share to it (0.8 of the width target in all, by the estimate x₀)
H0_FAR_TAIL_SHARE = 0.2


def far_tail_slack(rel_tol: float = DELTA_REL_DEFAULT, abs_tol: float = DELTA_ABS_DEFAULT):
    """slack(δ̂) = H0_FAR_TAIL_SHARE·min(rel_tol·δ̂, abs_tol): what ``delta_to_accuracy(upper_only=True)``
    (:func:`_upper_end`) lets h₀'s far-tail passes leave at a certified δ̂(ε) of h₀ (``sgm_certified.side_for_profile``'s
    ``slack``). The passes lower a certified δ(ε) by at most 2·I(ε) + D (``sgm_certified._could_gain``); where that
    is within this slack, leaving them costs at most 0.2 of the width target min(rel_tol·δ, abs_tol) on top of the
    EXCESS_SHARE = 0.6 of it the grid aims at, and they are not built. At (σ, p, N) = (1, 0.001, 10⁴), ε = 0.48,
    δ ≈ 8.9e-6: 2·I + D = 4.2e-10 against a slack of 1.8e-9 and an estimated excess of 9.6e-10; they cost 0.8 s CPU
    there, twice the pessimistic side; at (0.6, 0.001, 10⁴), ε = 2.5, δ ≈ 8.6e-6: 6.8e-10 against 1.7e-9. The ε(δ)
    of the same mechanism passes the same slack to ``sgm_certified.side_for_epsilon``, so that δ(ε(δ)) ≤ δ holds
    across views.

    >>> bool(far_tail_slack()(np.array([1e-5]))[0] == H0_FAR_TAIL_SHARE * 1e-8)
    True
    """

    def slack(d: np.ndarray) -> np.ndarray:
        return H0_FAR_TAIL_SHARE * np.minimum(rel_tol * np.asarray(d, dtype=float), abs_tol)

    return slack


def _read_upper(side, sigma: float, p: float, steps: int, e: np.ndarray) -> np.ndarray:
    """Certified δ_hi(ε) of one pessimistic side, read as :func:`certified_delta` reads it: max(δ_rem, δ_add) + η(ε),
    at most 1, and the Chernoff tail bound where that is within TAIL_FACTOR of η(ε)."""
    eta = side.error_at(e)
    hi = np.minimum(np.maximum(side.profile.delta(e), side.swapped.delta(e)) + eta, 1.0)
    if np.any(hi <= TAIL_FACTOR * eta):
        hi = np.minimum(hi, tail_bound(sigma, p, steps).delta(e).reshape(hi.shape))
    return np.clip(hi, 0.0, 1.0)


def _upper_end(sigma: float, p: float, steps: int, e: np.ndarray, h0: float, rel_tol: float, abs_tol: float,
               k_cap: int, k_floor: int) -> DeltaAnswer | None:
    """``delta_to_accuracy(upper_only=True)`` without the optimistic side (None where the grid 2·h₀ cannot be built:
    the caller then measures the width as the other views do).

    Choice of grid: the excess of the default grid's δ̂ is x₀(ε) (:func:`richardson_excess`) and h₀/k has ≈ x₀/k².
    The excess aimed at is EXCESS_SHARE·min(rel_tol·δ_hi, abs_tol), never below ETA_FLOOR·2·η_h₀(ε) (the width
    rule's floor with η_opt ≈ η_pess: no grid shrinks the floating-point part), so k_width = ⌈√(x₀/target)⌉ ≤ k_cap
    where x₀ exceeds the target, and k = max(k_width, k_floor).

    δ reported: the minimum of the certified upper ends of h₀ and h₀/k. The default grid's is the one ε(δ) and f
    read (with its far-tail passes where ``sgm_certified.side_for_profile`` asks for them), so the views agree,
    δ(ε(δ)) ≤ δ. Where h₀/k's certified δ lies at or below what the passes could bring h₀'s down to at every ε
    (δ_hi,h₀ − 2·I(ε) − D, ``sgm_certified._could_gain``), the minimum is below h₀'s with the passes too, and they
    are not built; nor where they could lower h₀'s by no more than :func:`far_tail_slack` (0.2 of the width
    target), a rule ε(δ) shares. Where they are built already (cached on the side) they are read at no cost."""
    check_grid(sigma, p, steps, None)  # the default grid's refusal is the mechanism's (its message names the limit)
    side0 = pessimistic_side(sigma, p, steps, h0)
    hi0 = _read_upper(side0, sigma, p, steps, e)  # certified; h₀'s far-tail passes decided below
    k = k_floor
    target = EXCESS_SHARE * np.minimum(rel_tol * hi0, abs_tol)
    fin0 = np.isfinite(e)
    floor0 = np.maximum(target, ETA_FLOOR * 2.0 * side0.error_at(e))
    if k_cap > k_floor and np.all(hi0[fin0] <= floor0[fin0]):
        # the certified δ is itself within the excess aimed at (at small p the η floor exceeds it): the excess of any
        # grid is below it, no finer grid is asked for, and the 2·h₀ composition of the estimate is not built
        k_cap = k_floor
    if k_cap > k_floor:  # else the loss-spacing floor is at least as fine as any grid the width could ask for
        try:
            x0, eta = richardson_excess(sigma, p, steps, e, h0)
        except (ValueError, MemoryError):
            return None
        target = np.maximum(target, ETA_FLOOR * 2.0 * eta)
        short = np.isfinite(e) & (x0 > target)
        if np.any(short):
            k_width = min(k_cap, max(2, math.ceil(math.sqrt(float(np.max(x0[short] / target[short]))))))
            k = max(k, k_width)
    hi, attempts, h_used = hi0, 1, h0
    if k > 1:
        try:  # the pessimistic side alone, read as every certified δ is (per-ε error bound, tail bound)
            side = pessimistic_side(sigma, p, steps, h0 / k)
        except (ValueError, MemoryError):  # too fine to build here: the default grid's certified δ stands
            side = None
        if side is not None:
            hk = _read_upper(side, sigma, p, steps, e)
            if _could_gain(side, e, hk - FAR_TAIL_SHARE * target):
                hk = np.minimum(hk, _read_upper(side.with_far_tails, sigma, p, steps, e))
            hi, attempts, h_used = np.minimum(hi0, hk), 2, h0 / k
    fin = np.isfinite(e)
    if side0.far_tail_builder is not None and "with_far_tails" in side0.__dict__:
        # h₀'s passes are built already (by ε(δ), ``delta_bounds`` or δ at another ε): reading them costs nothing
        hi = np.minimum(hi, _read_upper(side0.with_far_tails, sigma, p, steps, e))
    elif side0.far_tail_builder is not None and np.any(fin) and _could_gain(side0, e[fin], np.nextafter(hi[fin], -1.0)):
        # h₀'s passes could certify a δ below the answer at some ε: read h₀ as ε(δ) reads it, with the passes only
        # where they could lower δ by more than the slack the accuracy asked for leaves (far_tail_slack)
        slack = far_tail_slack(rel_tol, abs_tol)
        hi = np.minimum(hi, _read_upper(side_for_profile(side0, e, slack), sigma, p, steps, e))
    return DeltaAnswer(hi, np.zeros_like(hi), e, float(h_used), attempts)


def delta_for_tolerance(sigma: float, p: float, steps: int, eps, tolerance: float) -> DeltaAnswer | None:
    """Certified upper end of δ(ε) of N steps of SGM(σ, p) on a grid chosen for the width target ``tolerance`` at
    the ε asked (``sgm_certified.certified_delta(…, tolerance=τ)``), or None where this route does not apply (p = 1,
    μ = √N/σ negligible, or the grid 2·h₀ cannot be built: the caller then composes the worst-case grid of
    ``sgm_grid.discretization_for_tolerance``).

    :func:`_upper_end` with the width target min(δ_hi, τ) (``rel_tol`` 1: a τ above δ itself asks for δ to within
    itself): h₀'s pessimistic side, Richardson's estimate x₀(ε) of its excess (:func:`richardson_excess`, at the ε
    asked), and h₀/k with k = ⌈√(x₀/(EXCESS_SHARE·τ))⌉, k ≤ MAX_SPACING_REFINE and within the FFT limit; δ is the
    minimum of the certified upper ends composed. ``discretization_for_tolerance`` instead assumes the worst-case
    excess K_EXCESS·√N·h²/s (its ∂δ/∂μ ≤ 1/√(2π)) at every ε, which over-refines where δ is small (δ ≈ 1e-5–1e-3:
    ∂δ/∂μ is far below its maximum there); like it, the estimate only chooses the grid (the excess aimed at is
    ≈ 0.6·τ, not certified), the δ returned is certified whatever the grid.

    >>> a = delta_for_tolerance(1.0, 0.01, 300, [1.0], 1e-8)
    >>> bool(0.0 < a.delta[0] < 1e-2) and a.discretization <= default_discretization(1.0, 0.01, 300)
    True
    """
    e = np.asarray(eps, dtype=float)
    if p >= 1.0 or not math.sqrt(steps) / sigma > NEGLIGIBLE_MU:
        return None
    h0 = default_discretization(float(sigma), float(p), int(steps))
    k_cap = _max_refine(float(sigma), float(p), int(steps), h0, MAX_SPACING_REFINE)
    return _upper_end(float(sigma), float(p), int(steps), e, h0, 1.0, float(tolerance), k_cap, 1)


def _pessimistic_and_max_test(sigma: float, p: float, steps: int, e: np.ndarray, h0: float, rel_tol: float,
                              abs_tol: float, floor_grid: bool = False) -> DeltaAnswer | None:
    """The default grid's bracket without its optimistic side, where a closed-form lower end closes the width: the
    upper end is h₀'s pessimistic side read as :func:`_delta_bracket` reads it (the same certified δ the other views
    read, with the far-tail passes where ``side_for_profile`` asks for them), the lower end the maximum-coordinate
    test (``sgm_max_test.max_test_lower_bound``, certified); None where their gap exceeds the width asked,
    max(min(rel_tol·δ_hi, abs_tol), ETA_FLOOR·2·η_h₀) at some finite ε (the width rule's floor with η_opt ≈ η_pess,
    as in :func:`_upper_end`): the caller then composes both sides as before. ``floor_grid``: a grid finer than h₀ is
    asked for (``max_spacing``); it is skipped only where the gap is within min(rel_tol·δ_hi, abs_tol) itself (the
    excess of δ_hi over the truth is then certified below what the finer grid was to achieve; no η floor).

    At small p the test is nearly optimal and η (≥ ETA_FLOOR·2·η > P(ever sampled)·rel_tol) dominates, so the
    optimistic side — a greedy merge over every cell of a grid of 4e5–5e5 points at (σ, p, N) = (1, 1e-8, 1000)
    and (0.0367, 9.9e-8, 18), 2–6 s — is not built."""
    from .sgm_max_test import max_test_lower_bound

    check_grid(sigma, p, steps, None)  # the default grid's refusal is the mechanism's
    lo = max_test_lower_bound(sigma, p, steps, e)
    fin = np.isfinite(e)
    if not np.any(fin & (lo > 0.0)):
        return None  # the test certifies nothing here: the optimistic side is the lower end
    side0 = pessimistic_side(sigma, p, steps, h0)
    # δ(ε) ≤ P(ever sampled) at ε ≥ 0 (``never_sampled_upper``); h₀'s far-tail passes are built only where they could
    # certify less than that and h₀'s plain side (so the δ reported is never above what the other views read)
    cap = np.where(e >= 0.0, never_sampled_upper(p, steps), 1.0)
    hi = np.minimum(_read_upper(side0, sigma, p, steps, e), cap)
    if side0.far_tail_builder is not None and np.any(fin) and _could_gain(side0, e[fin], np.nextafter(hi[fin], -1.0)):
        hi = np.minimum(hi, _read_upper(side_for_profile(side0, e), sigma, p, steps, e))
    # both ends are certified: a test bound above the pessimistic side's δ is a bug, not rounding to hide
    lo, hi = intersect_brackets(lo, np.full_like(lo, np.inf), np.zeros_like(hi), hi, "δ(ε)",
                                "maximum-coordinate test", f"pessimistic side h = {h0:.3g}", at=e)
    tol = np.minimum(rel_tol * hi, abs_tol)
    if not floor_grid:
        tol = np.maximum(tol, ETA_FLOOR * 2.0 * side0.numerical_error)
    if np.any(fin & (hi - lo > tol)):
        return None
    return DeltaAnswer(hi, lo, e, float(h0), 1)


def never_sampled_upper(p: float, steps: int) -> float:
    """1 − (1 − p)^N rounded up: δ(ε) ≤ δ(0) = TV ≤ P(the example is ever sampled) at every ε ≥ 0 (a coupling: on the
    event that it never is, both outputs have the same law); −expm1(N·log1p(−p)) is within 3 elementary-function
    roundings of it (``SubsampledGaussian.never_sampled_bound``, whose value this is).

    >>> never_sampled_upper(1e-8, 1000) > 9.99995e-6
    True
    """
    from .. import directed_rounding as rnd

    if p >= 1.0:  # sampled at every step (log1p(−1) is a domain error)
        return 1.0
    return float(min(rnd.upper(-math.expm1(steps * math.log1p(-p)), 3.0 * rnd.ELEM), 1.0))


def _check(sigma, p, steps, rel_tol) -> None:
    if not (isinstance(rel_tol, (int, float)) and not isinstance(rel_tol, bool) and 0.0 < rel_tol <= 0.5):
        raise ValueError(f"rel_tol must be in (0, 0.5], got {rel_tol!r}")
    if not (isinstance(sigma, (int, float)) and sigma > 0.0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")
    if not (isinstance(p, (int, float)) and 0.0 < p < 1.0):
        raise ValueError(f"p must be in (0, 1) (p = 1 has a closed form), got {p!r}")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
