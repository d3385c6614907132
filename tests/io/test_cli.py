"""The ``dpcompare`` command: JSON contract, human tables, exit 2 on user errors."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.io import cli
from dpcompare.io.spec import format_number, parse_hyperprior
import reference_values as rv

COMPARE_KEYS = {"a", "b", "delta_ab", "delta_ba", "symmetric", "verdict", "crossings"}
DELTA_KEYS = {"value", "lower", "upper", "pi"}
DESCRIBE_KEYS = {"epsilon", "advantage", "fixed_point", "minimax_bayes_error", "auc", "gdp_mu"}


def _reject_constant(name: str):
    raise AssertionError(f"JSON contains {name}")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    assert err == ""
    assert out.count("\n") == 1 and out.endswith("\n")  # one object on one line, nothing else
    return json.loads(out, parse_constant=_reject_constant)


# ---------------------------------------------------------------------------------------------- compare
def test_compare_json_has_the_contract_keys_and_the_paper_values(capsys):
    d = run_json(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)")
    assert COMPARE_KEYS <= set(d)
    assert DELTA_KEYS <= set(d["delta_ab"]) and DELTA_KEYS <= set(d["delta_ba"])
    assert d["a"] == "gaussian(mu=1)" and d["b"] == "laplace(b=1)"
    # [BCP] §5, Figure 3: Δ(Gauss‖Lap) = 0.00527 at π = ½, Δ(Lap‖Gauss) = 0.03414 at π = 1/(1+e), crossing ≈ 0.4185
    assert d["delta_ab"]["value"] == pytest.approx(0.00527, abs=5e-6)
    assert d["delta_ab"]["pi"] == pytest.approx(0.5, abs=1e-6)
    assert d["delta_ba"]["value"] == pytest.approx(0.03414, abs=5e-6)
    assert d["delta_ba"]["pi"] == pytest.approx(1 / (1 + math.e), abs=1e-6)
    for key in ("delta_ab", "delta_ba"):
        r = d[key]
        assert r["lower"] <= r["value"] <= r["upper"]
    assert d["symmetric"] == pytest.approx(max(d["delta_ab"]["value"], d["delta_ba"]["value"]))
    assert d["verdict"] == "incomparable"
    assert [round(c, 4) for c in d["crossings"]] == [0.4185, 0.5815]


def test_compare_json_matches_the_library(capsys):
    d = run_json(capsys, "compare", "rr(eps=1)", "gaussian(mu=0.5)")
    c = dc.compare(dc.RandomizedResponse(eps=1.0), dc.Gaussian(mu=0.5)).to_dict()
    assert d["delta_ab"]["value"] == c["delta_ab"]["value"]
    assert d["delta_ba"]["value"] == c["delta_ba"]["value"]
    assert d["verdict"] == c["verdict"]


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        ("gaussian(mu=2)", "gaussian(mu=1)", "a>=b"),
        ("gaussian(mu=1)", "gaussian(mu=2)", "b>=a"),
        ("rr(eps=1)", "puredp(eps=1)", "equal"),
        ("bnp()", "pp()", "a>=b"),
        ("gaussian(mu=1)", "laplace(b=1)", "incomparable"),
    ],
)
def test_compare_verdicts(capsys, a, b, verdict):
    assert run_json(capsys, "compare", a, b)["verdict"] == verdict


@pytest.mark.parametrize("prior", ["jeffreys", "uquadratic", "beta(2,3)", "beta(a=0.5, b=2)"])
def test_compare_with_a_hyperprior(capsys, prior):
    d = run_json(capsys, "compare", "rr(eps=1)", "gaussian(mu=1)", "--hyperprior", prior)
    assert COMPARE_KEYS <= set(d)
    expected = dc.delta_divergence(dc.RandomizedResponse(eps=1.0), dc.Gaussian(mu=1.0), parse_hyperprior(prior))
    # the weighted Δ^Ψ sits under "weighted"; delta_ab and the verdict stay unweighted
    assert d["weighted"]["delta_ab"]["value"] == pytest.approx(expected.value, abs=1e-9)
    plain = dc.delta_divergence(dc.RandomizedResponse(eps=1.0), dc.Gaussian(mu=1.0))
    assert d["delta_ab"]["value"] == pytest.approx(plain.value, abs=1e-12)


def test_compare_accuracy_reaches_the_width_asked(capsys):
    # two composed subsampled Gaussians: the default width is ~1e-3·Δ; --accuracy 2e-6 refines the grid until
    # each certified bracket is at most that wide, and the two certified brackets overlap
    a, b = "sgm(sigma=1, p=0.01, steps=100)", "sgm(sigma=1.2, p=0.02, steps=100)"
    coarse = run_json(capsys, "compare", a, b)
    fine = run_json(capsys, "compare", a, b, "--accuracy", "2e-6")
    assert coarse["delta_ab"]["upper"] - coarse["delta_ab"]["lower"] > 2e-6  # the default is coarser
    for k in ("delta_ab", "delta_ba"):
        assert fine[k]["upper"] - fine[k]["lower"] <= 2e-6 * (1 + 1e-9)
        assert fine[k]["lower"] <= coarse[k]["upper"] and coarse[k]["lower"] <= fine[k]["upper"]


def test_compare_tolerance_decides_the_verdict(capsys):
    # Δ(A‖B) ≈ 0.0053 and Δ(B‖A) ≈ 0.034: a tolerance between them turns "incomparable" into "b>=a"
    d = run_json(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--tolerance", "0.01")
    assert d["verdict"] == "a>=b"
    d = run_json(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--tolerance", "0.1")
    assert d["verdict"] == "equal"


def test_compare_human_output_explains_the_verdict(capsys):
    code, out, err = run(capsys, "compare", "gaussian(mu=2)", "gaussian(mu=1)")
    assert code == 0 and err == ""
    assert "Δ(A‖B)" in out and "Δ(B‖A)" in out and "Δ↔" in out
    assert "certified bracket" in out and "attained at π" in out
    words = " ".join(out.split())  # who is safer first, the Blackwell term second
    assert "B is at least as private as A against every adversary (A Blackwell-dominates B)" in words
    assert "Crossings" in out
    code, out, _ = run(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)")
    assert "neither is at least as private as the other" in " ".join(out.split())
    assert "0.4185" in out and "0.5815" in out  # the crossing priors
    ref = rv.gauss_laplace_reference()  # mpmath (tests/reference_values.py): 0.00527221, 0.0341385
    assert f"{ref.delta_gl:.6g}" in out and f"{ref.delta_lg:.6g}" in out


# ---------------------------------------------------------------------------------------------- describe
def test_describe_json_has_the_contract_keys(capsys):
    d = run_json(capsys, "describe", "gaussian(mu=1)")
    assert DESCRIBE_KEYS <= set(d)
    g = dc.Gaussian(mu=1.0)
    assert d["epsilon"] == pytest.approx(float(g.epsilon(1e-5)))
    assert d["advantage"] == pytest.approx(g.advantage)
    assert d["fixed_point"] == pytest.approx(g.fixed_point)
    assert d["minimax_bayes_error"] == pytest.approx(g.minimax_bayes_error)
    assert d["auc"] == pytest.approx(g.auc)
    assert d["gdp_mu"] == pytest.approx(1.0)


def test_describe_delta_option(capsys):
    d = run_json(capsys, "describe", "gaussian(mu=1)", "--delta", "1e-3")
    assert d["epsilon"] == pytest.approx(float(dc.Gaussian(mu=1.0).epsilon(1e-3)))
    assert d["epsilon"] < run_json(capsys, "describe", "gaussian(mu=1)")["epsilon"]


def test_describe_json_has_null_not_nan_or_infinity(capsys):
    # no finite ε reaches δ = 1e-5 below the (ε, 1e-3) mass at ℓ = ∞, and no finite GDP μ exists
    d = run_json(capsys, "describe", "approxdp(eps=1, delta=1e-3)")
    assert d["epsilon"] is None and d["gdp_mu"] is None
    d = run_json(capsys, "describe", "bnp()")
    assert d["epsilon"] is None


def test_describe_shows_both_mu_and_which_is_which(capsys):
    # SGM: the tightest bound √N/σ (here √1000) is far from the curve; the fixed-point μ describes it
    d = run_json(capsys, "describe", "sgm(sigma=1, p=0.01, steps=1000)")
    assert d["gdp_mu"] == pytest.approx(math.sqrt(1000))
    assert 0 < d["mu_at_fixed_point"] < 1
    from statistics import NormalDist

    assert NormalDist().cdf(-d["mu_at_fixed_point"] / 2) == pytest.approx(d["fixed_point"], rel=1e-12)


def test_describe_human_output(capsys):
    code, out, err = run(capsys, "describe", "gaussian(mu=1)")
    assert code == 0 and err == ""
    for label in ("ε at δ = 1e-05", "advantage", "fixed point", "minimax Bayes error", "AUC", "μ-GDP upper bound",
                  "μ describing the curve"):
        assert label in out
    # ε(δ) by mpmath (tests/reference_values.py) and AUC = Φ(μ/√2) (Dong, Roth & Su): 4.37718, 0.76025
    assert f"{float(rv.gauss_epsilon(1e-5, mu=1)):.6g}" in out and f"{NormalDist().cdf(1 / math.sqrt(2)):.5f}" in out
    _, out, _ = run(capsys, "describe", "approxdp(eps=1, delta=1e-3)")
    assert "∞" in out


@given(st.floats(0.05, 5.0, allow_nan=False, allow_infinity=False))
def test_describe_json_for_random_gaussians(mu):
    # capsys is function-scoped, so capture by hand here
    import contextlib
    import io

    buf_out, buf_err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf_out), contextlib.redirect_stderr(buf_err):
        code = cli.main(["describe", f"gaussian(mu={format_number(mu)})", "--json"])
    assert code == 0, buf_err.getvalue()
    d = json.loads(buf_out.getvalue(), parse_constant=_reject_constant)
    assert d["gdp_mu"] == pytest.approx(mu)
    assert d["auc"] == pytest.approx(dc.Gaussian(mu=mu).auc)


# ---------------------------------------------------------------------------------------------- errors
BAD_SPECS = [
    # (spec, text the one stderr line must contain)
    ("gaussian(sigma=-1)", "sigma must be > 0, got -1"),
    ("gaussian(sigma=0)", "sigma must be > 0"),
    ("sgm(sigma=-1, p=0.1, steps=10)", "sigma"),
    ("sgm(sigma=1, p=0, steps=10)", "p (sampling rate) must be in (0, 1]"),
    ("sgm(sigma=1, p=1.01, steps=10)", "p (sampling rate) must be in (0, 1]"),
    ("sgm(sigma=1, p=0.1, steps=0)", "steps"),
    ("sgm(sigma=1, p=0.1, steps=2.5)", "steps"),
    ("sgm(sigma=1, p=0.1, steps=1.5e3)", None),  # integral: accepted (checked below)
    ("gaussian(mu=nan)", "mu must be finite, got nan"),
    ("gaussian(mu=inf)", "mu must be finite, got inf"),
    ("sgm(sigma=nan, p=0.1, steps=10)", "sigma"),
    ("sgm(sigma=1, p=0.1, steps=inf)", "steps"),
    ("gauss(mu=1)", "unknown mechanism 'gauss'"),
    ("gaussian(sd=1)", "unknown parameter 'sd'"),
    ("sgm(sigma=1, rate=0.1, steps=10)", "unknown parameter 'rate'"),
    ("gaussian()", "gaussian needs mu or sigma"),
    ("gaussian(mu=1", "missing ')'"),
    ("", "empty mechanism spec"),
]


@pytest.mark.parametrize(("spec", "needle"), [b for b in BAD_SPECS if b[1] is not None])
@pytest.mark.parametrize("command", ["compare-a", "compare-b", "describe"])
@pytest.mark.parametrize("as_json", [False, True])
def test_user_errors_exit_2_with_one_line_naming_the_parameter(capsys, spec, needle, command, as_json):
    args = {
        "compare-a": ["compare", spec, "pp()"],
        "compare-b": ["compare", "pp()", spec],
        "describe": ["describe", spec],
    }[command] + (["--json"] if as_json else [])
    code, out, err = run(capsys, *args)
    assert code == 2
    if as_json:  # the error is one JSON object on stdout, nothing on stderr
        assert err == "" and out.count("\n") == 1 and needle in json.loads(out)["error"]
        return
    assert out == ""  # nothing partial on stdout
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert needle in err
    assert "Traceback" not in err


def test_integral_float_steps_is_not_an_error(capsys):
    code, _, err = run(capsys, "describe", "sgm(sigma=1, p=0.1, steps=1.5e3)", "--json")
    assert "must be an integer" not in err
    assert code in (0, 2)  # 2 only if the subsampled Gaussian is not installed yet
    if code == 2:
        assert "sgm is not available" in err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "pp()", "bnp()", "--hyperprior", "uniform"], "unknown hyperprior 'uniform'"),
        (["compare", "pp()", "bnp()", "--hyperprior", "beta(0, 1)"], "a must be > 0"),
        (["compare", "pp()", "bnp()", "--tolerance", "-1"], "--tolerance must be in [0, 0.5)"),
        (["compare", "pp()", "bnp()", "--tolerance", "nan"], "--tolerance must be in [0, 0.5)"),
        (["compare", "pp()", "bnp()", "--accuracy", "0"], "--accuracy must be in (0, 1)"),
        (["compare", "pp()", "bnp()", "--accuracy", "nan"], "--accuracy must be in (0, 1)"),
        (["describe", "pp()", "--delta", "2"], "delta must be in (0, 1)"),
        (["describe", "pp()", "--delta", "0"], "delta must be in (0, 1)"),
        (["describe", "pp()", "--delta", "nan"], "delta must be finite"),
        # typer's own usage errors
        (["describe", "pp()", "--delta", "abc"], "--delta"),
        (["compare", "pp()"], "Missing argument"),
        (["compare", "pp()", "bnp()", "--bogus"], "--bogus"),
        (["describe"], "Missing argument"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_option_and_usage_errors_exit_2(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert needle in err
    # with --json the error is one JSON object on stdout, and stderr stays empty
    code, out, err = run(capsys, *args, "--json")
    assert code == 2 and err == "", err
    assert out.count("\n") == 1 and set(json.loads(out)) == {"error"} and needle in json.loads(out)["error"]


def test_no_arguments_shows_help_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2
    assert out == ""
    assert "compare" in err and "describe" in err


def test_help_and_version(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "compare" in out and "gaussian(mu=...)" in out
    code, out, _ = run(capsys, "compare", "--help")
    assert code == 0 and "--hyperprior" in out and "--tolerance" in out and "--json" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"dpcompare {dc.__version__}"


def test_a_bug_is_one_line_exit_1_without_traceback(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(sys.modules["dpcompare.comparison"], "compare", broken)
    monkeypatch.delenv("DPCOMPARE_DEBUG", raising=False)
    code, out, err = run(capsys, "compare", "pp()", "bnp()")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "internal error" in err and "boom" in err
    code, out, err = run(capsys, "compare", "pp()", "bnp()", "--json")
    assert code == 1 and err == "" and "internal error" in json.loads(out)["error"]


def test_jsonable_turns_non_finite_numbers_into_null():
    import numpy as np

    obj = {"a": float("nan"), "b": [float("inf"), np.float64(-np.inf), np.float32(1.5)], "c": np.int64(3), "d": np.bool_(True)}
    from dpcompare.io.render import jsonable

    text = json.dumps(jsonable(obj), allow_nan=False)
    assert json.loads(text) == {"a": None, "b": [None, None, 1.5], "c": 3, "d": True}


# ---------------------------------------------------------------------------------------------- console script
def _console_script() -> str:
    path = shutil.which("dpcompare")
    if path is None:  # pragma: no cover - the package is installed with `pip install -e .`
        pytest.skip("the dpcompare console script is not on PATH")
    return path


def test_installed_console_script():
    exe = _console_script()
    ok = subprocess.run(
        [exe, "compare", "gaussian(mu=1)", "laplace(b=1)", "--json"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    d = json.loads(ok.stdout, parse_constant=_reject_constant)
    assert COMPARE_KEYS <= set(d)
    assert d["delta_ba"]["value"] == pytest.approx(0.03414, abs=5e-6)

    bad = subprocess.run([exe, "describe", "gaussian(sigma=-1)"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [bad.stderr.strip()]
    assert "sigma must be > 0, got -1" in bad.stderr
    assert "Traceback" not in bad.stderr

    usage = subprocess.run([exe, "describe", "pp()", "--delta", "abc"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2 and usage.stdout == "" and "Traceback" not in usage.stderr


def test_module_entry_point_runs_main():
    res = subprocess.run(
        [sys.executable, "-m", "dpcompare.io.cli", "describe", "pp()", "--json"], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["advantage"] == 0.0


# ---------------------------------------------------------------------------------------------- list options
@pytest.mark.parametrize("orders", ["2,,4", "2,4,", ",2", " , "])
def test_orders_with_an_empty_item_are_rejected(capsys, orders):
    code, out, err = run(capsys, "gaussian", "--psi", "1", "--orders", orders)
    assert code == 2 and out == "" and err.startswith("error: --orders") and err.count("\n") == 1


def test_plot_heatmap_writes_a_figure_of_pairwise_delta(capsys, tmp_path):
    path = tmp_path / "h.svg"
    d = run_json(capsys, "plot", "heatmap", "gaussian(mu=1)", "laplace(b=1)", "rr(eps=1)", "-o", str(path))
    assert d["kind"] == "heatmap" and path.read_bytes().startswith(b"<?xml")
    code, _, err = run(capsys, "plot", "heatmap", "gaussian(mu=1)", "-o", str(tmp_path / "one.svg"))
    assert code == 2 and "at least two" in err and not (tmp_path / "one.svg").exists()


def test_json_numbers_come_from_the_one_formatter(capsys):
    from dpcompare.io import render

    d = run_json(capsys, "describe", "approxdp(eps=1, delta=0.1)")
    assert d["gdp_mu"] is None  # no finite μ: null, never NaN or a string
    assert render.dumps({"x": float("nan")}) == '{"x": null}'
