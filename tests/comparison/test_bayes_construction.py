"""[BCP] eq 4: a mechanism from Bayes-error values (``dpcompare.comparison.bayes_construction``).

Independent references: the closed-form trade-off functions of randomized response (f(α) =
max(0, 1 − e^ε α, e^{−ε}(1 − α))), approximate DP (Kairouz et al.'s four-segment curve) and the
Gaussian G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (scipy), and R(π) from each by brute force over α.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import dpcompare as dc
from dpcompare.comparison.bayes_construction import mechanism_from_bayes_errors, tradeoff_from_bayes_errors

ALPHA = np.linspace(0, 1, 100_001)


def _bayes_brute(f, pi, vertices=()):
    # R(π) = min_α πα + (1−π)f(α) (eq 2) over a dense grid plus the curve's vertices (where a polygon's min is)
    a = np.union1d(ALPHA, np.asarray(vertices, dtype=float))
    return np.array([np.min(p * a + (1 - p) * f(a)) for p in np.atleast_1d(pi)])


def _f_rr(eps):
    return lambda a: np.maximum.reduce([np.zeros_like(a), 1 - math.exp(eps) * a, math.exp(-eps) * (1 - a)])


def _f_approx(eps, delta):
    e = math.exp(eps)
    return lambda a: np.maximum.reduce([np.zeros_like(a), 1 - delta - e * a, (1 - delta - a) / e])


def _approx_vertices(eps, delta):
    x = (1 - delta) / (1 + math.exp(eps))  # where the two sloped pieces meet (the fixed point)
    return [0.0, x, 1 - delta, 1.0]


@pytest.mark.parametrize("f, kinks, verts", [
    (_f_rr(1.0), [1 / (1 + math.e), 0.5], [0.0, 1 / (1 + math.e), 1.0]),
    (_f_approx(0.5, 0.01), [1 / (1 + math.exp(0.5)), 0.5, 1e-9], _approx_vertices(0.5, 0.01)),
], ids=["rr", "approxdp"])
def test_curve_rebuilt_from_bayes_errors_equals_the_closed_form(f, kinks, verts):
    # priors at the segments' tangent priors (and ½) recover a piecewise-linear curve exactly
    pis = np.array(sorted(set(kinks + [0.1, 0.3, 0.45])))
    r = _bayes_brute(f, pis, verts)
    m, c = mechanism_from_bayes_errors(pis, r)
    grid = np.linspace(0, 1, 2001)
    assert np.max(np.abs(c.tradeoff(grid) - f(grid))) < 1e-9
    assert np.max(np.abs(np.asarray(m.tradeoff(grid)) - f(grid))) < 1e-9
    # and the Bayes error of the built mechanism is the original's (eq 2 ∘ eq 4 = id)
    test_pi = np.linspace(0.01, 0.99, 37)
    assert np.max(np.abs(np.asarray(m.bayes_error(test_pi)) - _bayes_brute(f, test_pi, verts))) < 1e-9


def test_rr_from_dpcompare_bayes_errors_is_rr():
    rr = dc.RandomizedResponse(eps=1.3)
    pis = np.array([1 / (1 + math.exp(1.3)), 0.5])
    m, _ = mechanism_from_bayes_errors(pis, rr.bayes_error(pis))
    ab, ba = dc.delta_divergences(m, rr)
    assert ab.upper < 1e-12 and ba.upper < 1e-12


def test_gaussian_is_approached_from_below():
    mu = 1.0
    g = lambda a: norm.cdf(norm.ppf(1 - a) - mu)  # noqa: E731
    gm = dc.Gaussian(mu=mu)
    grid = np.linspace(0, 1, 4001)[1:-1]
    gaps = []
    for n in (10, 100, 1000):
        pis = np.linspace(0.5 / n, 0.5, n)
        c = tradeoff_from_bayes_errors(pis, gm.bayes_error(pis))
        fh = c.tradeoff(grid)
        assert np.all(fh <= g(grid) + 1e-12)  # the built curve never overstates privacy
        gaps.append(float(np.max(g(grid) - fh)))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-3


@settings(max_examples=30)
@given(st.lists(st.tuples(st.floats(0.001, 0.999), st.floats(0, 1)), min_size=1, max_size=12))
def test_the_built_curve_is_the_smallest_trade_off_above_the_values(pts):
    # law: f̂ is a trade-off function with R_f̂(πₖ) ≥ Rₖ at every prior, and = Rₖ where Rₖ is attained
    pis = np.array([p for p, _ in pts])
    r = np.array([u * min(p, 1 - p) for p, u in pts])
    c = tradeoff_from_bayes_errors(pis, r, symmetric=False)
    assert c.alpha[0] == 0 and c.alpha[-1] == 1 and c.beta[-1] == 0
    assert np.all(np.diff(c.beta) <= 1e-12) and np.all(c.beta <= 1 - c.alpha + 1e-12)
    slopes = np.diff(c.beta) / np.diff(c.alpha)
    assert np.all(np.diff(slopes) >= -1e-9)  # convex
    rb = np.array([np.min(p * c.alpha + (1 - p) * c.beta) for p in pis])  # R of a polygon: at its vertices
    assert np.all(rb >= r - 1e-12)


def test_bad_values_are_rejected_naming_the_parameter():
    with pytest.raises(ValueError, match="priors"):
        tradeoff_from_bayes_errors([0.0, 0.5], [0, 0.1])
    with pytest.raises(ValueError, match="bayes_errors"):
        tradeoff_from_bayes_errors([0.2], [0.3])
    with pytest.raises(ValueError, match="same"):
        tradeoff_from_bayes_errors([0.2, 0.3], [0.1])
