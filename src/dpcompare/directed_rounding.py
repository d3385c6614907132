"""Directed rounding: a double on the safe side of a real number known to within a proved error bound.

A view computed in floating point comes with a proved error analysis saying that the real number T
satisfies T ≥ v·(1 − rel) − abs (for :func:`lower`) or T ≤ v·(1 + rel) + abs (for :func:`upper`), v ≥ 0
the computed double. :func:`lower` and :func:`upper` return a double on the outer side of that bound, so
a trade-off f or a Bayes error R (the adversary's minimal errors: overstating them overstates privacy)
is never above its real value, and δ never below it.

Why the returned double is on the safe side (``lower``; ``upper`` is its mirror). The margin
B = rel·v + abs is evaluated as B̂ = fl(fl(fl(rel·v) + abs)·(1 + 8u)) ≥ B (three roundings, each at
least (1 − u) times its exact value, and (1 − u)³(1 + 8u) > 1); then w = fl(v − B̂) ≤ (v − B̂)(1 + u) for
w > 0, and ``nextafter(w, −∞)`` ≤ w·(1 − u) for a normal w (one ulp of w is at least u·w), so the result
is ≤ (v − B̂)(1 − u²) < v − B ≤ T. A subnormal w is exact (a difference of doubles landing there is
exact) and the step down subtracts the smallest subnormal; where B̂ falls below the normal range its
roundings are absolute (≤ ½ subnormal unit each, not relative), so two subnormal units are added to
every non-zero margin. Where the truth is known to be ≥ 0 the
result is clipped at ``floor`` = 0 (so a real value below the bound's resolution becomes 0, never a
positive overstatement).

Unit roundoff u = 2⁻⁵³. Elementary functions (exp, log, log1p, expm1, sqrt) of numpy are taken to be
within 4 ulp, i.e. ``ELEM`` = 8u relative (numpy's SVML-based float64 implementations state a maximum
error of 4 ulp; glibc's are below 1 ulp).

>>> bool(lower(0.3, 1e-15) < 0.3 < upper(0.3, 1e-15))
True
>>> float(lower(0.0, 1e-15)), float(upper(0.0, 0.0, 0.0))
(0.0, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: unit roundoff of IEEE double precision
U = 2.0**-53
#: relative error of one numpy elementary function (4 ulp ≤ 8u)
ELEM = 8.0 * U
#: the smallest positive (subnormal) double
TINY = 5e-324


def _margin(v: np.ndarray, rel: Any, abs_: Any) -> np.ndarray:
    rel = np.asarray(rel, dtype=float)
    with np.errstate(all="ignore"):
        return _margin_raw(v, rel, abs_)


def _margin_raw(v: Any, rel: Any, abs_: Any) -> np.ndarray:
    """``_margin`` for float ``v``/``rel`` under the caller's ``errstate(all="ignore")`` (the fast path of the
    closed-form views: the same operations in the same order, so the same doubles)."""
    m = (rel * np.abs(v) + abs_) * (1.0 + 8.0 * U)
    # below the normal range the three roundings are absolute (≤ ½ subnormal unit each): 2 units cover them
    if type(abs_) is float and abs_ > 0.0:  # every element takes the two units (the np.where below, all True)
        return m + 2.0 * TINY
    return np.where(((rel > 0) & (v != 0)) | (np.asarray(abs_) > 0), m + 2.0 * TINY, m)


def lower_raw(v: Any, rel: Any, abs_: Any, floor: float | None, finite: Any = None) -> np.ndarray:
    """``lower`` for float ``v``/``rel`` under the caller's ``errstate(all="ignore")``; ``finite`` is
    ``np.isfinite(v)`` if the caller has it. The result is a fresh array."""
    m = _margin_raw(v, rel, abs_)
    out = np.where((m > 0) & (np.isfinite(v) if finite is None else finite), np.nextafter(v - m, -np.inf), v)
    if floor is not None:  # np.maximum returns a NaN operand as it is
        np.maximum(out, floor, out=out)
    return out


def upper_raw(v: Any, rel: Any, abs_: Any, ceil: float | None, finite: Any = None) -> np.ndarray:
    """``upper`` for float ``v``/``rel`` under the caller's ``errstate(all="ignore")`` (see ``lower_raw``)."""
    m = _margin_raw(v, rel, abs_)
    out = np.where((m > 0) & (np.isfinite(v) if finite is None else finite), np.nextafter(v + m, np.inf), v)
    if ceil is not None:  # np.minimum returns a NaN operand as it is
        np.minimum(out, ceil, out=out)
    return out


