"""Δ between numeric (composed) mechanisms to the accuracy the question needs: the grid is chosen from Δ.

Δ(A‖B) = max_π (R_A(π) − R_B(π)) ([BCP] Def 1, Cor 1) of two pair-backed mechanisms is read off their merged
breakpoints (``delta.delta_pairs``): lower = Δ(A_pess‖B_opt), upper = Δ(A_opt‖B_pess), each widened by the
mechanisms' floating-point error η (``delta.widen``). Both ends are certified on *any* privacy-loss grid; the
grid spacing h only sets how far apart they are. For the Poisson-subsampled Gaussian the width shrinks
like h² (the split/merge of one step adds variance ∝ h²: ``composition/sgm_grid.py``, ``K_EXCESS``), and it is
set by the two mechanisms' Bayes-error brackets near the maximiser π* only (R_A − R_B is maximal there). So:

1. Probe: compose both mechanisms on a grid PROBE_FACTOR× coarser than their defaults and compute the
   certified bracket [L, U] of Δ in both directions, and π*.
2. Target width per direction: ``accuracy`` if given (absolute), else max(REL_DEFAULT·U, ABS_DEFAULT); never
   below ETA_FLOOR·η (the floating-point part of the width, which a finer grid cannot shrink).
3. If a direction is wider than its target, split its width between A and B in proportion to their
   Bayes-error bracket widths at its π*, w = W_A + W_B, and choose the new spacings c_A, c_B (as multiples
   of the current ones) with W_A·c_A² + W_B·c_B² = SAFETY·target at the least cost Σ 1/c_i (the part of a
   composition's time that depends on the grid is ∝ 1/h): c_i ∝ W_i^(−1/3) (Lagrange), each at most 8× finer
   per step. Compose there and repeat (MAX_ATTEMPTS compositions in all). With ``decide`` (``compare``: the
   Blackwell verdict's tolerance) a bracket that straddles that level also asks for half its width.
   Without ``accuracy`` no grid finer than the mechanism's default is used (the default question never
   costs more than the default grid); with it, down to 1/MAX_REFINE of the default (within the FFT limit).

Off the default grid, each single step leaves more of its tails outside its grid than the far-tail δ(ε)
questions need: at most 1/10 of the smallest width asked (ABS_DEFAULT, or ``accuracy``) over both mechanisms
(``delta_truncation``; the default grid keeps the default truncation, its composition shared with the other
views).

Every bracket computed is certified, so their intersection is: the result is [max L, min U] with the
estimate of the finest grid clamped into it (:func:`intersect`; disjoint brackets would mean one of them is
wrong, and raise :class:`BracketsDisagree`). The bracket reported is the accuracy achieved.

Δ^Ψ (``hyperprior``; [BCP] §5): Δ^Ψ(A‖B) = max_π Ψ(π)·(R_A(π) − R_B(π)) is bracketed by the certified sweep
over π (``prior_sweep``), which stops once its width is at most 2·Ψ̃(π*)·(w_A + w_B)(π*) (w: the Bayes-error
bracket widths at the maximiser π*, Ψ̃ the folded density) or ``tol``, then widened by η. So its width is a
Ψ̃(π*)-weighted sum of the two mechanisms' widths *at π** — the same h² law and the same split between A and B
as for Δ (the factor Ψ̃(π*) is common to both). Steps 1–3 apply with the sweep in place of the merge, except
that the first grid is the default one (``WEIGHTED_PROBE_FACTOR``: the sweep, not the composition, is the
cost), that a bracket whose width is not set by the grids (Δ^Ψ ≈ 0, or η·Ψ̃ where Ψ̃ is large:
``GRID_BOUND``) is not refined, and that ``decide`` does not apply. A Δ^Ψ can exceed 1; ``accuracy`` is still
an absolute width of its bracket.

>>> from dpcompare.mechanisms.sgm import SubsampledGaussian
>>> r = delta_accuracy(SubsampledGaussian(1.0, 0.1, 10), SubsampledGaussian(1.0, 0.2, 10))
>>> r.ab.lower <= r.ab.value <= r.ab.upper and r.ab.width <= r.target[0]
True
>>> from dpcompare.comparison.hyperprior import BetaPrior
>>> w = delta_accuracy(SubsampledGaussian(1.0, 0.1, 10), SubsampledGaussian(1.0, 0.2, 10),
...                    hyperprior=BetaPrior(2.0, 2.0), accuracy=1e-6)
>>> w.ab.width <= 1e-6 < w.ab.lower
True
"""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ..mechanisms.base import Mechanism
from ..tradeoff.intersection import BracketsDisagree, intersect_brackets
from .delta import DEFAULT_TOL, DeltaResult, delta_pairs, widen, widening
from .prior_sweep import FoldedWeight, MaxTarget, sweep

