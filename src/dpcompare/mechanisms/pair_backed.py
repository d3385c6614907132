"""Mechanisms whose views come from discrete dominating pairs (exact, or a numeric bracket).

A pair-backed mechanism holds a *pessimistic* and an *optimistic* symmetric discrete pair
(certified numerics: tradeoff/bracket.py): δ_opt ≤ δ ≤ δ_pess, f_pess ≤ f ≤ f_opt, R_pess ≤ R ≤ R_opt.
For an exact discrete mechanism both are the same object.
"""

from __future__ import annotations

import abc
from functools import cached_property

import numpy as np

from ..tradeoff import Bracket, DiscretePair, PairBracket, Sense
from .base import _ROUNDING_ABS, Mechanism, interval_bracket

#: Bayes-error slack of the order check of a pair bracket (floating-point rounding of R)
_ORDER_TOLERANCE = 1e-12


class PairMechanism(Mechanism):
    """Base for mechanisms given by (pessimistic, optimistic) discrete pairs."""

    @abc.abstractmethod
    def _build_pairs(self) -> PairBracket | tuple[DiscretePair, DiscretePair]:
        """(pessimistic, optimistic) pairs, possibly asymmetric; the base class symmetrises them."""

    @cached_property
    def _pair_bracket(self) -> PairBracket:
        """The symmetrised pairs as a :class:`PairBracket`: an inverted pair raises here, at the
        first view (``FromPair`` builds it at construction)."""
        pess, opt = self._build_pairs()
        same = opt is None or opt is pess
        pess = pess.symmetrize()
        opt = pess if same else opt.symmetrize()
        # the order is checked up to the pairs' error bound η plus the rounding of the sums over their
        # atoms (each Bayes error is a sum of n terms ≤ 1: |error| ≤ n·u; measured 9e-12 at 10⁵ atoms)
        rounding = 4 * 2.0**-53 * (pess.size + opt.size)
        return PairBracket(pess, opt, tolerance=_ORDER_TOLERANCE + float(self.numerical_error) + rounding)

    @property
    def _pairs(self) -> tuple[DiscretePair, DiscretePair]:
        b = self._pair_bracket
        return b.pessimistic, b.optimistic

    def pairs(self) -> tuple[DiscretePair, DiscretePair]:
        return self._pairs

    @property
    def exact(self) -> bool:  # type: ignore[override]
        pess, opt = self._pairs
        return pess is opt

    def _bayes_error_bounds(self, pi: np.ndarray) -> Bracket:
        """R_pess rounded down and R_opt rounded up by the a-priori error of their sums
        (``DiscretePair.bayes_error_bounds``): the pessimistic end is never above the stored pair's real R."""
        pess, opt = self._pairs
        lo, hi = pess.bayes_error_bounds(pi)
        if opt is not pess:
            hi = opt.bayes_error_bounds(pi)[1]
        return interval_bracket(lo, hi, Sense.LOWER, 0.0, np.minimum(pi, 1.0 - pi),
                                absolute=_ROUNDING_ABS + float(self.numerical_error))

    def _delta_bounds(self, eps: np.ndarray) -> Bracket:
        pess, opt = self._pairs
        hi = pess.delta(eps)
        return interval_bracket((hi if opt is pess else opt.delta(eps)), hi, Sense.UPPER, 0.0, 1.0)

    def _tradeoff_bounds(self, alpha: np.ndarray) -> Bracket:
        """f_pess rounded down and f_opt rounded up by a first-order bound of their interpolation's error
        (``DiscretePair.tradeoff_bounds``)."""
        pess, opt = self._pairs
        lo, hi = pess.tradeoff_bounds(alpha)
        if opt is not pess:
            hi = opt.tradeoff_bounds(alpha)[1]
        return interval_bracket(lo, hi, Sense.LOWER, 0.0, 1.0 - alpha,
                                absolute=_ROUNDING_ABS + float(self.numerical_error))

    def _epsilon_scalar(self, delta: float) -> float:
        return self._pairs[0].epsilon(delta)

    def _tradeoff_integral(self) -> float:
        a, b = self.pessimistic_pair().vertices  # ``pairs()[0]``; a subclass may build it without the optimistic pair
        return float(np.sum(0.5 * (b[1:] + b[:-1]) * np.diff(a)))
