"""Input checks that raise ``ValueError`` naming the parameter, its value and the allowed range.

Two kinds of input, one helper each:

- **Parameters** of a mechanism (μ, σ, b, ε, δ, steps, …) are declared once per mechanism as a small
  table of :class:`Param` (name, :class:`Interval` with open/closed ends, integer or not) — the way
  scipy's new distribution infrastructure declares its parameter domains — and checked once, at
  construction, by :func:`check_params`.
- **Arguments** of the views (ε of δ(ε), δ of ε(δ), π of R(π), α of f(α)) are checked by
  :func:`check_argument` with one declared :class:`Argument` range each, the same for every mechanism.

Numbers must be numbers: ``bool``, ``str``, ``None`` and arrays of them raise
:class:`ParameterTypeError` (a ``TypeError`` that is also a ``ValueError``, so the CLI's one
"user error" path catches it), never a silent coercion (``epsilon("0.1")``, ``epsilon(True)``).

>>> check_argument(Argument.DELTA, 1e-5)
array(1.e-05)
>>> check_argument(Argument.DELTA, -1.0)
Traceback (most recent call last):
...
ValueError: delta must be in [0, 1], got -1
>>> check_argument(Argument.EPS, "0.1")
Traceback (most recent call last):
...
dpcompare._validation.ParameterTypeError: eps must be a real number, got '0.1'
"""

from __future__ import annotations

import enum
import math
from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np


class ParameterTypeError(TypeError, ValueError):
    """A parameter that is not a number (bool, str, None, …): a TypeError, and a ValueError for the CLI."""


def fmt_value(value: object) -> str:
    """A parameter value for a message: ``repr`` for non-floats, ``%g`` for floats."""
    return repr(value) if not isinstance(value, float) else f"{value:g}"


_fmt = fmt_value  # old private name, kept for modules not yet moved to fmt_value


def _reject_non_number(name: str, value: object) -> None:
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise ParameterTypeError(f"{name} must be a real number, got {value!r}")


def check_real(name: str, value: object) -> float:
    """A finite real number."""
    _reject_non_number(name, value)
    if not isinstance(value, (Real, np.floating, np.integer)):
        raise ParameterTypeError(f"{name} must be a finite real number, got {fmt_value(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {fmt_value(v)}")
    return v


