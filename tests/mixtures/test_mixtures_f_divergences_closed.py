"""Finite certified F-divergences where closed forms exist ([MIX] Lemma B.4).

Regression: ``l_f_bounds(Gaussian(mu=1), KL)`` and ``renyi_bounds(Gaussian(mu=1), a)`` were ∞
(the discretised pessimistic pair puts tail mass at ℓ = ±∞, where τ_F = ∞). References, each
independent of the closed forms in the code: numerical integration of the densities (scipy quad of
p·log(p/q) and p^a·q^{1−a}), and the Lemma B.4 quadrature over the trade-off slope (``l_f_quad``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import laplace, norm

import dpcompare as dc
from dpcompare.mixtures import KL, TV, l_f_bounds, l_f_quad, power, renyi_bounds
from dpcompare.mixtures.f_divergences import hockey_stick


def _densities(mech):
    if isinstance(mech, dc.Gaussian):
        return (lambda x: norm.logpdf(x)), (lambda x: norm.logpdf(x, loc=mech.mu)), [0.0, mech.mu]
    return (lambda x: laplace.logpdf(x)), (lambda x: laplace.logpdf(x, loc=mech.m)), [0.0, mech.m]


def _integrate(f, pts):
    lo, hi = min(pts) - 40.0, max(pts) + 40.0
    edges = [lo, *sorted(pts), hi]
    return math.fsum(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12, limit=400)[0] for a, b in zip(edges[:-1], edges[1:]))


def kl_by_quadrature(mech) -> float:
    lp, lq, pts = _densities(mech)
    return _integrate(lambda x: math.exp(lp(x)) * (lp(x) - lq(x)), pts)


def renyi_by_quadrature(mech, a: float) -> float:
    lp, lq, pts = _densities(mech)
    return math.log(_integrate(lambda x: math.exp(a * lp(x) + (1 - a) * lq(x)), pts)) / (a - 1)


MECHS = [dc.Gaussian(mu=0.3), dc.Gaussian(mu=1.0), dc.Gaussian(mu=3.0), dc.Laplace(b=0.5), dc.Laplace(b=2.0)]


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.spec)
def test_kl_is_finite_and_matches_integration(mech):
    lo, hi = l_f_bounds(mech, KL)
    ref = kl_by_quadrature(mech)
    assert math.isfinite(hi) and lo <= hi
    assert lo - 1e-11 <= ref <= hi + 1e-11
    assert l_f_quad(mech, KL) == pytest.approx(ref, rel=1e-9, abs=1e-12)  # Lemma B.4 by quadrature


def test_gaussian_closed_forms_written_out():
    for mu in (0.1, 1.0, 2.5):
        lo, hi = l_f_bounds(dc.Gaussian(mu=mu), KL)
        assert lo <= mu * mu / 2 <= hi and hi - lo <= 1e-12 * mu * mu
        for a in (1.5, 2.0, 7.0, 32.0):
            lo, hi = renyi_bounds(dc.Gaussian(mu=mu), a)
            assert lo <= a * mu * mu / 2 * (1 + 1e-12) and a * mu * mu / 2 <= hi * (1 + 1e-12)


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.spec)
@pytest.mark.parametrize("a", [1.5, 2.0, 5.0, 10.0])
def test_renyi_matches_integration(mech, a):
    lo, hi = renyi_bounds(mech, a)
    ref = renyi_by_quadrature(mech, a)
    assert math.isfinite(hi)
    assert lo * (1 - 1e-9) - 1e-12 <= ref <= hi * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.spec)
def test_tv_and_hockey_stick_match_the_profile(mech):
    lo, hi = l_f_bounds(mech, TV)
    assert lo <= float(mech.delta(0.0)) * (1 + 1e-12) and float(mech.delta(0.0)) <= hi * (1 + 1e-12)
    if isinstance(mech, dc.Gaussian):
        lo, hi = l_f_bounds(mech, hockey_stick(math.exp(0.7)))
        assert lo <= float(mech.delta(0.7)) <= hi


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: m.spec)
def test_closed_form_inside_the_discretised_bracket(mech):
    # the pairs' optimistic side (a certified lower bound by data processing) stays below the closed form
    from dpcompare.mixtures.algebra import as_pairs
    from dpcompare.mixtures.f_divergences import l_f

    _, opt = as_pairs(mech)
    for div in (KL, power(2.0), TV):
        assert l_f(opt, div) <= l_f_bounds(mech, div)[1] * (1 + 1e-9)


@settings(deadline=None, max_examples=30)
@given(mu=st.floats(0.05, 4.0), a=st.floats(1.01, 12.0))
def test_gaussian_renyi_law(mu, a):
    lo, hi = renyi_bounds(dc.Gaussian(mu=mu), a)
    exact = a * mu * mu / 2
    assert lo <= exact * (1 + 1e-12) and exact <= hi * (1 + 1e-12)
    assert hi - lo <= 1e-9 * max(exact, 1e-3)


def test_mechanisms_without_closed_form_stay_certified():
    # the subsampled Gaussian has no closed form here: still the pair bracket (∞ for KL is honest there)
    m = dc.parse("sgm(sigma=1, p=0.1, steps=1)")
    lo, hi = l_f_bounds(m, TV)
    assert 0 <= lo <= hi <= 1 and np.isfinite(hi)
