"""Both DP-SGD CLTs (``dpcompare.gaussian.clt``), each with its name and source, against Opacus' CLT
functions (``opacus.accountants.analysis.gdp``), mpmath, and the certified accountant for the same sampling."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from scipy import integrate

import dpcompare.gaussian as dg
from dpcompare.gaussian.clt import Sampling, batch_for, clt_mu, clt_mu_poisson, clt_mu_uniform, compare_clt

CASES = [(1.0, 0.01, 100), (0.8, 0.004, 5000), (2.0, 0.02, 1000), (12.0, 0.1, 50)]


@pytest.mark.parametrize("sigma, p, steps", CASES)
def test_both_clts_match_opacus(sigma, p, steps):
    gdp = pytest.importorskip("opacus.accountants.analysis.gdp", reason="Opacus' CLT functions are the reference")
    kw = dict(steps=steps, noise_multiplier=sigma, sample_rate=p)
    # σ = 12: Opacus' e^{1/σ²}Φ(·)+3Φ(·)−2 cancels (~1e-10 relative); ours integrates the bracket
    assert clt_mu_uniform(sigma, p, steps) == pytest.approx(float(gdp.compute_mu_uniform(**kw)), rel=1e-7)
    assert clt_mu_poisson(sigma, p, steps) == pytest.approx(float(gdp.compute_mu_poisson(**kw)), rel=1e-12)
    assert clt_mu(sigma, p, steps, "uniform") == clt_mu_uniform(sigma, p, steps) == dg.clt_psi(sigma, p, steps)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0, 30.0])
def test_poisson_clt_is_the_chi_square_of_one_step(sigma):
    # μ/(p√T) = √(χ²(N(1/σ,1)‖N(0,1))) = √(E_P[(L − 1)²]), L = e^{x/σ − 1/(2σ²)}; by quadrature, and mpmath
    m = 1 / sigma
    val, _ = integrate.quad(lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * math.expm1(m * x - m * m / 2) ** 2,
                            -40, 40, epsabs=0, epsrel=1e-12, limit=400)
    assert clt_mu_poisson(sigma, 0.01, 10_000) == pytest.approx(math.sqrt(val), rel=1e-9)
    with mp.workdps(40):
        assert clt_mu_poisson(sigma, 0.01, 10_000) == pytest.approx(float(mp.sqrt(mp.expm1(1 / mp.mpf(sigma) ** 2))), rel=1e-14)


def test_issue_numbers_poisson_versus_uniform():
    # σ = 1, p = 0.01, T = 100: Poisson ψ = 0.131 (ε = 0.458), uniform ψ = 0.171 (ε = 0.611)
    cp = compare_clt(1.0, 0.01, 100, 1e-5, sampling="poisson")
    cu = compare_clt(1.0, 0.01, 100, 1e-5, sampling=Sampling.UNIFORM)
    assert cp.psi_clt == pytest.approx(0.131083, abs=1e-6) and cp.epsilon_clt == pytest.approx(0.4575, abs=1e-4)
    assert cu.psi_clt == pytest.approx(0.171014, abs=1e-6) and cu.epsilon_clt == pytest.approx(0.6114, abs=1e-4)
    # each against its own accountant: Poisson PLD 0.718; fixed-batch bracket [0.718 (Poisson), 0.768]
    assert cp.epsilon_exact == pytest.approx(0.71804, abs=2e-4)
    assert cu.epsilon_exact_lower == pytest.approx(cp.epsilon_exact, abs=2e-4)
    assert cu.epsilon_exact == pytest.approx(0.76801, abs=2e-4)
    assert cp.understates and cu.understates
    d = cu.to_dict()
    assert d["sampling"] == "uniform" and "Cor 9" in d["source"] and "FixedBatch" in d["accountant"]
    assert "Bu, Dong, Long & Su" in cp.to_dict()["source"]


def test_poisson_clt_approaches_its_accountant_as_t_grows_at_fixed_s():
    # s = p√T = 0.4 fixed (the CLT's μ and ε stay 0.524, 2.10): the accountant's ε falls towards it
    # (measured ε_exact: 2.81 at T = 100, 2.31 at T = 1600)
    c1 = compare_clt(1.0, 0.04, 100, 1e-5, sampling="poisson")
    c2 = compare_clt(1.0, 0.01, 1600, 1e-5, sampling="poisson")
    assert c1.psi_clt == pytest.approx(c2.psi_clt, rel=1e-14)
    assert c1.ratio < c2.ratio < 1 and c2.ratio > 0.9


def test_batch_for_and_errors():
    assert batch_for(0.01, None) == (100, 1)
    assert batch_for(0.004, 60_000) == (60_000, 240)
    with pytest.raises(ValueError, match="dataset_size"):
        batch_for(0.01, 150)
    with pytest.raises(ValueError, match="sampling must be"):
        clt_mu(1.0, 0.01, 100, "shuffle")
    with pytest.raises(ValueError, match="sigma"):
        clt_mu_poisson(0.01, 0.01, 100)
