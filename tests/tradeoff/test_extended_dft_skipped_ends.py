"""tradeoff/compose.py ``_extended_dft`` at the shipped block size (DFT_BLOCK) over many blocks, with a prefix and a
suffix that ``_dft_range`` leaves out close to their budget (true totals just under u/2·Σx each), against a 40-digit
mpmath DFT of every input: within the 3u·Σx that power_spectrum charges (measured ≈ 1.3u·Σx, the skipped u·Σx
included). test_extended_dft_blocks.py checks the skipped totals alone and the blocks on inputs with nothing skipped;
this checks the two together at k = 0 (all phases 1: the skipped mass is coherent there) and at a few other k."""

import math

import numpy as np
import pytest

from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff.grid import U

mpmath = pytest.importorskip("mpmath", reason="the reference DFT is summed in mpmath")


def test_skipped_ends_and_blocks_against_mpmath():
    rng = np.random.default_rng(3)
    size, n = 1400, 196_830
    j = np.arange(size)
    x = np.exp(-0.5 * ((j - 700) / 90.0) ** 2) * (1 + 0.1 * rng.random(size))
    x /= x.sum()
    x[:200] = 0.49 * U / 200 * (1 + 0.01 * rng.random(200))  # each end's true total just under u/2 (Σx ≈ 1)
    x[-200:] = 0.49 * U / 200 * (1 + 0.01 * rng.random(200))
    x = np.concatenate([np.zeros(17), x])
    j0, j1 = certified_compose._dft_range(x, 17, x.size)
    assert (j0 - 17, x.size - j1) == (200, 200)  # both ends are left out: the case under test
    assert certified_compose.DFT_BLOCK == 256 and (j1 - j0) > 3 * certified_compose.DFT_BLOCK  # several blocks
    k = np.array([0, 1, 97, 98_000])
    got = certified_compose._extended_dft(x, n, k)
    if got is None:
        pytest.skip("long double is not wider than double on this platform")
    total = math.fsum(x.tolist())
    with mpmath.workdps(40):
        xs = [(jj, mpmath.mpf(float(v))) for jj, v in enumerate(x.tolist()) if v]
        for kk, g in zip(k.tolist(), got.tolist()):
            ref = mpmath.fsum(v * mpmath.expjpi(-2 * mpmath.mpf(jj * kk % n) / n) for jj, v in xs)
            assert abs(complex(ref) - g) <= 3 * U * total, kk
