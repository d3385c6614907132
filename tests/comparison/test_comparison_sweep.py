"""compare in one sweep and hyper-priors that never change the verdict.

Independent references used here:
- the Bayes error of G_μ written out from [BCP] eq 2 with the Neyman–Pearson threshold
  λ = log(π/(1−π)): R(π) = π·Φ(−λ/μ − μ/2) + (1−π)·Φ(λ/μ − μ/2) (L ~ N(−μ²/2, μ²) under P);
- the Bayes error of Laplace(b) from R(π) = min over the three linear pieces of its trade-off curve
  (Dong, Roth & Su 2022 App. A), minimised by brute force over a fine α grid;
- scipy quadrature of ∫ Ψ(π)(R_A − R_B)₊ dπ for the expected regret.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.stats import norm

import dpcompare as dc
from dpcompare.io import cli

G1, L1 = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)


def r_gauss(mu, pi):
    """[BCP] eq 2 with the NP test, written out independently of dpcompare."""
    pi = np.asarray(pi, dtype=float)
    lam = np.log(pi) - np.log1p(-pi)
    return pi * norm.cdf(-lam / mu - mu / 2) + (1 - pi) * norm.cdf(lam / mu - mu / 2)


def r_laplace(m, pi):
    """R(π) = min_α π·α + (1−π)·f(α) with Laplace's f (Dong et al. 2022 App. A), closed-form pieces.

    On each piece of f the objective is linear or convex in α, so its minimum sits at a piece end or
    at the stationary point of the middle piece e^{−m}/(4α): α = ½·e^{−m/2}·√((1−π)/π).
    """
    pi = float(pi)
    em = math.exp(-m)

    def f(a):
        if a < em / 2:
            return 1 - math.exp(m) * a
        if a <= 0.5:
            return em / (4 * a)
        return em * (1 - a)

    cands = [0.0, em / 2, 0.5, 1.0]
    a_star = 0.5 * math.exp(-m / 2) * math.sqrt((1 - pi) / pi) if 0 < pi < 1 else 0.0
    if em / 2 <= a_star <= 0.5:
        cands.append(a_star)
    return min(pi * a + (1 - pi) * f(a) for a in cands)


def test_gauss_laplace_crossing_against_an_independent_root():
    # the crossing of the two closed forms above, found by brentq on the written-out formulas
    d = lambda p: float(r_gauss(1.0, p)) - r_laplace(1.0, p)  # noqa: E731
    root = optimize.brentq(d, 0.35, 0.49, xtol=1e-15)
    c = dc.compare(G1, L1)
    assert c.crossings[0] == pytest.approx(root, abs=1e-11)
    assert c.crossings[1] == pytest.approx(1 - root, abs=1e-11)


def test_equal_mechanisms_built_differently_have_zero_delta():
    # gaussian(mu=1) ≡ gaussian(sigma=2, sensitivity=2): different objects, different specs
    a = dc.parse("gaussian(mu=1)")
    b = dc.parse("gaussian(sigma=2, sensitivity=2)")
    assert a != b and a.spec != b.spec
    for x, y in ((a, b), (b, a)):
        r = dc.delta_divergence(x, y)
        assert r.lower == 0.0 and r.upper <= 1e-11  # branch-and-bound tolerance 1e-12 + outward rounding
    c = dc.compare(a, b)
    assert c.verdict == "equal" and c.verdict_certified and c.crossings == ()


def test_same_sgm_from_two_specs_is_equal():
    a = dc.parse("sgm(sigma=1, p=0.1, steps=10)")
    b = dc.parse("sgm(sigma=1.0, p=1e-1, steps=1e1)")
    assert a is not b
    c = dc.compare(a, b)
    assert c.delta_ab.lower == 0.0 and c.delta_ba.lower == 0.0
    assert c.delta_ab.value == 0.0 and c.delta_ba.value == 0.0  # midpoints coincide exactly
    assert c.verdict == "equal"
    # the bracket says only what the composition's own accuracy allows
    assert c.delta_ab.upper <= 1e-5


def test_compare_matches_delta_divergence_both_ways():
    c = dc.compare(L1, dc.Gaussian(mu=2.0))
    for got, want in ((c.delta_ab, dc.delta_divergence(L1, dc.Gaussian(mu=2.0))),
                      (c.delta_ba, dc.delta_divergence(dc.Gaussian(mu=2.0), L1))):
        assert got.value == pytest.approx(want.value, abs=1e-12)
        assert got.lower <= want.upper + 1e-15 and want.lower <= got.upper + 1e-15


@pytest.mark.parametrize("prior", [dc.BetaPrior(1e6, 1e6), dc.BetaPrior(1e-9, 1e-9), dc.JEFFREYS, dc.UQuadratic()],
                         ids=lambda h: h.name)
def test_hyperprior_never_changes_the_verdict(prior):
    """Issue 13: with beta(1e6,1e6) the old code said 'b>=a' (weighted Δ(B‖A) underflows), with
    beta(1e-9,1e-9) 'equal' (both weighted Δ's below the tolerance). The curves cross: incomparable."""
    plain = dc.compare(G1, L1)
    c = dc.compare(G1, L1, hyperprior=prior)
    assert c.verdict == plain.verdict == "incomparable"
    for got, want in ((c.delta_ab, plain.delta_ab), (c.delta_ba, plain.delta_ba)):
        # the same unweighted Δ (the shared grid may only tighten its bracket)
        assert got.value == want.value and got.pi == want.pi
        assert want.lower <= got.lower <= got.upper <= want.upper
    assert c.weighted is not None and c.weighted.hyperprior is prior
    d = c.to_dict()
    assert "not a probability" in d["weighted"]["delta_scale"]


def test_peaked_hyperprior_weighted_delta_exceeds_one_regret_does_not():
    c = dc.compare(G1, L1, hyperprior=dc.BetaPrior(1e6, 1e6))
    w = c.weighted
    # Ψ(½)·(R_G − R_L)(½): the Beta(n, n) density at ½ is 2^{2−2n}/B(n, n), computed with lgamma
    n = 1e6
    psi_half = math.exp((2 - 2 * n) * math.log(2) - (2 * math.lgamma(n) - math.lgamma(2 * n)))
    gap = float(r_gauss(1.0, 0.5)) - r_laplace(1.0, 0.5)
    assert w.delta_ab.value == pytest.approx(psi_half * gap, rel=1e-9)
    assert w.delta_ab.value > 1  # density-weighted: not a probability
    # the expected regret concentrates at π = ½ where R_G − R_L = gap
    assert w.regret_ab.lower <= gap * (1 + 1e-6) and gap * (1 - 1e-3) <= w.regret_ab.upper
    assert 0 <= w.regret_ba.lower <= w.regret_ba.upper <= 1e-12


def _regret_quad(prior_pdf, mu, m, sign):
    """∫₀¹ Ψ(π)(±(R_G − R_L))₊ dπ by scipy quad, split at the crossings and the Laplace kinks."""
    def integrand(p):
        d = sign * (float(r_gauss(mu, p)) - r_laplace(m, p))
        return prior_pdf(p) * max(d, 0.0)

    # the crossings of R_G and R_L for μ = m = 1 (mpmath, tests/reference_values.py) and the Laplace kinks;
    # quadrature break points only: a wrong value costs accuracy of quad, it cannot make the test pass
    pts = [1 / (1 + math.e), 0.41853937663701, 0.5, 0.58146062336299, 1 / (1 + math.exp(-1))]
    val, _ = integrate.quad(integrand, 0, 1, points=pts, limit=500, epsabs=1e-13, epsrel=1e-11)
    return val


@pytest.mark.parametrize("prior, pdf", [
    (dc.JEFFREYS, stats.beta(0.5, 0.5).pdf),
    (dc.UQuadratic(), lambda p: 12 * (p - 0.5) ** 2),
    (dc.BetaPrior(2.0, 5.0), stats.beta(2.0, 5.0).pdf),
], ids=["jeffreys", "uquadratic", "beta25"])
def test_expected_regret_against_quadrature(prior, pdf):
    c = dc.compare(G1, L1, hyperprior=prior)
    for r, sign in ((c.weighted.regret_ab, 1), (c.weighted.regret_ba, -1)):
        ref = _regret_quad(pdf, 1.0, 1.0, sign)
        assert r.lower - 1e-12 <= ref <= r.upper + 1e-12
        assert r.upper - r.lower <= 1e-3 * r.upper + 1e-12
        assert r.certified


def test_hyperprior_text_must_be_parsed_in_io():
    with pytest.raises(TypeError, match="parse_hyperprior"):
        dc.delta_divergence(G1, L1, hyperprior="jeffreys")
    with pytest.raises(TypeError, match="Mechanism"):
        dc.compare(G1, "laplace(b=1)")


# ---------------------------------------------------------------- CLI regressions
def _run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("prior", ["beta(1e6,1e6)", "beta(1e-9,1e-9)"])
def test_cli_hyperprior_verdict_is_unweighted(capsys, prior):
    import json

    code, out, _ = _run(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--hyperprior", prior, "--json")
    assert code == 0
    d = json.loads(out)
    assert d["verdict"] == "incomparable"
    assert d["weighted"]["hyperprior"] == d["hyperprior"]
    assert {"expected_regret_ab", "expected_regret_ba", "delta_ab", "delta_ba"} <= set(d["weighted"])
    code, out, _ = _run(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--hyperprior", prior)
    assert code == 0
    assert "incomparable" in out and "Blackwell-dominates" not in out and "same protection" not in out
    assert "not a probability" in out and "Expected regret" in out


def test_callable_hyperprior_against_quadrature():
    """A plain density callable (an uncertified ``DensityPrior``: extremes from end points and midpoints,
    its reflection, its tail bound from a grid) against scipy quad, as the named priors above."""
    pdf = lambda p: 6.0 * p * (1.0 - p)  # noqa: E731  (Beta(2, 2), passed as a bare function)
    c = dc.compare(G1, L1, hyperprior=pdf)
    assert not c.weighted.regret_ab.certified and not c.weighted.delta_ab.certified
    named = dc.compare(G1, L1, hyperprior=dc.BetaPrior(2.0, 2.0))
    for r, rn, sign in ((c.weighted.regret_ab, named.weighted.regret_ab, 1), (c.weighted.regret_ba, named.weighted.regret_ba, -1)):
        ref = _regret_quad(pdf, 1.0, 1.0, sign)
        assert r.lower - 1e-12 <= ref <= r.upper + 1e-12
        assert r.value == pytest.approx(rn.value, rel=1e-6)
    with pytest.raises(ValueError, match="finite and non-negative"):
        dc.delta_divergence(G1, L1, hyperprior=lambda p: p - 0.5)
