"""Calibration at the edges of the domain: each test here failed on
main at 2cef12d (NaN crash, hidden caps, internal messages, "unreachable" where an answer exists)."""

from __future__ import annotations

import json
import math
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.dpsgd.calibrate import (
    PLD_MAX_STEPS,
    Accountant,
    certified_epsilon,
    epsilon_upper,
    sigma_for_epsilon,
    steps_for_sigma,
)
from dpcompare.dpsgd.rdp_bound import ORDERS, rdp_epsilon, rdp_orders
from dpcompare.io import cli


def _opacus_rdp_epsilon(sigma: float, p: float, steps: float, delta: float) -> float:
    """Opacus' own RDP accountant at our orders (an independent implementation of the same bound).
    Opacus is not in the test extra (it brings torch): the tests that compare with it are skipped without it."""
    pytest.importorskip("opacus", reason="opacus is not installed (pip install 'dpcompare[opacus]'; CI installs it)")
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = [float(a) for a in ORDERS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rdp = compute_rdp(q=p, noise_multiplier=sigma, steps=steps, orders=orders)
        return float(get_privacy_spent(orders=orders, rdp=rdp, delta=delta)[0])


# ---------------------------------------------------------------------------------------------- the RDP bound
@pytest.mark.parametrize("sigma, p", [(0.7, 0.05), (0.05, 0.01), (1e6, 0.01), (3.0, 1.0)])
def test_rdp_per_step_against_mpmath(sigma, p):
    """A_α = Σ_k C(α,k)(1−p)^{α−k}p^k e^{(k²−k)/(2σ²)} (Mironov et al. 2019, §3.3) at 60 digits, α = 10 and 62."""
    mpmath.mp.dps = 60
    for alpha in (10, 62):
        i = int(np.flatnonzero(ORDERS == alpha)[0])
        a = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - mpmath.mpf(p)) ** (alpha - k) * mpmath.mpf(p) ** k
                        * mpmath.exp(mpmath.mpf(k * k - k) / (2 * mpmath.mpf(sigma) ** 2)) for k in range(alpha + 1))
        exact = float(mpmath.log(a) / (alpha - 1))
        assert rdp_orders(sigma, p)[i] == pytest.approx(exact, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("sigma, p, steps, delta", [(1.0, 0.01, 1000, 1e-5), (0.5, 0.2, 50, 1e-12),
                                                    (3.0, 0.01, 1000, 1e-300), (2.0, 1.0, 10, 1e-5)])
def test_rdp_epsilon_matches_opacus_and_never_below(sigma, p, steps, delta):
    ours, theirs = rdp_epsilon(sigma, p, steps, delta), _opacus_rdp_epsilon(sigma, p, steps, delta)
    assert theirs <= ours <= theirs * (1 + 1e-8) + 1e-10


def test_rdp_epsilon_at_large_sigma_keeps_its_digits():
    """σ = 1e6: A_α − 1 ≈ 1e-16; summing e^{c_k} directly (as Opacus does) loses them, our log1p form does not.
    Independent: per-step ε_α ≈ p²α/(2σ²) to first order in 1/σ² (Mironov et al. 2019, §3.3)."""
    r = rdp_orders(1e6, 0.01)
    approx = 0.01**2 * ORDERS / (2 * 1e12)
    assert np.allclose(r, approx, rtol=1e-6)


# ---------------------------------------------------------------------------------------------- ε(σ) identities
@pytest.mark.parametrize("sigma, p, steps, delta", [(0.8, 0.02, 30, 1e-5), (2.0, 0.2, 10, 1e-6)])
def test_certified_epsilon_equals_the_symmetrised_mechanism(sigma, p, steps, delta):
    """max(ε_f, ε_{f⁻¹}) = ε of conv(min(f, f⁻¹)) (δ(ε) is a supremum of linear functionals of f)."""
    from dpcompare.mechanisms import SubsampledGaussian

    assert certified_epsilon(sigma, p, steps, delta) == pytest.approx(
        float(SubsampledGaussian(sigma, p, steps).epsilon(delta)), rel=1e-12)


def test_epsilon_upper_falls_back_to_rdp_only_where_pld_cannot_answer():
    b = epsilon_upper(1.0, 0.01, 1000, 1e-5)
    assert b.accountant is Accountant.PLD and b.epsilon <= rdp_epsilon(1.0, 0.01, 1000, 1e-5)
    # the engine's certified Chernoff tail bound now answers far below its grid's +∞ mass
    tiny = epsilon_upper(3.0, 0.01, 1000, 1e-14)
    assert tiny.accountant is Accountant.PLD and math.isfinite(tiny.epsilon)
    assert tiny.epsilon <= rdp_epsilon(3.0, 0.01, 1000, 1e-14) + 1e-9
    many = epsilon_upper(3.0, 0.01, PLD_MAX_STEPS + 1, 1e-5)  # beyond what the PLD engine composes
    assert many.accountant is Accountant.RDP and math.isfinite(many.epsilon) and "steps" in many.note


# ---------------------------------------------------------------------------------------------- regressions
def test_small_delta_no_nan_crash():
    """(8, 1e-12) at p = 0.01, N = 1000 raised 'cannot convert float NaN to integer'."""
    c = sigma_for_epsilon(8.0, 1e-12, 0.01, 1000)
    assert 8.0 - 1e-3 <= c.epsilon <= 8.0
    # certified: never below dp-accounting's (pessimistic-PLD) ε of the same σ, nor Opacus' RDP ε
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(c.sigma)), 1000)
    assert acc.get_epsilon(1e-12) <= c.epsilon
    assert _opacus_rdp_epsilon(c.sigma, 0.01, 1000, 1e-12) <= c.epsilon + 1e-9


