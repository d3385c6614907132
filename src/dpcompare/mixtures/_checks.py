"""Input checks shared by the mixture modules: one ``ValueError`` naming what is wrong.

Every public function of :mod:`dpcompare.mixtures` validates its arguments with these helpers, so a
bad ε₀, a bad n or a bad weight vector is reported the same way everywhere (and the CLI turns it
into one line on stderr with exit status 2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from .._validation import POSITIVE, Interval, Param, check_in_interval, check_real

#: weights may sum to 1 within this tolerance (floating-point sums of exact fractions)
WEIGHT_TOLERANCE = 1e-12


#: the one declaration of the shuffle model's parameters (``Shuffled.PARAMS``; the spec language's
#: ``shuffle``/``shuffle_pair`` derive their keys from it)
EPS0 = Param("eps0", POSITIVE)
USERS = Param("n", Interval(2.0, math.inf), integer=True)

#: largest ε₀ of a local randomiser: beyond, the clone probability e^{−ε₀} is below 1e-304 (the binomial
#: laws of the clone count leave double precision, and e^{ε₀} overflows from 709.8)
EPS0_MAX = 700.0


def check_eps0(eps0: Any) -> float:
    """ε₀ of the local randomiser: a finite number in (0, EPS0_MAX] (ε₀ = 0 is a constant randomiser)."""
    e = EPS0.check_spec(eps0)
    if not e <= EPS0_MAX:
        raise ValueError(
            f"eps0 must be <= {EPS0_MAX:g}, got {eps0!r}: the clone probability e^(-eps0) < 1e-304 is below double "
            "precision, so shuffling amplifies nothing representable; the shuffled output is the eps0-DP "
            "randomiser itself to within 1e-300 (use pure_dp(eps=eps0), which it satisfies by post-processing)")
    return e


def check_users(n: Any) -> int:
    """Number of users n: an integer ≥ 2 (one user alone is not shuffled); 1e6 is accepted."""
    if isinstance(n, Real) and not isinstance(n, bool) and math.isfinite(float(n)) and float(n) < 2:
        raise ValueError(f"n (number of users) must be an integer >= 2, got {n!r}")
    return USERS.check_spec(n, "n (number of users)")


def check_weight(name: str, w: Any, *, high: float = 1.0) -> float:
    """A mixture weight in [0, high]."""
    return check_in_interval(name, w, 0.0, high)


def check_weights(weights: Any, *, size: int | None = None, name: str = "weights") -> np.ndarray:
    """A probability vector: finite, non-negative, summing to 1 (within 1e-12), of the given size."""
    if isinstance(weights, (str, bytes)) or not isinstance(weights, (Sequence, np.ndarray)):
        raise ValueError(f"{name} must be a sequence of numbers, got {type(weights).__name__}")
    try:
        w = np.asarray(weights, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {weights!r}") from None
    if w.size == 0:
        raise ValueError(f"{name} must not be empty")
    if size is not None and w.size != size:
        raise ValueError(f"{name} must have one entry per component ({size}), got {w.size}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite, got {w.tolist()}")
    if np.any(w < 0):
        i = int(np.argmax(w < 0))
        raise ValueError(f"{name} must be non-negative, got {name}[{i}] = {w[i]:g}")
    total = float(math.fsum(w.tolist()))
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        raise ValueError(f"{name} must sum to 1, got sum {total:.15g}")
    return w


__all__ = ["check_eps0", "check_users", "check_weight", "check_weights", "check_real", "WEIGHT_TOLERANCE"]