#: the directions of ``outward_raw``'s two rows (down for the lower end, up for the upper)
_TOWARDS = np.array([[-np.inf], [np.inf]])
_TOWARDS.flags.writeable = False
_SIGNS = np.array([[-1.0], [1.0]])
_SIGNS.flags.writeable = False


def outward_margin(v: Any, m: Any) -> np.ndarray:
    """[v − m; v + m] as the rows of one (2, n) array, each moved one ulp further outward: the directed ends of a
    value v whose error is at most the margin m ≥ 0 (which the caller has already rounded up). v + (−m) is the
    double v − m (IEEE subtraction is addition of the negation), and nextafter covers the rounding of the sum.

    >>> lo, hi = outward_margin(np.array([1.0]), np.array([0.0]))[:, 0]
    >>> bool(lo == np.nextafter(1.0, 0.0) and hi == np.nextafter(1.0, 2.0))
    True
    """
    ends = v + m * _SIGNS
    return np.nextafter(ends, _TOWARDS, out=ends)  # (in place: ends is this call's own (2, n) array)


def outward_raw(v: Any, rel: Any, abs_: float, finite: Any) -> np.ndarray:
    """Both ends at once, as the rows of one (2, n) array: row 0 is ``lower_raw(v, rel[0], abs_, None, finite)``
    and row 1 ``upper_raw(v, rel[1], abs_, None, finite)``, bit for bit (no floor or ceil: the caller clips).

    ``v`` (n,) and ``finite`` = ``np.isfinite(v)`` broadcast over the rows of ``rel`` (2, n); the margins are
    ``_margin_raw``'s, and v + (−m) is the double v − m (IEEE subtraction is addition of the negation, which
    is exact), so each row sees the operations of its one-sided function. Under the caller's ``errstate``.

    >>> v = np.array([0.3, 0.0])
    >>> r = outward_raw(v, np.array([[1e-15, 1e-15], [1e-15, 1e-15]]), 0.0, np.isfinite(v))
    >>> bool(r[0, 0] < 0.3 < r[1, 0]), r[:, 1].tolist()
    (True, [0.0, 0.0])
    """
    m = _margin_raw(v, rel, abs_)
    return np.where((m > 0) & finite, outward_margin(v, m), v)


def lower(v: Any, rel: Any, abs_: Any = 0.0, *, floor: float | None = 0.0) -> np.ndarray:
    """A double ≤ v·(1 − rel) − abs_ (v ≥ 0), hence ≤ every real T ≥ v·(1 − rel) − abs_; clipped at ``floor``.

    v = ±∞ and NaN are returned as they are; v = 0 with abs_ = 0 stays 0 (a zero computed exactly).
    """
    v = np.asarray(v, dtype=float)
    with np.errstate(all="ignore"):
        return lower_raw(v, np.asarray(rel, dtype=float), abs_, floor)


def upper(v: Any, rel: Any, abs_: Any = 0.0, *, ceil: float | None = None) -> np.ndarray:
    """A double ≥ v·(1 + rel) + abs_ (v ≥ 0), hence ≥ every real T ≤ v·(1 + rel) + abs_; clipped at ``ceil``."""
    v = np.asarray(v, dtype=float)
    with np.errstate(all="ignore"):
        return upper_raw(v, np.asarray(rel, dtype=float), abs_, ceil)


