"""One number formatter for everything dpcompare shows: CLI tables, JSON, reports, cards and figures.

Three renderings of one number, chosen by where it goes:

- :func:`num` — a table cell: ``digits`` significant digits, ``∞``/``−∞``/``nan`` spelled out, ``-``
  for a missing value, never ``-0``;
- :func:`short` — a figure label or a sentence: 2 significant digits and ``1e-5`` (never ``1e-05``);
- :func:`jsonable` — plain JSON types; NaN and ±∞ become ``null`` (JSON has no NaN).

>>> num(0.005272214), num(float("inf")), num(None), num(-0.0)
('0.00527221', '∞', '-', '0')
>>> short(1e-5), short(0.0341385), short(0)
('1e-5', '0.034', '0')
>>> jsonable({"x": float("nan"), "y": (1, 2.5)})
{'x': None, 'y': [1, 2.5]}
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

__all__ = ["MISSING", "dumps", "emit_json", "jsonable", "num", "short"]

MISSING = "-"
"""What a table shows for a value that does not exist (e.g. no μ-GDP bound is known)."""

_EXP = re.compile(r"e([+-])0*(\d)")


def _float(x: Any) -> float:
    if isinstance(x, (bool, str)) or x is None:
        raise TypeError(f"a number is needed, got {type(x).__name__} {x!r}")
    return float(x) + 0.0  # + 0.0: no "-0"


def num(x: Any, digits: int = 6, *, missing: str = MISSING) -> str:
    """``x`` with ``digits`` significant digits for a table cell (``missing`` for None).

    >>> num(1 / 3), num(1 / 3, 3), num(-float("inf")), num(2e-7)
    ('0.333333', '0.333', '−∞', '2e-07')
    """
    if x is None:
        return missing
    f = _float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "∞" if f > 0 else "−∞"
    return f"{f:.{digits}g}"


def short(x: Any, digits: int = 2, *, missing: str = MISSING) -> str:
    """``x`` for a figure or a sentence: ``digits`` significant digits, exponents without padding.

    >>> short(0.00527221), short(3.2e-11), short(-1e-6, 3)
    ('0.0053', '3.2e-11', '-1e-6')
    """
    if x is None:
        return missing
    f = _float(x)
    if f == 0:
        return "0"
    if not math.isfinite(f):
        return "nan" if math.isnan(f) else ("∞" if f > 0 else "−∞")
    s = f"{f:.{digits}g}"
    return _EXP.sub(lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), s)


def jsonable(x: Any) -> Any:
    """Plain JSON types, recursively: dicts, lists, str, bool, int, finite float or None.

    NaN and ±∞ become ``None``; numpy scalars and arrays become Python numbers and lists; an object
    with ``to_dict()`` is rendered through it; anything else becomes its ``str``.

    >>> import numpy as np
    >>> jsonable([np.float64(0.5), np.int64(3), np.bool_(True), np.array([1.0, np.inf])])
    [0.5, 3, True, [1.0, None]]
    """
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if x is None or isinstance(x, str):
        return x
    if hasattr(x, "tolist") and hasattr(x, "ndim"):  # numpy array or scalar
        return jsonable(x.tolist()) if x.ndim else jsonable(x.item())
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if hasattr(x, "to_dict"):
        return jsonable(x.to_dict())
    return str(x)


def dumps(obj: Any) -> str:
    """One line of strict JSON (``allow_nan=False``: a NaN that slipped through is a bug, not output).

    >>> dumps({"eps": float("inf"), "ok": True})
    '{"eps": null, "ok": true}'
    """
    return json.dumps(jsonable(obj), allow_nan=False)


def emit_json(obj: Any) -> None:
    """Write ``obj`` as one JSON line to stdout (the whole output of a ``--json`` command)."""
    sys.stdout.write(dumps(obj) + "\n")
    sys.stdout.flush()
