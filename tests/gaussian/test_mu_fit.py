"""The μ that describes a curve (``dpcompare.gaussian.fit``): the minimax μ-GDP fit and its certified Δ.

Independent reference: brute force on closed forms. R(π) = π·(1 − δ(log((1−π)/π))) for π ≤ ½ ([BCP] eq 4
with the profile), with δ_Lap(ε) = max(0, 1 − e^{(ε−1)/2}) (Laplace b = 1) and the Gaussian profile
δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8); Δ↔(μ) = max_π |R − R_μ| on a
dense grid of priors, minimised over μ with scipy's bounded scalar minimiser.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import norm

import dpcompare as dc
from dpcompare.gaussian.fit import STRICT_NOTE_RATIO, gdp_fit

# the kink of both closed forms (ε = 1: π = 1/(1 + e)) is on the grid, where their gaps peak
PI = np.sort(np.concatenate([np.logspace(-8, -2, 2000), np.linspace(0.01, 0.5, 200_001), [1 / (1 + math.e)]]))
EPS = np.log((1 - PI) / PI)


def _r_gauss(mu: float) -> np.ndarray:
    d = norm.cdf(-EPS / mu + mu / 2) - np.exp(EPS) * norm.cdf(-EPS / mu - mu / 2)
    return PI * (1 - d)


def _r_laplace() -> np.ndarray:
    return PI * (1 - np.maximum(0.0, 1 - np.exp((EPS - 1) / 2)))


def _r_rr(eps0: float) -> np.ndarray:
    # randomized response: δ(ε) = max(0, (e^ε0 − e^ε)/(1 + e^ε0))
    return PI * (1 - np.maximum(0.0, (math.exp(eps0) - np.exp(EPS)) / (1 + math.exp(eps0))))


@pytest.mark.parametrize("mech, r_ref", [(dc.Laplace(b=1), _r_laplace()), (dc.RandomizedResponse(eps=1.0), _r_rr(1.0))],
                         ids=["laplace", "rr"])
def test_minimax_fit_matches_brute_force(mech, r_ref):
    def worst(mu: float) -> float:
        return float(np.max(np.abs(r_ref - _r_gauss(mu))))

    ref = optimize.minimize_scalar(worst, bounds=(0.3, 2.0), method="bounded", options={"xatol": 1e-8})
    fit = gdp_fit(mech)
    assert fit.mu == pytest.approx(ref.x, rel=1e-4)
    # both certified Δ at μ̂ bracket the brute-force gaps (the grid can only miss a maximum: lower side)
    up = float(np.max(_r_gauss(fit.mu) - r_ref))  # Δ(G_μ‖M)
    down = float(np.max(r_ref - _r_gauss(fit.mu)))  # Δ(M‖G_μ)
    assert fit.excess.upper >= up - 1e-12 and fit.excess.value == pytest.approx(up, abs=1e-7)
    assert fit.slack.upper >= down - 1e-12 and fit.slack.value == pytest.approx(down, abs=1e-7)
    # the minimax fit equalises the two directions (the crossing of a rising and a falling function)
    assert fit.excess.value == pytest.approx(fit.slack.value, abs=1e-6)
    assert max(fit.excess.value, fit.slack.value) == pytest.approx(ref.fun, abs=1e-6)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_the_gaussian_is_its_own_fit(mu):
    fit = gdp_fit(dc.Gaussian(mu=mu))
    assert fit.mu == pytest.approx(mu, rel=1e-5)
    assert fit.excess.upper < 1e-6 and fit.slack.upper < 1e-6
    assert fit.strict_reason() == ""


def test_dpsgd_fit_is_far_below_the_strict_bound_and_certified():
    m = dc.parse("sgm(sigma=1, p=0.01, steps=1000)")
    fit = gdp_fit(m)
    assert fit.strict_mu == pytest.approx(math.sqrt(1000))
    assert 0.3 < fit.mu < 0.5 and fit.strict_ratio > STRICT_NOTE_RATIO
    assert "sampled at every step" in fit.strict_reason()
    for d in (fit.excess, fit.slack):
        assert 0 <= d.lower <= d.value <= d.upper < 0.01
    # an independent check of each direction at μ̂: the Bayes errors at the reported priors
    g = dc.Gaussian(mu=fit.mu)
    pe, ps = fit.excess.pi, fit.slack.pi
    r_lo = float(m.bayes_error(pe))  # pessimistic (lower) R of the run
    assert float(g.bayes_error(pe)) - r_lo <= fit.excess.upper + 1e-12
    assert float(g.bayes_error(pe)) - r_lo >= fit.excess.lower - 1e-9
    assert float(m.bayes_error(ps)) - float(g.bayes_error(ps)) <= fit.slack.upper + 1e-9
    # worse μ on either side: a larger worst gap
    for mu in (0.97 * fit.mu, 1.03 * fit.mu):
        ab, ba = dc.delta_divergences(m, dc.Gaussian(mu=mu))
        assert max(ab.value, ba.value) > max(fit.excess.value, fit.slack.value)


def test_edges_perfect_and_blatant():
    pp = gdp_fit(dc.parse("pp()"))
    assert pp.mu == 0.0 and pp.excess.upper < 1e-12 and pp.slack.upper < 1e-12
    bnp = gdp_fit(dc.parse("bnp()"))
    assert bnp.mu is None and bnp.excess is None and "no μ-GDP curve" in bnp.sentence()
    d = gdp_fit(dc.parse("approxdp(eps=1, delta=1e-3)"))
    assert d.strict_mu is None and d.mu is not None and d.strict_reason()


def test_bad_input():
    with pytest.raises(TypeError, match="Mechanism"):
        gdp_fit("laplace(b=1)")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=10)
@given(st.floats(0.05, 4.0))
def test_law_the_fit_equalises_both_directions_and_stays_below_the_strict_bound(eps):
    # exact mechanism (randomized response): at the minimax μ̂ the two certified Δ are equal, μ̂ ≤ μ_strict,
    # and moving μ either way makes the worse direction worse
    m = dc.RandomizedResponse(eps=eps)
    fit = gdp_fit(m)
    assert fit.mu <= fit.strict_mu * (1 + 1e-12)
    assert fit.excess.value == pytest.approx(fit.slack.value, abs=1e-7)
    for mu in (fit.mu * 0.99, fit.mu * 1.01):
        ab, ba = dc.delta_divergences(m, dc.Gaussian(mu=mu))
        assert max(ab.value, ba.value) >= max(fit.excess.value, fit.slack.value) - 1e-9
