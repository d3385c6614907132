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


#: working memory per point of a composition FFT (peak resident memory over the FFT length, measured with
#: the commands in docs/edges.md): the fine-grid composition (tradeoff/compose.py: ``Composed``, the
#: Gaussian-mixture events) 68.5 bytes, charged 72; the coarsened one (tradeoff/compose_coarse.py: the
#: subsampled Gaussian, ``epsilon_to_accuracy``, Δ between them) 26–33 bytes, charged 34
FFT_BYTES_FINE = 72
FFT_BYTES_COARSE = 34


def fft_points_that_fit(bytes_per_point: int, *, limit: int = MEMORY_LIMIT) -> int:
    """The longest composition FFT whose working memory fits in ``limit``.

    >>> fft_points_that_fit(FFT_BYTES_FINE), fft_points_that_fit(FFT_BYTES_COARSE)
    (14913080, 31580641)
    """
    return int(limit) // int(bytes_per_point)


def fft_refusal(points: int, bytes_per_point: int, *, steps: int, h: float, limit: int = MEMORY_LIMIT) -> str | None:
    """None if an FFT of ``points`` points fits in ``limit``, else the refusal: the estimate, the limit and what
    fits (the grid spacing at which the window fits, since its length is ∝ 1/h — the spacing is discretization= itself for
    the subsampled Gaussian, and m/2ᵏ ≤ discretization for Laplace —, or fewer steps).
    Called before the FFT's arrays are allocated.

    >>> fft_refusal(10**6, FFT_BYTES_FINE, steps=10, h=0.01) is None
    True
    >>> print(fft_refusal(3 * 10**7, FFT_BYTES_FINE, steps=10**5, h=0.01))
    steps=100000 at discretization=0.01: the composition FFT of 30000000 points needs an estimated 2.01 GiB of working memory (72 bytes per point; limit 1 GiB): at most 14913080 points fit: a grid spacing >= 0.0201 (discretization=), or fewer steps
    """
    need = int(points) * int(bytes_per_point)
    if need <= limit:
        return None
    fit = fft_points_that_fit(bytes_per_point, limit=limit)
    return (f"steps={steps} at discretization={h:.3g}: the composition FFT of {int(points)} points needs an estimated "
            f"{_fmt_bytes(need)} of working memory ({bytes_per_point} bytes per point; limit {_fmt_bytes(limit)}): at most "
            f"{fit} points fit: a grid spacing >= {h * points / fit:.3g} (discretization=), or fewer steps")


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


__all__ = ["MEMORY_LIMIT", "FFT_BYTES_COARSE", "FFT_BYTES_FINE", "check_memory", "fft_points_that_fit", "fft_refusal"]
