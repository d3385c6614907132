"""Input checks that raise ``ValueError`` naming the parameter, its value and the allowed range."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


def _fmt(value: object) -> str:
    return repr(value) if not isinstance(value, float) else f"{value:g}"


def check_real(name: str, value: object) -> float:
    """A finite real number."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a finite real number, got {_fmt(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {_fmt(v)}")
    return v


def check_positive(name: str, value: object) -> float:
    """A finite number > 0."""
    v = check_real(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {_fmt(v)}")
    return v


def check_nonnegative(name: str, value: object) -> float:
    """A finite number ≥ 0."""
    v = check_real(name, value)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {_fmt(v)}")
    return v


def check_in_interval(
    name: str, value: object, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """A finite number in the interval named by the bounds."""
    v = check_real(name, value)
    bad = (v < low or (low_open and v == low)) or (v > high or (high_open and v == high))
    if bad:
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {lb}{low:g}, {high:g}{rb}, got {_fmt(v)}")
    return v


def check_integer(name: str, value: object, *, minimum: int = 1) -> int:
    """An integer ≥ minimum; an integral float such as 1.4e6 is accepted."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if isinstance(value, (Integral, np.integer)):
        v = int(value)
    elif isinstance(value, (Real, np.floating)):
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise ValueError(f"{name} must be an integer >= {minimum}, got {_fmt(f)}")
        v = int(f)
    else:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}")
    return v


def check_array_in(name: str, values: object, low: float, high: float) -> np.ndarray:
    """A float array whose entries all lie in [low, high] (no NaN)."""
    arr = np.asarray(values, dtype=float)
    if arr.size and not np.all(np.isfinite(arr) | (np.isinf(arr) & np.isinf([low, high]).any())):
        bad = arr[~np.isfinite(arr)].flat[0]
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {bad!r}")
    with np.errstate(invalid="ignore"):
        outside = ~((arr >= low) & (arr <= high))
    if np.any(outside):
        bad = arr[outside].flat[0]
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {_fmt(float(bad))}")
    return arr


def check_probabilities(name: str, values: object) -> np.ndarray:
    """An array of numbers in [0, 1]."""
    return check_array_in(name, values, 0.0, 1.0)


def format_number(x: float) -> str:
    """Shortest text that parses back to exactly ``x`` (``repr``), without a trailing ``.0``.

    >>> format_number(1.0), format_number(0.1), format_number(3.4e6), format_number(1e-5)
    ('1', '0.1', '3400000', '1e-05')
    """
    x = float(x)
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)
