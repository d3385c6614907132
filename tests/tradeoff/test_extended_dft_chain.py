"""tradeoff/compose.py ``_extended_dft``: runs of consecutive indices k advance the terms by one multiplication
per index (the chain of its docstring); against a 40-digit mpmath DFT (within the
3u·Σx that power_spectrum charges), on inputs spanning many orders of magnitude."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff.grid import U


def _reference(x: np.ndarray, n: int, kk: int):
    mpmath = pytest.importorskip("mpmath", reason="the reference DFT is summed in mpmath")
    mpmath.mp.dps = 40
    return complex(mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expjpi(-2 * mpmath.mpf(j * kk % n) / n)
                               for j, v in enumerate(x.tolist()) if v))


@pytest.mark.parametrize("seed, n", [(0, 4099), (1, 65536)])
def test_consecutive_indices_against_mpmath(seed, n):
    rng = np.random.default_rng(seed)
    size = 300
    x = rng.random(size) * np.exp(-0.5 * ((np.arange(size) - 120.0) / 25.0) ** 2 - 2.0 * rng.random(size))
    x[::37] *= 1e-250  # far-tail masses: skipped (≤ u·Σx in all) or carried, never harmful
    k = np.array([3, 0, 1, 2, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 700, 2, 701])  # runs longer than DFT_CHAIN, a repeat
    got = certified_compose._extended_dft(x, n, k)
    if got is None:
        pytest.skip("long double is not wider than double on this platform")
    bound = 3 * U * math.fsum(x.tolist())
    for kk, g in zip(k.tolist(), got.tolist()):
        assert abs(_reference(x, n, kk) - g) <= bound, kk


def test_chain_agrees_with_tables(monkeypatch):
    """The chained terms and the table terms (chain disabled) agree within twice the bound."""
    rng = np.random.default_rng(5)
    x = rng.random(2000) ** 4
    n = 30011
    k = np.arange(1, 11)
    a = certified_compose._extended_dft(x, n, k)
    if a is None:
        pytest.skip("long double is not wider than double on this platform")
    monkeypatch.setattr(certified_compose, "DFT_CHAIN", 0)
    b = certified_compose._extended_dft(x, n, k)
    assert np.all(np.abs(a - b) <= 6 * U * float(np.sum(x)))
