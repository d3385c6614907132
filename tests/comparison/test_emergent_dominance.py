"""Emergent Blackwell dominance ([BCP] §4, eq 8–14, Theorem 3) for any two mechanisms.

Independent references:
- Laplace: KL(Lap(0,b)‖Lap(Δ,b)) = m + e^{−m} − 1 (closed form), and eq 9–12 literally, i.e. the
  integrals of log|f′| over α ∈ (0, 1) of Laplace's piecewise trade-off curve, by scipy quad;
- randomized response: L = ±ε with P-masses e^ε/(1+e^ε), 1/(1+e^ε), written out by hand;
- composed randomized response: Δ against brute force over the binomial for small N (mpmath-free,
  exact rational-style sums in float);
- the Gaussian: the CLT proxy of G_μ composed N times is exactly G_{μ√N} (μ = 2η√N with η = μ/2).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate

import dpcompare as dc
from dpcompare.comparison.emergent_dominance import MAX_RR_STEPS, compose_n, emergent
from dpcompare.comparison.plrv import MomentsMethod, laplace_moments, moments_with_method, thm3
from dpcompare.io import cli


@pytest.mark.parametrize("m", [0.3, 1.0, 3.0])
def test_laplace_moments_against_tradeoff_integrals(m):
    """eq 9–12 on f(α) = 1 − e^m α (α < e^{−m}/2), e^{−m}/(4α) (α ≤ ½), e^{−m}(1 − α)."""
    a1, a2 = math.exp(-m) / 2, 0.5

    def logslope(x):
        if x < a1:
            return m  # |f′| = e^m
        if x <= a2:
            return math.log(math.exp(-m) / (4 * x * x))
        return -m

    kw = dict(epsabs=1e-13, epsrel=1e-12, limit=200)

    def I(g):  # noqa: E743
        return sum(integrate.quad(lambda x: g(logslope(x)), lo, hi, **kw)[0] for lo, hi in ((0, a1), (a1, a2), (a2, 1)))

    v1 = -I(lambda l: l)
    got = laplace_moments(m)
    assert got.v1 == pytest.approx(m + math.expm1(-m), rel=1e-12)  # closed-form KL
    assert got.v1 == pytest.approx(v1, rel=1e-9)
    assert got.v2 == pytest.approx(I(lambda l: l * l), rel=1e-9)
    assert got.v3 == pytest.approx(I(lambda l: abs(l + v1) ** 3), rel=1e-9)
    assert got.v4 == pytest.approx(I(lambda l: abs(l) ** 3), rel=1e-9)


def test_rr_moments_are_exact_sums():
    eps = 0.7
    hi, lo = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    v1 = (hi - lo) * eps
    m, how = moments_with_method(dc.RandomizedResponse(eps=eps))
    assert how is MomentsMethod.EXACT_SUM
    assert m.v1 == pytest.approx(v1, rel=1e-14) and m.v2 == pytest.approx(eps * eps, rel=1e-14)
    assert m.v3 == pytest.approx(hi * abs(eps - v1) ** 3 + lo * abs(-eps - v1) ** 3, rel=1e-13)
    assert m.v4 == pytest.approx(eps ** 3, rel=1e-14)


def test_infinite_moments_mean_no_theorem():
    e = emergent(dc.ApproxDP(eps=1.0, delta=0.1), dc.Gaussian(mu=1.0), 10, 10, certified=False)
    assert not e.moments_a.finite and e.winner == "none"
    assert not e.forward.applies and not e.backward.applies
    assert e.forward.bound is None and "does not apply" in e.forward.reason


def test_gaussian_clt_proxy_is_exact_and_theorem_is_sound():
    e = emergent(dc.Gaussian(mu=1.0), dc.Gaussian(mu=0.5), 100, 100)
    assert e.clt_mu_a == pytest.approx(10.0, rel=1e-14) and e.clt_mu_b == pytest.approx(5.0, rel=1e-14)
    assert e.winner == "A" and e.forward.applies and not e.backward.applies
    # G_10 ≥ G_5 exactly: Δ(A^N‖B^N) = 0 ≤ bound
    assert e.composed.delta_ab.upper <= 1e-12 <= e.forward.bound
    assert e.composed.delta_ba.value > 0.0


def _rr_bayes_brute(eps, n, pi):
    """R(π) of n-fold RR by brute force over the binomial count k ([BCP] eq 2, NP test)."""
    k = np.arange(n + 1)
    c = np.array([math.comb(n, int(i)) for i in k], dtype=float)
    e = math.exp(eps)
    p = c * e ** (n - k) / (1 + e) ** n
    q = c * e ** k / (1 + e) ** n
    return float(np.sum(np.minimum(pi * p, (1 - pi) * q)))


def test_composed_rr_is_exact():
    eps, n = 0.4, 12
    comp, how = compose_n(dc.RandomizedResponse(eps=eps), n)
    assert how == "exact binomial pair"
    for pi in (0.1, 0.37, 0.5, 0.8):
        assert float(comp.bayes_error(pi)) == pytest.approx(_rr_bayes_brute(eps, n, pi), abs=1e-14)


def test_uncomposable_kinds_say_so():
    mix = dc.parse("mixture(0.5*rr(eps=1), 0.5*gaussian(mu=2))")
    comp, why = compose_n(mix, 5)
    assert comp is None and "numeric (pessimistic/optimistic) pair" in why
    with pytest.raises(ValueError, match="moments"):  # no certified moments either
        emergent(mix, dc.Gaussian(mu=1.0), 50, 50)
    e = emergent(dc.RandomizedResponse(eps=0.1), dc.Gaussian(mu=1.0), MAX_RR_STEPS + 1, 5)
    assert e.composed.delta_ab is None and "atoms" in e.composed.note


def test_laplace_is_composed_and_certified():
    e = emergent(dc.Laplace(b=1.0), dc.Gaussian(mu=1.0), 50, 50)
    assert e.winner == "B"  # η_L = 0.4537 < η_G = 0.5 at N = Ñ
    d = e.composed.delta_ab
    assert d is not None and 0.0 <= d.lower <= d.value <= d.upper and d.upper - d.lower < 1e-6


def test_sgm_must_be_one_step():
    with pytest.raises(ValueError, match="steps=1"):
        emergent(dc.parse("sgm(sigma=2, p=9e-4, steps=10)"), dc.Gaussian(mu=1.0), 10, 10)


def test_seed000_example_theorem_does_not_apply_in_the_papers_direction():
    """[BCP] §5: σ = 2 vs 3, p = 9e-4, N = 1.4e6 vs 3.4e6 (moments only: certified=False)."""
    a, b = dc.parse("sgm(sigma=2, p=9e-4, steps=1)"), dc.parse("sgm(sigma=3, p=9e-4, steps=1)")
    e = emergent(a, b, 1_400_000, 3_400_000, certified=False)
    assert e.forward.ratio == pytest.approx(1.4 / 3.4) and not e.forward.applies
    assert e.forward.needed > e.forward.ratio  # 0.41383 > 0.41176
    assert e.backward.applies and e.winner == "B"
    r = thm3(e.moments_b, 3_400_000, e.moments_a, 1_400_000)
    assert e.backward.bound == pytest.approx(r.bound, rel=1e-14)
    assert e.backward.bound > 1e-3  # 1.68e-3: the paper's "< 1e-3" is not what the theorem gives


def test_cli_emergent(capsys):
    code = cli.main(["emergent", "gaussian(mu=1)", "rr(eps=0.5)", "--steps", "1e3", "--steps-b", "1000", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["a"]["clt_mu"] == pytest.approx(2 * 0.5 * math.sqrt(1000))
    assert d["theorem3_ab"]["precondition"] in (True, False)
    assert d["certified"]["delta_ab"] is not None
    code = cli.main(["emergent", "laplace(b=1)", "gaussian(mu=1)", "--steps", "50"])
    out, _ = capsys.readouterr()
    assert code == 0 and "the theorem does not apply" in out and "Certified Δ of the composed" in out
    code = cli.main(["emergent", "mixture(0.5*rr(eps=1), 0.5*gaussian(mu=2))", "gaussian(mu=1)", "--steps", "5"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "moments" in err and len(err.strip().splitlines()) == 1
    code = cli.main(["emergent", "laplace(b=1)", "gaussian(mu=1)", "--steps", "0"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith("error:") and "steps" in err