def check_positive(name: str, value: object) -> float:
    """A finite number > 0."""
    v = check_real(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {fmt_value(v)}")
    return v


def check_nonnegative(name: str, value: object) -> float:
    """A finite number ≥ 0."""
    v = check_real(name, value)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {fmt_value(v)}")
    return v


def check_in_interval(
    name: str, value: object, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """A finite number in the interval named by the bounds."""
    return Interval(low, high, low_open, high_open).check(name, value)


def check_integer(name: str, value: object, *, minimum: int = 1) -> int:
    """An integer ≥ minimum; an integral float such as 1.4e6 is accepted."""
    if isinstance(value, (bool, np.bool_)):
        raise ParameterTypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if isinstance(value, (Integral, np.integer)):
        v = int(value)
    elif isinstance(value, (Real, np.floating)):
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise ValueError(f"{name} must be an integer >= {minimum}, got {fmt_value(f)}")
        v = int(f)
    else:
        raise ParameterTypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}")
    return v


# ---------------------------------------------------------------------- declared parameter domains
class Interval(NamedTuple):  # NamedTuple: 0.15 ms to define, a frozen dataclass 1 ms (CLI start-up)
    """A real interval with open or closed ends; ±inf ends are always open (values must be finite)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def __str__(self) -> str:
        lb = "(" if self.low_open or math.isinf(self.low) else "["
        rb = ")" if self.high_open or math.isinf(self.high) else "]"
        return f"{lb}{self.low:g}, {self.high:g}{rb}"

    def contains(self, v: float) -> bool:
        return (v > self.low or (v == self.low and not self.low_open)) and (
            v < self.high or (v == self.high and not self.high_open)
        )

    def check(self, name: str, value: object) -> float:
        """``value`` as a float, or a ValueError naming ``name`` and this interval."""
        if type(value) is float and self.low < value < self.high:  # a float strictly inside: finite and contained
            return value
        v = check_real(name, value)
        if not self.contains(v):
            raise ValueError(f"{name} must be in {self}, got {fmt_value(v)}")
        return v

    def check_spec(self, name: str, value: object) -> float:
        """The same check in the spec language's words: a half-line reads "> a" / ">= a" (as
        :func:`check_positive` / :func:`check_nonnegative` say it), a bounded interval as in :meth:`check`.

        >>> POSITIVE.check_spec("b", 2.0)
        2.0
        >>> POSITIVE.check_spec("b", 0)
        Traceback (most recent call last):
        ...
        ValueError: b must be > 0, got 0
        """
        if math.isfinite(self.low) and math.isinf(self.high):
            v = check_real(name, value)
            if not self.contains(v):
                raise ValueError(f"{name} must be {'>' if self.low_open else '>='} {self.low:g}, got {fmt_value(v)}")
            return v
        return self.check(name, value)


class Param(NamedTuple):  # (NamedTuple: see Interval)
    """One declared parameter: its name, its interval, and whether it is an integer.

    The one declaration of a parameter's domain. The constructor checks it (:func:`check_params`,
    wording "must be in (0, inf)"), the spec language derives its parameter from it
    (``io.spec_registry.Param.declared``, wording "must be > 0" via :meth:`Interval.check_spec`) and the
    test suite's hypothesis strategies draw from it (``tests/strategies.py``: ``inside``/``outside``).
    """

    name: str
    domain: Interval
    integer: bool = False
    attr: str | None = None  #: the attribute holding it, when it differs from the name (ApproxDP's dp_delta)
    optional: bool = False  #: ``None`` means "not given" (e.g. Gaussian's mu or sigma); else None is refused

    def check_spec(self, value: object, label: str | None = None) -> float | int:
        """The same check in the spec language's words (:meth:`Interval.check_spec`: "must be > 0"), naming
        ``label`` (default: the name); an integer reads "must be an integer >= 1"."""
        label = label or self.name
        if self.integer:
            minimum = int(math.ceil(self.domain.low)) if math.isfinite(self.domain.low) else 0
            v = check_integer(label, value, minimum=minimum)
            self.domain.check_spec(label, float(v))
            return v
        return self.domain.check_spec(label, value)

    def check(self, value: object) -> float | int:
        if self.integer:
            v = check_integer(self.name, value, minimum=int(math.ceil(self.domain.low)) if math.isfinite(self.domain.low) else 0)
            if not self.domain.contains(float(v)):
                raise ValueError(f"{self.name} must be an integer in {self.domain}, got {v}")
            return v
        return self.domain.check(self.name, value)


#: the common domains
POSITIVE = Interval(0.0, math.inf, low_open=True)
NONNEGATIVE = Interval(0.0, math.inf)
UNIT = Interval(0.0, 1.0)

#: the privacy-loss grid spacing h of a certified composition (None: the mechanism's default grid)
DISCRETIZATION = Param("discretization", Interval(0.0, 10.0, low_open=True), optional=True)
#: instead of a spacing, the absolute accuracy wanted for δ(ε) (the grid is then chosen to reach it)
TOLERANCE = Param("tolerance", Interval(0.0, 1.0, low_open=True, high_open=True), optional=True)


def check_grid_choice(discretization: object, tolerance: object) -> tuple[float | None, float | None]:
    """The grid of a certified composition, chosen by a spacing (``discretization``) or by an accuracy
    (``tolerance``), never both: each checked against its one declaration, ``None`` meaning "not given".

    >>> check_grid_choice(0.01, None)
    (0.01, None)
    >>> check_grid_choice(0.01, 1e-6)
    Traceback (most recent call last):
    ...
    ValueError: give either tolerance or discretization, not both
    """
    h = None if discretization is None else DISCRETIZATION.check_spec(discretization)
    t = None if tolerance is None else TOLERANCE.check(tolerance)
    if h is not None and t is not None:
        raise ValueError("give either tolerance or discretization, not both")
    return h, t


def declared(params: tuple[Param, ...], name: str) -> Param:
    """The parameter ``name`` of a ``PARAMS`` declaration (a ``KeyError`` if it is not declared)."""
    for p in params:
        if p.name == name:
            return p
    raise KeyError(name)


def check_params(params: tuple[Param, ...], obj: Any) -> None:
    """Check every declared parameter of a frozen dataclass ``obj`` once and store the clean value
    (float or int) back on it; ``None`` is skipped for an optional parameter and refused for the others."""
    for p in params:
        attr = p.attr or p.name
        value = getattr(obj, attr)
        if value is not None or not p.optional:
            object.__setattr__(obj, attr, p.check(value))


# ---------------------------------------------------------------------- arguments of the views
class Argument(enum.Enum):
    """The arguments of the views, each with its one range (the same for every mechanism).

    EPS: ε ∈ [−∞, ∞] of δ(ε) (every mechanism: δ(ε) = H_{e^ε}(P‖Q) is defined for every real ε and
    for ε < 0 equals 1 − e^ε·(1 − δ(−ε)) for a symmetric f); DELTA: δ ∈ [0, 1] of ε(δ);
    PI: prior π ∈ [0, 1] of R(π); ALPHA: Type I error α ∈ [0, 1] of f(α) (also FPR).
    """

    EPS = ("eps", -math.inf, math.inf)
    DELTA = ("delta", 0.0, 1.0)
    PI = ("pi", 0.0, 1.0)
    ALPHA = ("alpha", 0.0, 1.0)

    def __init__(self, label: str, low: float, high: float) -> None:
        self.label = label
        self.low = low
        self.high = high


def check_argument(kind: Argument, values: object, name: str | None = None) -> np.ndarray:
    """A float array of view arguments in the declared range of ``kind`` (+∞ allowed only for ε).

    ``name`` overrides the parameter name used in messages (e.g. ``fpr`` for α).
    """
    name = name or kind.label
    if type(values) is float and kind.low <= values <= kind.high:  # fast path: one plain float in range
        return np.asarray(values)
    _reject_non_number(name, values)
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        if arr.dtype.kind == "O" and all(
            isinstance(x, (Real, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in arr.flat
        ):
            arr = arr.astype(float)
        else:
            shown = values if arr.ndim == 0 else arr.dtype
            raise ParameterTypeError(f"{name} must be a real number or an array of real numbers, got {shown!r}")
    arr = arr.astype(float, copy=False)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must be a number in {_range_text(kind)}, got nan")
    low_bad = arr < kind.low
    if np.any(low_bad):
        bad = float(arr[low_bad].flat[0])
        text = f"{name} must be >= {kind.low:g}" if math.isinf(kind.high) else f"{name} must be in {_range_text(kind)}"
        raise ValueError(f"{text}, got {fmt_value(bad)}")
    high_bad = arr > kind.high
    if np.any(high_bad):
        raise ValueError(f"{name} must be in {_range_text(kind)}, got {fmt_value(float(arr[high_bad].flat[0]))}")
    return arr


def _range_text(kind: Argument) -> str:
    if math.isinf(kind.low) and math.isinf(kind.high):
        return "[-inf, inf]"
    return f"[{kind.low:g}, {'inf]' if math.isinf(kind.high) else f'{kind.high:g}]'}"


def check_array_in(name: str, values: object, low: float, high: float) -> np.ndarray:
    """A float array whose entries all lie in [low, high] (no NaN, no bool/str)."""
    _reject_non_number(name, values)
    arr = np.asarray(values)
    if arr.dtype.kind in "bUSO" and not (arr.dtype.kind == "O" and all(isinstance(x, Real) and not isinstance(x, bool) for x in arr.flat)):
        raise ParameterTypeError(f"{name} must be a real number or an array of real numbers, got {values!r}")
    arr = arr.astype(float)
    if arr.size and not np.all(np.isfinite(arr) | (np.isinf(arr) & np.isinf([low, high]).any())):
        bad = arr[~np.isfinite(arr)].flat[0]
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {bad!r}")
    with np.errstate(invalid="ignore"):
        outside = ~((arr >= low) & (arr <= high))
    if np.any(outside):
        bad = arr[outside].flat[0]
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {fmt_value(float(bad))}")
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
