"""Input checks of the ψ-views: every bad value raises ``ValueError`` naming the parameter, its value
and the allowed range (no ``assert``, no NaN, no silent clipping)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import ParameterTypeError
from .._validation import fmt_value as _fmt


def _first_bad(arr: np.ndarray, bad: np.ndarray) -> str:
    return _fmt(float(arr[bad].flat[0]))


def _as_float_array(name: str, value: Any) -> np.ndarray:
    """Numbers must be numbers: bool, str, None (and arrays of them) raise ParameterTypeError (a ValueError)."""
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}")
    raw = np.asarray(value)
    if raw.dtype.kind in "bUS":
        raise ParameterTypeError(f"{name} must be a real number or an array of them, got {value!r}")
    try:
        arr = raw.astype(float)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"{name} must be a real number or an array of them, got {value!r}") from None
    return arr


#: largest ψ accepted: beyond it ε ≈ α·ψ²/2 overflows double precision
PSI_MAX = 1e150


def check_psi(value: Any, name: str = "psi") -> np.ndarray:
    """ψ = Δ/σ: finite, > 0 and ≤ 1e150 (ψ = 0 is no mechanism, ψ = ∞ no privacy; ψ² must fit a double)."""
    arr = _as_float_array(name, value)
    what = " (the sensitivity index Δ/σ)" if name in ("psi", "--psi") else ""
    bad = ~(np.isfinite(arr) & (arr > 0))
    if np.any(bad):
        raise ValueError(f"{name} must be a finite number > 0{what}, got {_first_bad(arr, bad)}")
    big = arr > PSI_MAX
    if np.any(big):
        raise ValueError(f"{name} must be <= {PSI_MAX:g} (its square overflows double precision), got {_first_bad(arr, big)}")
    return arr


def check_eps(value: Any, name: str = "eps") -> np.ndarray:
    """ε ∈ [0, ∞] (+∞ allowed: δ(∞) = 0)."""
    arr = _as_float_array(name, value)
    bad = np.isnan(arr) | (arr < 0)
    if np.any(bad):
        raise ValueError(f"{name} must be >= 0, got {_first_bad(arr, bad)}")
    return arr


def check_delta(value: Any, name: str = "delta") -> np.ndarray:
    """δ ∈ (0, 1), with a message that says why the end points are no target."""
    arr = _as_float_array(name, value)
    nan = np.isnan(arr)
    if np.any(nan):
        raise ValueError(f"{name} must be in (0, 1), got nan")
    low = arr <= 0
    if np.any(low):
        raise ValueError(
            f"{name} must be in (0, 1), got {_first_bad(arr, low)}: the Gaussian mechanism is not "
            f"(ε, 0)-DP for any finite ε, so this target is unreachable"
        )
    high = arr >= 1
    if np.any(high):
        raise ValueError(
            f"{name} must be in (0, 1), got {_first_bad(arr, high)}: every mechanism is (0, 1)-DP, "
            f"so a target δ >= 1 says nothing"
        )
    return arr


def check_alpha(value: Any, name: str = "alpha") -> np.ndarray:
    """Rényi order α ∈ (1, ∞) (α = 1 is the KL divergence, not an RDP order here)."""
    arr = _as_float_array(name, value)
    bad = ~(np.isfinite(arr) & (arr > 1))
    if np.any(bad):
        raise ValueError(f"{name} must be a finite Rényi order > 1, got {_first_bad(arr, bad)}")
    return arr


def check_unit_open(value: Any, name: str, low: float, high: float) -> np.ndarray:
    """A number in the open interval (low, high)."""
    arr = _as_float_array(name, value)
    bad = ~((arr > low) & (arr < high))  # NaN compares False: rejected
    if np.any(bad):
        raise ValueError(f"{name} must be in ({low:g}, {high:g}), got {_first_bad(arr, bad)}")
    return arr


def scalar_or_array(x: np.ndarray) -> float | np.ndarray:
    """A Python float for 0-d results, the array otherwise."""
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


def check_scalar_positive(name: str, value: Any, maximum: float | None = None) -> float:
    """One finite number > 0 (and ≤ ``maximum`` when given)."""
    arr = _as_float_array(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array of shape {arr.shape}")
    v = float(arr)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {_fmt(v)}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be <= {maximum:g}, got {_fmt(v)}")
    return v
