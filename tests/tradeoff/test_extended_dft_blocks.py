"""tradeoff/compose.py ``_extended_dft``: the blocked long-double DFT (inner products over blocks of DFT_BLOCK inputs,
outer twiddles, a pairwise halving over the blocks) against a 40-digit mpmath DFT, within the 3u·Σx that
power_spectrum charges, on inputs spanning many orders of magnitude, with leading zeros, for several block sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff.grid import U


def _reference(x: np.ndarray, n: int, kk: int):
    mpmath = pytest.importorskip("mpmath", reason="the reference DFT is summed in mpmath")
    mpmath.mp.dps = 40
    return complex(mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expjpi(-2 * mpmath.mpf(j * kk % n) / n)
                               for j, v in enumerate(x.tolist()) if v))


@pytest.mark.parametrize("seed, n, block", [(0, 4099, 64), (1, 65536, 64), (2, 4099, 1), (3, 65536, 7), (4, 997, 512)])
def test_against_mpmath(seed, n, block, monkeypatch):
    monkeypatch.setattr(certified_compose, "DFT_BLOCK", block)
    rng = np.random.default_rng(seed)
    size = 300
    x = rng.random(size) * np.exp(-0.5 * ((np.arange(size) - 120.0) / 25.0) ** 2 - 2.0 * rng.random(size))
    x[::37] *= 1e-250  # far-tail masses
    x[:5] = 0.0  # the blocks start at the first nonzero input
    k = np.array([3, 0, 1, 2, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 700, 2, 701, n // 2])  # a repeat
    got = certified_compose._extended_dft(x, n, k)
    if got is None:
        pytest.skip("long double is not wider than double on this platform")
    bound = 3 * U * math.fsum(x.tolist())
    for kk, g in zip(k.tolist(), got.tolist()):
        assert abs(_reference(x, n, kk) - g) <= bound, kk


def test_block_sizes_agree(monkeypatch):
    """Every block size gives the same DFT within twice the bound (a structural check, not a reference)."""
    rng = np.random.default_rng(5)
    x = rng.random(2000) ** 4
    n = 30011
    k = np.arange(0, 10)
    a = certified_compose._extended_dft(x, n, k)
    if a is None:
        pytest.skip("long double is not wider than double on this platform")
    for block in (1, 3, 64, 512):
        monkeypatch.setattr(certified_compose, "DFT_BLOCK", block)
        b = certified_compose._extended_dft(x, n, k)
        assert np.all(np.abs(a - b) <= 6 * U * float(np.sum(x))), block


def test_block_over_budget_declines(monkeypatch):
    """A block whose inner products alone exceed the 1.5u budget (γ_J > 3072 ε_ext) returns None: the caller then keeps
    the transform's values with their own bound."""
    monkeypatch.setattr(certified_compose, "DFT_BLOCK", 4096)
    x = np.ones(5000)
    assert certified_compose._extended_dft(x, 8192, np.array([0, 1])) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 300), st.integers(0, 40), st.integers(0, 40))
def test_skipped_ends_within_budget(seed, size, tiny_head, tiny_tail):
    """_dft_range leaves out a prefix and a suffix whose exact totals (math.fsum) are each ≤ u/2·Σx, and nothing where
    an input is negative."""
    rng = np.random.default_rng(seed)
    x = rng.random(size) * 10.0 ** -rng.integers(0, 300, size).astype(float)
    x[: min(tiny_head, size)] *= 1e-18
    x[size - min(tiny_tail, size):] *= 10.0 ** -rng.integers(14, 20)
    j0, j1 = certified_compose._dft_range(x, 0, size)
    total = math.fsum(x.tolist())
    assert 0 <= j0 < j1 <= size
    assert math.fsum(x[:j0].tolist()) <= 0.5 * U * total
    assert math.fsum(x[j1:].tolist()) <= 0.5 * U * total
    x[size // 2] = -1.0
    assert certified_compose._dft_range(x, 0, size) == (0, size)


def test_all_zero_input():
    got = certified_compose._extended_dft(np.zeros(10), 64, np.array([0, 3]))
    if got is None:
        pytest.skip("long double is not wider than double on this platform")
    assert np.array_equal(got, np.zeros(2, dtype=complex))


def test_forward_rfft_is_scipys():
    """compose._forward_rfft (numpy's pocketfft into a reused buffer, numpy ≥ 2) gives scipy.fft.rfft's values, and a
    second call does not change an earlier result the caller copied."""
    from scipy import fft as sfft

    rng = np.random.default_rng(9)
    for n, size in ((7, 3), (4099, 300), (196_830, 39_327), (65_536, 65_536)):
        x = rng.random(size) ** 3
        got = certified_compose._forward_rfft(x, n, 1).copy()
        np.testing.assert_allclose(got, sfft.rfft(x, n), rtol=0, atol=64 * U * float(np.sum(x)))
        again = certified_compose._forward_rfft(x[::-1].copy(), n, 1)
        assert again.shape == got.shape