def one_minus_down(x: Any) -> np.ndarray:
    """A double ≤ 1 − x (x ∈ [0, 1]): fl(1 − x) is exact for x ≥ ½ (Sterbenz) and otherwise moved one
    ulp down when the exact check 1 − fl(1 − x) ≠ x (itself exact, fl(1 − x) ∈ [½, 1]) says it rounded up.

    >>> float(one_minus_down(0.1)) <= 0.9, float(one_minus_down(0.75))
    (True, 0.25)
    """
    x = np.asarray(x, dtype=float)
    s = 1.0 - x
    back = 1.0 - s  # exact: s ∈ [½, 1] where x ≤ ½
    # one ulp down where it rounded up: towards s − 1 < s there (s ≥ ½), towards s itself (no move) elsewhere —
    # np.where(·, np.nextafter(s, −∞), s) without the where (NaN and ±∞ pass through as they are)
    return np.nextafter(s, s - ((x < 0.5) & (back < x)))


# ---------------------------------------------------------------------------------------------- the normal law
#: relative error of scipy's ``ndtri`` (Cephes: peak 7.2e-16 ≈ 6.5u documented; 4.8u measured against
#: mpmath at 50 digits over α ∈ [1e-323, 1]); taken as 16u
NDTRI_REL = 16.0 * U


def ndtr_rel(z: Any) -> np.ndarray:
    """Relative error bound of scipy's Φ(z) (``ndtr``) and absolute error bound of log Φ(z) (``log_ndtr``):
    8·(1 + z²)·u + ELEM for z < 0, and 8u + 8·(1 + z²)·u·e^{−z²/2} + ELEM for z ≥ 0.

    Why z²: Φ(z) = ½·erfc(−z/√2); the rounding of −z/√2 (relative u) moves erfc(y) by 2y²·u relative and
    exp(−y²) inside erfc sees y² rounded (y²·u); Cephes' erfc itself is a few ulp (peak 3.4e-14 documented
    on [−13, 0], where z² ≤ 169). Measured against mpmath at 50 digits: ≤ 2.95·(1 + z²)·u for ndtr and
    ≤ 2.7·(1 + z²)·u for log_ndtr over z ∈ [−1e3, 8] (tests/mechanisms/test_directed_rounding_f_r.py
    re-checks both), so the bound has a margin of 2.7 or more; the ELEM covers an ``exp`` of log Φ.
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        return ndtr_rel_raw(z)


def ndtr_rel_raw(z: Any) -> np.ndarray:
    """``ndtr_rel`` for a float ``z`` under the caller's ``errstate`` (the same operations, so the same doubles)."""
    lower_tail = 8.0 * (1.0 + z * z) * U
    # z ≥ 0: Φ(z) = 1 − ½erfc(z/√2) (Cephes ndtr), whose error is the erfc part's, ≤ ½e^{−z²/2} of it
    zc = np.minimum(np.abs(z), 1e154)
    upper_tail = 8.0 * U + 8.0 * (1.0 + zc * zc) * U * np.exp(-0.5 * zc * zc)
    return np.where(z < 0.0, lower_tail, upper_tail) + ELEM


