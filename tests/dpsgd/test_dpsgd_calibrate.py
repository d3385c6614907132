"""DP-SGD calibration: certified ε within tolerance, checked against closed forms and dp-accounting."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare.gaussian as dg
import dpcompare.mechanisms as dg_mech
from dpcompare.io import cli
from dpcompare.dpsgd import certified_epsilon, sigma_for_epsilon, sigma_for_risk, steps_for_sigma


def test_gaussian_case_matches_closed_form():
    # p = 1, N steps: the Gaussian mechanism with μ = √N/σ; dg.epsilon is the exact profile inversion ([SI])
    c = sigma_for_epsilon(2.0, 1e-5, 1.0, 4)
    exact = float(dg.epsilon(2.0 / c.sigma, 1e-5))
    assert exact <= c.epsilon <= 2.0
    assert 2.0 - c.epsilon <= 1e-3
    assert c.sigma >= 2.0 * dg.sigma_for(2.0, 1e-5) * (1 - 1e-12)  # never less noise than the exact answer
    assert c.sigma / (2.0 * dg.sigma_for(2.0, 1e-5)) - 1 < 1e-3


def test_seed000_figure6_baseline_sigma_and_dp_accounting():
    # [BCP] §5: p = 0.01, N = 500 at (8, 1e-5) gives σ = 0.54
    c = sigma_for_epsilon(8.0, 1e-5, 0.01, 500)
    assert 8.0 - 1e-3 <= c.epsilon <= 8.0
    assert abs(c.sigma - 0.54) < 0.005
    # independent accountant: dp-accounting's PLD at its default grid
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(c.sigma)), 500)
    assert abs(acc.get_epsilon(1e-5) - c.epsilon) < 5e-3
    # the certified ε is reproducible at the reported grid
    assert certified_epsilon(c.sigma, 0.01, 500, 1e-5, c.discretization) == pytest.approx(c.epsilon, abs=1e-12)


def test_tolerance_is_honoured():
    c = sigma_for_epsilon(1.0, 1e-5, 0.02, 100, tol=1e-5)
    assert 1.0 - 1e-5 <= c.epsilon <= 1.0


def test_steps_for_sigma_inverse():
    s = steps_for_sigma(1.0, 2.0, 1e-5, 0.05)
    assert certified_epsilon(1.0, 0.05, s.steps, 1e-5) <= 2.0
    assert certified_epsilon(1.0, 0.05, s.steps + 1, 1e-5) > 2.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=0.0, delta=1e-5, sampling_rate=0.01, steps=10), "epsilon must be > 0"),
        (dict(epsilon=-1.0, delta=1e-5, sampling_rate=0.01, steps=10), "epsilon must be > 0"),
        (dict(epsilon=1.0, delta=0.0, sampling_rate=0.01, steps=10), "delta must be in"),
        (dict(epsilon=1.0, delta=1.0, sampling_rate=0.01, steps=10), "delta must be in"),
        (dict(epsilon=1.0, delta=1e-5, sampling_rate=0.0, steps=10), "sampling_rate"),
        (dict(epsilon=1.0, delta=1e-5, sampling_rate=0.01, steps=0), "steps"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sigma_for_epsilon(**kwargs)


def test_unreachable_target():
    # no hidden cap on σ any more: ε = 1e-6 needs σ ≈ 4e7 (the old code stopped at 1e4 and called it unreachable)
    c = sigma_for_epsilon(1e-6, 1e-5, 0.5, 1000, tol=1e-8)
    assert 1e-6 - 1e-8 <= c.epsilon <= 1e-6 and c.sigma > 1e4
    with pytest.raises(ValueError, match="out of reach.*single step"):
        steps_for_sigma(0.5, 0.01, 1e-5, 1.0)


def test_sigma_for_risk_advantage_gaussian():
    # p = 1, N = 1: advantage of G_μ is 2Φ(μ/2) − 1 (Dong et al. 2022); invert in closed form
    from scipy.stats import norm

    r = sigma_for_risk("advantage", 0.2, 1.0, 1, rtol=1e-4)
    mu_star = 2 * norm.ppf(0.6)
    assert r.value <= 0.2
    assert r.sigma == pytest.approx(1 / mu_star, rel=2e-4)
    with pytest.raises(ValueError, match="metric"):
        sigma_for_risk("auc", 0.2, 1.0, 1)
    with pytest.raises(ValueError, match="fpr"):
        sigma_for_risk("tpr", 0.2, 1.0, 1)


def test_sigma_for_risk_delta_from_baseline():
    r = sigma_for_risk("delta", 0.01, 0.2, 20, baseline=dg_mech.Gaussian(mu=1), rtol=1e-3)
    assert r.value <= 0.01


def test_cli_json_and_errors(capsys):
    code = cli.main(["calibrate", "--epsilon", "8", "--delta", "1e-5", "--sampling-rate", "0.01", "--steps", "5e2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    assert {"sigma", "epsilon"} <= set(d)
    assert 8 - 1e-3 <= d["epsilon"] <= 8
    for args, word in ((["--epsilon", "0"], "epsilon"), (["--epsilon", "1", "--delta", "2"], "delta")):
        base = {"--epsilon": "1", "--delta": "1e-5", "--sampling-rate": "0.01", "--steps": "10"}
        base.update(dict(zip(args[::2], args[1::2])))
        code = cli.main(["calibrate", *[x for kv in base.items() for x in kv]])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and word in err and err.count("\n") == 1


def test_cli_sigma_gives_the_largest_number_of_steps(capsys):
    """`calibrate --sigma` is the inverse: N steps meet the target, N + 1 do not (certified ε)."""
    code = cli.main(["calibrate", "--epsilon", "2", "--delta", "1e-5", "--sampling-rate", "0.05", "--sigma", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    assert d["epsilon"] <= 2.0 and d["spec"] == f"sgm(sigma=1, p=0.05, steps={d['steps']})"
    assert certified_epsilon(1.0, 0.05, d["steps"] + 1, 1e-5) > 2.0
    for extra in ([], ["--sigma", "1", "--steps", "10"]):
        code = cli.main(["calibrate", "--epsilon", "2", "--delta", "1e-5", "--sampling-rate", "0.05", *extra])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and "exactly one of --steps" in err and err.count("\n") == 1
