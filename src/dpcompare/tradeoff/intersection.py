"""The intersection of two certified brackets of the same quantity, and the error when it is empty.

Both brackets contain the truth, so their intersection [max L, min U] does. Two brackets that do not overlap
cannot both contain it: one of them is wrong, an internal bug to surface (:class:`BracketsDisagree`, a
``RuntimeError`` naming both brackets and the grids they came from), never to hide by clamping one end into the
other (that would report a zero-width "bracket" at a number neither computation certified).

Used where successive grids refine one answer: Δ (:mod:`dpcompare.comparison.delta_accuracy`) and the subsampled
Gaussian's δ(ε) and ε(δ) (:mod:`dpcompare.composition.sgm_accuracy`).

>>> lo, hi = intersect_brackets(0.1, 0.3, 0.2, 0.4, "δ(1)", "grid h = 0.1", "grid h = 0.05")
>>> float(lo), float(hi)
(0.2, 0.3)
"""

from __future__ import annotations

import numpy as np

__all__ = ["BracketsDisagree", "intersect_brackets"]


class BracketsDisagree(RuntimeError):
    """Two certified brackets of the same quantity do not overlap: one of them is wrong (an internal bug, not
    the caller's input)."""


def intersect_brackets(old_lower, old_upper, new_lower, new_upper, what: str, old_grid: str, new_grid: str,
                       at=None, at_name: str = "ε"):
    """(max(L_old, L_new), min(U_old, U_new)), element-wise (scalars or arrays of one shape), or
    :class:`BracketsDisagree` where the two brackets do not overlap (or an end is NaN), naming both brackets,
    their grids (``old_grid``, ``new_grid``: how each was obtained) and, for arrays, the point ``at[i]`` of
    the first disagreement.

    >>> intersect_brackets(np.array([0.1]), np.array([0.2]), np.array([0.25]), np.array([0.4]), "δ(ε)",
    ...                    "grid h = 0.1", "grid h = 0.05", at=np.array([1.5]))
    Traceback (most recent call last):
    ...
    dpcompare.tradeoff.intersection.BracketsDisagree: internal consistency error: two certified brackets of δ(ε) at ε = 1.5 do not overlap: [0.1, 0.2] (grid h = 0.1) and [0.25, 0.4] (grid h = 0.05); one of them is wrong — please report it
    """
    lo = np.maximum(old_lower, new_lower)
    up = np.minimum(old_upper, new_upper)
    bad = ~(np.asarray(lo) <= np.asarray(up))  # also a NaN end
    if np.any(bad):
        i = int(np.flatnonzero(np.ravel(bad))[0])

        def pick(x):
            return float(np.ravel(np.asarray(x, dtype=float))[i] if np.ndim(x) else x)

        where = "" if at is None else f" at {at_name} = {pick(at)!r}"
        raise BracketsDisagree(
            f"internal consistency error: two certified brackets of {what}{where} do not overlap: "
            f"[{pick(old_lower)!r}, {pick(old_upper)!r}] ({old_grid}) and [{pick(new_lower)!r}, {pick(new_upper)!r}] "
            f"({new_grid}); one of them is wrong — please report it")
    return lo, up
