"""One certified sweep over the prior π for two mechanisms ([BCP] Def 1, Cor 1, §5).

Everything ``compare`` reports comes out of one refinement of one grid 0 = x₀ < … < xₙ = ½:

- Δ(A‖B) = max_π (R_A − R_B)(π) and Δ(B‖A) = max_π (R_B − R_A)(π), optionally weighted by a
  hyper-prior density Ψ (Δ^Ψ = max_π Ψ(π)(R_A − R_B)(π), [BCP] §5), each with a certified bracket;
- the crossings of R_A and R_B, located by certified root bracketing on the final grid;
- the expected regret E_Ψ[(R_A − R_B)₊] = ∫₀¹ Ψ(π)(R_A(π) − R_B(π))₊ dπ with a certified bracket.

Every mechanism is symmetrised (R(π) = R(1−π), [BCP] §2), so the sweep runs on [0, ½]; a weight
Ψ is folded to Ψ̃(π) = max(Ψ(π), Ψ(1−π)) for a maximum and to Ψ(π) + Ψ(1−π) for an integral.

Interval bounds (they use only that Bayes error functions are concave, [BCP] §2). On [xₖ, xₖ₊₁]:
R lies above its chord (through the lower values) and below the four lines "previous secant
extended", "next secant extended", π and 1 − π (slopes from lo/hi ends so they stay valid). The
difference "upper lines of A − chord of B" is concave piecewise linear, its kinks are among the
pairwise intersections of the lines, so its maximum, and the integral of its positive part, are
exact functions of a handful of candidate points (vectorised over intervals).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .._numerics import expit
from ..mechanisms.base import Mechanism
from .certified import UpperBracketed

if TYPE_CHECKING:  # the hyper-prior module loads where a hyper-prior is given (``as_hyperprior``)
    from .hyperprior import HyperPrior

#: outward rounding of every bracket: R is evaluated with an absolute error of a few ulp of ½
FP_SLACK = 1e-15
#: with a hyper-prior the weighted search runs on [π_min, ½]; (0, π_min] is bounded analytically
PI_MIN = 1e-30
#: the initial grid seeds geometric clusters around ½ and around each kink when there are at most this many
SEEDED_KINKS = 8
#: grids up to this many points compute the interval bounds of both directions of Δ in one pass (``Grid``)
BOTH_DIRECTIONS_MAX = 4096
#: ``ndarray.max``/``ndarray.all`` without their Python wrappers (``_methods._amax``/``_all`` call these ufuncs'
#: reductions with the same arguments: the same result, NaN propagated alike; axis=None for a whole array)
_max, _all = np.maximum.reduce, np.logical_and.reduce
#: relative offsets of a seeded cluster: its points are π·(1 ± 2^{−j}/4), j = 1 … 40 (down to ≈ 1e-13)
_SEED_CLUSTER = 0.25 * 2.0 ** -np.arange(1, 41)
_SEED_CLUSTER.flags.writeable = False
#: 1 − and 1 + the offsets, as rows (the factors ``initial_grid`` multiplies each kink by: computed once)
_SEED_FACTORS = np.stack([1.0 - _SEED_CLUSTER, 1.0 + _SEED_CLUSTER])
_SEED_FACTORS.flags.writeable = False


def _sorted_unique(a: np.ndarray, *, fresh: bool = False) -> np.ndarray:
    """``np.unique`` of a 1-d float array without NaN (its sort and its neighbour mask, without its Python layers);
    ``fresh``: ``a`` is the caller's own temporary, sorted in place (no copy).

    >>> _sorted_unique(np.array([0.3, 0.1, 0.3, 0.2])).tolist()
    [0.1, 0.2, 0.3]
    """
    if not fresh:
        a = a.copy()
    a.sort()
    keep = np.empty(a.shape, dtype=bool)
    keep[:1] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _base_grid() -> np.ndarray:
    """Uniform ∪ logit-spaced points on [0, ½] and the seeded cluster below ½ (read-only; built once)."""
    x = np.concatenate([np.linspace(0.0, 0.5, 33), expit(np.linspace(-60.0, 0.0, 49)), 0.5 * (1.0 - _SEED_CLUSTER)])
    x = np.unique(x)
    x.flags.writeable = False
    return x


_BASE_GRID = _base_grid()
#: where ``crossing_seeds`` looks for sign changes: the uniform and logit-spaced points of the base grid (without
#: its cluster below ½, 40 points within 1e-13…1/8 of ½ that a root estimate does not need)
_SCAN_GRID = np.unique(np.concatenate([np.linspace(0.0, 0.5, 33), expit(np.linspace(-60.0, 0.0, 49))]))
_SCAN_GRID.flags.writeable = False


def initial_grid(a: Mechanism, b: Mechanism, weighted: bool, extra: np.ndarray | None = None) -> np.ndarray:
    """Uniform ∪ logit-spaced points on [0, ½], the folded kinks of both mechanisms (and π_min, and the points
    ``extra`` of (0, ½), e.g. ``crossing_seeds``: one sort for all).

    A maximum of R_A − R_B sits at a kink of R or at the fold ½ more often than not; there the interval
    bound is only first order, and the refinement would add geometric clusters (``_cluster``) one round
    later: with at most ``SEEDED_KINKS`` kinks the grid carries them from the start, around ½ and each kink
    (every point is an ordinary certified evaluation)."""
    found = [a.bayes_error_kinks(), b.bayes_error_kinks()]
    for m in (a, b):
        pess = m.pessimistic_pair()  # ``pairs()[0]`` (a numeric mechanism need not symmetrise its optimistic pair)
        if pess is not None and pess.loss.size < 200_000:  # breakpoints of a discrete R
            found.append(expit(pess.loss))
    if len(found) == 2 and found[0].size + found[1].size <= SEEDED_KINKS:
        # a few kinks (a closed form's): folded and filtered as Python floats, the doubles of the array form below
        # (min(k, 1 − k) is one of the two doubles; a NaN fails the filter either way)
        kinks = np.array([k for k in (k if k <= 1.0 - k else 1.0 - k for k in found[0].tolist() + found[1].tolist())
                          if 0.0 < k <= 0.5])
    else:
        kinks = np.concatenate(found)
        kinks = np.minimum(kinks, 1.0 - kinks)
        kinks = kinks[(kinks > 0) & (kinks <= 0.5)]
    parts = [_BASE_GRID, kinks]
    if kinks.size <= SEEDED_KINKS and kinks.size:
        near = (kinks[:, None, None] * _SEED_FACTORS).ravel()  # (the same points, in another order: sorted below)
        # every point is > 0: a kink k ∈ (0, ½] times a factor ≥ 7/8 (≥ the smallest subnormal, to which k·7/8 rounds)
        parts.append(near[near < 0.5])
    if weighted:
        parts.append(np.array([PI_MIN]))
    if extra is not None and extra.size:
        parts.append(extra)
    return _sorted_unique(np.concatenate(parts), fresh=True)


class _once:
    """``functools.cached_property`` without its lock (Python 3.11 takes an RLock on every first access): the value
    is computed on first access and stored in the instance's ``__dict__``, which later lookups read directly (a
    non-data descriptor). Two threads reading one new grid at once may both compute it: the same doubles."""

    def __init__(self, func) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


class Grid:
    """The final grid on [0, ½] with the certified Bayes-error bounds of A and B at each point.

    A plain class (internal; its lazy parts are ``_once`` entries of its ``__dict__``): a frozen dataclass costs a
    command's start-up ≈ 3.7 M instructions to define, this ≈ 0.1 M."""

    def __init__(self, x: np.ndarray, alo: np.ndarray, ahi: np.ndarray, blo: np.ndarray, bhi: np.ndarray) -> None:
        self.x, self.alo, self.ahi, self.blo, self.bhi = x, alo, ahi, blo, bhi

    def sides(self, reverse: bool):
        return (self.blo, self.bhi, self.alo, self.ahi) if reverse else (self.alo, self.ahi, self.blo, self.bhi)

    @_once
    def geometry(self) -> LineGeometry:
        """x's ``LineGeometry``, computed once per grid (both directions of Δ read it)."""
        return LineGeometry(self.x)

    def interval_upper(self, reverse: bool) -> np.ndarray:
        """``interval_upper`` of one direction (A over B, or B over A when ``reverse``). On a small grid both
        directions are computed at once (the rows of one array pass: half the numpy calls, the same doubles)
        and kept, since the other direction's target usually reads the same grid; on a large one each alone."""
        if self.x.size > BOTH_DIRECTIONS_MAX:
            alo, ahi, blo, _ = self.sides(reverse)
            return interval_upper(self.x, alo, ahi, blo, self.geometry)
        return self._both_interval_uppers[1 if reverse else 0]

    @_once
    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) as the rows [A; B] of two (2, n) arrays (``sweep`` sets them on its first grid, where the bounds
        were computed in that layout)."""
        lo, hi = np.empty((2, self.x.size)), np.empty((2, self.x.size))  # rows [A; B] (np.stack's copies, without
        lo[0], lo[1], hi[0], hi[1] = self.alo, self.blo, self.ahi, self.bhi  # its Python layers); [B; A] is lo[::-1]
        return lo, hi

    @_once
    def _both_interval_uppers(self) -> np.ndarray:
        lo, hi = self._rows
        return interval_upper(self.x, lo, hi, lo[::-1], self.geometry)

    @_once
    def unweighted_maxima(self) -> tuple:
        """Both directions' unweighted parts of ``_max_state`` at once, as rows [A over B; B over A] (small grids
        only): d_lo = lo_X − hi_Y (non-finite → 0), d_hi = hi_X − lo_Y, the best point k (the one nearest ½ among
        those within ``FP_SLACK`` of the largest d_lo), and the largest interval bound and d_hi with a NaN read
        as +∞. Each row is the doubles a direction computed alone (element-wise operations along the rows)."""
        lo, hi = self._rows
        d_lo = lo - hi[::-1]
        finite = np.isfinite(d_lo)
        if not _all(finite, axis=None):  # (np.where(finite, d_lo, 0) only where some d_lo is not finite: the same doubles)
            d_lo = np.where(finite, d_lo, 0.0)
        d_hi = hi - lo[::-1]
        best = _max(d_lo, axis=1)  # (d_lo at its argmax: no NaN is left in d_lo)
        near = d_lo >= (best - FP_SLACK)[:, None]
        k = (d_lo.shape[1] - 1) - near[:, ::-1].argmax(axis=1)
        ub = self._both_interval_uppers
        big = [_nan_inf(v) for v in _max(ub, axis=1).tolist() + _max(d_hi, axis=1).tolist()]  # (Python floats at once)
        return d_lo, d_hi, k.tolist(), big


class FoldedWeight:
    """Ψ on [0, ½] folded from [0, 1]: Ψ̃ = max(Ψ(π), Ψ(1−π)) (for a max) and Ψ(π) + Ψ(1−π) (for an integral)."""

    def __init__(self, h: HyperPrior) -> None:
        self.h = h
        self.r = h.reflected()
        self.certified = h.certified

    def density(self, x):
        return np.maximum(self.h.density(x), self.r.density(x))

    def extremes(self, left, right):
        lo1, hi1 = self.h.extremes(left, right)
        lo2, hi2 = self.r.extremes(left, right)
        return np.maximum(lo1, lo2), np.maximum(hi1, hi2)

    def sum_extremes(self, left, right):
        lo1, hi1 = self.h.extremes(left, right)
        lo2, hi2 = self.r.extremes(left, right)
        return lo1 + lo2, hi1 + hi2

    def tail_bound(self, eps: float) -> float:
        return self.h.tail_bound(eps)


#: [k − 1; k + 2] − k: the offsets of the left and right neighbouring nodes of interval k (``LineGeometry``)
_K_OFFSETS = np.array([[-1], [2]])
_K_OFFSETS.flags.writeable = False


class LineGeometry:
    """The parts of ``_lines`` that depend on the grid x only (shared by both directions of Δ on one grid):
    the interval widths h, the far nodes jₗ, jᵣ of the extended secants and their distances to the interval
    ends, and the mask of intervals still wider than the rounding of x (``_max_state``'s split test).
    ``den``, ``ok``, ``not_ok``: the left and right secants' distances and masks as the rows of (2, n) arrays
    (``den_l``, ``den_r``, ``ok_l``, ``ok_r`` are views of their rows: the layout ``interval_upper`` reads)."""

    __slots__ = ("n", "x", "xl", "h", "ok_l", "jj_l", "den_l", "ok_r", "jj_r", "den_r", "one_minus_xl", "_splittable",
                 "den", "ok", "not_ok", "jj2", "_far_index")

    def __init__(self, x: np.ndarray) -> None:
        n = self.n = x.size - 1
        xl, h = self.xl, self.h = x[:-1], x[1:] - x[:-1]  # (np.diff's operation)
        # the left and right nodes as the rows of (2, n) arrays: k − 1 and k + 2, the nearest nodes at least h away, whether
        # the neighbouring interval is at least h/4 wide (none beyond the ends: +∞ there), and the node j chosen
        k = np.arange(n) + _K_OFFSETS  # [k − 1; k + 2]
        quarter = 0.25 * h
        near = np.empty((2, n), dtype=bool)
        near[0, :1] = near[1, -1:] = True
        np.greater_equal(h[:-1], quarter[1:], out=near[0, 1:])
        np.greater_equal(h[1:], quarter[:-1], out=near[1, :-1])
        # j = np.where(near, k, far), with far (a binary search per interval) searched only where the neighbour is
        # short (a few intervals at the edges of the clusters): far[0] = min(searchsorted(xₗ − h, right) − 1, k − 1),
        # far[1] = max(searchsorted(xᵣ + h, left), k + 2), element by element, so the subset gives the same indices
        j = k  # (this call's own array)
        short = (~near[0]).nonzero()[0]
        if short.size:
            found = x.searchsorted(xl[short] - h[short], side="right")
            found -= 1
            j[0, short] = np.minimum(found, k[0, short])
        short = (~near[1]).nonzero()[0]
        if short.size:
            j[1, short] = np.maximum(x.searchsorted(x[short + 1] + h[short], side="left"), k[1, short])
        # jₗ ≤ k − 1 ≤ n − 2 and jᵣ ≥ k + 2 ≥ 2, so one clip to [0, n] is max(jₗ, 0) on the left row (np.where(ok_l, jₗ, 0))
        # and min(jᵣ, n) on the right (np.where(ok_r, jᵣ, n)), and a node is on the grid (jₗ ≥ 0, jᵣ ≤ n) where it is unclipped
        jj2 = self.jj2 = np.minimum(np.maximum(j, 0), n)
        ok = self.ok = jj2 == j
        self.not_ok = ~ok  # (jj2 != j)
        self.ok_l, self.ok_r = ok[0], ok[1]
        self.jj_l, self.jj_r = jj2[0], jj2[1]
        self._far_index = {}
        den = self.den = x[jj2]  # [xₗ − x[jₗ]; x[jᵣ] − xᵣ]
        np.subtract(xl, den[0], out=den[0])
        np.subtract(den[1], x[1:], out=den[1])
        self.den_l, self.den_r = den[0], den[1]
        self.one_minus_xl = 1.0 - xl
        self.x = x
        self._splittable = None

    def far_index(self, lead: tuple[int, ...]) -> np.ndarray:
        """Indices into a C-contiguous (lead…, n + 1) array, raveled, of its values at the far nodes: shape
        (2, lead…, n), [at jₗ; at jᵣ] for every leading row (``ndarray.take`` with them is the fancy index
        ``a[..., jj2]`` moved to the front, without the fancy index's cost); computed once per leading shape."""
        idx = self._far_index.get(lead)
        if idx is None:
            rows = np.arange(math.prod(lead), dtype=np.intp).reshape(lead + (1,)) * (self.n + 1)
            idx = self._far_index[lead] = self.jj2.reshape((2,) + (1,) * len(lead) + (self.n,)) + rows
        return idx

    @property
    def splittable(self) -> np.ndarray:
        """Intervals wider than the rounding of x (read only by a target not yet certified: computed on first use)."""
        if self._splittable is None:
            x = self.x
            self._splittable = self.h > 4e-16 * np.maximum(x[1:], 1e-300)
        return self._splittable


def _lines(x, lo, hi, geom: LineGeometry | None = None):
    """Slopes and values at xₖ of the four lines bounding a concave R from above on each interval.

    Left of [xₖ, xₖ₊₁] any node xⱼ < xₖ gives R(x) ≤ hiₖ + (hiₖ − loⱼ)/(xₖ − xⱼ)·(x − xₖ) for x ≥ xₖ (a
    concave function lies below the extension of each of its secants), and symmetrically on the right;
    plus R ≤ π and R ≤ 1 − π. The nearest node gives the tightest line in exact arithmetic, but it
    multiplies the nodes' rounding by h/(xₖ − xⱼ), which a geometric cluster of points makes 10¹²; where
    the neighbouring interval is shorter than h/4 the nearest node at least h away is used instead, so
    the rounding is never multiplied by more than 4. ``geom``: x's ``LineGeometry`` if the caller has it.
    """
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return _lines_raw(LineGeometry(x) if geom is None else geom, lo, hi)


def _lines_raw(gm: LineGeometry, lo, hi):
    """``_lines`` under the caller's ``errstate`` (invalid, overflow and division ignored)."""
    n = gm.n
    # lo, hi may carry leading axes (several curves on one grid): the lines are then (..., 4, n). Rows 0, 1 start
    # as the placeholders of a missing secant (slope 0, intercept +∞) and take the secant where it exists and
    # its slope is finite (``copyto`` with a mask: no ``where`` temporaries); rows 2, 3 are R ≤ π and R ≤ 1 − π
    slope = np.empty(lo.shape[:-1] + (4, n))
    icept = np.empty(lo.shape[:-1] + (4, n))
    slope[..., :2, :] = 0.0
    icept[..., :2, :] = np.inf
    slope[..., 2, :], icept[..., 2, :] = 1.0, gm.xl  # R ≤ π
    slope[..., 3, :], icept[..., 3, :] = -1.0, gm.one_minus_xl  # R ≤ 1 − π
    hl, hr = hi[..., :-1], hi[..., 1:]
    s0 = (hl - lo[..., gm.jj_l]) / gm.den_l
    np.copyto(slope[..., 0, :], s0, where=np.isfinite(s0) & gm.ok_l)
    np.copyto(icept[..., 0, :], hl, where=gm.ok_l)
    s1 = (lo[..., gm.jj_r] - hr) / gm.den_r
    np.copyto(slope[..., 1, :], s1, where=np.isfinite(s1) & gm.ok_r)
    np.copyto(icept[..., 1, :], hr - s1 * gm.h, where=gm.ok_r)
    return slope, icept


#: the six pairs (i < j) of the four bounding lines (np.triu_indices(4, 1), computed once, read-only)
_PAIR_I = np.array([0, 0, 0, 1, 1, 2])
_PAIR_J = np.array([1, 2, 3, 2, 3, 3])
_PAIR_I.flags.writeable = _PAIR_J.flags.writeable = False


def _candidates(slope, icept, h, *, ordered: bool = True):
    """Offsets t ∈ [0, h] where the minimum of the lines can bend: the ends and pairwise intersections, (8, n)
    (or (..., 8, n) for lines with leading axes), sorted along the 8 when ``ordered`` (an integral needs the
    order, a maximum does not)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        out = _candidates_raw(slope, icept, h)
    if ordered:
        out.sort(axis=-2)
    return out


def _candidates_raw(slope, icept, h):
    """``_candidates`` unordered, under the caller's ``errstate`` (invalid, overflow and division ignored)."""
    out = np.empty(slope.shape[:-2] + (8, h.size))
    out[..., 0, :] = 0.0
    out[..., 1, :] = h
    t = (icept[..., _PAIR_J, :] - icept[..., _PAIR_I, :]) / (slope[..., _PAIR_I, :] - slope[..., _PAIR_J, :])
    out[..., 2:, :] = np.where(np.isfinite(t), np.minimum(np.maximum(t, 0.0), h), 0.0)
    return out


def _envelope(slope, icept, t):
    """min over the four lines at the offsets t: (8, n), or (..., 8, n)."""
    return np.min(icept[..., :, None, :] + slope[..., :, None, :] * t[..., None, :, :], axis=-3)


#: the slopes of the lines R ≤ π and R ≤ 1 − π as (2, 1) rows (``interval_upper`` subtracts them from a secant's)
_PM_ONE = np.array([[1.0], [-1.0]])
_PM_ONE.flags.writeable = False


def interval_upper(x, alo, ahi, blo, geom: LineGeometry | None = None):
    """Exact max over each [xₖ, xₖ₊₁] of U_A(x) − chord_B(x), vectorised over intervals (``geom``: x's
    ``LineGeometry`` if the caller has it). ``alo``, ``ahi``, ``blo`` may carry leading axes (several pairs of
    curves on one grid, one result row each: every operation is element-wise along them).

    The doubles of ``_lines`` and ``_candidates`` followed by ``_envelope`` (tests/comparison/test_max_state_fused.py
    checks them bit for bit) in fewer and smaller array operations, on contiguous arrays (a ufunc on a strided view
    costs several times one on a contiguous array of these sizes): the two secants (lines 0, 1) as (2, …, n) arrays,
    secant first; lines 2 and 3 (slopes ±1: x·1 and x·(−1) are exact, so xₗ + t and (1 − xₗ) − t are their doubles)
    are never stored. The candidates t, (7, …, n), candidate first, are the ends 0, h and the intersections of the
    pairs (0, 2), (1, 2), (0, 3), (1, 3), (0, 1), where s − (−1) is the double s + 1 (IEEE subtraction is addition
    of the negation); each is clamped to [0, h] by ``fmax``/``fmin`` (NaN → 0, −∞ → 0, +∞ → h where ``_candidates``
    put 0: both ends are candidates already, so the set of offsets, and the maximum, are the same). The pair (2, 3)
    meets at π = ½, the right end of the last interval of a grid of [0, ½] (as the sweep's are) and beyond every other
    interval, where its clamped offset is the end h: a candidate already. (For the last interval the offset
    ((1 − xₗ) − xₗ)/2 may round an ulp of h below h = ½ − xₗ, exact for xₗ ≥ ¼; the envelope there differs from the
    one at h by that rounding, far inside the sweep's FP_SLACK — no such case among the 214 comparisons of
    benchmarks/bitident_compare.py nor in tests/comparison/test_max_state_fused.py's grids, which match bit for bit.)
    """
    gm = LineGeometry(x) if geom is None else geom
    h, n = gm.h, gm.n
    lead = alo.shape[:-1]
    ones = (1,) * len(lead)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        # secant slopes s = [s₀; s₁] and intercepts c = [c₀; c₁] (``_lines``' rows 0 and 1: a missing or non-finite
        # secant is the placeholder slope 0, intercept +∞; c₁ = hᵣ − s₁·h from the unmasked s₁, as there)
        if len(lead) == 1 and lead[0] <= 4:  # a few rows (both directions of one grid): one gather x[jj2] per row,
            far = np.empty((2,) + lead + (n,))  # into its column of far (≈ half the cost of building the flat indices)
            for i in range(lead[0]):
                far[:, i] = alo[i][gm.jj2]
        else:
            far = np.ascontiguousarray(alo).take(gm.far_index(lead))  # [lo at jₗ; lo at jᵣ], (2, …, n)
        # (the strided ends hₗ = hi[..., :-1], hᵣ = hi[..., 1:] copied once into c's rows; the ufuncs then read them
        # contiguously: a ufunc on a strided view costs ≈ 2–3× one on a contiguous array of these sizes)
        c = np.empty((2,) + lead + (n,))
        c[0] = ahi[..., :-1]
        c[1] = ahi[..., 1:]
        s = np.empty_like(c)
        np.subtract(c[0], far[0], out=s[0])
        np.subtract(far[1], c[1], out=s[1])
        s /= gm.den.reshape((2,) + ones + (n,))
        c[1] -= s[1] * h  # hᵣ − s₁·h
        np.copyto(c, np.inf, where=gm.not_ok.reshape((2,) + ones + (n,)))
        good = np.isfinite(s)
        good &= gm.ok.reshape((2,) + ones + (n,))
        np.copyto(s, 0.0, where=~good)  # (np.where(good, s, 0.0), in place: s is this call's own array)
        # the candidates: 0, h, then (c₂,₃ − c)/(s − s₂,₃) for the pairs (0, 2), (1, 2), (0, 3), (1, 3) as one
        # (2, 2, …, n) block (line 2 or 3, then secant 0 or 1), then (c₁ − c₀)/(s₀ − s₁)
        t = np.empty((7,) + lead + (n,))
        t[0] = 0.0
        t[1] = h
        block = t[2:6]
        block.shape = (2, 2) + lead + (n,)  # (a view: setting the shape raises rather than copy)
        np.subtract(gm.xl, c, out=block[0])
        np.subtract(gm.one_minus_xl, c, out=block[1])
        block /= s - _PM_ONE.reshape((2, 1) + ones + (1,))
        np.subtract(c[1], c[0], out=t[6])
        t[6] /= s[0] - s[1]
        inner = t[2:]
        np.fmax(inner, 0.0, out=inner)
        np.fmin(inner, h, out=inner)
        bl = np.empty((2,) + blo.shape[:-1] + (n,))  # B's lower ends [at xₗ; at xᵣ], copied once (contiguous reads)
        bl[0] = blo[..., :-1]
        bl[1] = blo[..., 1:]
        sb = bl[1] - bl[0]
        sb /= h
        # the envelope minus B's chord at every candidate (line by line: the doubles of ``_envelope``'s broadcast)
        env = s[0] * t
        env += c[0]
        tmp = s[1] * t
        tmp += c[1]
        np.minimum(env, tmp, out=env)
        np.add(gm.xl, t, out=tmp)
        np.minimum(env, tmp, out=env)
        np.subtract(gm.one_minus_xl, t, out=tmp)
        np.minimum(env, tmp, out=env)
        np.multiply(sb, t, out=tmp)
        tmp += bl[0]
        env -= tmp
    return _max(env, axis=0)


def _positive_integral(t, y):
    """∫ y₊ over a piecewise-linear y given at sorted t (axis 0), exactly, per column."""
    dt = np.diff(t, axis=0)
    y0, y1 = y[:-1], y[1:]
    both = np.where((y0 >= 0) & (y1 >= 0), 0.5 * (y0 + y1) * dt, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tri = np.where(y0 > 0, y0 * y0, y1 * y1) / (np.abs(y0) + np.abs(y1)) * 0.5 * dt
    mixed = np.where((y0 > 0) != (y1 > 0), np.nan_to_num(tri), 0.0)
    return np.sum(both + np.where((y0 >= 0) & (y1 >= 0), 0.0, mixed), axis=0)


def interval_positive_integrals(x, alo, ahi, blo, bhi):
    """Per interval, [∫(chord_A − U_B)₊, ∫(U_A − chord_B)₊] ∋ ∫(R_A − R_B)₊ (both integrands piecewise linear)."""
    gm = LineGeometry(x)  # shared by both directions' lines
    h = gm.h
    with np.errstate(invalid="ignore", divide="ignore"):
        sa = np.where(h > 0, (alo[1:] - alo[:-1]) / h, 0.0)
        sb = np.where(h > 0, (blo[1:] - blo[:-1]) / h, 0.0)
    slope_a, icept_a = _lines(x, alo, ahi, gm)
    ta = _candidates(slope_a, icept_a, h)
    up = _positive_integral(ta, _envelope(slope_a, icept_a, ta) - (blo[:-1] + sb * ta))
    slope_b, icept_b = _lines(x, blo, bhi, gm)
    tb = _candidates(slope_b, icept_b, h)
    low = _positive_integral(tb, (alo[:-1] + sa * tb) - _envelope(slope_b, icept_b, tb))
    return np.maximum(low, 0.0), np.maximum(up, low)


class MaxTarget(NamedTuple):  # NamedTuple: 0.15 ms to define, a frozen dataclass 1 ms (CLI start-up)
    """max over π of w(π)·(R_A − R_B)(π) (reverse: R_B − R_A); w ≡ 1 when weight is None."""

    reverse: bool
    weight: FoldedWeight | None = None
    tol: float | None = None  #: absolute bracket width asked for (None: the sweep's ``tol``)


class RegretTarget(NamedTuple):  # (NamedTuple: see MaxTarget)
    """∫₀¹ Ψ(π)(R_A − R_B)₊ dπ (reverse: (R_B − R_A)₊)."""

    reverse: bool
    weight: FoldedWeight


class MaxOutcome(UpperBracketed):
    """max_π Ψ(π)·(R_X − R_Y) with its certified interval; ``upper`` is the pessimistic end (its ``bracket``
    built and checked at construction). Internal, so a plain class with ``__slots__``: ≈ 0.1 M instructions of
    start-up to define where a frozen dataclass costs ≈ 4 M."""

    __slots__ = ("value", "lower", "upper", "pi", "certified", "bracket")

    def __init__(self, value: float, lower: float, upper: float, pi: float, certified: bool) -> None:
        self.value, self.lower, self.upper, self.pi, self.certified = value, lower, upper, pi, certified
        self.__post_init__()

    def __repr__(self) -> str:
        return (f"MaxOutcome(value={self.value!r}, lower={self.lower!r}, upper={self.upper!r}, pi={self.pi!r}, "
                f"certified={self.certified!r})")


class RegretOutcome(UpperBracketed):
    """∫ Ψ·(R_X − R_Y)₊ dπ with its certified interval; ``upper`` is the pessimistic end (its ``bracket`` built
    and checked at construction). Internal: a plain class with ``__slots__`` (see ``MaxOutcome``)."""

    __slots__ = ("value", "lower", "upper", "certified", "bracket")

    def __init__(self, value: float, lower: float, upper: float, certified: bool) -> None:
        self.value, self.lower, self.upper, self.certified = value, lower, upper, certified
        self.__post_init__()

    def __repr__(self) -> str:
        return (f"RegretOutcome(value={self.value!r}, lower={self.lower!r}, upper={self.upper!r}, "
                f"certified={self.certified!r})")


def _max_nan_inf(v: np.ndarray) -> float:
    """max(v) with a NaN counted as +∞ (``ndarray.max`` propagates a NaN, which becomes ∞ here)."""
    m = float(v.max())
    return math.inf if m != m else m


def _nan_inf(m: float) -> float:
    return math.inf if m != m else m


def _max_state_unweighted(g: Grid, t: MaxTarget, tol: float):
    """``_max_state`` of an unweighted target on a small grid from ``Grid.unweighted_maxima`` (both directions'
    arrays computed once): the same operations on the same doubles, fewer numpy calls."""
    r = 1 if t.reverse else 0
    d_lo_all, d_hi_all, ks, big = g.unweighted_maxima
    d_lo = d_lo_all[r]
    k = ks[r]
    alo, ahi, blo, bhi = g.sides(t.reverse)
    lower = max(float(d_lo[k]), 0.0)
    node = float(ahi[k] - alo[k] + bhi[k] - blo[k])
    tol = max(tol, 2.0 * node)
    upper = max(lower, big[r], big[2 + r])
    done = upper - lower <= tol
    split = None
    if not done:
        ub = g._both_interval_uppers[r]
        d_hi = d_hi_all[r]
        split = (ub > lower + tol) & (ub - np.maximum(d_hi[:-1], d_hi[1:]) > 0.25 * tol) & g.geometry.splittable
    pi = float(g.x[k]) if lower > 0 else 0.0
    return MaxOutcome(lower, lower, upper, pi, True), split, done, k


def _max_state(g: Grid, t: MaxTarget, exact: bool, tol: float):
    """(outcome, split mask over intervals or None once certified, certified, index of the best point) for one
    max target."""
    tol = tol if t.tol is None else t.tol
    if exact and t.weight is None and g.x.size <= BOTH_DIRECTIONS_MAX:
        return _max_state_unweighted(g, t, tol)
    alo, ahi, blo, bhi = g.sides(t.reverse)
    x = g.x
    if t.weight is None:
        w = None
        i0 = 0
    else:
        i0 = int(np.searchsorted(x, PI_MIN))
        w = np.zeros_like(x)
        w[i0:] = t.weight.density(x[i0:])
    d_lo = alo - bhi if w is None else w * (alo - bhi)
    d_lo = np.where(np.isfinite(d_lo), d_lo, 0.0)
    k = int(d_lo.argmax())
    # among points equal to the best within rounding, report the one nearest ½ (a flat maximum at the
    # fold is attained at π = ½ exactly, by symmetry); with a weight the rounding of R is scaled by it
    # (Beta(1e6, 1e6) weighs ½ by 1128: the last bits of R put a point 1e-12 from ½ 1.3e-13 above it)
    slack = FP_SLACK if w is None else FP_SLACK * max(1.0, float(w[k]))
    near_best = d_lo >= d_lo[k] - slack  # (True at k: the last True is found from the end)
    k = d_lo.size - 1 - int(near_best[::-1].argmax())
    lower = max(float(d_lo[k]), 0.0)
    # no grid certifies Δ more tightly than the node brackets allow: at the maximiser the bound is at
    # least lower + (A's bracket width + B's): refining beyond twice that only spends points
    node = float(ahi[k] - alo[k] + bhi[k] - blo[k])
    tol = max(tol, 2.0 * node * (1.0 if w is None else float(w[k])))
    geom = g.geometry
    ub = g.interval_upper(t.reverse)
    if w is not None:
        ub = ub.copy()
        wmin, wmax = t.weight.extremes(x[i0:-1], x[i0 + 1:])
        ub[i0:] = np.where(ub[i0:] >= 0, ub[i0:] * wmax, ub[i0:] * wmin)
        ub[:i0] = -np.inf
    d_hi = ahi - blo if w is None else w * (ahi - blo)
    # a NaN bound is no bound: it counts as +inf (a Python max would silently skip it)
    upper = max(lower, _max_nan_inf(ub), _max_nan_inf(d_hi))
    if w is not None:
        upper = max(upper, t.weight.tail_bound(PI_MIN))
    done = upper - lower <= tol
    # (the split mask only matters to a target not yet certified: None when it is, ``sweep`` stops there)
    split = None if done else ((ub > lower + tol) & (ub - np.maximum(d_hi[:-1], d_hi[1:]) > 0.25 * tol)
                               & geom.splittable)
    pi = float(x[k]) if lower > 0 else 0.0
    if w is not None and lower > 0 and t.weight.r.density(np.asarray(pi)) > t.weight.h.density(np.asarray(pi)):
        pi = 1.0 - pi  # the folded search found the mirror image of the maximiser
    if exact:
        value = lower
    else:
        mid = 0.5 * (alo + ahi) - 0.5 * (blo + bhi)
        mid_d = mid if w is None else w * mid
        value = float(min(max(float(np.max(np.where(np.isfinite(mid_d), mid_d, 0.0))), lower), upper))
    certified = w is None or t.weight.certified
    return MaxOutcome(value, lower, upper, pi, certified), split, done, k


def _regret_state(g: Grid, t: RegretTarget, rtol: float, eta: float = 0.0):
    alo, ahi, blo, bhi = g.sides(t.reverse)
    x = g.x
    i0 = int(np.searchsorted(x, PI_MIN))
    low, up = interval_positive_integrals(x[i0:], alo[i0:], ahi[i0:], blo[i0:], bhi[i0:])
    wmin, wmax = t.weight.sum_extremes(x[i0:-1], x[i0 + 1:])
    lo_k, up_k = wmin * low, wmax * up
    lower = float(np.sum(lo_k))
    # the part (0, π_min] ∪ [1 − π_min, 1): (R_A − R_B)₊ ≤ R_A ≤ π, ∫ Ψ ≤ 1
    upper = float(np.sum(up_k)) + PI_MIN + FP_SLACK
    width_k = up_k - lo_k
    split = np.zeros(x.size - 1, dtype=bool)
    allowed = max(rtol * upper, 1e-12, 4.0 * eta)  # ∫Ψ = 1: the node brackets alone contribute ~2η
    done = upper - lower <= allowed
    if not done:  # equidistribute: split every interval above its share of the allowed width
        split[i0:] = width_k > 0.5 * allowed / width_k.size
        split &= np.diff(x) > 4e-16 * np.maximum(x[1:], 1e-300)
    lower = max(0.0, lower - FP_SLACK)
    value = 0.5 * (lower + upper)
    return RegretOutcome(value, lower, upper, t.weight.certified), split, done, None


_CLUSTER = 4.0 ** -np.arange(1, 21)  # 1/4 … 1e-12 of the neighbouring interval


def _cluster(x: np.ndarray, k: int, split: np.ndarray) -> np.ndarray:
    """Points approaching the best point xₖ geometrically from both sides, inside its split neighbours.

    Near a maximum at a kink (or at the fold π = ½) the interval bound is only first order in the
    interval width, so bisection would need ~40 rounds to reach 1e-12; one geometric cluster
    x_k ± hᵢ·4^{−j} does it in one round (every point is an ordinary certified evaluation).
    """
    out = []
    if k > 0 and split[k - 1]:
        out.append(x[k] - (x[k] - x[k - 1]) * _CLUSTER)
    if k < x.size - 1 and split[k]:
        out.append(x[k] + (x[k + 1] - x[k]) * _CLUSTER)
    if not out:
        return np.array([])
    c = np.concatenate(out)
    return c[(c > 0) & (c < 0.5)]


#: relative rounding of a Bayes error evaluated in floating point (4 ulp: a closed form's two special
#: function terms), added to both ends of every bracket the sweep reads; it must stay far below the
#: 1e-12 tolerance of Δ, which a bracket can only meet if ~4 slacks fit in it
R_ROUNDING = 2.0**-50


def _bounds(m: Mechanism, x: np.ndarray):
    """R bracket at the grid points, widened by its floating-point rounding (R_ROUNDING·R).

    The bound on an interval extends the neighbouring secants (``_lines``), which multiplies a node's
    error by the ratio of neighbouring interval widths: an exact closed form evaluated to an ulp, on a
    grid with a 1e-7-wide interval beside a 1e-2-wide one, gave an upper bound 5e-11 below the true Δ
    (Gaussian(μ = 0.25) against ApproxDP(0, ½)). With the rounding in the node brackets the lines are
    certified whatever the widths."""
    lo, hi = m.bayes_error_interval(x)  # x: a float grid in [0, ½] built here
    slack = R_ROUNDING * hi  # relative: R ≤ min(π, 1 − π) is 1e-30 near π = 1e-30, where a weight of 1e15 reads it
    return np.maximum(lo - slack, 0.0), hi + slack


def _both_bounds(a: Mechanism, b: Mechanism, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_bounds`` of A and B as the rows [A; B] of two (2, n) arrays (lower ends, upper ends): the same
    operations on the same doubles, the widening done once for both rows (and the rows ``Grid`` reads)."""
    lo, hi = np.empty((2, x.size)), np.empty((2, x.size))
    with np.errstate(all="ignore"):  # (one errstate for both mechanisms' brackets)
        pa = a.bayes_error_interval_unchecked(x)
        pb = None if pa is None else b.bayes_error_interval_unchecked(x)
    if pb is not None:  # both brackets are their directed pairs once ordered: one check for both
        lo[0], hi[0] = pa
        lo[1], hi[1] = pb
        ordered = bool(_all(lo - hi <= 0.0, axis=None))
    else:
        ordered = False
    if not ordered:  # the general path (clips, checks, or refuses), one mechanism at a time
        lo[0], hi[0] = a.bayes_error_interval(x)
        lo[1], hi[1] = b.bayes_error_interval(x)
    slack = R_ROUNDING * hi
    lo -= slack
    np.maximum(lo, 0.0, out=lo)
    hi += slack
    return lo, hi


def sweep(a: Mechanism, b: Mechanism, targets, *, tol: float, regret_rtol: float = 1e-3,
          max_points: int = 400_000, extra: np.ndarray | None = None) -> tuple[Grid, list]:
    """Refine one grid on [0, ½] until every target is certified to its tolerance (a max to ``tol``
    absolute, a regret to ``regret_rtol`` relative, 1e-12 absolute); return the grid and one outcome
    per target (``MaxOutcome`` or ``RegretOutcome``). The grid stops growing at ``max_points``:
    the brackets then stay certified, only wider. ``extra``: points of (0, ½) added to the first grid
    (e.g. ``crossing_seeds``; every point is an ordinary certified evaluation)."""
    weighted = any(t.weight is not None for t in targets)
    x = initial_grid(a, b, weighted, extra)
    lo, hi = _both_bounds(a, b, x)
    alo, ahi, blo, bhi = lo[0], hi[0], lo[1], hi[1]
    exact = bool(a.exact and b.exact)
    # the node brackets are at least 2η wide (η: the mechanisms' own numerical error): a regret cannot
    # be certified more tightly than ~4η (∫Ψ = 1)
    eta = float(a.numerical_error) + float(b.numerical_error)

    def state(g: Grid, t):
        return _max_state(g, t, exact, tol) if isinstance(t, MaxTarget) else _regret_state(g, t, regret_rtol, eta)

    # one target at a time on the one growing grid: a target once certified stays certified
    # (new points only tighten the interval bounds), and is re-read from the final grid at the end
    # (unless its last state was computed on that very grid)
    last: dict[int, tuple[np.ndarray, object]] = {}
    g = Grid(x, alo, ahi, blo, bhi)  # one Grid per x, so its LineGeometry is computed once
    g.__dict__["_rows"] = (lo, hi)  # (the cached rows [A; B]: these arrays already are)
    for ti, t in enumerate(targets):
        for _ in range(400):
            outcome, split, done, k = state(g, t)
            last[ti] = (x, outcome)
            if done or not split.any() or x.size > max_points:
                break
            xl, xr = x[:-1][split], x[1:][split]
            geo = (xl > 0) & (xr > 4 * xl)
            mid = np.where(geo, np.sqrt(xl * np.where(geo, xr, 1.0)), 0.5 * (xl + xr))
            if k is not None:
                mid = np.union1d(mid, _cluster(x, k, split))
            x, (alo, ahi, blo, bhi) = insert_points(x, mid, (alo, ahi, blo, bhi), (*_bounds(a, mid), *_bounds(b, mid)))
            g = Grid(x, alo, ahi, blo, bhi)
    return g, [last[ti][1] if last[ti][0] is x else state(g, t)[0] for ti, t in enumerate(targets)]


def insert_points(x: np.ndarray, new: np.ndarray, columns: tuple[np.ndarray, ...],
                  new_columns: tuple[np.ndarray, ...]) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Merge the points ``new`` (and their column values) into the sorted grid ``x`` (and its columns).

    A new point equal to a grid point (a geometric cluster rounds onto its centre) is dropped: a
    zero-width interval has no secant (0/0), and its NaN bound once vanished from a Python ``max``,
    leaving an upper bound of Δ 5e-11 below the truth.

    >>> x, (c,) = insert_points(np.array([0.0, 1.0]), np.array([0.5, 1.0]), (np.array([10.0, 30.0]),),
    ...                         (np.array([20.0, 99.0]),))
    >>> x.tolist(), c.tolist()
    ([0.0, 0.5, 1.0], [10.0, 20.0, 30.0])
    """
    new, first = np.unique(new, return_index=True)
    fresh = ~np.isin(new, x)
    new, idx = new[fresh], first[fresh]
    order = np.argsort(np.concatenate([x, new]), kind="stable")
    merged = tuple(np.concatenate([c, np.asarray(n)[idx]])[order] for c, n in zip(columns, new_columns))
    return np.concatenate([x, new])[order], merged


def _signs(a: Mechanism, b: Mechanism, p: np.ndarray, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """At each π in ``p``: the certified sign of R_A − R_B (0 where its bracket contains 0 within ``slack``)
    and the midpoint of that bracket — one vectorised bounds evaluation of each mechanism."""
    alo, ahi = _bounds(a, p)
    blo, bhi = _bounds(b, p)
    sign = np.where(alo - bhi > slack, 1, np.where(ahi - blo < -slack, -1, 0))
    return sign, 0.5 * (alo + ahi) - 0.5 * (blo + bhi)


_COMB = np.arange(1.0, 9.0)
#: at most this many sign changes of the estimated R_A − R_B on the base grid are seeded (``crossing_seeds``)
SEEDED_ROOTS = 8
#: the seeds' comb: the root estimate and p ± k·xtol/8, k = 1 … 12. Around the root a band where the certified
#: brackets cannot decide the sign (their widths and the slack over the slope of R_A − R_B: ≈ 5e-14 wide for
#: Gaussian(1) against Laplace(1)) separates the first certified signs; teeth xtol/8 apart put two of them at
#: most xtol apart whenever that band is narrower than 7·xtol/8
_SEED_COMB = 0.125 * np.arange(-12.0, 13.0)
_SEED_COMB.flags.writeable = False


def _newton_root(fa, fb, lo: float, hi: float, d_lo: float) -> float | None:
    """A root of R_A − R_B in (lo, hi) from the mechanisms' scalar (R, R′) estimates (``fa``, ``fb``): Newton's
    method kept inside the bracket (bisection when a step leaves it), to the last few ulp. ``d_lo``: the
    difference's estimate at ``lo`` (its sign orients the bracket). None where an estimate is not finite or
    raises a ``math`` domain or range error.
    Only a location: ``crossings`` certifies every sign by evaluation."""
    p = 0.5 * (lo + hi)
    for _ in range(60):
        try:
            ra, sa = fa(p)
            rb, sb = fb(p)
        except (ArithmeticError, ValueError, TypeError):  # a ``math`` domain or range error, or no estimate: no seed
            return None
        d, s = ra - rb, sa - sb
        if not (math.isfinite(d) and math.isfinite(s)):
            return None
        if d == 0.0:
            return p
        if (d > 0.0) == (d_lo > 0.0):
            lo = p
        else:
            hi = p
        q = p - d / s if s != 0.0 else 0.5 * (lo + hi)
        if not lo < q < hi:
            q = 0.5 * (lo + hi)
        if abs(q - p) <= 2e-16 * p or hi - lo <= 2e-16 * hi:
            return q
        p = q
    return p


def crossing_seeds(a: Mechanism, b: Mechanism, *, xtol: float = 1e-13) -> np.ndarray:
    """Points of (0, ½) that let ``crossings`` read each root of R_A − R_B off the sweep's first grid.

    Where both mechanisms offer plain (uncertified) estimates of R (``bayes_error_estimate``, vectorised) and
    of R and R′ at a float (``bayes_error_and_slope``, ``math`` only), the sign changes of the estimated
    R_A − R_B on the base grid's uniform and logit-spaced points are located by Newton's method to the last few
    ulp, and each root estimate p contributes p and a comb p ± k·xtol/8 (k = 1 … 12). Added to the first grid,
    they are evaluated with the
    certified brackets of every other point, so the crossing's bracket (two neighbouring points of opposite
    certified sign) is narrower than ``xtol`` without a refinement round. Nothing here is trusted: a seed
    that does not close its bracket leaves ``crossings`` its ordinary rounds, and a root the estimates miss is
    found by them as before. Empty when a mechanism has no estimates or the estimates change sign more than
    ``SEEDED_ROOTS`` times.

    >>> import dpcompare as dc
    >>> s = crossing_seeds(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))
    >>> s.size, round(float(np.median(s)), 6)
    (25, 0.418539)
    """
    x = _SCAN_GRID
    ra, rb = a.bayes_error_estimate(x), b.bayes_error_estimate(x)
    if ra is None or rb is None:
        return np.empty(0)
    fa, fb = a.bayes_error_and_slope, b.bayes_error_and_slope
    d = ra - rb
    s = np.sign(d)
    change = (s[:-1] * s[1:] < 0.0).nonzero()[0]  # (np.flatnonzero of a 1-d array, without its Python layers)
    if not change.size or change.size > SEEDED_ROOTS:
        return np.empty(0)
    roots = []
    for i in change.tolist():
        p = _newton_root(fa, fb, float(x[i]), float(x[i + 1]), float(d[i]))
        if p is not None and 0.0 < p < 0.5:
            roots.append(p)
    if not roots:
        return np.empty(0)
    # each root's comb from Python floats (one product and one sum per root; the doubles of the broadcast form)
    combs = [r + (xtol * max(r, 1.0)) * _SEED_COMB for r in roots]
    pts = combs[0] if len(combs) == 1 else np.concatenate(combs)
    if all(2.0 * xtol < r < 0.5 - 2.0 * xtol for r in roots):  # the teeth reach ±1.5·xtol (r < 1): all in (0, ½)
        return pts
    return pts[(pts > 0.0) & (pts < 0.5)]


def _root_estimate(lo: float, flo: float, hi: float, fhi: float, third: tuple[float, float] | None) -> float:
    """Where to cluster the next round's points in (lo, hi): inverse quadratic interpolation through the
    bracket ends and ``third`` (error ∝ w³, so two rounds reach 1e-13 where false position needed three),
    else false position, else the midpoint. Only a location: every sign is still certified by evaluation."""
    mid = 0.5 * (lo + hi)
    if third is not None:
        x2, f2 = third
        d01, d02, d12 = flo - fhi, flo - f2, fhi - f2
        if d01 != 0.0 and d02 != 0.0 and d12 != 0.0 and math.isfinite(f2):
            p = lo * fhi * f2 / (d01 * d02) - hi * flo * f2 / (d01 * d12) + x2 * flo * fhi / (d02 * d12)
            if lo < p < hi:
                return p
    p = (lo * fhi - hi * flo) / (fhi - flo) if fhi != flo else mid
    return p if lo < p < hi else mid


def _certified_signs(d_lo: np.ndarray, d_hi: np.ndarray, slack: float) -> np.ndarray:
    """np.where(d_lo > slack, 1, np.where(d_hi < −slack, −1, 0)) (int) as p − (m ∧ ¬p) with p = d_lo > slack and
    m = d_hi < −slack: on booleans m > p is m ∧ ¬p, so where both hold the outer where's 1 wins; one integer
    subtraction of two masks instead of a zeros array and two masked copies (NaN compares False: 0, as before).

    >>> _certified_signs(np.array([1.0, -1.0, 0.0, np.nan, 1.0]), np.array([2.0, -0.5, 0.0, np.nan, -1.0]), 0.0).tolist()
    [1, -1, 0, 0, 1]
    """
    up = d_lo > slack
    return np.subtract(up, (d_hi < -slack) > up, dtype=int)


def crossings(a: Mechanism, b: Mechanism, g: Grid, *, slack: float = FP_SLACK, xtol: float = 1e-13) -> tuple[float, ...]:
    """Priors π ∈ (0, 1) where R_A − R_B changes sign, certified.

    On the final grid, a point has a certified sign when its bracket of R_A − R_B excludes 0 by more
    than ``slack``. Between two neighbouring certified points of opposite sign R_A − R_B has a root.
    Each round, an estimate p (inverse quadratic interpolation of the bracket midpoints at the two ends and
    a third point, else false position), a geometric cluster p ± w·4^{−j} (w the bracket width,
    j = 1 … 20) and a comb p ± k·xtol/2 (k = 1 … 8) are evaluated at once (one vectorised bounds
    call per mechanism), and the bracket shrinks to the first pair of neighbouring points whose certified
    signs differ — until it is narrower than ``xtol`` or a point's sign is undecidable (R_A = R_B there
    to floating-point accuracy). The mirror image 1 − π of each root is a root too.
    """
    d_lo = g.alo - g.bhi
    d_hi = g.ahi - g.blo
    sign = _certified_signs(d_lo, d_hi, slack)
    nz = sign.nonzero()[0]  # (np.flatnonzero of 1-d arrays, without its Python layers)
    # neighbouring certified points of opposite sign (found at once: a Python loop over the grid cost more
    # than the root refinement itself)
    change = (sign[nz[:-1]] != sign[nz[1:]]).nonzero()[0]
    roots = []
    for i, j in zip(nz[change].tolist(), nz[change + 1].tolist()):
        lo, hi = float(g.x[i]), float(g.x[j])
        flo = 0.5 * (d_lo[i] + d_hi[i])
        fhi = 0.5 * (d_lo[j] + d_hi[j])
        s_lo = int(sign[i])
        # a third point for the estimate: the grid neighbour beyond the bracket's nearer-to-zero end
        third = (float(g.x[i - 1]), float(0.5 * (d_lo[i - 1] + d_hi[i - 1]))) if i > 0 else None
        for _ in range(200):
            w = hi - lo
            if w <= xtol * max(1.0, lo):
                break
            p = _root_estimate(lo, flo, hi, fhi, third)
            # plus a comb of spacing xtol/2 around p: an estimate within 4·xtol of the root closes the bracket
            comb = 0.5 * xtol * max(1.0, lo) * _COMB
            pts = np.concatenate([[p], p - w * _CLUSTER, p + w * _CLUSTER, p - comb, p + comb, [0.5 * (lo + hi)]])
            pts = _sorted_unique(pts[(pts > lo) & (pts < hi)])
            s, f = _signs(a, b, pts, slack)
            changed = s != s_lo
            k = int(changed.argmax()) if pts.size else 0
            if k >= pts.size or not changed[k]:  # no point changed sign (argmax of all-False is 0)
                k = pts.size
            if k < pts.size and s[k] == 0:
                lo = hi = float(pts[k])
                break
            # the sample just outside the new bracket (on the side that moved least) is the next third point
            prev = (lo, flo, hi, fhi)
            if k > 0:
                lo, flo = float(pts[k - 1]), float(f[k - 1])
            if k < pts.size:
                hi, fhi = float(pts[k]), float(f[k])
            if k >= 2:
                third = (float(pts[k - 2]), float(f[k - 2]))
            elif k + 1 < pts.size:
                third = (float(pts[k + 1]), float(f[k + 1]))
            else:
                third = (prev[0], prev[1]) if prev[0] != lo else (prev[2], prev[3])
        roots.append(float(0.5 * (lo + hi)))
    out = set()
    for r in roots:
        out.add(r)
        if r < 0.5 - 1e-15:
            out.add(1.0 - r)
    return tuple(sorted(out))
