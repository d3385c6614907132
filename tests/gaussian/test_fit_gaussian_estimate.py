"""The fit's search evaluates R_{G_μ}(π) by the plain closed form (``gaussian_bayes_error_estimate``), not the
outward-rounded one; μ̂ is a description and the Δ reported at it are certified separately.

Independent reference: the Bayes error from the Gaussian privacy profile at 40 digits (mpmath),
R(π) = π·(1 − δ_μ(log((1 − π)/π))) for π ≤ ½ and R(π) = R(1 − π) ([BCP] eq 2 / eq 4),
δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.gaussian.fit import gaussian_bayes_error_estimate, gdp_fit

mpmath = pytest.importorskip("mpmath", reason="the 40-digit reference Bayes error")


def _r_ref(mu: float, pi: float) -> float:
    with mpmath.workdps(40):
        p = mpmath.mpf(pi)
        if p > 0.5:
            p = 1 - p
        eps = mpmath.log((1 - p) / p)
        m = mpmath.mpf(mu)
        d = mpmath.ncdf(-eps / m + m / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / m - m / 2)
        return float(p * (1 - d))


@pytest.mark.parametrize("mu", [0.05, 0.411, 1.0, 3.0, 12.0])
def test_estimate_matches_the_profile_at_40_digits(mu):
    pi = np.array([1e-10, 1e-4, 0.03, 0.2, 0.377, 0.5, 0.7, 0.99, 1 - 1e-6])
    r = gaussian_bayes_error_estimate(mu, pi)
    ref = np.array([_r_ref(mu, x) for x in pi])
    # rounding of ndtr and of a two-term sum: a few 1e-16 relative (the search needs far less)
    assert np.allclose(r, ref, rtol=1e-12, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(mu=st.floats(0.01, 20.0), pi=st.floats(1e-8, 1 - 1e-8))
def test_estimate_lies_in_the_certified_bracket_up_to_rounding(mu, pi):
    lo, hi = dc.Gaussian(mu=mu).bayes_error_bounds(np.array([pi]))
    r = float(gaussian_bayes_error_estimate(mu, np.array([pi]))[0])
    slack = 1e-13 * max(r, 1e-300)
    assert float(lo[0]) - slack <= r <= float(hi[0]) + slack


def test_precomputed_terms_give_the_same_doubles():
    from dpcompare.gaussian.fit import _gaussian_r_terms

    pi = np.linspace(0.001, 0.999, 101)
    assert np.array_equal(gaussian_bayes_error_estimate(0.7, pi, _gaussian_r_terms(pi)),
                          gaussian_bayes_error_estimate(0.7, pi))


def test_dpsgd_fit_unchanged_by_the_plain_search():
    # μ̂ of sgm(1, 0.01, 1000) with the outward-rounded Gaussian R in the search (the previous version):
    # 0.4109670104109917; the search is to rel. 1e-9 (``_RTOL``), the two Gaussian R differ by rounding
    fit = gdp_fit(dc.parse("sgm(sigma=1, p=0.01, steps=1000)"))
    assert fit.mu == pytest.approx(0.4109670104109917, rel=1e-9)
    # the Δ values' upper ends carry the composition's η (2.6e-10 here), which the cells' rounding bound sets: they are
    # compared to within it (the previous version's values, before that bound grew by 7 %)
    assert fit.excess.upper == pytest.approx(0.0008933191991065097, abs=1e-10)
    assert fit.slack.upper == pytest.approx(0.0008954559778567821, abs=1e-10)
