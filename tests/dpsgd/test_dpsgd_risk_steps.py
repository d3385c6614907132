"""Steps-to-risk calibration: the largest N whose certified risk meets a target.

Independent checks: at p = 1 SGM(σ, 1, N) is the Gaussian G_{√N/σ} (Dong, Roth & Su 2022, Cor 3.3), whose
advantage 2Φ(μ/2) − 1, TPR at FPR α 1 − Φ(Φ⁻¹(1 − α) − μ) and Bayes error π(1 − Φ(x*)) + (1 − π)Φ(x* − μ),
x* = μ/2 + log(π/(1 − π))/μ, are written out here with scipy; for p < 1, dp-accounting's PLD δ(0) (= the
advantage, TV) composed by its own FFT.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import dpcompare as dc
from dpcompare.dpsgd.risk_steps import steps_for_risk
from dpcompare.io import cli


def _adv(mu: float) -> float:
    return 2.0 * norm.cdf(mu / 2.0) - 1.0


def _tpr(mu: float, fpr: float) -> float:
    return float(norm.sf(norm.isf(fpr) - mu))


def _bayes(mu: float, pi: float) -> float:
    x = mu / 2.0 + math.log(pi / (1.0 - pi)) / mu
    return float(pi * norm.sf(x) + (1.0 - pi) * norm.cdf(x - mu))


@given(sigma=st.floats(0.5, 30.0), target=st.floats(0.05, 0.9))
@settings(max_examples=15)
def test_p1_advantage_matches_the_closed_form(sigma: float, target: float) -> None:
    if _adv(1.0 / sigma) > target * (1 - 1e-9):
        with pytest.raises(ValueError, match="out of reach"):
            steps_for_risk("advantage", target, sigma, 1.0)
        return
    r = steps_for_risk("advantage", target, sigma, 1.0)
    n = r.steps
    assert _adv(math.sqrt(n) / sigma) <= target + 1e-12
    assert r.steps_above == n + 1
    assert _adv(math.sqrt(n + 1) / sigma) > target - 1e-12
    assert r.value == pytest.approx(_adv(math.sqrt(n) / sigma), abs=1e-12)


def test_p1_tpr_and_bayes_error_match_the_closed_forms() -> None:
    r = steps_for_risk("tpr", 0.1, 10.0, 1.0, fpr=0.01)
    n = r.steps
    assert _tpr(math.sqrt(n) / 10.0, 0.01) <= 0.1 < _tpr(math.sqrt(n + 1) / 10.0, 0.01)
    assert n > 50  # a real search, not the first count
    b = steps_for_risk("bayes_error", 0.3, 5.0, 1.0, prior=0.4)
    n = b.steps
    assert _bayes(math.sqrt(n) / 5.0, 0.4) >= 0.3 > _bayes(math.sqrt(n + 1) / 5.0, 0.4)
    assert b.value >= 0.3  # Bayes error: the target is a floor


def test_p_below_one_is_certified_and_close_to_dp_accounting() -> None:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    sigma, p, target = 1.0, 0.05, 0.2
    r = steps_for_risk("advantage", target, sigma, p)
    assert r.value <= target
    m = dc.SubsampledGaussian(sigma, p, r.steps)
    assert m.advantage <= target  # the certified value at the returned count meets the target
    assert dc.SubsampledGaussian(sigma, p, r.steps_above).advantage > target

    def dp_adv(n: int) -> float:
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_event.PoissonSampledDpEvent(p, dp_event.GaussianDpEvent(sigma)), n)
        return acc.get_delta(0.0)

    # dp-accounting's (uncertified) value at our count is at most the target (ours is the pessimistic side)
    assert dp_adv(r.steps) <= target + 1e-4
    # and the count is not far below where dp-accounting crosses the target: within 2 %
    assert dp_adv(int(math.ceil(r.steps * 1.02))) > target


def test_delta_from_baseline_metric() -> None:
    base = dc.Gaussian(mu=0.5)
    r = steps_for_risk("delta", 0.05, 8.0, 1.0, baseline=base)
    n = r.steps
    # Δ(G_0.5 ‖ G_μ) grows with μ = √N/σ; the value at N meets the target, at N + 1 not
    assert dc.delta_divergence(base, dc.Gaussian(mu=math.sqrt(n) / 8.0)).upper <= 0.05
    assert dc.delta_divergence(base, dc.Gaussian(mu=math.sqrt(n + 1) / 8.0)).upper > 0.05


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (("advantage", 1.0, 1.0, 0.1), {}, r"target \(advantage\) must be in \(0, 1\)"),
        (("advantage", 0.2, 0.0, 0.1), {}, "sigma must be > 0"),
        (("advantage", 0.2, math.inf, 0.1), {}, "sigma must be finite"),
        (("advantage", 0.2, 1.0, 0.0), {}, "sampling_rate must be in"),
        (("advantage", 0.2, 1.0, 1.5), {}, "sampling_rate must be in"),
        (("advantage", True, 1.0, 0.1), {}, "target"),
        (("tpr", 0.2, 1.0, 0.1), {}, "needs fpr"),
        (("tpr", 0.01, 1.0, 0.1), {"fpr": 0.05}, "must be > fpr"),
        (("bayes_error", 0.2, 1.0, 0.1), {}, "needs prior"),
        (("bayes_error", 0.5, 1.0, 0.1), {"prior": 0.5}, r"min\(prior, 1 - prior\)"),
        (("delta", 0.1, 1.0, 0.1), {}, "needs baseline"),
        (("auc", 0.1, 1.0, 0.1), {}, "metric must be one of"),
    ],
)
def test_bad_input_names_the_field(args, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        steps_for_risk(*args, **kwargs)


def test_cli_sigma_with_a_risk_target(capsys) -> None:
    code = cli.main(["calibrate", "--advantage", "0.2", "--sigma", "3", "--sampling-rate", "1", "--json"])
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert _adv(math.sqrt(d["steps"]) / 3.0) <= 0.2 < _adv(math.sqrt(d["steps"] + 1) / 3.0)
    assert d["spec"] == f"sgm(sigma=3, p=1, steps={d['steps']})"


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--advantage", "2", "--sigma", "1", "--sampling-rate", "0.1"], "target (advantage) must be in (0, 1)"),
        (["--advantage", "0.001", "--sigma", "0.5", "--sampling-rate", "0.5"], "out of reach"),
        (["--tpr-at-fpr", "0.01,0.05", "--sigma", "1", "--sampling-rate", "0.1"], "must be > fpr"),
        (["--advantage", "0.2", "--sigma", "1", "--steps", "10", "--sampling-rate", "0.1"], "exactly one of --steps"),
    ],
)
def test_cli_bad_input_one_line_exit_2(capsys, argv, match) -> None:
    code = cli.main(["calibrate", *argv])
    out = capsys.readouterr()
    assert code == 2
    assert out.out == ""
    assert match in out.err and out.err.count("\n") == 1 and "Traceback" not in out.err


def test_at_limit_when_even_the_gaussian_bound_allows_every_count() -> None:
    # σ = 1e6: G_{√(1e8)/1e6} = G_0.01 has advantage 2Φ(0.005) − 1 ≈ 0.004 < 0.5
    r = steps_for_risk("advantage", 0.5, 1e6, 0.01)
    assert r.at_limit and r.steps_above is None and r.steps == 10**8
    assert r.value == pytest.approx(_adv(0.01), rel=1e-9) and r.value <= 0.5
