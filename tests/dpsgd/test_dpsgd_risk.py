"""Risk metrics: closed forms for the Gaussian, brute force on randomized response, certified sides."""

from __future__ import annotations

import math

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
    # no a == b shortcut any more: the certified upper end of Δ(M‖M) is Δ(M_opt‖M_pess), the
    # composition's own bracket width (1.24e-6 here), not 0
    assert 0.0 <= risk.excess_vulnerability(m, m) <= 5e-6


def test_bad_kappa():
    with pytest.raises(ValueError, match="kappa"):
        risk.reconstruction_bound(dc.Gaussian(mu=1.0), 1.5)


def test_sgm_reconstruction_bound_matches_monte_carlo_of_the_blow_up():
    """1 − f(κ) of DP-SGD against an independent Monte Carlo of the blow-up sup{Q(E) : P(E) ≤ κ} — the
    quantity Hayes, Mahloujifar & Balle (2023) estimate by Monte Carlo for their DP-SGD bound (their
    sampler draws the T-step null N(0, σ²)^T and thresholds the likelihood ratio at the κ tail).

    Under P = N(0, 1)^T, ℓ = Σ log(1 − p + p·e^{μx − μ²/2}) = log dQ/dP; the most powerful test rejects
    when ℓ > t with P(ℓ > t) = κ, so f(κ) = Q(ℓ ≤ t) = E_P[e^ℓ·1{ℓ ≤ t}] (Neyman–Pearson)."""
    sigma, p, steps, kappa = 1.0, 0.1, 20, 0.1
    rng = np.random.default_rng(20231)
    n = 200_000
    x = rng.standard_normal((n, steps))
    mu = 1.0 / sigma
    ell = np.log1p(p * np.expm1(mu * x - 0.5 * mu * mu)).sum(axis=1)
    t = np.quantile(ell, 1.0 - kappa)
    w = np.exp(ell) * (ell <= t)
    mc, se = 1.0 - w.mean(), w.std() / math.sqrt(n)
    m = dc.SubsampledGaussian(sigma, p, steps)
    ours = risk.reconstruction_bound(m, kappa)
    assert abs(ours - mc) <= 5 * se + 1e-4  # se ≈ 9e-4
    # the symmetrised bound is the worse of the two adjacency directions (never below either)
    pess = m.composition.pessimistic
    assert ours >= 1.0 - float(pess.swap().tradeoff(kappa)) - 1e-12