if TYPE_CHECKING:  # the hyper-prior module loads where a hyper-prior is given (``as_hyperprior``)
    from .hyperprior import HyperPrior

__all__ = ["BracketsDisagree", "DeltaAccuracy", "delta_accuracy", "intersect", "regrid_spacing"]

#: default relative accuracy of Δ: the certified width asked for is REL_DEFAULT·Δ_upper (Δ to ~3 digits)
REL_DEFAULT = 1e-3
#: default absolute accuracy of Δ (a difference of Bayes errors): a Δ below ~1e-3 is not resolved further than
#: this by default (a regret of one guess in a million)
ABS_DEFAULT = 1e-6
#: the probe composes on a grid this many times coarser than the default (≈ 1/4–1/5 of the default's CPU at
#: (σ, p, N) = (1, 0.01, 10³), the h² law already holding there: width 1.49e-4 at 8×, 9.3e-6 at 2×)
PROBE_FACTOR = 8.0
#: aim below the target by this factor (the h² law is an approximation)
SAFETY = 0.6
#: compositions (per mechanism) before the best bracket is returned with the accuracy it achieved
MAX_ATTEMPTS = 3
#: with an explicit ``accuracy``: finest grid, as a divisor of the default spacing
MAX_REFINE = 16
#: a width within this factor of η_A + η_B (+ rounding) is not refined: a finer grid cannot shrink it
ETA_FLOOR = 8.0
#: a spacing within this factor of the default is the default (its composition is shared with the other views)
SNAP = 1.15
#: Δ^Ψ's first grid, as a multiple of the default spacing: the default itself, not a coarse probe — the sweep
#: over π costs ~2 s CPU at (σ, p, N) = (1, 0.01, 10³) on any grid, the composition 0.1–0.4 s, so a probe
#: would add a sweep to save part of a composition (``benchmarks/bench_delta_accuracy.py --weighted``)
WEIGHTED_PROBE_FACTOR = 1.0
#: a Δ^Ψ bracket wider than this many times its grid part (2·Ψ̃(π*)·(w_A + w_B)(π*) + 2η, the sweep's
#: stopping width) is set by something a finer grid cannot shrink (η·Ψ̃ where Ψ̃ is large, a Δ^Ψ ≈ 0), and is
#: reported as achieved instead of refined
GRID_BOUND = 4.0


class DeltaAccuracy:
    """Δ(A‖B) and Δ(B‖A), certified, on grids chosen so that each bracket's width meets ``target``.

    ``ab``/``ba``: the results (their ``lower``/``upper`` are the accuracy achieved); ``target``: the width
    asked for per direction; ``factors``: the final grid spacing of A and B as multiples of their default
    spacings (None: not regridded, an exact or explicitly gridded mechanism); ``attempts``: compositions
    built; ``mechanisms``: the mechanisms on the finest grids (for the rest of a comparison).

    Internal (read by ``compare``), so a plain class with ``__slots__``: it costs a command's start-up ≈ 0.1 M
    instructions to define where a frozen dataclass of six fields costs ≈ 4 M.
    """

    __slots__ = ("ab", "ba", "target", "factors", "attempts", "mechanisms")

    def __init__(self, ab: DeltaResult, ba: DeltaResult, target: tuple[float, float],
                 factors: tuple[float | None, float | None], attempts: int,
                 mechanisms: tuple[Mechanism, Mechanism]) -> None:
        self.ab, self.ba, self.target, self.factors, self.attempts, self.mechanisms = (ab, ba, target, factors,
                                                                                       attempts, mechanisms)

    def __repr__(self) -> str:
        return (f"DeltaAccuracy(ab={self.ab!r}, ba={self.ba!r}, target={self.target!r}, factors={self.factors!r}, "
                f"attempts={self.attempts!r}, mechanisms={self.mechanisms!r})")

    @property
    def met(self) -> bool:
        """Whether both brackets are as narrow as their targets."""
        return self.ab.width <= self.target[0] and self.ba.width <= self.target[1]


