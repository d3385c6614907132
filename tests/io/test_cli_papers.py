"""The papers' commands (``dpcompare.io.cli.papers``): --json is one object and agrees with the library and
with independent references; human output is a table; user errors are one line on stderr, exit 2."""

from __future__ import annotations

import json
import math
import os

import pytest
from scipy.stats import norm

import dpcompare as dc
from dpcompare.io import cli


def run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    assert err == "" and out.count("\n") == 1
    return json.loads(out)


def test_levy_equals_symmetric_delta(capsys):
    d = run_json(capsys, "levy", "gaussian(mu=1)", "laplace(b=1)")
    # [BCP] Lemma B.1: Λ = Δ↔; check value Δ(Lap‖Gauss) = 0.03414 ([BCP] Figure 3)
    assert d["levy"]["lower"] <= d["symmetric_delta"] + 1e-9 and d["symmetric_delta"] <= d["levy"]["upper"] + 1e-9
    assert d["symmetric_delta"] == pytest.approx(0.03414, abs=1e-5)
    code, out, _ = run(capsys, "levy", "gaussian(mu=1)", "laplace(b=1)")
    assert code == 0 and "Lévy distance" in out


@pytest.mark.parametrize("level, holds", [(0.006, True), (0.005, False)])
def test_dominance_at_a_level(capsys, level, holds):
    # Δ(Gauss‖Lap) = 0.00527 ([BCP] Figure 3 example): A ≥_𝔇 B iff 𝔇 ≥ 0.00527
    d = run_json(capsys, "dominance", "gaussian(mu=1)", "laplace(b=1)", "--level", str(level))
    assert d["holds"] is holds and d["clauses_agree"]
    assert d["delta_ab"]["value"] == pytest.approx(0.0052722, abs=1e-6)


def test_tangent_matches_the_gaussian_profile(capsys):
    d = run_json(capsys, "tangent", "--psi", "1", "--eps", "1")
    # independent: δ(ε) = Φ(−ε/ψ + ψ/2) − e^ε Φ(−ε/ψ − ψ/2); touching point x* = Φ(−ψ/2 − ε/ψ)
    assert d["intercept"] == pytest.approx(norm.cdf(-0.5) - math.e * norm.cdf(-1.5), rel=1e-12)
    assert d["fpr"] == pytest.approx(norm.cdf(-1.5), rel=1e-12) and d["tpr"] == pytest.approx(norm.cdf(-0.5), rel=1e-12)
    assert d["tpr"] - d["slope"] * d["fpr"] == pytest.approx(d["intercept"], rel=1e-12)


def test_group_is_k_psi(capsys):
    d = run_json(capsys, "group", "--psi", "0.5", "--k", "3")
    assert d["psi_group"] == 1.5
    assert d["epsilon_group"] == pytest.approx(float(dc.Gaussian(mu=1.5).epsilon(1e-5)), rel=1e-9)


def test_clt_both_samplings(capsys):
    d = run_json(capsys, "clt", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "100")
    p, u = d["results"]["poisson"], d["results"]["uniform"]
    assert p["mu_clt"] == pytest.approx(0.1 * math.sqrt(math.e - 1), rel=1e-12)  # Poisson CLT
    assert u["mu_clt"] == pytest.approx(0.171014, abs=1e-6)  # [SI] eq 5.7 (uniform)
    assert p["epsilon_clt"] == pytest.approx(0.4575, abs=1e-4) and p["understates"] and u["understates"]
    assert "FixedBatch" in u["accountant"] and "SubsampledGaussian" in p["accountant"]


def test_fdiv_gaussian_closed_forms(capsys):
    d = run_json(capsys, "fdiv", "gaussian(mu=1)", "--renyi", "2", "--eps", "1")["divergences"]
    # G_μ: KL = μ²/2, Rényi_a = aμ²/2, TV = 2Φ(μ/2) − 1, H_{e^ε} = δ(ε)
    assert d["KL"]["lower"] <= 0.5 <= d["KL"]["upper"]
    assert d["Renyi(2)"]["lower"] <= 1.0 <= d["Renyi(2)"]["upper"]
    assert d["TV"]["upper"] == pytest.approx(2 * norm.cdf(0.5) - 1, rel=1e-9)
    assert d["hockey-stick(e^1)"]["upper"] == pytest.approx(norm.cdf(-0.5) - math.e * norm.cdf(-1.5), rel=1e-7)
    assert d["length"]["lower"] <= d["length"]["upper"] and math.sqrt(2) < d["length"]["upper"] < 2


def test_fdiv_length_of_randomized_response(capsys):
    # RR ε: the graph of f is two segments (0,1)→(x,x)→(1,0), x = 1/(1+e^ε): length 2√(x² + (1−x)²)
    x = 1 / (1 + math.e)
    d = run_json(capsys, "fdiv", "rr(eps=1)")["divergences"]
    assert d["length"]["upper"] == pytest.approx(2 * math.hypot(x, 1 - x), rel=1e-12)