def test_delta_1e_300_has_an_answer():
    """δ = 1e-300 was called 'unreachable'; the smaller of two certified bounds answers (PLD tail bound, RDP),
    so it is never looser than Opacus' RDP ε at the same σ."""
    c = sigma_for_epsilon(8.0, 1e-300, 0.01, 100)
    assert c.accountant in (Accountant.RDP, Accountant.PLD) and 8.0 - 1e-3 <= c.epsilon <= 8.0
    assert c.epsilon <= _opacus_rdp_epsilon(c.sigma, 0.01, 100, 1e-300) + 1e-6


def test_no_hidden_cap_on_steps():
    """σ = 1e6 reported the hidden cap 10⁷ as the answer; the real answer is ~2.5e16 (RDP-certified)."""
    s = steps_for_sigma(1e6, 8.0, 1e-5, 0.01)
    assert not s.at_limit and s.steps > 10**15 and s.accountant is Accountant.RDP
    assert rdp_epsilon(1e6, 0.01, s.steps, 1e-5) <= 8.0 < rdp_epsilon(1e6, 0.01, s.steps * 1.001, 1e-5)


def test_at_limit_is_said_plainly(capsys):
    code = cli.main(["calibrate", "--epsilon", "8", "--delta", "0.5", "--sampling-rate", "1e-12", "--sigma", "1e3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "more than" in out


def test_huge_steps_are_calibrated():
    """steps = 1e20 gave an internal message suggesting an option that does not exist."""
    c = sigma_for_epsilon(8.0, 1e-5, 0.01, 10**20)
    assert c.accountant is Accountant.RDP and 8.0 - 1e-3 <= c.epsilon <= 8.0
    assert rdp_epsilon(c.sigma, 0.01, 10**20, 1e-5) == pytest.approx(c.epsilon, rel=1e-12)


def test_huge_epsilon_target_is_met_or_refused_clearly(capsys):
    """ε = 1e6 ended in an internal message; now the engine answers (a certified ε at or below the target)."""
    code = cli.main(["calibrate", "--epsilon", "1e6", "--steps", "100", "--delta", "1e-5", "--sampling-rate", "0.01", "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    if code == 0:
        import json

        assert json.loads(out)["epsilon"] <= 1e6
    else:  # with --json the error is one JSON object on stdout
        import json

        assert err == "" and "internal" not in json.loads(out)["error"]


@pytest.mark.parametrize("args, words", [
    (["--epsilon", "8", "--sigma", "1e-3"], ("single step", "larger sigma")),
    (["--epsilon", "8", "--steps", "100", "--sampling-rate", "1e-9"], ("epsilon = 0", "any sigma")),
])
def test_cli_edge_messages_are_user_errors(capsys, args, words):
    base = ["calibrate", "--delta", "1e-5", *args]
    if "--sampling-rate" not in args:
        base += ["--sampling-rate", "0.01"]
    code = cli.main(base)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "Q-mass" not in err and "internal" not in err and "P-mass" not in err
    for w in words:
        assert w in err


@settings(max_examples=6, deadline=None)
@given(eps=st.floats(0.5, 20.0), logp=st.floats(-3.0, 0.0), n=st.integers(1, 2000))
def test_calibration_is_certified_and_within_tolerance(eps, logp, n):
    p = 10.0**logp
    c = sigma_for_epsilon(eps, 1e-5, p, n, tol=1e-2)
    assert eps - 1e-2 <= c.epsilon <= eps
    if c.accountant is Accountant.PLD:  # reproducible at the reported grid, and never below the default grid's ε
        assert certified_epsilon(c.sigma, p, n, 1e-5, c.discretization) == pytest.approx(c.epsilon, rel=1e-12)


# ---------------------------------------------------------------------------------------------- CLI targets
def _cal(capsys, *args):
    code = cli.main(["calibrate", "--sampling-rate", "0.05", "--steps", "20", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, word", [
    ([], "exactly one target"),
    (["--advantage", "0.1", "--epsilon", "1", "--delta", "1e-5"], "exactly one target"),
    (["--tpr-at-fpr", "0.05"], "TPR,FPR"),
    (["--tpr-at-fpr", "x,0.01"], "TPR must be a number"),
    (["--bayes-error", "0.6,0.5"], "min(prior, 1 - prior)"),
    (["--delta-from", "gaussian(mu=1)"], "SPEC,D"),
    (["--epsilon", "1"], "--epsilon needs --delta"),
    (["--advantage", "0.1", "--delta", "1e-5"], "--delta belongs to --epsilon"),
    (["--advantage", "1.5"], "advantage"),
])
def test_cli_target_errors(capsys, args, word):
    code, out, err = _cal(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and word in err, err


def test_cli_risk_targets_json(capsys):
    from dpcompare.dpsgd import risk
    from dpcompare.mechanisms import Gaussian, SubsampledGaussian

    for args, metric in ((["--advantage", "0.1"], "advantage"), (["--tpr-at-fpr", "0.05,0.01"], "tpr"),
                         (["--bayes-error", "0.45,0.5"], "bayes_error"), (["--delta-from", "gaussian(mu=1),0.02"], "delta")):
        code, out, err = _cal(capsys, *args, "--json")
        assert code == 0, err
        d = json.loads(out)
        assert d["metric"] == metric and {"sigma", "value", "target", "spec"} <= set(d)
        m = SubsampledGaussian(d["sigma"], 0.05, 20)
        value = {"advantage": lambda: risk.advantage(m), "tpr": lambda: float(risk.tpr_at_fpr(m, 0.01)),
                 "bayes_error": lambda: float(risk.bayes_error(m, 0.5)),
                 "delta": lambda: risk.excess_vulnerability(Gaussian(mu=1), m)}[metric]()
        if metric == "bayes_error":
            assert value >= d["target"]
        else:
            assert value <= d["target"]
