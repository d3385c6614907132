"""tradeoff/low_band_dft.py: the pruned forward transform of step 6 — the band's values within their a-priori bound
(against a 40-digit mpmath DFT), every entry above the band below ``level`` (against the full FFT, within its own
bound), the full-FFT fallback where the certificate cannot close, and ``power_spectrum`` with and without pruning."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import fft as sfft

from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff.grid import U
from dpcompare.tradeoff.low_band_dft import band_dft, low_band


def _reference(x: np.ndarray, n: int, kk: int) -> complex:
    mpmath = pytest.importorskip("mpmath", reason="the reference DFT is summed in mpmath")
    mpmath.mp.dps = 40
    return complex(mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expjpi(-2 * mpmath.mpf(j * kk % n) / n)
                               for j, v in enumerate(x.tolist()) if v))


def _full_bound(x: np.ndarray, n: int) -> float:
    """The full FFT's a-priori error (tradeoff/compose.py step 6), for comparing against it."""
    return certified_compose.KAPPA * (math.log2(n) + 1.0) * U * float(np.sum(x))


@pytest.mark.parametrize("seed, n, count", [(0, 4099, 40), (1, 65536, 70), (2, 3 ** 11, 33)])
def test_band_within_its_bound_of_mpmath(seed, n, count):
    rng = np.random.default_rng(seed)
    size = 333
    x = rng.random(size) * np.exp(-0.5 * ((np.arange(size) - 150.0) / 40.0) ** 2 - 3.0 * rng.random(size))
    x[::29] *= 1e-200  # magnitudes far apart
    values, err = band_dft(x, n, count)
    assert err <= 80 * U * float(np.sum(x))  # the bound stated in the module docstring (≈ 70u·‖x‖₁ at J = 32)
    for kk in (0, 1, 2, 7, count // 2, count - 1):
        assert abs(values[kk] - _reference(x, n, kk)) <= err, kk


def test_band_agrees_with_the_full_fft_on_a_long_input():
    rng = np.random.default_rng(3)
    x = rng.random(20_000) ** 3
    n = 1 << 20
    values, err = band_dft(x, n, 300)
    full = sfft.rfft(x, n)[:300]
    assert np.max(np.abs(values - full)) <= err + _full_bound(x, n)


def _check_certificate(x: np.ndarray, n: int, level: float) -> None:
    band = low_band(x, n, level)
    if band is None:
        return
    full = sfft.rfft(x, n)
    k = band.values.size
    assert np.max(np.abs(band.values - full[:k])) <= band.error + _full_bound(x, n)
    # every entry above the band: the true |X(k)| < level, so the computed one ≤ level + the full FFT's bound
    assert np.all(np.abs(full[k:]) <= level + _full_bound(x, n))


@pytest.mark.parametrize("n", [1 << 17, 3 ** 11, 2 * 3 ** 10 * 5])  # 3¹¹: every n/s odd (the mirrored last interval)
@pytest.mark.parametrize("frac", [0.9995, 0.99, 0.5])
def test_certificate_against_the_full_fft(n, frac, monkeypatch):
    # the certificate, not the cost policy, is under test: every band is taken (a low level makes the band wide
    # enough that the per-entry cost would send a real composition to the full transform)
    from dpcompare.tradeoff import low_band_dft as lb

    monkeypatch.setattr(lb, "ROW_OVERHEAD", 0)
    size = 1500
    j = np.arange(size)
    # a bulk and a far, light tail (the subsampled Gaussian's shape): a large second moment for its mass
    x = np.exp(-0.5 * ((j - 200.0) / 40.0) ** 2) + 1e-6 * np.exp(-0.5 * ((j - 1300.0) / 30.0) ** 2)
    _check_certificate(x, n, frac * float(np.sum(x)))
    assert low_band(x, n, frac * float(np.sum(x))) is not None


@settings(max_examples=25, deadline=None)
@given(
    centre=st.floats(0.0, 1.0), width=st.floats(1.0, 200.0), size=st.integers(2, 3000),
    log_n=st.integers(14, 18), frac=st.floats(0.3, 0.99999), spike=st.floats(0.0, 1.0),
)
def test_certificate_property(centre, width, size, log_n, frac, spike):
    """Law: whatever the input, every entry outside the returned band is below ``level`` (and the band within its
    bound); inputs with an isolated far atom (``spike``) make the modulus oscillate between samples."""
    j = np.arange(size)
    x = np.exp(-0.5 * ((j - centre * size) / width) ** 2)
    x[-1] += spike * float(np.sum(x))
    n = 1 << log_n
    if size > n // 2:
        return
    _check_certificate(x, n, frac * float(np.sum(x)))


def test_alternating_masses_fall_back_to_the_full_fft():
    """A step whose masses alternate has a Nyquist peak (|X(n/2)| = ‖x‖₁·…): the certificate cannot close far from
    the band, so no band is returned, and power_spectrum takes the full FFT (same answer either way)."""
    size = 600
    x = np.exp(-0.5 * ((np.arange(size) - 300.0) / 50.0) ** 2)
    x[1::2] = 0.0
    n = 1 << 17
    assert low_band(x, n, 0.99 * float(np.sum(x))) is None
    ps = certified_compose.power_spectrum(x, n, 2000, 1)
    assert int(ps.k.max()) > n // 4  # the Nyquist entries live


@pytest.mark.parametrize("steps", [20_000, 500_000])
def test_power_spectrum_pruned_and_full_agree(monkeypatch, steps):
    size = 4000
    j = np.arange(size)
    x = 0.999 * np.exp(-0.5 * ((j - 300.0) / 60.0) ** 2) + 1e-9 * np.exp(-((j - 3500.0) / 200.0) ** 2)
    x /= float(np.sum(x)) * 1.0001
    n = 1 << 19
    pruned = certified_compose.power_spectrum(x, n, steps, 1)
    band = low_band(x, n, math.exp(-certified_compose.DEAD_LOG / steps) * (1 - 8 * U) / (1 + 8 * U))
    assert band is not None and band.values.size < n // 64  # the pruned route was taken
    monkeypatch.setattr(certified_compose, "PRUNE_MIN_N", 1 << 40)
    full = certified_compose.power_spectrum(x, n, steps, 1)
    assert np.array_equal(pruned.k, full.k) and pruned.dead == full.dead
    # both N-th powers are within their own bounds of the truth
    assert np.sum(np.abs(pruned.values - full.values)) <= pruned.err_sum + full.err_sum
    assert pruned.err_sum <= full.err_sum  # the band's bound (≈ 70u) is below the FFT's (≈ 100u)


def test_negative_or_nan_input_is_left_to_the_full_fft():
    """The certificate's moments assume x ≥ 0 (masses): anything else takes the full transform."""
    x = np.exp(-0.5 * ((np.arange(500) - 250.0) / 40.0) ** 2)
    n = 1 << 17
    assert low_band(x, n, 0.999 * float(np.sum(x))) is not None
    y = x.copy()
    y[3] = -1e-12
    assert low_band(y, n, 0.999 * float(np.sum(x))) is None
    y[3] = np.nan
    assert low_band(y, n, 0.999 * float(np.sum(x))) is None


def test_double_precision_tables_within_their_bound(monkeypatch):
    """Where long double is not wider than double the tables come from double angles, with their own bound."""
    from dpcompare.tradeoff import low_band_dft

    monkeypatch.setattr(low_band_dft, "_EXTENDED", False)
    low_band_dft._tables.cache_clear()
    try:
        rng = np.random.default_rng(11)
        x = rng.random(257) ** 2
        n = 3 ** 11
        values, err = band_dft(x, n, 12)
        assert err > 68 * U * float(np.sum(x))  # the larger table error is charged
        for kk in (0, 1, 5, 11):
            assert abs(values[kk] - _reference(x, n, kk)) <= err, kk
    finally:
        low_band_dft._tables.cache_clear()


def test_a_short_input_with_a_wide_band_takes_the_full_transform():
    # 26 points on n = 2²²: the band would hold 1.3·10⁵–5·10⁵ entries, each costing its twiddles and tree whatever
    # the input's length (an N = 10⁶ step of 26 points: a band of 6.75·10⁶ entries took 8 s, the full FFT 0.9 s)
    from dpcompare.tradeoff import low_band_dft as lb

    x = np.exp(-0.5 * ((np.arange(26) - 13) / 4.0) ** 2)
    for level in (0.9, 0.5, 0.1):
        assert lb.low_band(x, 1 << 22, level * x.sum()) is None
    wide = np.exp(-0.5 * ((np.arange(4000) - 2000.0) / 300.0) ** 2)  # a long, smooth input: a narrow band pays
    band = lb.low_band(wide, 1 << 22, 0.5 * wide.sum())
    assert band is not None and band.values.size * (wide.size + lb.ROW_OVERHEAD) <= lb.COST_RATIO * (1 << 22) * 22