def regrid_spacing(m: Any) -> float | None:
    """The default grid spacing of a numeric mechanism whose grid may be chosen from the question (a
    ``SubsampledGaussian`` with p < 1 and neither ``discretization`` nor ``tolerance`` given), else None."""
    sgm = sys.modules.get("dpcompare.mechanisms.sgm")  # not loaded: m is no SubsampledGaussian (and a closed-form
    if sgm is None or type(m) is not sgm.SubsampledGaussian or not m.grid_from_question:  # compare loads nothing)
        return None
    from ..composition.sgm_grid import NEGLIGIBLE_MU, check_grid

    if math.sqrt(m.steps) / m.sigma <= NEGLIGIBLE_MU:
        return None
    try:  # the default grid's own checks: a mechanism it refuses is refused by the default path, with its message
        return float(check_grid(m.sigma, m.sampling_rate, m.steps, None)[0])
    except ValueError:
        return None


def _finest_factor(m: Any, h0: float, refine: bool) -> float:
    """Smallest spacing factor allowed: 1 (the default) unless refining, then 1/k with k ≤ MAX_REFINE and the
    FFT within the automatic limit (the composition would otherwise be refused)."""
    if not refine:
        return 1.0
    from ..composition.sgm_grid import AUTO_MAX_FFT, estimated_fft_len

    n0 = estimated_fft_len(m.sigma, m.sampling_rate, m.steps, h0) if m.steps > 1 else 1
    return 1.0 / max(1.0, min(float(MAX_REFINE), AUTO_MAX_FFT / max(n0, 1)))


def _at(m: Mechanism, h0: float | None, c: float | None, width: float | None = None) -> Mechanism:
    """``m`` on spacing h0·c (itself on its default grid, whose composition the other views share); with
    ``width`` (a Δ bracket that wide is allowed) its single step truncated accordingly (``delta_truncation``)."""
    if h0 is None or c is None or c == 1.0:
        return m
    if width is None:
        return dataclasses.replace(m, discretization=h0 * c)
    from .delta_truncation import truncated

    return truncated(m, h0 * c, width)


def _factor(m: Any, h0: float) -> float:
    """The spacing of ``m`` as a multiple of its default ``h0`` (1 when it is on its default grid)."""
    return 1.0 if m.discretization is None else float(m.discretization) / h0


def _width_at(m: Mechanism, pi: float) -> float:
    """Width of the certified Bayes-error bracket of ``m`` at π and 1 − π (R is symmetrised)."""
    x = np.array([pi, 1.0 - pi]) if 0.0 < pi < 1.0 else np.array([0.5])
    lo, hi = m.bayes_error_interval(x)
    return float(np.max(np.asarray(hi) - np.asarray(lo)))


def check_accuracy(accuracy: Any) -> float | None:
    """``accuracy`` validated: None, or an absolute width in (0, 1) (of Δ's bracket, or of Δ^Ψ's with a
    hyper-prior)."""
    if accuracy is None:
        return None
    if isinstance(accuracy, bool) or not isinstance(accuracy, (int, float)) or not (0.0 < accuracy < 1.0):
        raise ValueError(f"accuracy must be a number in (0, 1) (an absolute width of Δ's bracket) or None, "
                         f"got {accuracy!r}")
    return float(accuracy)


