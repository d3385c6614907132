"""composition/gaussian_mixture.py: the monotone-loss Gaussian-mixture pair, its partition and composition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcompare.composition.gaussian_mixture import (
    GaussianMixturePair,
    MixtureComponent,
    compose_mixture,
    mixture_of_gaussians_pair,
    truncated_subsampled_gaussian_pair,
)


def test_inverse_is_the_root_of_the_loss():
    c = mixture_of_gaussians_pair(1.5, [0.0, 1.0, 3.0], [0.6, 0.3, 0.1]).components[0]
    t = np.linspace(math.log(0.6) + 1e-6, 20.0, 200)
    x = c.inverse(t)
    assert np.all(np.abs(c.loss(x) - t) <= 1e-12 * (1 + np.abs(t)))
    assert np.all(np.isneginf(c.inverse(np.array([math.log(0.6), -5.0]))))


def test_partition_masses_are_probabilities_and_match_quadrature():
    pair = truncated_subsampled_gaussian_pair(1000, 0.1, 120, 1.0)
    part = pair.partition(0.01)
    lp = np.logaddexp.reduce(np.concatenate([part.log_p, [part.tail_lo[0], part.tail_hi[0]]]))
    lq = np.logaddexp.reduce(np.concatenate([part.log_q, [part.tail_lo[1], part.tail_hi[1]]]))
    assert math.exp(lp) == pytest.approx(1.0, abs=1e-12) and math.exp(lq) == pytest.approx(1.0, abs=1e-12)
    # one cell against scipy quadrature of the densities over the x-interval of the loss interval (a, b]
    a, b = 0.5, 0.6
    t, p2 = pair.weights[1], pair.components[1].p_weights[0]
    comps = [(1 - t, lambda x: stats.norm.pdf(x), lambda x: 0.9 * stats.norm.pdf(x) + 0.1 * stats.norm.pdf(x, 1)),
             (t, lambda x: p2 * stats.norm.pdf(x, -2) + (1 - p2) * stats.norm.pdf(x),
              lambda x: (1 - p2) * stats.norm.pdf(x) + p2 * stats.norm.pdf(x, 2))]
    ref_p = ref_q = 0.0
    for (w, pdf_p, pdf_q), comp in zip(comps, pair.components):
        xa, xb = comp.inverse(np.array([a, b]))
        ref_p += w * integrate.quad(pdf_p, xa, xb, epsabs=0, epsrel=1e-12)[0]
        ref_q += w * integrate.quad(pdf_q, xa, xb, epsabs=0, epsrel=1e-12)[0]
    got_p, got_q, _ = pair._log_masses(np.array([a, b]))
    assert math.exp(got_p[0]) == pytest.approx(ref_p, rel=1e-10)
    assert math.exp(got_q[0]) == pytest.approx(ref_q, rel=1e-10)


def test_non_monotone_pairs_are_refused():
    with pytest.raises(ValueError, match="monotone"):
        MixtureComponent(1.0, (0.0, 1.0), (0.5, 0.5), (0.5,), (1.0,))
    with pytest.raises(ValueError, match="sensitivities"):
        mixture_of_gaussians_pair(1.0, [-1.0, 1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="sum to 1"):
        mixture_of_gaussians_pair(1.0, [0.0, 1.0], [0.5, 0.6])


def test_dominating_mu_quantile_coupling():
    assert mixture_of_gaussians_pair(2.0, [0.0, 1.0, 3.0], [0.5, 0.3, 0.2]).dominating_mu == pytest.approx(1.5)
    assert truncated_subsampled_gaussian_pair(1000, 0.1, 120, 2.0).dominating_mu == pytest.approx(1.0)


def test_negligible_mixture_is_the_tv_pair():
    comp = compose_mixture(mixture_of_gaussians_pair(1e14, [0.0, 1.0], [0.5, 0.5]), 4)
    # μ = √4·1e-14 = 2e-14: pessimistic (0, δ₀)-DP with δ₀ ≥ TV(G_μ) = 2Φ(μ/2) − 1 ≈ μ/√(2π)
    assert comp.pessimistic.q_pos_inf >= 2e-14 / math.sqrt(2 * math.pi) * (1 - 1e-9)
    assert comp.pessimistic.q_pos_inf <= 1e-13


def test_weights_missing_one_are_charged_to_the_error():
    pair = mixture_of_gaussians_pair(1.0, [0.0, 1.0], [0.5, 0.5 + 5e-10])
    assert pair.weight_error == pytest.approx(5e-10, rel=1e-6)
    assert compose_mixture(pair, 2).numerical_error >= 2 * 5e-10
    assert isinstance(pair, GaussianMixturePair)