def mills_bound(t: Any) -> np.ndarray:
    """An upper bound of the inverse Mills ratio m(t) = φ(t)/Φ(t) = d log Φ/dt (decreasing in t):
    m(t) ≤ 1 − t for t < 0 (m(t) < (−t + √(t² + 4))/2, Birnbaum 1942) and m(t) ≤ 2φ(t) ≤ 0.8·e^{−t²/2} for t ≥ 0
    (Φ ≥ ½ there). So |log Φ(z + d) − log Φ(z)| ≤ mills_bound(z − |d|)·|d|."""
    t = np.asarray(t, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return mills_bound_raw(t)


def mills_bound_raw(t: Any) -> np.ndarray:
    """``mills_bound`` for a float ``t`` under the caller's ``errstate``."""
    return np.where(t < 0.0, 1.0 - t, 0.8 * np.exp(-0.5 * np.minimum(t, 1e154) ** 2))


def ndtr_rel_coarse_raw(z: Any) -> np.ndarray:
    """A cheaper bound ≥ ``ndtr_rel``(z) at every z (under the caller's ``errstate``): 8·(1 + min(z, 0)²)·u + 18u + ELEM.

    For z < 0 it is ``ndtr_rel``'s lower-tail bound plus 18u. For z ≥ 0, (1 + z²)·e^{−z²/2} is at most 2e^{−½} ≈ 1.2131
    (its derivative z(1 − z²)e^{−z²/2} vanishes at z = 1), so 8u + 8(1 + z²)u·e^{−z²/2} ≤ 8u + 9.71u ≤ 18u. Four
    array operations instead of ``ndtr_rel``'s dozen; it overstates the error by ≤ 18u (z ≥ 0: by ≤ 10u + 8u·(1 + z²)e^{−z²/2}).

    >>> bool(np.all(ndtr_rel_coarse_raw(np.array([-3.0, 0.0, 1.0, 9.0])) >= ndtr_rel(np.array([-3.0, 0.0, 1.0, 9.0]))))
    True
    """
    zn = np.minimum(z, 0.0)
    return (8.0 * U) * (zn * zn) + (26.0 * U + ELEM)


def mills_bound_coarse(t: Any) -> np.ndarray:
    """A bound ≥ ``mills_bound``(t) without its exp: max(1 − t, 0.8/(1 + t²/2)) (1 − t for t < 0; for t ≥ 0,
    0.8·e^{−t²/2} ≤ 0.8/(1 + t²/2) since e^x ≥ 1 + x). It still falls like 1.6/t², so a large error d of a far-tail
    z costs ≤ 0.6·d/|z| there.

    >>> mills_bound_coarse(np.array([-2.0, 0.0, 2.0])).tolist()
    [3.0, 1.0, 0.26666666666666666]
    """
    t = np.asarray(t, dtype=float)
    with np.errstate(over="ignore"):
        return mills_bound_coarse_raw(t)


def mills_bound_coarse_raw(t: Any) -> np.ndarray:
    """``mills_bound_coarse`` for a float ``t`` under the caller's ``errstate``."""
    return np.maximum(1.0 - t, 0.8 / (1.0 + 0.5 * (t * t)))


# ---------------------------------------------------------------------------------------------- sums
def two_sum(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth's TwoSum; no overflow assumed)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def sub_down(a: Any, b: Any) -> np.ndarray:
    """A double ≤ a − b: fl(a − b), moved one ulp down where TwoSum's exact error says it rounded up (a lower
    end less its error bound η stays a lower end). NaN propagates; ±∞ are returned as fl(a − b).

    >>> float(sub_down(1.0, 1e-17)) < 1.0, float(sub_down(0.75, 0.5))
    (True, 0.25)
    """
    with np.errstate(invalid="ignore", over="ignore"):  # ±∞/NaN inputs: e is NaN and s is returned
        s, e = two_sum(a, -np.asarray(b, dtype=float))
    return np.where(np.isfinite(s) & (e < 0.0), np.nextafter(s, -np.inf), s)


def add_up(a: Any, b: Any) -> np.ndarray:
    """A double ≥ a + b (:func:`sub_down` mirrored: an upper end plus its error bound stays an upper end).

    >>> float(add_up(1.0, 1e-17)) > 1.0, float(add_up(0.25, 0.5))
    (True, 0.75)
    """
    with np.errstate(invalid="ignore", over="ignore"):
        s, e = two_sum(a, b)
    return np.where(np.isfinite(s) & (e > 0.0), np.nextafter(s, np.inf), s)


def sum3(a: Any, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """a + b + c by cascaded TwoSum (Ogita, Rump & Oishi 2005, "Accurate sum and dot product", Alg 4.4
    Sum2) and its error bound: |result − (a + b + c)| ≤ u·|result| + γ₂²·(|a| + |b| + |c|), γ₂ = 2u/(1 − 2u)
    (their Prop 4.5). Returns (result, absolute part of the bound, with u·|result| left to the caller's rel).

    >>> s, e = sum3(1.0, -0.1, -0.9)
    >>> bool(abs(float(s)) <= 1e-16 and float(e) < 1e-30)
    True
    """
    s1, e1 = two_sum(a, b)
    s2, e2 = two_sum(s1, c)
    res = s2 + (e1 + e2)
    gamma2 = 2.0 * U / (1.0 - 2.0 * U)
    bound = gamma2 * gamma2 * (np.abs(a) + np.abs(b) + np.abs(c)) * (1.0 + 4.0 * U)
    return res, bound