def delta_accuracy(a: Mechanism, b: Mechanism, *, accuracy: float | None = None,
                   decide: float | None = None, hyperprior: HyperPrior | None = None,
                   tol: float = DEFAULT_TOL) -> DeltaAccuracy | None:
    """(Δ(A‖B), Δ(B‖A)) certified, each to the width the question needs (module docstring), or None when
    neither mechanism's grid can be chosen (``regrid_spacing``) or, without a hyper-prior, one of them has no
    discrete pairs (the prior sweep of ``delta_divergences`` answers those).

    ``accuracy``: the absolute bracket width wanted in (0, 1) (default: max(1e-3·Δ, 1e-6), no grid finer than
    the default); ``decide``: a level whose side each bracket must be on where the grid allows (the Blackwell
    verdict's tolerance; unweighted Δ only). ``hyperprior``: the weighted Δ^Ψ instead (section "Δ^Ψ" of the
    module docstring), its sweep run to ``tol``.
    """
    accuracy = check_accuracy(accuracy)
    h0 = (regrid_spacing(a), regrid_spacing(b))
    if h0 == (None, None):
        return None
    ms = (a, b)
    weight = None if hyperprior is None else FoldedWeight(hyperprior)
    for m, h in zip(ms, h0):
        if weight is None and h is None and m.pairs() is None:
            return None
    refine = accuracy is not None
    c_min = tuple(None if h is None else _finest_factor(m, h, refine) for m, h in zip(ms, h0))
    probe = PROBE_FACTOR if weight is None else WEIGHTED_PROBE_FACTOR
    c: list[float | None] = [None if h is None else probe for h in h0]
    # Δ may be this wide at least: its step truncation may take a share of it (not Δ^Ψ: Ψ can be unbounded)
    allowed = None if weight is not None else (accuracy if refine else ABS_DEFAULT)
    best: list[DeltaResult | None] = [None, None]
    built: tuple[Mechanism, Mechanism] = (a, b)  # the mechanisms of the last grids that built
    attempts = 0
    target = (math.inf, math.inf)
    while True:
        try:
            cur = tuple(_at(m, h, f, allowed) for m, h, f in zip(ms, h0, c))
            pa, pb = cur[0].pairs(), cur[1].pairs()
        except (ValueError, MemoryError):
            if attempts == 0 and any(f is not None and f != 1.0 for f in c):  # the probe grid is refused
                c = [None if f is None else 1.0 for f in c]
                continue
            if attempts == 0:
                raise
            break  # too fine to build here: the coarser grids' brackets stand
        built = cur
        attempts += 1
        eta = widening(*cur)
        new = [widen(r, *cur) for r in (delta_pairs(pa, pb) if weight is None else _weighted(cur, weight, tol))]
        for i, r in enumerate(new):
            o = best[i]
            # an uncertified Ψ (a density callable) gives uncertified brackets: the newest stands alone
            fresh = o is None or (weight is not None and not weight.certified)
            best[i] = r if fresh else intersect(o, r, "Δ(A‖B)" if i == 0 else "Δ(B‖A)")
        ab, ba = best
        assert ab is not None and ba is not None
        floor = ETA_FLOOR * eta
        target = tuple(max(accuracy if refine else max(REL_DEFAULT * r.upper, ABS_DEFAULT), floor) for r in (ab, ba))
        if weight is None:
            short = [r.width > t or (decide is not None and r.lower <= decide < r.upper and r.width > floor)
                     for r, t in zip((ab, ba), target)]
        else:  # Δ^Ψ: refine only a bracket whose width the grids set (the node widths at π*, weighted)
            short = [r.width > t and _grid_bound(cur, weight, r, eta) for r, t in zip((ab, ba), target)]
        if not any(short) or attempts >= MAX_ATTEMPTS:
            break
        c_new = _next_factors(cur, c, c_min, [(r, t) for r, t, s in zip((ab, ba), target, short) if s])
        if c_new == c:
            break
        c = c_new
    assert best[0] is not None and best[1] is not None
    factors = tuple(None if h is None else _factor(m, h) for m, h in zip(built, h0))
    return DeltaAccuracy(best[0], best[1], (float(target[0]), float(target[1])), factors, attempts, built)


