"""The certified Δ(A‖B) of two pair-backed mechanisms on their own grids, without the estimate ([BCP] Def 1, Cor 1).

A module of its own, loaded where it is used (the public names stay ``dpcompare.comparison.DeltaBracket`` and
``dpcompare.comparison.delta_bracket``, PEP 562): ``compare`` does not define this frozen dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..mechanisms.base import Mechanism
from .certified import UpperBracketed
from .delta import check_mechanisms, delta_pairs, widen, widening

__all__ = ["DeltaBracket", "delta_bracket"]


@dataclass(frozen=True)
class DeltaBracket(UpperBracketed):
    """Δ(A‖B) certified: lower ≤ Δ ≤ upper, including both mechanisms' numerical error bounds.

    ``upper`` is the pessimistic end, ``lower`` the optimistic one (``bracket``: ``Sense.UPPER``)."""

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


def delta_bracket(a: Mechanism, b: Mechanism) -> DeltaBracket:
    """Certified Δ(A‖B) = max_π (R_A − R_B) for two pair-backed mechanisms on their own grids: the bracket of
    :func:`delta_divergence` (step 1, ``delta_pairs`` then ``widen``) without the estimate. (A mechanism whose
    grid is not given, such as ``SubsampledGaussian`` without ``discretization``, is used here on its default
    grid; ``delta_divergence`` chooses that grid from Δ instead: ``dpcompare.comparison.delta_accuracy``.)

    lower = Δ(A_pess‖B_opt) − η, upper = Δ(A_opt‖B_pess) + η on the symmetrised pairs of
    ``mech.pairs()``, η = η_A + η_B + the double-precision rounding (:func:`widening`, the ``numerical_error`` field).

    >>> import dpcompare as dc
    >>> r = delta_bracket(dc.parse("pp()"), dc.RandomizedResponse(1.0))   # TV/2 = (e − 1)/(2(e + 1))
    >>> round(r.lower, 6), round(r.upper, 6), r.pi
    (0.231059, 0.231059, 0.5)
    """
    check_mechanisms(a, b)
    pa, pb = a.pairs(), b.pairs()
    for name, pairs in (("a", pa), ("b", pb)):
        if pairs is None:
            raise ValueError(f"{name} must be a mechanism with discrete pairs (its pairs() is None); "
                             "delta_divergence compares any two mechanisms")
    r = widen(delta_pairs(pa, pb)[0], a, b)
    return DeltaBracket(r.lower, r.upper, r.pi, widening(a, b))
