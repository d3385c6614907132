"""[BCP] Lemma B.1 (Δ↔ is the Lévy distance between the W-laws) and Lemma 1 (eq 7).

``levy_distance`` works on the trade-off functions only (the CDFs F_W(x) = f(1 − x) of Lemma B.1),
``compare`` on the Bayes error functions: two independent routes to the same number.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dpcompare as dc
from strategies import approx_dps, gaussians, laplaces, rrs

closed_or_small = st.one_of(gaussians, laplaces, rrs, approx_dps)


@settings(max_examples=25, deadline=None)
@given(closed_or_small, closed_or_small)
def test_levy_distance_equals_symmetric_delta(a, b):
    lev = dc.levy_distance(a, b)
    c = dc.compare(a, b, crossings=False)
    lo, hi = c.symmetric_bounds
    assert 0.0 <= lev.lower <= lev.value <= lev.upper
    # the two certified brackets must overlap (Lemma B.1: they bracket the same number)
    assert lev.lower <= hi + 1e-12 and lo <= lev.upper + 1e-12
    assert lev.value == pytest.approx(c.symmetric, abs=max(lev.upper - lev.lower, hi - lo) + 1e-12)


def test_levy_of_equal_mechanisms_is_zero_and_symmetric():
    a, b = dc.Gaussian(mu=1.0), dc.Gaussian(sigma=2.0, sensitivity=2.0)
    r = dc.levy_distance(a, b)
    assert r.lower == 0.0 and r.upper < 1e-4
    g, lap = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
    assert dc.levy_distance(g, lap).value == pytest.approx(dc.levy_distance(lap, g).value, abs=1e-12)


def test_levy_distance_by_brute_force_definition():
    """Eq 32 literally: the smallest λ on a grid with F_W(x − λ) − λ ≤ F_W′(x) ≤ F_W(x + λ) + λ on an x grid."""
    a, b = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)

    def cdf(m, x):
        x = np.asarray(x, dtype=float)
        inside = np.clip(1 - x, 0.0, 1.0)
        return np.where(x < 0, 0.0, np.where(x > 1, 1.0, m.tradeoff(inside)))

    x = np.linspace(-0.2, 1.2, 14001)
    fb = cdf(b, x)

    def ok(lam):
        return bool(np.all(cdf(a, x - lam) - lam <= fb + 1e-13) and np.all(fb <= cdf(a, x + lam) + lam + 1e-13))

    lev = dc.levy_distance(a, b)
    assert ok(lev.upper)
    assert not ok(lev.lower - 2e-4)  # the x grid step is 1e-4 and F has slope ≤ e^m ≈ 2.7 in places


@pytest.mark.parametrize("a, b", [
    (dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)),
    (dc.RandomizedResponse(eps=1.0), dc.Gaussian(mu=0.5)),
    (dc.ApproxDP(eps=1.0, delta=0.1), dc.Gaussian(mu=2.0)),
])
def test_lemma_1_eq_7(a, b):
    """f(α + Δ↔) − Δ↔ ≤ f̃(α) ≤ f(α − Δ↔) + Δ↔ for all α (f ≡ 1 left of 0, ≡ 0 right of 1), and Δ↔ is
    the smallest such constant: at 0.99·Δ↔ the chain fails somewhere."""
    alpha = np.unique(np.concatenate([np.linspace(0, 1, 200001), np.logspace(-12, 0, 2001)]))

    def f_ext(m, x):
        return np.where(x < 0, 1.0, np.where(x > 1, 0.0, m.tradeoff(np.clip(x, 0, 1))))

    def chain(d):
        ft = b.tradeoff(alpha)
        return bool(np.all(f_ext(a, alpha + d) - d <= ft + 1e-12) and np.all(ft <= f_ext(a, alpha - d) + d + 1e-12))

    d = dc.compare(a, b, crossings=False).symmetric_bounds[1]
    assert chain(d)
    assert not chain(0.99 * d)


def test_gaussian_against_approxdp_bracket_contains_the_truth():
    """Found by the property test above: compare's sweep extended neighbouring secants of exact node
    values, so one ulp of the closed form, multiplied by the ratio of neighbouring interval widths, put
    its upper bound 5e-11 below the true Δ. Truth from [BCP] eq 2 with mpmath at 40 digits: for G_μ,
    R(π) = π·Φ(−t) + (1−π)·Φ(t − μ), t = λ/μ + μ/2, and for ApproxDP(0, ½) R(π) = ½·min(π, 1−π); Δ is
    attained where dR_G/dπ = ½."""
    import mpmath as mp

    with mp.workdps(40):
        mu = mp.mpf("0.25")
        t = lambda pi: mp.log(pi / (1 - pi)) / mu + mu / 2  # noqa: E731
        pi = mp.findroot(lambda pi: mp.ncdf(-t(pi)) - mp.ncdf(t(pi) - mu) - mp.mpf("0.5"), 0.4576)
        truth = float(pi * mp.ncdf(-t(pi)) + (1 - pi) * mp.ncdf(t(pi) - mu) - pi / 2)
    c = dc.compare(dc.Gaussian(mu=0.25), dc.ApproxDP(eps=0.0, delta=0.5), crossings=False)
    assert c.delta_ab.lower <= truth <= c.delta_ab.upper
    lev = dc.levy_distance(dc.Gaussian(mu=0.25), dc.ApproxDP(eps=0.0, delta=0.5))
    assert lev.lower <= truth <= lev.upper
