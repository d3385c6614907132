"""_limits.py: composition FFTs beyond the 1 GiB per-call budget are refused before allocation, with the
estimate and what fits; the largest that fits still runs (checked on the estimate, not at full size)."""

from __future__ import annotations


import pytest
from scipy import fft as sfft

import dpcompare as dc
from dpcompare._limits import FFT_BYTES_FINE, MEMORY_LIMIT, fft_points_that_fit, fft_refusal
from dpcompare.composition.closed_form import laplace_grid_intervals, laplace_partition
from dpcompare.composition.sgm_certified import WINDOW_TAIL
from dpcompare.mechanisms.composed import Composed
from dpcompare.tradeoff import compose as fine_compose
from dpcompare.tradeoff import grid
from dpcompare.tradeoff.compose import DiscretizationTooFine, chernoff_window


def test_fft_refusal_names_the_parameter_the_estimate_and_what_fits():
    fit = fft_points_that_fit(FFT_BYTES_FINE)
    assert fit * FFT_BYTES_FINE <= MEMORY_LIMIT < (fit + 1) * FFT_BYTES_FINE
    assert fft_refusal(fit, FFT_BYTES_FINE, steps=7, h=0.1) is None
    msg = fft_refusal(2 * fit, FFT_BYTES_FINE, steps=7, h=0.1)
    assert "steps=7" in msg and "discretization=" in msg  # the parameters
    assert "2 GiB" in msg and "72 bytes per point" in msg  # the estimate
    assert f"at most {fit} points fit" in msg and "spacing >= 0.2 " in msg  # what fits: twice the spacing


def _laplace_fft_len(steps: int, discretization: float) -> int:
    """The FFT length ``Composed(Laplace(b=1), steps, discretization=…)`` would allocate (its window; cheap)."""
    k = laplace_grid_intervals(1.0, steps, discretization)
    step = grid.pessimistic_step(laplace_partition(1.0, k, sub=max(1, min(4, (1 << 20) // (2 * k)))))
    lo, hi = chernoff_window(step, steps, WINDOW_TAIL)
    return sfft.next_fast_len(hi - lo + 1, real=True)


def test_composed_laplace_beyond_the_budget_is_refused_before_the_fft(monkeypatch):
    """Composed(Laplace(b=1), 10⁵, discretization=0.005): 20.2e6 FFT points ≈ 1.35 GiB at the measured
    68.5 bytes per point (the old limit, 2²⁵ points, let it run at ≈ 1.4 GB)."""
    monkeypatch.setattr(fine_compose, "power_spectrum", lambda *a, **k: pytest.fail("allocated the FFT"))
    with pytest.raises(DiscretizationTooFine, match=r"steps=100000 .* needs an estimated 1\.\d+ GiB .* at most 14913080 points fit"):
        Composed(dc.Laplace(b=1.0), steps=10**5, discretization=0.005).composition


def test_the_largest_laplace_spacing_that_fits_is_not_refused():
    """At discretization 0.01 (spacing 1/128) the window is 10.1e6 points (measured 713 MB peak), under
    the 14.9e6 that fit; at the next finer spacing (1/256) it is 20.2e6, refused."""
    n_fit, n_over = _laplace_fft_len(10**5, 0.01), _laplace_fft_len(10**5, 0.005)
    assert 10**7 < n_fit <= fft_points_that_fit(FFT_BYTES_FINE) < n_over
    assert fft_refusal(n_fit, FFT_BYTES_FINE, steps=10**5, h=1 / 128) is None


def test_subsampled_gaussian_beyond_the_budget_is_refused_with_what_fits():
    """SGM(1, 0.01, 10⁷) at discretization 7.5e-5: 32.4e6 points at 34 bytes (measured 1062 MB peak before)."""
    with pytest.raises(ValueError, match=r"steps=10000000 at discretization=7\.5e-05: .* 1\.03 GiB .* at most 31580641 points fit: a grid spacing >= 7\.69e-05"):
        dc.SubsampledGaussian(1.0, 0.01, 10**7, discretization=7.5e-5).epsilon(1e-5)


def test_epsilon_to_accuracy_never_refines_past_the_budget(monkeypatch):
    """Its refinement stops at the spacing whose FFT fits (the window is ∝ 1/h), instead of composing beyond
    the budget (10⁷ steps at rel_tol 1e-3 reached 32.4e6 points, 1062 MB) or being refused half-way.
    Here the budget is shrunk so that a small case meets it."""
    from dpcompare.composition import sgm_accuracy

    real = sgm_accuracy._compose_sides
    seen = []

    def compose(sigma, p, steps, h, h_opt, tail=None):  # both sides' grids, each with its FFT
        c = real(sigma, p, steps, h, h_opt, tail)
        seen.append((h, max(r.fft_len for r in c.reports)))
        return c

    monkeypatch.setattr(sgm_accuracy, "_compose_sides", compose)
    a = sgm_accuracy.epsilon_to_accuracy(1.0, 0.05, 100, 1e-5, rel_tol=1e-6)
    assert len(seen) >= 2 and seen[1][1] > seen[0][1]  # unconstrained, it refines (46 656 → 93 312 points)
    budget = int(1.3 * seen[0][1])  # room for the first grid only, not for the 2× finer one
    seen.clear()
    monkeypatch.setattr(sgm_accuracy, "fft_points_that_fit", lambda bpp: budget)
    b = sgm_accuracy.epsilon_to_accuracy(1.0, 0.05, 100, 1e-5, rel_tol=1e-6)
    assert seen and all(n <= budget for _, n in seen)
    assert b.lower <= a.epsilon and a.lower <= b.epsilon  # both certified brackets of the same ε


def test_composed_losses_beyond_what_a_pair_carries_are_refused_before_composing(monkeypatch):
    """Composed(Laplace(b=0.0217), 10⁶): mean composed loss N·KL = 4.5e7 nats > 1e7 (MAX_ABS_LOSS). The grid
    route refused it after 8 s of FFT work (deep fuzz); the mean is known up front."""
    from dpcompare.composition import closed_form

    monkeypatch.setattr(closed_form, "compose_laplace", lambda *a, **k: pytest.fail("composed before refusing"))
    c = Composed(dc.Laplace(b=0.021720847198851694), steps=10**6)
    with pytest.raises(DiscretizationTooFine, match=r"steps=1000000: .* mean N·KL = 4\.5e\+07 nats, .* steps must be below 222031"):
        c.delta_bounds(0.001)
    m = 1 / 0.021720847198851694
    assert c.epsilon(1e-5) <= 10**6 * m  # ε still answered (the pure-DP bound), not refused


def test_the_mean_loss_check_leaves_what_fits_alone(monkeypatch):
    """Below the threshold the composition runs (here: a stub records that it was reached)."""
    from dpcompare.composition import closed_form

    calls = []
    monkeypatch.setattr(closed_form, "compose_laplace", lambda *a, **k: calls.append(a) or None)
    Composed(dc.Laplace(b=0.021720847198851694), steps=200_000).composition  # N·KL = 9.0e6 < 1e7
    assert calls
