"""A (pessimistic, optimistic) pair of discrete dominating pairs whose order is checked at construction.

A module of its own, loaded where discrete pairs are (the public name stays ``dpcompare.tradeoff.PairBracket``,
PEP 562): a comparison of closed-form mechanisms does not define this frozen dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PairBracket"]


@dataclass(frozen=True, eq=False)
class PairBracket:
    """A (pessimistic, optimistic) pair of discrete dominating pairs, order checked at construction.

    The pessimistic pair must be at least as informative as the optimistic one: R_pess(π) ≤ R_opt(π)
    for every π (equivalently δ_pess ≥ δ_opt, f_pess ≤ f_opt; [BCP] eq 2 and Cor 1). Both are
    discrete, so the check is exact: max_π (R_pess − R_opt) is attained at a merged breakpoint
    (:func:`dpcompare.tradeoff.pair.delta_between_pairs`) and must not exceed ``tolerance`` (the
    floating-point error bound of the pairs' Bayes errors). The :class:`~dpcompare.tradeoff.pair.Rounding`
    labels must agree too: a pair labelled OPTIMISTIC cannot be the pessimistic end, nor the reverse.
    ``optimistic`` may be the same object as ``pessimistic`` (an exact pair).

    >>> from dpcompare.tradeoff import DiscretePair
    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])     # ε = log 3
    >>> pp = DiscretePair.from_masses([1.0], [1.0])                   # perfectly private
    >>> PairBracket(rr, pp).exact, PairBracket(rr, rr).exact
    (False, True)
    >>> PairBracket(pessimistic=pp, optimistic=rr)
    Traceback (most recent call last):
    ...
    ValueError: inverted pair bracket: the pessimistic pair must be at least as informative as the optimistic one, but its Bayes error exceeds the optimistic one's by 0.25 at pi = 0.5
    """

    pessimistic: Any
    optimistic: Any
    tolerance: float = 1e-12

    def __post_init__(self) -> None:
        from .pair import DiscretePair, Rounding, delta_between_pairs

        for label, v in (("pessimistic", self.pessimistic), ("optimistic", self.optimistic)):
            if not isinstance(v, DiscretePair):
                raise TypeError(f"{label} must be a DiscretePair, got {type(v).__name__}")
        if not (self.tolerance >= 0):
            raise ValueError(f"tolerance must be >= 0, got {self.tolerance!r}")
        if self.pessimistic is self.optimistic:
            return
        if self.pessimistic.rounding is Rounding.OPTIMISTIC or self.optimistic.rounding is Rounding.PESSIMISTIC:
            raise ValueError(
                f"inverted pair bracket: the pessimistic end is labelled {self.pessimistic.rounding.value} "
                f"and the optimistic end {self.optimistic.rounding.value}"
            )
        excess, pi = delta_between_pairs(self.pessimistic, self.optimistic)
        if excess > self.tolerance:
            raise ValueError(
                "inverted pair bracket: the pessimistic pair must be at least as informative as the optimistic "
                f"one, but its Bayes error exceeds the optimistic one's by {excess:.6g} at pi = {pi:.6g}"
            )

    @property
    def exact(self) -> bool:
        """Whether both ends are the same pair (a zero-width bracket)."""
        return self.pessimistic is self.optimistic

    def __iter__(self):
        return iter((self.pessimistic, self.optimistic))
