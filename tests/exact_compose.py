"""Exact N-fold compositions for the tests' independent truths (imported as ``exact_compose``; tests/conftest.py
puts this folder on the path, as for ``strategies``).

``npow``: the N-th convolution power of a list of masses by binary powering with exact (schoolbook) products, in
whatever arithmetic the masses carry (mpmath at the caller's precision, Fractions, ints). ``composed_grid_masses``:
the N-fold composition of a grid step's P-masses by repeated ``np.convolve`` (doubles: small N and grids only) and
the Q-masses that go with them.

>>> npow([1, 1], 3)
[1, 3, 3, 1]
"""

from __future__ import annotations

import numpy as np


def _convolve(a: list, b: list) -> list:
    """The exact convolution of two mass lists (zeros skipped; an untouched entry stays the integer 0)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, u in enumerate(a):
        if u:
            for k, v in enumerate(b):
                if v:
                    out[i + k] += u * v
    return out


def npow(x: list, n: int) -> list:
    """x^{*n} (n ≥ 1): entry i is the mass of index sum i over n independent draws, by binary powering."""
    res, base = None, x
    while n:
        if n & 1:
            res = base if res is None else _convolve(res, base)
        n >>= 1
        if n:
            base = _convolve(base, base)
    return res


def composed_grid_masses(step, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(I, Pᴺ, Qᴺ) of ``steps`` compositions of a ``tradeoff.grid.GridStep``: composed index I (loss N·o + I·h),
    the P-masses by repeated convolution and Qᴺ = Pᴺ·e^{N·o + I·h}."""
    p = np.exp(step.log_p)
    pn = np.array([1.0])
    for _ in range(steps):
        pn = np.convolve(pn, p)
    idx = steps * step.k_lo + np.arange(pn.size)
    return idx, pn, pn * np.exp(steps * step.offset + idx * step.h)
