"""Resource limits checked before any work: a size that would need more memory than we allow is refused
with the estimate and the largest size that fits (as the shuffle model's clone pairs and the FFT
composition already do), instead of being found by numpy failing gigabytes later.

The bytes per unit are measured (peak resident memory over units, ``benchmarks``-style, on numpy
float64 arrays) and rounded up; see docs/edges.md for the table and the command that measures them.

>>> check_memory("grid", 20001, 1200)
20001
>>> check_memory("grid", 10**10, 1200)
Traceback (most recent call last):
...
ValueError: grid=10000000000 needs an estimated 10.9 TiB of working memory (1200 bytes per unit; limit 1 GiB): at most grid=894784 fits
"""

from __future__ import annotations

#: memory a single call may use before it is refused
MEMORY_LIMIT = 1 << 30


def _fmt_bytes(b: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.3g} bytes"


def check_memory(name: str, units: int, bytes_per_unit: int, *, limit: int = MEMORY_LIMIT) -> int:
    """``units`` if ``units·bytes_per_unit`` ≤ ``limit``, else ValueError naming ``name``, the estimate and
    the largest value that fits."""
    need = int(units) * int(bytes_per_unit)
    if need > limit:
        raise ValueError(
            f"{name}={units} needs an estimated {_fmt_bytes(need)} of working memory ({bytes_per_unit} bytes per unit; "
            f"limit {_fmt_bytes(limit)}): at most {name}={limit // bytes_per_unit} fits"
        )
    return int(units)


__all__ = ["MEMORY_LIMIT", "check_memory"]