def _weighted(cur: tuple[Mechanism, Mechanism], weight: FoldedWeight, tol: float) -> tuple[DeltaResult, ...]:
    """(Δ^Ψ(A‖B), Δ^Ψ(B‖A)) of the mechanisms ``cur`` by one certified sweep over π (``delta.delta_divergences``'
    weighted branch, before :func:`widen`)."""
    _, outs = sweep(*cur, [MaxTarget(False, weight), MaxTarget(True, weight)], tol=tol)
    return tuple(DeltaResult(o.value, o.lower, o.upper, o.pi, o.certified) for o in outs)


def _grid_bound(cur: tuple[Mechanism, Mechanism], weight: FoldedWeight, r: DeltaResult, eta: float) -> bool:
    """Whether the width of the Δ^Ψ bracket ``r`` is the grids' (so the h² law applies): Δ^Ψ > 0 attained at
    some π* ∈ (0, 1) and the width within GRID_BOUND× the sweep's stopping width 2·Ψ̃(π*)·(w_A + w_B)(π*) + 2η."""
    if not (r.lower > 0.0 and 0.0 < r.pi < 1.0):
        return False
    x = min(r.pi, 1.0 - r.pi)
    psi = float(weight.density(np.asarray(x)))
    node = sum(_width_at(m, r.pi) for m in cur)
    return r.width <= GRID_BOUND * (2.0 * psi * node + 2.0 * eta)


def intersect(old: DeltaResult, new: DeltaResult, what: str = "Δ") -> DeltaResult:
    """The intersection [max L, min U] of two certified brackets of the same Δ (both contain it, so their
    intersection does), the newer estimate clamped into it. Disjoint brackets cannot both contain Δ:
    :class:`BracketsDisagree` (a ``RuntimeError`` naming both) instead of an inverted bracket.

    >>> r = intersect(DeltaResult(0.2, 0.1, 0.3, 0.5), DeltaResult(0.25, 0.2, 0.4, 0.5))
    >>> r.lower, r.value, r.upper
    (0.2, 0.25, 0.3)
    """
    lo, up = (float(x) for x in intersect_brackets(old.lower, old.upper, new.lower, new.upper, what,
                                                     "coarser grid", "finer grid"))
    return DeltaResult(min(max(new.value, lo), up), lo, up, new.pi, new.certified and old.certified)


def _next_factors(cur, c, c_min, short) -> list[float | None]:
    """Spacing factors for the next composition: the least-cost split of the width by the h² law (step 3)."""
    # the direction furthest from its target sets the grid; a bracket straddling ``decide`` asks for half its width
    def need(rt):
        r, t = rt
        goal = t if r.width > t else 0.5 * r.width
        return r.width / goal, r, goal

    _, r, goal = max((need(rt) for rt in short), key=lambda x: x[0])
    w = [_width_at(m, r.pi) for m in cur]
    parts = [wi if f is not None else 0.0 for wi, f in zip(w, c)]
    fixed = sum(wi for wi, f in zip(w, c) if f is None)
    total = sum(w)
    if not (total > 0.0) or not any(p > 0.0 for p in parts):
        return c
    W = [r.width * p / total for p in parts]  # the share of the Δ width each regriddable side contributes
    room = SAFETY * goal - r.width * fixed / total
    out = list(c)
    if room <= 0.0:  # the fixed side alone is wider than the goal: refine what can be refined as far as allowed
        return [None if f is None else float(m) for f, m in zip(c, c_min)]
    # minimise Σ 1/x_i subject to Σ W_i x_i² = room: x_i = t·W_i^(−1/3)
    t = math.sqrt(room / sum(Wi ** (1.0 / 3.0) for Wi in W if Wi > 0.0))
    for i, (f, Wi) in enumerate(zip(c, W)):
        if f is None or Wi <= 0.0:
            continue
        x = min(1.0, max(0.125, t * Wi ** (-1.0 / 3.0)))
        nf = max(f * x, c_min[i])
        if 1.0 <= nf <= SNAP:
            nf = 1.0
        out[i] = float(nf)
    return out
