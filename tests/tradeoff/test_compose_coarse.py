"""tradeoff/compose_coarse.py: composition + output coarsening in the Fourier domain, against an independent
brute force (repeated np.convolve of the grid step, then the fine-grid coarsening of tradeoff/grid.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.composition.sgm_certified import sgm_partition
from dpcompare.tradeoff import DiscretePair, Rounding
from dpcompare.tradeoff import grid as certified
from dpcompare.tradeoff.compose_coarse import compose_coarsened, smooth_floor

PI = np.linspace(0.0005, 0.9995, 400)
EPS = np.array([0.0, 0.05, 0.1, 0.3, 0.6, 1.0])


def brute_force(step, steps):
    """Exact-in-floating-point N-fold composition of a grid step: log P-masses and the absolute index of the first."""
    p = np.exp(step.log_p)
    out = np.array([1.0])
    base, e = p.copy(), steps
    while e:  # binary powering by direct convolution (no FFT)
        if e & 1:
            out = np.convolve(out, base)
        e >>= 1
        if e:
            base = np.convolve(base, base)
    with np.errstate(divide="ignore"):
        return np.log(out), steps * step.k_lo


def reference_pair(step, steps, factor):
    log_p, i0 = brute_force(step, steps)
    coarsen = certified.coarsen_pessimistic if step.rounding is Rounding.PESSIMISTIC else certified.coarsen_optimistic
    loss, lp = coarsen(log_p, i0, step.h, factor, steps * step.offset)
    return certified.to_pair(loss, lp, step.rounding)


@pytest.mark.parametrize("sigma,p,h,steps", [(1.0, 0.3, 0.05, 60), (0.8, 0.5, 0.08, 150), (2.0, 0.9, 0.02, 30)])
@pytest.mark.parametrize("factor", [1, 2, 4, 6])
def test_coarsened_composition_matches_brute_force(sigma, p, h, steps, factor):
    """Every Bayes error and every δ(ε) (both directions) of the Fourier-domain result is within the reported
    η of the exact composition coarsened exactly on the fine grid."""
    part = sgm_partition(sigma, p, h, sub=2, tail=1e-20)
    for build in (certified.pessimistic_step, certified.optimistic_step):
        step = build(part)
        loss, lp, rep = compose_coarsened(step, steps, factor, tau=1e-18, workers=1)
        ours = certified.to_pair(loss, lp, step.rounding)
        assert rep.coarsening <= factor and factor % rep.coarsening == 0
        ref = reference_pair(step, steps, rep.coarsening)
        eta = rep.numerical_error + 1e-14
        assert np.all(np.abs(ours.bayes_error(PI) - ref.bayes_error(PI)) <= eta)
        assert np.all(np.abs(ours.delta(EPS) - ref.delta(EPS)) <= eta)
        assert np.all(np.abs(ours.swap().delta(EPS) - ref.swap().delta(EPS)) <= eta)
        assert rep.numerical_error < 1e-9


def test_band_limited_path_is_taken_and_exact():
    """Many steps: the live spectrum is narrow, the coarse inverse transform is M = n/F long, and the result
    still agrees with the brute force (both the split and the merge kernels)."""
    part = sgm_partition(2.0, 1.0, 0.02, sub=2, tail=1e-20)  # a Gaussian step: smooth, narrow spectrum
    steps, factor = 100, 8
    split = certified.pessimistic_step(part)
    # the merge kernel on the same smooth grid pair (the optimistic step of this coarse grid alternates between
    # two mass levels, a Nyquist peak that is only dead for many more steps)
    merge = dataclasses.replace(split, rounding=Rounding.OPTIMISTIC)
    for step in (split, merge):
        loss, lp, rep = compose_coarsened(step, steps, factor, tau=1e-18, workers=1)
        assert rep.coarsening == factor  # the live band fits M = n/F: F was kept
        assert loss.size < (rep.window[1] - rep.window[0]) / step.h / 4
        ours = certified.to_pair(loss, lp, step.rounding)
        ref = reference_pair(step, steps, factor)
        eta = rep.numerical_error + 1e-14
        assert np.all(np.abs(ours.bayes_error(PI) - ref.bayes_error(PI)) <= eta)
        assert np.all(np.abs(ours.delta(EPS) - ref.delta(EPS)) <= eta)


def test_optimistic_losses_stay_in_their_blocks():
    part = sgm_partition(1.0, 0.3, 0.05, sub=2, tail=1e-20)
    step = certified.optimistic_step(part)
    loss, lp, rep = compose_coarsened(step, 400, 6, workers=1)
    assert np.all(np.diff(loss) > 0)
    pair = DiscretePair(loss, lp, 0.0, 0.0, Rounding.OPTIMISTIC)
    assert pair.size == loss.size


def test_smooth_floor():
    for f in range(1, 400):
        s = smooth_floor(f)
        assert s <= f
        r = s
        for q in (2, 3, 5):
            while r % q == 0:
                r //= q
        assert r == 1
        assert not any(smooth_floor(g) == g for g in range(s + 1, f + 1)) or s == f
    assert math.isclose(smooth_floor(113), 108)


def test_extended_dft_matches_mpmath():
    """compose._extended_dft (80-bit sums, two phase tables) against a 40-digit mpmath DFT: within 3u·Σx."""
    import mpmath

    from dpcompare.tradeoff.compose import _extended_dft
    from dpcompare.tradeoff.grid import U

    rng = np.random.default_rng(7)
    x = rng.random(400) * np.exp(-np.arange(400) / 30.0)
    n = 100_003
    k = np.array([0, 1, 17, 2500, n // 2])
    got = _extended_dft(x, n, k)
    if got is None:
        pytest.skip("long double is not wider than double on this platform")
    mpmath.mp.dps = 40
    for kk, g in zip(k, got):
        ref = mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expjpi(-2 * mpmath.mpf(int(j) * int(kk) % n) / n) for j, v in enumerate(x))
        assert abs(complex(ref) - g) <= 3 * U * float(x.sum())


def test_power_spectrum_error_bound_holds():
    """Σ over the half spectrum of |ĉᴺ − cᴺ| ≤ err_sum + dead·e^{−700}, with cᴺ from a 40-digit mpmath DFT."""
    import mpmath

    from dpcompare.tradeoff.compose import DEAD_MASS, power_spectrum

    rng = np.random.default_rng(3)
    x = rng.dirichlet(np.ones(12))
    n, steps = 64, 40
    ps = power_spectrum(x, n, steps, 1)
    mpmath.mp.dps = 40
    total = 0.0
    dense = ps.dense()
    for kk in range(n // 2 + 1):
        c = mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expjpi(-2 * mpmath.mpf(j * kk % n) / n) for j, v in enumerate(x))
        total += abs(complex(c**steps) - dense[kk])
    assert total <= ps.err_sum + ps.dead * DEAD_MASS


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 60), log_d=st.floats(-12.0, -0.5))
def test_closed_form_epsilon_is_certified_and_minimal(seed, n, log_d):
    """composition.sgm_certified._closed_form_epsilon on random discrete pairs: where it answers, δ(ε) ≤ d (checked by
    brute force over the atoms, in mpmath-free double sums) and ε is no larger than the log-space search's."""
    from dpcompare.composition.sgm_certified import _closed_form_epsilon

    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    pair = DiscretePair.from_masses(p, q)
    d = 10.0**log_d
    eps = _closed_form_epsilon(pair, d)
    ref = pair.epsilon(d)
    if eps is None:
        return
    loss = np.log(q) - np.log(p)
    brute = float(np.sum(np.where(loss > eps, q - np.exp(eps) * p, 0.0))) + pair.q_pos_inf
    assert brute <= d * (1 + 1e-9) + 1e-15
    assert eps <= ref * (1 + 1e-9) + 1e-12
    if eps > 1e-9:  # minimal: a little below, δ exceeds d
        e2 = eps * (1 - 1e-6)
        assert float(np.sum(np.where(loss > e2, q - np.exp(e2) * p, 0.0))) + pair.q_pos_inf > d * (1 - 1e-9)
