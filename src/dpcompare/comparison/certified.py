"""A result's certified interval lower ≤ value ≤ upper, also held as a ``Bracket`` of ``Sense.UPPER``.

Δ, the expected regret and the Lévy distance are quoted as "at most": a larger value means less privacy,
so ``upper`` is the pessimistic end and ``lower`` the optimistic one ([BCP] Def 1, Cor 1).
"""

from __future__ import annotations

from ..tradeoff import Bracket, Sense

__all__ = ["UpperBracketed"]


class UpperBracketed:
    """Base of the result classes with attributes ``lower`` ≤ ``upper``: adds ``bracket``.

    The bracket is built, and its order checked (NaN or lower > upper raises), once, at construction: a frozen
    dataclass subclass runs ``__post_init__`` from its ``__init__``, a plain one calls it. A plain class, not a
    dataclass: ``bracket`` is set here, not a dataclass field (it was one with ``init=False, repr=False,
    compare=False``: equality, hashing and repr of the subclasses are unchanged), and a plain class costs a
    command's start-up ≈ 0.1 M instructions to define where a frozen dataclass costs ≈ 2.6 M.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Gap(UpperBracketed):
    ...     lower: float
    ...     upper: float
    >>> g = Gap(0.25, 0.5)
    >>> (g.bracket.pessimistic, g.bracket.optimistic)
    (0.5, 0.25)
    >>> Gap(0.5, 0.25)
    Traceback (most recent call last):
    ...
    ValueError: ...
    """

    #: the certified interval as a :class:`~dpcompare.tradeoff.Bracket` of ``Sense.UPPER``: its
    #: ``pessimistic`` end is ``upper`` and its ``optimistic`` end is ``lower``
    bracket: Bracket

    __slots__ = ()  # (a plain subclass with ``__slots__`` then has no ``__dict__``)

    def __post_init__(self) -> None:
        lower, upper = self.lower, self.upper  # type: ignore[attr-defined]
        if type(lower) is float and type(upper) is float and lower <= upper:  # (False for a NaN end)
            # two ordered floats: the Bracket its constructor would build (its checks pass: no NaN, pessimistic ≥
            # optimistic, floats kept as they are), set field by field without running them again
            bracket = _new_bracket(Bracket)
            _set(bracket, "pessimistic", upper)
            _set(bracket, "optimistic", lower)
            _set(bracket, "sense", Sense.UPPER)
        else:  # anything else is checked (and refused with its message) by the constructor
            bracket = Bracket.from_interval(lower, upper, Sense.UPPER)
        _set(self, "bracket", bracket)


_new_bracket = object.__new__
_set = object.__setattr__
