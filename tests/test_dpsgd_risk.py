"""Risk metrics (issue 5): closed forms for the Gaussian, brute force on randomized response, certified sides."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

import dpcompare as dc
from dpcompare.dpsgd import risk


def test_gaussian_closed_forms():
    mu = 1.3
    g = dc.Gaussian(mu=mu)
    # TPR at FPR α of G_μ: Φ(Φ⁻¹(α) + μ) (Dong et al. 2022, eq 2.1)
    for a in (1e-3, 0.05, 0.5):
        assert risk.tpr_at_fpr(g, a) == pytest.approx(norm.cdf(norm.ppf(a) + mu), abs=1e-12)
    assert risk.advantage(g) == pytest.approx(2 * norm.cdf(mu / 2) - 1, abs=1e-12)
    # ReRo bound 1 − G_μ(κ) = Φ(Φ⁻¹(κ) + μ) (Hayes et al. 2023 blow-up of the Gaussian pair)
    assert risk.reconstruction_bound(g, 0.01) == pytest.approx(norm.cdf(norm.ppf(0.01) + mu), abs=1e-12)
    # Bayes error at π: ∫ min(π p, (1−π) q) by numerical integration
    pi = 0.3
    z = np.linspace(-12, 12 + mu, 200_001)
    brute = np.trapezoid(np.minimum(pi * norm.pdf(z), (1 - pi) * norm.pdf(z - mu)), z)
    assert risk.bayes_error(g, pi) == pytest.approx(brute, abs=1e-8)


def test_randomized_response_brute_force():
    # RR with ε: P = (e^ε, 1)/(1+e^ε), Q reversed; all metrics by enumeration of the two atoms
    eps = 1.0
    rr = dc.RandomizedResponse(eps=eps)
    t = np.exp(eps) / (1 + np.exp(eps))
    assert risk.advantage(rr) == pytest.approx(2 * t - 1, abs=1e-12)
    pi = 0.4
    assert risk.bayes_error(rr, pi) == pytest.approx(min(pi * t, (1 - pi) * (1 - t)) + min(pi * (1 - t), (1 - pi) * t), abs=1e-12)
    # f(κ) of RR is piecewise linear: for κ ≤ 1−t, f = 1 − κ t/(1−t)
    kappa = 0.1
    assert risk.reconstruction_bound(rr, kappa) == pytest.approx(kappa * t / (1 - t), abs=1e-12)


def test_sgm_metrics_are_on_the_pessimistic_side():
    m = dc.SubsampledGaussian(sigma=1.0, sampling_rate=0.05, steps=50)
    lo, hi = m.tradeoff_bounds(0.01)
    assert risk.reconstruction_bound(m, 0.01) == pytest.approx(1 - lo)
    assert risk.bayes_error(m, 0.5) == pytest.approx(m.bayes_error_bounds(0.5)[0])
    prof = risk.risk_profile(m)
    assert set(prof) == {"advantage", "tpr_at_fpr", "bayes_error", "rero_bound"}
    assert risk.excess_vulnerability(m, m) <= 1e-6


def test_bad_kappa():
    with pytest.raises(ValueError, match="kappa"):
        risk.reconstruction_bound(dc.Gaussian(mu=1.0), 1.5)