def test_joint_concavity_equal_and_unequal_weights(capsys):
    args = ["joint-concavity", "--p", "0.7,0.3;0.2,0.8", "--q", "0.5,0.5;0.1,0.9", "--weights", "0.5,0.5"]
    d = run_json(capsys, *args)
    assert d["bound"] == "[MIX] Lemma 3.1" and d["delta_bound_exact"] < 1e-12  # never more private
    assert d["equality_gap"] == pytest.approx(d["delta_exact_bound"]["value"], abs=1e-12)
    for v in d["joint_convexity"].values():
        assert v["mixture"] <= v["weighted_sum"] + 1e-12
    d2 = run_json(capsys, *args, "--weights-q", "0.3,0.7")
    assert d2["bound"] == "[MIX] Prop B.1" and d2["delta_bound_exact"] < 1e-12
    assert d2["epsilon@1e-5"]["bound"] >= d2["epsilon@1e-5"]["exact"] - 1e-12


def test_advanced_lemma62_and_63_hold(capsys):
    d = run_json(capsys, "advanced", "--p0", "0.7,0.3", "--p1", "0.2,0.8", "--q0", "0.5,0.5", "--q1", "0.1,0.9",
                 "--w", "0.5", "--gamma", "0.2", "--eta", "0.9", "--eps", "-0.5,0,0.5")
    assert all(t["holds"] for t in d["lemma62"])
    assert d["lemma63"]["max_excess_over_exact"] <= 1e-12


def test_mixture_bounds_and_the_f3_figure(capsys, tmp_path):
    fig = tmp_path / "f3.png"
    d = run_json(capsys, "mixture-bounds", "gaussian(mu=1)", "--w", "0.3333333333333333", "--figure", str(fig))
    assert fig.is_file() and fig.stat().st_size > 10_000 and fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # [MIX] Example F.3: Lemma 6.3 is (almost) tight, Lemma 3.1 is looser; both never more private than exact
    assert d["lemma63"]["delta_from_exact"]["value"] < 1e-6 < d["lemma31"]["delta_from_exact"]["lower"]
    assert d["lemma31"]["epsilon@1e-5"] >= d["exact"]["epsilon@1e-5"] - 1e-9
    assert d["prop64"]["epsilon@1e-5"] >= d["prop64"]["exact_epsilon@1e-5"]


def test_from_bayes_round_trip_and_figure(capsys, tmp_path):
    x = 1 / (1 + math.e)  # randomized response ε = 1: R(π) = π for π ≤ x, then x·... (R(½) = x)
    d = run_json(capsys, "from-bayes", "--priors", f"{x!r},0.5", "--bayes-errors", f"{x!r},{x!r}")
    assert d["vertices"]["alpha"] == pytest.approx([0, x, 1], abs=1e-15)
    assert d["vertices"]["beta"] == pytest.approx([1, x, 0], abs=1e-15)
    fig = tmp_path / "eq4.svg"
    d = run_json(capsys, "from-bayes", "--from", "rr(eps=1)", "--priors", f"{x!r},0.3,0.5", "--figure", str(fig))
    assert fig.is_file() and b"<svg" in fig.read_bytes()[:500]
    assert d["delta_original_built"]["upper"] < 1e-12 and d["delta_built_original"]["upper"] < 1e-12


def test_lemma6_gaussian_schedules(capsys):
    d = run_json(capsys, "lemma6", "--a", "compose(gaussian(mu=0.1), steps=100)", "--b", "compose(gaussian(mu=0.05), steps=300)")
    assert d["prediction"] == "a>=b" and d["a"]["mu_variance"] == pytest.approx(1.0, rel=1e-12)
    assert d["delta_ab"]["upper"] < 1e-9 < d["delta_ba"]["lower"]
    code, out, _ = run(capsys, "lemma6", "--a", "gaussian(mu=0.1)", "--b", "gaussian(mu=0.2)", "--no-compose")
    assert code == 0 and "predicts that B's" in " ".join(out.split())


@pytest.mark.parametrize("args, needle", [
    (["tangent", "--psi", "-1", "--eps", "1"], "--psi"),
    (["group", "--psi", "1", "--k", "0"], "k"),
    (["clt", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "10", "--sampling", "shuffle"], "--sampling"),
    (["clt", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "10", "--sampling", "uniform", "--dataset-size", "150"], "dataset_size"),
    (["dominance", "gaussian(mu=1)", "laplace(b=1)", "--level", "-1"], "level"),
    (["joint-concavity", "--p", "0.7,0.4", "--q", "0.5,0.5", "--weights", "1"], "sum to 1"),
    (["advanced", "--p0", "1,0", "--p1", "0,1", "--q0", "1,0", "--q1", "0,1", "--w", "0.5", "--gamma", "0.6", "--eta", "0.9"], "gamma"),
    (["mixture-bounds", "gaussian(mu=1)", "--w", "0"], "--w"),
    (["from-bayes", "--priors", "0.2"], "--bayes-errors"),
    (["from-bayes", "--priors", "0.2", "--bayes-errors", "0.3"], "bayes_errors"),
    (["lemma6", "--a", "approxdp(eps=1, delta=0.1)", "--b", "gaussian(mu=1)"], "Lemma 6"),
    (["fdiv", "gaussian(mu=1)", "--renyi", "1"], "--renyi"),
    (["mixture-bounds", "gaussian(mu=1)", "--w", "0.3", "--figure", "out.txt"], "--figure must end in"),
])
def test_user_errors_are_one_line_exit_2(capsys, tmp_path, args, needle):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run(capsys, *args)
    finally:
        os.chdir(cwd)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error:") and needle in err
    assert not any(tmp_path.iterdir())  # no partial output file
