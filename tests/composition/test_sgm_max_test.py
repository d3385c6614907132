"""The maximum-coordinate test's closed-form lower bound of δ(ε) (composition/sgm_max_test.py) and the default δ
bracket that uses it in place of the optimistic side at small sampling rates (sgm_accuracy.delta_to_accuracy)."""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.composition.sgm_max_test import _event_masses, max_test_lower_bound

mp = pytest.importorskip("mpmath", reason="mpmath is the reference for the test's event probabilities")


def _mp_event(sigma, p, n, eps, t):
    """(Q(S_t) − e^ε·P(S_t), Q(S_t) + e^ε·P(S_t)) in 40-digit mpmath."""
    with mp.workdps(40):
        s, p_, t = mp.mpf(sigma), mp.mpf(p), mp.mpf(float(t))
        a, b = mp.ncdf(-t / s), mp.ncdf((1 - t) / s)
        q, pp = 1 - (1 - a - p_ * (b - a)) ** n, mp.exp(mp.mpf(eps)) * (1 - (1 - a) ** n)
        return q - pp, q + pp


@pytest.mark.parametrize(("sigma", "p", "n", "eps"), [(0.0367, 9.9e-8, 18, 0.0417), (1.0, 0.01, 100, 1.0),
                                                      (0.5, 0.3, 5, 0.5), (1.0, 1e-8, 1000, 1e-3),
                                                      (1e3, 0.5, 10, 0.0)])  # large σ: b − a cancels
def test_lower_bound_is_at_most_the_exact_event_value_and_close_to_it(sigma, p, n, eps):
    got = float(max_test_lower_bound(sigma, p, n, np.array([eps]))[0])
    t, q_lo, p_hi = _event_masses(sigma, p, n)
    i = int(np.argmax(q_lo - np.exp(eps) * (1 + 1e-9) * p_hi))
    exact, scale = _mp_event(sigma, p, n, eps, t[i])  # the event the bound comes from, exactly
    # never above it; below it by the margins only (1e-9 relative on each of Q and e^ε·P, which cancel)
    assert 0.0 < got and mp.mpf(got) <= exact and mp.mpf(got) >= exact - 4e-9 * scale
    # and no other threshold tried is better by more than the margins (every 50th, exactly)
    assert all(_mp_event(sigma, p, n, eps, x)[0] <= exact + 4e-9 * scale for x in t[::50])


def test_lower_bound_is_below_the_never_sampled_bound_and_the_limits():
    nsb = dc.SubsampledGaussian(0.0367, 9.9e-8, 18).never_sampled_bound  # an upper bound of δ(ε), ε ≥ 0
    lo = max_test_lower_bound(0.0367, 9.9e-8, 18, np.array([0.0, 0.0417, 5.0, np.inf, -np.inf]))
    assert np.all(lo[:3] <= nsb) and lo[1] >= nsb * (1 - 1e-8)
    assert lo[3] == 0.0 and 0.0 <= lo[4] <= 1.0


def test_small_rate_bracket_against_dp_accounting():
    """(σ, p, N) = (0.3, 1e-4, 10), ε = 0.1: the bracket's lower end is the test's (no optimistic side composed).
    Reference: dp-accounting 0.6.0, ``from_gaussian_mechanism(0.3, sampling_prob=1e-4,
    value_discretization_interval=1e-4, pessimistic_estimate=True, use_connect_dots=True).self_compose(10)
    .get_delta_for_epsilon(0.1)`` = 2.4518141123477716e-04 (an upper bound of the truth; 31 s there)."""
    ref = 2.4518141123477716e-04
    m = dc.SubsampledGaussian(0.3, 1e-4, 10)
    lo, hi = m.delta_bounds(0.1)
    assert "composition" not in m.__dict__  # the optimistic side was not built
    assert float(lo) <= ref and abs(float(hi) - ref) <= 1e-3 * ref
    assert float(hi) - float(lo) <= min(1e-3 * float(hi), 1.5e-7)  # the default width asked


def test_tiny_rate_bracket_is_certified_and_fast_route():
    """The route of SubsampledGaussian(1, 1e-8, 1000).delta_bounds(1e-3) (36 s in the deep fuzz, 4.8 s of CPU before, now 3.4 s;
    benchmarks/bench_slow_paths.py) on a smaller instance: the upper end is far below P(ever sampled) (the η-limited
    FFT bound), the lower end the test's, positive."""
    m = dc.SubsampledGaussian(2.0, 1e-7, 100)
    lo, hi = m.delta_bounds(1e-3)
    assert "composition" not in m.__dict__
    assert 0.0 < float(lo) <= float(hi) < 1e-9 < m.never_sampled_bound
    assert float(m.delta(1e-3)) <= float(hi) * (1 + 1e-12)


@pytest.mark.parametrize("delta", [1e-13, 1e-10, 1e-7])
def test_views_agree_on_the_small_rate_route(delta):
    """δ(ε(δ)) ≤ δ with δ read on the new route (fresh mechanisms: no composition built) and ε on the default grid."""
    eps = dc.SubsampledGaussian(2.0, 1e-7, 100).epsilon(delta)
    m = dc.SubsampledGaussian(2.0, 1e-7, 100)
    lo, hi = m.delta_bounds(eps)
    assert float(lo) <= float(hi) <= delta
    assert float(dc.SubsampledGaussian(2.0, 1e-7, 100).delta(eps)) <= delta
