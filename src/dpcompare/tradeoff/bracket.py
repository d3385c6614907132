"""Certified brackets: a pessimistic and an optimistic value whose order is part of the type.

Every approximate number dpcompare reports is a pair (pessimistic, optimistic) around the truth
(certified numerics). Which of the two is the larger depends on the quantity:

- ``Sense.UPPER`` — *larger means less private*: δ(ε), ε(δ), advantage, TPR, Δ upper ends, μ-GDP.
  Then optimistic ≤ truth ≤ pessimistic.
- ``Sense.LOWER`` — *smaller means less private*: trade-off f(α), Bayes error R(π), σ needed.
  Then pessimistic ≤ truth ≤ optimistic.

A :class:`Bracket` checks the order at construction, so an inverted bracket cannot exist
(dp-accounting's ``validate_composable`` is the model: mixing directions is an error, not a
silent wrong answer). Scalars and numpy arrays are both accepted (element-wise check).

Example
-------
>>> b = Bracket(pessimistic=1e-5, optimistic=9e-6, sense=Sense.UPPER)
>>> b.lower, b.upper, round(b.width, 12)
(9e-06, 1e-05, 1e-06)
>>> lo, hi = b          # unpacks as the ordered interval (lower, upper)
>>> lo == b[0] == 9e-06
True
>>> Bracket(pessimistic=0.1, optimistic=0.2, sense=Sense.UPPER)
Traceback (most recent call last):
...
ValueError: inverted bracket: the pessimistic value 0.1 must be >= the optimistic value 0.2 for a quantity where larger means less private
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np


class Sense(enum.Enum):
    """Which end of a bracket errs towards less privacy."""

    UPPER = "upper"  #: larger = less private (δ, ε, advantage, TPR)
    LOWER = "lower"  #: smaller = less private (f, R, σ needed for a target)

    def flipped(self) -> "Sense":
        return Sense.LOWER if self is Sense.UPPER else Sense.UPPER


def _as_value(x: Any) -> float | np.ndarray:
    if type(x) is float:
        return x
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        return float(arr)
    arr = np.array(arr, dtype=float)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Bracket:
    """An interval around a true value, with the direction of the error in the type.

    Parameters
    ----------
    pessimistic : the end that errs towards less privacy (what a guarantee reports).
    optimistic : the other end.
    sense : :class:`Sense` — whether larger (UPPER) or smaller (LOWER) means less private.

    Raises ``ValueError`` if an entry is NaN or the ends are in the wrong order.
    """

    pessimistic: float | np.ndarray
    optimistic: float | np.ndarray
    sense: Sense = Sense.UPPER

    def __post_init__(self) -> None:
        if not isinstance(self.sense, Sense):
            raise TypeError(f"sense must be a Sense, got {self.sense!r}")
        pess, opt = _as_value(self.pessimistic), _as_value(self.optimistic)
        if type(pess) is float and type(opt) is float:  # scalars: the same checks without numpy calls
            if pess != pess or opt != opt:
                raise ValueError("a bracket end is nan")
            bad = (pess < opt) if self.sense is Sense.UPPER else (pess > opt)
        else:
            if np.shape(pess) != np.shape(opt):
                raise ValueError(f"pessimistic and optimistic must have the same shape, got {np.shape(pess)} and {np.shape(opt)}")
            if np.isnan(pess).any() or np.isnan(opt).any():
                raise ValueError("a bracket end is nan")
            bad = (pess < opt) if self.sense is Sense.UPPER else (pess > opt)
        if bad.any() if type(bad) is not bool else bad:
            i = int(np.flatnonzero(np.ravel(bad))[0])
            p, o = float(np.ravel(pess)[i]), float(np.ravel(opt)[i])
            rel, word = (">=", "larger") if self.sense is Sense.UPPER else ("<=", "smaller")
            raise ValueError(
                f"inverted bracket: the pessimistic value {p:.12g} must be {rel} the optimistic value {o:.12g} "
                f"for a quantity where {word} means less private"
            )
        object.__setattr__(self, "pessimistic", pess)
        object.__setattr__(self, "optimistic", opt)

    # ------------------------------------------------------------------ views
    @property
    def lower(self) -> float | np.ndarray:
        return self.optimistic if self.sense is Sense.UPPER else self.pessimistic

    @property
    def upper(self) -> float | np.ndarray:
        return self.pessimistic if self.sense is Sense.UPPER else self.optimistic

    @property
    def width(self) -> float | np.ndarray:
        return self.upper - self.lower

    def contains(self, x: Any, *, slack: float = 0.0) -> bool:
        """Whether every true value ``x`` lies in [lower − slack, upper + slack]."""
        x = np.asarray(x, dtype=float)
        return bool(np.all((x >= self.lower - slack) & (x <= self.upper + slack)))

    def as_tuple(self) -> tuple[Any, Any]:
        """(lower, upper): the ordered interval."""
        return self.lower, self.upper

    # a Bracket unpacks and indexes like its ordered interval: ``lo, hi = m.delta_bounds(1.0)``
    def __iter__(self):
        return iter(self.as_tuple())

    def __getitem__(self, i: int) -> Any:
        return self.as_tuple()[i]

    def __len__(self) -> int:
        return 2

    # ------------------------------------------------------------------ operations that keep the direction
    @classmethod
    def exact(cls, value: Any, sense: Sense = Sense.UPPER) -> "Bracket":
        """A zero-width bracket (a closed form)."""
        return cls(value, value, sense)

    @classmethod
    def from_interval(cls, lower: Any, upper: Any, sense: Sense = Sense.UPPER) -> "Bracket":
        """From an ordered interval [lower, upper]; raises if lower > upper."""
        return cls(upper, lower, sense) if sense is Sense.UPPER else cls(lower, upper, sense)

    def complement(self) -> "Bracket":
        """1 − x: the order of the ends flips, and so does the sense (e.g. TPR = 1 − f)."""
        return Bracket(1.0 - np.asarray(self.pessimistic), 1.0 - np.asarray(self.optimistic), self.sense.flipped())

    def widened(self, error: Any) -> "Bracket":
        """Both ends moved outwards by a non-negative error bound."""
        error = np.asarray(error, dtype=float)
        if np.any(error < 0) or np.any(np.isnan(error)):
            raise ValueError("error must be >= 0")
        s = 1.0 if self.sense is Sense.UPPER else -1.0
        return Bracket(self.pessimistic + s * error, self.optimistic - s * error, self.sense)

    def clipped(self, low: float, high: float) -> "Bracket":
        """Both ends clipped to the mathematical range [low, high] of the quantity (a clip towards
        the range never moves an end past the truth, which lies in the range)."""
        return Bracket(np.clip(self.pessimistic, low, high), np.clip(self.optimistic, low, high), self.sense)

    def __repr__(self) -> str:
        return f"Bracket(pessimistic={self.pessimistic!r}, optimistic={self.optimistic!r}, sense={self.sense.name})"
