"""``dpcompare gaussian``: JSON contract, one input of five, exit 2 on user errors."""

from __future__ import annotations

import json
import math

import mpmath
import pytest

import dpcompare.gaussian as dg
import reference_values as rv
from dpcompare.io import cli

GAUSSIAN_KEYS = {
    "psi", "sigma", "sensitivity", "mu", "delta", "epsilon",
    "epsilon_rdp", "epsilon_rdp_order", "epsilon_rdp_asoodeh", "epsilon_rdp_asoodeh_order",
    "epsilon_rdp_balle", "epsilon_rdp_balle_order",
    "epsilon_classical", "epsilon_classical_valid", "rdp",
    "auc", "advantage", "fixed_point", "minimax_bayes_error",
}


def _reject_constant(name: str):
    raise AssertionError(f"JSON contains {name}")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args: str) -> dict:
    code, out, err = run(capsys, "gaussian", *args, "--json")
    assert code == 0, err
    assert err == ""
    assert out.count("\n") == 1 and out.endswith("\n")
    return json.loads(out, parse_constant=_reject_constant)


def test_json_contract_and_values(capsys):
    d = run_json(capsys, "--psi", "1")
    assert GAUSSIAN_KEYS <= set(d)
    assert d["psi"] == 1.0 and d["sigma"] == 1.0 and d["mu"] == 1.0 and d["delta"] == 1e-5
    assert d["epsilon"] == pytest.approx(float(rv.gauss_epsilon(1e-5, mu=1)), abs=1e-9)  # mpmath, eq 6.7 profile
    for key, conv in (("epsilon_rdp", "standard"), ("epsilon_rdp_asoodeh", "asoodeh"), ("epsilon_rdp_balle", "balle")):
        r = dg.rdp_epsilon(1.0, 1e-5, conv)
        assert d[key] == r.epsilon and d[key + "_order"] == r.alpha
        assert d[key] >= d["epsilon"]
    # closed forms of G_ψ at ψ = 1 (Dong, Roth & Su, "Gaussian differential privacy"), by mpmath:
    # AUC = Φ(ψ/√2), advantage = 2Φ(ψ/2) − 1, fixed point = minimax Bayes error = Φ(−ψ/2)
    assert d["auc"] == pytest.approx(float(mpmath.ncdf(1 / mpmath.sqrt(2))), rel=1e-14)
    assert d["advantage"] == pytest.approx(float(2 * mpmath.ncdf(mpmath.mpf(1) / 2) - 1), rel=1e-12)
    assert d["fixed_point"] == d["minimax_bayes_error"] == pytest.approx(float(mpmath.ncdf(-mpmath.mpf(1) / 2)), rel=1e-12)
    assert [r["alpha"] for r in d["rdp"]] == [1.5, 2, 4, 8, 16, 32, 64]
    assert all(r["rho"] == r["alpha"] / 2 for r in d["rdp"])
    assert d["epsilon_classical_valid"] is False and d["source"] == "psi"


@pytest.mark.parametrize(
    "args,psi",
    [
        (("--sigma", "2"), 0.5),
        (("--sigma", "4", "--sensitivity", "2"), 0.5),
        (("--mu", "0.5"), 0.5),
        (("--auc", str(float(dg.auc(0.5)))), 0.5),
        (("--psi", "0.5", "--sensitivity", "3"), 0.5),
    ],
)
def test_every_input_gives_the_same_mechanism(capsys, args, psi):
    d = run_json(capsys, *args)
    assert d["psi"] == pytest.approx(psi, rel=1e-12)
    assert d["epsilon"] == pytest.approx(dg.epsilon(psi, 1e-5), rel=1e-10)
    assert d["sigma"] == pytest.approx(d["sensitivity"] / psi, rel=1e-12)


