"""Δ-divergence: reference numbers, certified brackets, Lemmas 3–5, Theorems 1–2, hyper-priors.

References:
- [BCP] §5, Figure 3: Gaussian μ=1 vs Laplace b=1: Δ(G‖L) = 0.00527 at π = ½, Δ(L‖G) = 0.03414 at
  π = 1/(1+e), Bayes error functions cross at π ≈ 0.4185 ([BCP] rounds to 0.005, 0.034, 0.4).
- Thm 2 clause 2: Δ(M‖M̃) = sup_{ε≥0} (δ̃(ε) − δ(ε))/(1+e^ε), evaluated here by brute force on a fine
  ε grid with profiles written out independently (Balle & Wang 2018 Thm 8; Laplace 1 − e^{(ε−m)/2}).
- Lemmas 3–5 ([BCP] §3.4): Δ(PP‖M) = TV/2 = δ(0)/2, Δ(M‖BNP) = R(½) = α*, sum = ½.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import norm

import dpcompare as dc
from dpcompare.comparison import blackwell_verdict

G1, L1 = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)


def gauss_delta(mu, eps):
    """Balle & Wang 2018 Thm 8, written out independently of dpcompare."""
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def laplace_delta(m, eps):
    return np.maximum(0.0, 1 - np.exp((eps - m) / 2))


def profile(m, eps):
    return m.delta_bounds(eps)[1]  # see test_mechanisms.test_approxdp_delta_method_is_not_shadowed


EPS_FINE = np.linspace(0.0, 12.0, 240001)


# ---------------------------------------------------------------- reference numbers ([BCP] Figure 3)
def test_gauss_vs_laplace_reference_values():
    ab = dc.delta_divergence(G1, L1)
    ba = dc.delta_divergence(L1, G1)
    assert ab.value == pytest.approx(0.00527, abs=1e-5)
    assert ba.value == pytest.approx(0.03414, abs=1e-5)
    assert ab.pi == pytest.approx(0.5, abs=1e-4)
    assert ba.pi == pytest.approx(1 / (1 + math.e), abs=1e-4)
    for r in (ab, ba):
        assert r.lower <= r.value <= r.upper
        assert r.upper - r.lower <= 1e-9


def test_gauss_vs_laplace_crossings():
    c = dc.compare(G1, L1)
    assert c.verdict == "incomparable"
    assert len(c.crossings) == 2
    assert c.crossings[0] == pytest.approx(0.4185, abs=1e-4)
    assert c.crossings[1] == pytest.approx(1 - 0.4185, abs=1e-4)  # symmetric f: R(π) = R(1−π)
    x = c.crossings[0]
    assert float(G1.bayes_error(x) - L1.bayes_error(x)) == pytest.approx(0.0, abs=1e-12)
    assert c.symmetric == pytest.approx(0.03414, abs=1e-5)


def _brute_profile_delta(d_a, d_b):
    """Thm 2 clause 2: sup_ε (δ_B(ε) − δ_A(ε))/(1+e^ε) on EPS_FINE."""
    return max(0.0, float(np.max((d_b - d_a) / (1 + np.exp(EPS_FINE)))))


@pytest.mark.parametrize("mu, b", [(1.0, 1.0), (0.5, 2.0), (2.0, 0.7), (3.0, 0.4)])
def test_delta_matches_brute_force_profile_sup(mu, b):
    g, lap = dc.Gaussian(mu=mu), dc.Laplace(b=b)
    dg, dl = gauss_delta(mu, EPS_FINE), laplace_delta(1 / b, EPS_FINE)
    for a, bb, da, db in ((g, lap, dg, dl), (lap, g, dl, dg)):
        r = dc.delta_divergence(a, bb)
        brute = _brute_profile_delta(da, db)
        # grid error: the objective has slope ≤ 1 in ε, step 5e-5
        assert brute <= r.upper + 1e-12
        assert r.value == pytest.approx(brute, abs=1e-7)
        assert r.lower <= r.value <= r.upper and r.upper - r.lower <= 1e-9


def test_delta_discrete_vs_continuous_profile_sup():
    rr = dc.RandomizedResponse(eps=1.0)
    d_rr = np.maximum(0.0, (math.e - np.exp(EPS_FINE)) / (1 + math.e))  # RR profile (Kairouz et al. 2015)
    dg = gauss_delta(1.0, EPS_FINE)
    assert dc.delta_divergence(rr, G1).value == pytest.approx(_brute_profile_delta(d_rr, dg), abs=1e-7)
    assert dc.delta_divergence(G1, rr).value == pytest.approx(_brute_profile_delta(dg, d_rr), abs=1e-7)


# ---------------------------------------------------------------- Lemmas 3–5
EXTREMAL_CASES = [
    dc.Gaussian(mu=0.5), dc.Gaussian(mu=1.0), dc.Gaussian(mu=3.0),
    dc.Laplace(b=0.5), dc.Laplace(b=1.0), dc.Laplace(b=3.0),
    dc.RandomizedResponse(eps=0.0), dc.RandomizedResponse(eps=math.log(3)), dc.RandomizedResponse(eps=4.0),
    dc.ApproxDP(eps=1.0, delta=0.1), dc.ApproxDP(eps=0.0, delta=0.3),
]


@pytest.mark.parametrize("m", EXTREMAL_CASES, ids=lambda m: m.spec)
def test_lemmas_3_4_5(m):
    pp = dc.delta_from_perfect_privacy(m)
    bnp = dc.delta_to_blatant_non_privacy(m)
    tv = float(profile(m, 0.0))
    assert pp.value == pytest.approx(tv / 2, abs=1e-12)  # Lemma 3
    r_half = float(m.bayes_error(0.5))
    assert bnp.value == pytest.approx(r_half, abs=1e-12)  # Lemma 4: R* = R(½)
    assert bnp.value == pytest.approx(m.fixed_point, abs=1e-12)  # = α*
    assert float(m.tradeoff(m.fixed_point)) == pytest.approx(m.fixed_point, abs=1e-9)
    assert pp.value + bnp.value == pytest.approx(0.5, abs=1e-12)  # Lemma 5


def test_lemma_3_hand_values():
    # Gaussian μ: TV = 2Φ(μ/2) − 1; RR(log 3): TV = 1/2 → Δ(PP‖M) = 1/4
    assert dc.delta_from_perfect_privacy(G1).value == pytest.approx(norm.cdf(0.5) - 0.5, abs=1e-12)
    assert dc.delta_from_perfect_privacy(dc.RandomizedResponse(eps=math.log(3))).value == pytest.approx(0.25, abs=1e-15)


# ---------------------------------------------------------------- Theorem 1
ALPHA = np.linspace(0, 1, 201)
EPS = np.linspace(-5, 10, 301)
PI = np.linspace(0, 1, 201)


@settings(max_examples=15)
@given(st.floats(0.05, 5.0), st.floats(0.05, 5.0))
def test_theorem_1_gaussians(mu1, mu2):
    mu1, mu2 = sorted((mu1, mu2))
    a, b = dc.Gaussian(mu=mu1), dc.Gaussian(mu=mu2)
    # the three clauses for "B ≥ A" (B is the less private one)
    f_clause = bool(np.all(b.tradeoff(ALPHA) <= a.tradeoff(ALPHA) + 1e-14))
    d_clause = bool(np.all(b.delta(EPS) >= a.delta(EPS) - 1e-14))
    r_clause = bool(np.all(b.bayes_error(PI) <= a.bayes_error(PI) + 1e-14))
    assert f_clause and d_clause and r_clause
    c = dc.compare(a, b, crossings=False)
    if mu2 - mu1 > 1e-6:
        assert c.verdict == "b>=a"
        # and the reverse clauses all fail
        assert np.any(a.tradeoff(ALPHA) > b.tradeoff(ALPHA))
        assert np.any(a.delta(EPS) < b.delta(EPS))
        assert np.any(a.bayes_error(PI) > b.bayes_error(PI))
    else:
        assert c.verdict in ("b>=a", "equal")
    # the reversed comparison swaps the verdict (same two Δ's, read the other way)
    rev = blackwell_verdict(c.delta_ba, c.delta_ab, c.tolerance)
    assert rev == {"b>=a": "a>=b", "equal": "equal"}[c.verdict]


def test_theorem_1_equal_and_incomparable():
    assert dc.compare(G1, dc.Gaussian(sigma=1.0), crossings=False).verdict == "equal"
    c = dc.compare(G1, L1, crossings=False)
    assert c.verdict == "incomparable"
    # incomparable: each clause fails in both directions
    assert np.any(G1.tradeoff(ALPHA) > L1.tradeoff(ALPHA)) and np.any(G1.tradeoff(ALPHA) < L1.tradeoff(ALPHA))


def test_extremal_mechanisms_are_bounds():
    # Lemma 2: M ≥ PP and BNP ≥ M
    for m in EXTREMAL_CASES[:6]:
        assert dc.compare(m, dc.PerfectlyPrivate(), crossings=False).verdict == "a>=b"
        assert dc.compare(m, dc.BlatantlyNonPrivate(), crossings=False).verdict == "b>=a"


# ---------------------------------------------------------------- Theorem 2
@pytest.mark.parametrize("a, b", [(G1, L1), (L1, G1), (dc.Laplace(b=0.6), dc.Gaussian(mu=2.0)), (G1, dc.RandomizedResponse(eps=1.0)), (dc.RandomizedResponse(eps=1.0), G1)])
def test_theorem_2_clauses_agree(a, b):
    d = dc.delta_divergence(a, b).value
    assert d > 1e-4
    ok = dc.approximate_dominance(a, b, d + 1e-10, grid=4001)
    assert ok.tradeoff_clause and ok.profile_clause and ok.bayes_clause and ok.holds
    bad = dc.approximate_dominance(a, b, d / 2, grid=4001)
    assert not bad.tradeoff_clause and not bad.profile_clause and not bad.bayes_clause and not bad.holds


def test_theorem_2_with_approxdp():
    a = dc.ApproxDP(eps=1.0, delta=0.1)
    d = dc.delta_divergence(a, G1).value
    ok = dc.approximate_dominance(a, G1, d + 1e-10, grid=2001)
    assert ok.holds and ok.clauses_agree


def test_theorem_2_trade_off_clause_independently():
    # Def 1: Δ = inf{κ : f(α+κ) − κ ≤ f̃(α) ∀α}; check on a fine α grid with the library's f
    d = dc.delta_divergence(L1, G1).value
    alpha = np.linspace(0, 1, 200001)
    def holds(k):
        fa = np.where(alpha + k <= 1, L1.tradeoff(np.minimum(alpha + k, 1.0)), 0.0)
        return bool(np.all(fa - k <= G1.tradeoff(alpha) + 1e-13))
    assert holds(d + 1e-9)
    assert not holds(d - 1e-5)


# ---------------------------------------------------------------- hyper-priors
PRIORS = [dc.JEFFREYS, dc.UQuadratic(), dc.BetaPrior(2.0, 5.0), dc.parse_hyperprior("beta(0.5,3)")]
PI_FINE = np.unique(np.concatenate([np.linspace(0, 1, 400001), 1 / (1 + np.exp(-np.linspace(-30, 30, 20001)))]))[1:-1]


def _psi(h, pi):
    if isinstance(h, dc.UQuadratic):
        return 12 * (pi - 0.5) ** 2
    a, b = h.a, h.b
    return np.exp((a - 1) * np.log(pi) + (b - 1) * np.log1p(-pi) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)))


@pytest.mark.parametrize("h", PRIORS, ids=lambda h: h.name)
@pytest.mark.parametrize("a, b", [(G1, L1), (L1, G1), (dc.RandomizedResponse(eps=1.0), G1), (G1, dc.RandomizedResponse(eps=1.0))],
                         ids=["G-L", "L-G", "RR-G", "G-RR"])
def test_hyperprior_delta_vs_grid(h, a, b):
    r = dc.delta_divergence(a, b, hyperprior=h)
    # the fine grid plus the kinks of discrete mechanisms (where a max of Ψ·(R_A − R_B) may sit)
    kinks = [1 / (1 + np.exp(-m.pairs()[0].loss)) for m in (a, b) if m.pairs() is not None]
    grid = np.unique(np.concatenate([PI_FINE, *kinks]))
    grid = grid[(grid > 0) & (grid < 1)]
    brute = float(np.max(_psi(h, grid) * (a.bayes_error(grid) - b.bayes_error(grid))))
    brute = max(brute, 0.0)
    assert r.lower <= r.value <= r.upper
    assert brute <= r.upper + 1e-10  # the grid max never exceeds the certified upper end
    assert r.value == pytest.approx(brute, abs=1e-6)  # grid error of the 2.5e-6 π spacing
    if r.value > 0:
        at = float(_psi(h, np.asarray(r.pi)) * (a.bayes_error(r.pi) - b.bayes_error(r.pi)))
        assert at == pytest.approx(r.value, abs=1e-9)


def test_uniform_beta_equals_plain_delta():
    # Beta(1,1) is Ψ ≡ 1, so Δ^Ψ = Δ
    assert dc.delta_divergence(L1, G1, hyperprior=dc.BetaPrior(1.0, 1.0)).value == pytest.approx(dc.delta_divergence(L1, G1).value, abs=1e-10)


@pytest.mark.parametrize("bad", ["beta(0,1)", "beta(-1,2)", "dirichlet", "beta(1)"])
def test_bad_hyperprior_raises(bad):
    with pytest.raises(ValueError):
        dc.parse_hyperprior(bad)  # parsing lives in io/; compare takes HyperPrior objects
    with pytest.raises(TypeError):
        dc.delta_divergence(G1, L1, hyperprior=bad)


def test_verdict_uses_estimates_and_reports_certification():
    """[BCP] Thm 1 with a tolerance: a bracket straddling tol gives an uncertified verdict."""
    from dpcompare.comparison.comparison import blackwell_verdict, verdict_certified

    clear = dc.DeltaResult(0.03, 0.029, 0.031, 0.27)
    zero = dc.DeltaResult(0.0, 0.0, 1e-12, 0.0)
    straddle = dc.DeltaResult(2e-11, 0.0, 1e-6, 0.96)
    assert blackwell_verdict(clear, zero, 1e-9) == "b>=a" and verdict_certified(clear, zero, 1e-9)
    assert blackwell_verdict(clear, straddle, 1e-9) == "b>=a" and not verdict_certified(clear, straddle, 1e-9)
    assert blackwell_verdict(clear, clear, 1e-9) == "incomparable" and verdict_certified(clear, clear, 1e-9)
    c = dc.compare(dc.Gaussian(mu=1), dc.Gaussian(mu=2))
    assert c.verdict == "b>=a" and c.verdict_certified and c.to_dict()["verdict_certified"] is True


# ---------------------------------------------------------------------------------------------- both directions
def test_delta_divergences_closed_forms_contain_the_mpmath_reference():
    # reference: tests/reference_values.gauss_laplace_reference (mpmath, 30 digits); one sweep, two targets
    from reference_values import gauss_laplace_reference

    ref = gauss_laplace_reference()
    ab, ba = dc.delta_divergences(G1, L1)
    for r, want in ((ab, ref.delta_gl), (ba, ref.delta_lg)):
        assert r.lower - 1e-15 <= want <= r.upper + 1e-15
        assert r.width <= 1e-11


@pytest.mark.parametrize("make", [
    lambda: (dc.SubsampledGaussian(2.0, 0.2, 100), dc.SubsampledGaussian(1.0, 0.01, 300)),  # numeric brackets
    lambda: (dc.RandomizedResponse(eps=1.0), dc.PureDP(eps=0.5)),  # exact pairs
    lambda: (G1, L1),  # closed forms
])
def test_delta_divergences_agree_with_one_direction_at_a_time(make):
    a, b = make()
    ab, ba = dc.delta_divergences(a, b)
    for both, alone in ((ab, dc.delta_divergence(a, b)), (ba, dc.delta_divergence(b, a))):
        # pairs: the same exact merge, so the same numbers; closed forms: two certified brackets, which overlap
        assert both.lower <= alone.upper + 1e-15 and alone.lower <= both.upper + 1e-15
        if a.pairs() is not None:
            assert (both.lower, both.upper, both.value) == pytest.approx((alone.lower, alone.upper, alone.value), abs=1e-15)


def test_delta_divergences_with_a_hyperprior_matches_the_weighted_compare():
    w = dc.BetaPrior(2.0, 2.0)
    ab, ba = dc.delta_divergences(G1, L1, hyperprior=w)
    c = dc.compare(G1, L1, hyperprior=w)
    for mine, theirs in ((ab, c.weighted.delta_ab), (ba, c.weighted.delta_ba)):
        assert mine.lower <= theirs.upper + 1e-12 and theirs.lower <= mine.upper + 1e-12
