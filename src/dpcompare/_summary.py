"""A readable ``str()`` for result objects: ``print(result)`` shows a titled list of its fields.

Result types get their ``__str__`` from the class decorator :func:`summarized` (their ``repr`` stays the
dataclass one, for debugging).
Numbers get six significant digits; enums their value; nested results are indented.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Callable, TypeVar

T = TypeVar("T", bound=type)


def _value(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, enum.Enum):
        return str(v.value)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return "[" + ", ".join(_value(float(x) if isinstance(x, float) else x) for x in v) + "]"
    if hasattr(v, "spec") and isinstance(getattr(v, "spec"), str):
        return v.spec
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return "\n    " + "\n    ".join(str(v).splitlines())
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return _value(f) if not isinstance(v, int) else str(v)


def summary(obj: Any, title: str, extra: dict[str, Any] | None = None) -> str:
    """``title`` and one ``name: value`` line per dataclass field of ``obj`` (then ``extra``).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class R:
    ...     sigma: float
    ...     steps: int
    >>> print(summary(R(0.5862681333, 1000), "DP-SGD calibration", {"spec": "sgm(sigma=0.586268, p=0.01, steps=1000)"}))
    DP-SGD calibration
      sigma: 0.586268
      steps: 1000
      spec: sgm(sigma=0.586268, p=0.01, steps=1000)
    """
    lines = [title]
    items = [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.repr]
    for name, v in items + list((extra or {}).items()):
        lines.append(f"  {name}: {_value(v)}")
    return "\n".join(lines)


def summarized(title: str, *extra: str) -> Callable[[T], T]:
    """Class decorator: ``str(obj)`` is ``summary(obj, title, {name: obj.name for name in extra})``.

    ``extra`` names attributes (usually properties) shown after the fields.

    >>> from dataclasses import dataclass
    >>> @summarized("A run", "total")
    ... @dataclass(frozen=True)
    ... class Run:
    ...     steps: int
    ...     @property
    ...     def total(self) -> float:
    ...         return 2.5 * self.steps
    >>> print(Run(4))
    A run
      steps: 4
      total: 10
    """

    def decorate(cls: T) -> T:
        def __str__(self: Any) -> str:
            return summary(self, title, {name: getattr(self, name) for name in extra})

        __str__.__doc__ = "A readable summary (``print(result)``)."
        __str__.__qualname__ = f"{cls.__qualname__}.__str__"
        cls.__str__ = __str__  # type: ignore[assignment]
        return cls

    return decorate