def test_epsilon_target_round_trips(capsys):
    d = run_json(capsys, "--epsilon", "1", "--delta", "1e-6", "--sensitivity", "2")
    assert d["source"] == "epsilon" and d["epsilon_target"] == 1.0
    assert d["epsilon"] == pytest.approx(1.0, rel=1e-9)
    assert d["sigma"] == pytest.approx(dg.sigma_for(1.0, 1e-6, 2.0), rel=1e-12)


def test_orders_and_alpha_max(capsys):
    d = run_json(capsys, "--psi", "0.05", "--orders", "2, 3.5", "--alpha-max", "32")
    assert [r["alpha"] for r in d["rdp"]] == [2, 3.5]
    assert d["epsilon_rdp_order"] == 32.0 and d["alpha_max"] == 32.0


def test_human_table(capsys):
    code, out, err = run(capsys, "gaussian", "--psi", "2")
    assert code == 0 and err == ""
    for needle in ("ψ = 2", "privacy profile (eq 6.7)", "RDP improved A (Cor 12)", "RDP improved B (Cor 13)",
                   "RDP standard (Cor 11)", "classical (eq 3.5)", "FAILS here", "AUC", "advantage",
                   "fixed point α*", "minimax Bayes error R*", "ρ(α) = αψ²/2"):
        assert needle in out, needle
    assert f"{float(rv.gauss_epsilon(1e-5, mu=2)):.8g}" in out  # 9.9972561: the eq 6.7 ε at δ = 1e-5 (mpmath)


@pytest.mark.parametrize(
    "args,needle",
    [
        (("--psi", "1", "--sigma", "2"), "give exactly one of --psi, --sigma, --mu, --auc, --epsilon; got --psi and --sigma"),
        (("--psi", "1", "--mu", "1"), "got --psi and --mu"),
        (("--sigma", "1", "--auc", "0.7"), "got --sigma and --auc"),
        (("--epsilon", "1", "--mu", "1"), "got --mu and --epsilon"),
        ((), "got none"),
        (("--psi", "0"), "--psi must be a finite number > 0"),
        (("--psi", "-1"), "--psi must be a finite number > 0"),
        (("--psi", "nan"), "--psi must be a finite number > 0"),
        (("--psi", "inf"), "--psi must be a finite number > 0"),
        (("--sigma", "0"), "--sigma must be a finite number > 0"),
        (("--sigma", "1", "--sensitivity", "-1"), "--sensitivity must be a finite number > 0"),
        (("--auc", "0.5"), "--auc must be in (0.5, 1)"),
        (("--auc", "1"), "--auc must be in (0.5, 1)"),
        (("--epsilon", "-1"), "--epsilon must be a finite number >= 0"),
        (("--epsilon", "1", "--delta", "1"), "every mechanism is (0, 1)-DP"),
        (("--epsilon", "1", "--delta", "0"), "not (ε, 0)-DP for any finite ε"),
        (("--psi", "1", "--delta", "1.5"), "--delta must be in (0, 1)"),
        (("--psi", "1", "--orders", "1"), "--orders must be Rényi orders > 1"),
        (("--psi", "1", "--orders", "two"), "--orders must be a comma-separated list"),
        (("--psi", "1", "--alpha-max", "1"), "--alpha-max must be a finite number > 1"),
        (("--psi", "abc"), "--psi"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, args, needle):
    code, out, err = run(capsys, "gaussian", *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert needle in err
    code_json, out_json, err_json = run(capsys, "gaussian", *args, "--json")  # one JSON object on stdout
    assert code_json == 2 and err_json == "" and needle in json.loads(out_json)["error"]


def test_json_has_no_nan_for_extreme_inputs(capsys):
    for args in (("--psi", "1e-4"), ("--psi", "100"), ("--epsilon", "0", "--delta", "1e-300"), ("--auc", "0.999999")):
        d = run_json(capsys, *args)
        assert all(v is None or not isinstance(v, float) or math.isfinite(v) for v in d.values())
        assert d["epsilon"] is not None
