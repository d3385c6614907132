"""Answers that cannot be misread, and errors that name what is wrong.

- the verdict says who is safer first (the Blackwell term second), claims "every adversary" only where the
  deciding Δ is 0 or ≈ 0, and says "within the tolerance T" otherwise; --tolerance is bounded by ½;
- a Δ below the numerical error is shown as ≈ 0, with no prior "attaining" it;
- with --json, an error is one JSON object {"error": ...} on stdout, exit 2;
- print() of a result is a readable summary;
- calibrate speaks the trainer's words (--noise-multiplier, --batch-size, --dataset-size, --epochs, --sampling);
- inputs that used to exit 1 ("internal error") or named the wrong option.
"""

from __future__ import annotations

import json
import math

import pytest

import dpcompare as dc
from dpcompare.io.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def words(text: str) -> str:
    return " ".join(text.split())


def one_error(capsys, *args: str) -> str:
    """The message of a user error: one line on stderr, exit 2; with --json, one JSON object on stdout."""
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (code, out, err)
    code, out_j, err_j = run(capsys, *args, "--json")
    assert code == 2 and err_j == "" and out_j.count("\n") == 1, (code, out_j, err_j)
    assert json.loads(out_j) == {"error": err[len("error: "):].rstrip("\n")}
    return err


# ---------------------------------------------------------------------------------------------- verdicts
def test_a_tolerance_verdict_says_within_the_tolerance_and_never_every_adversary(capsys):
    """Gaussian(μ=1) vs Laplace(b=1): Δ↔ = 0.0341 ([BCP] Fig 3; mpmath in tests/reference_values.py), so at
    T = 0.05 they are equal only within the tolerance."""
    code, out, _ = run(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--tolerance", "0.05")
    text = words(out)
    assert code == 0 and "within the tolerance 0.05" in text and "Δ↔ = 0.0341" in text
    assert "every adversary" not in text and "Δ↔ = 0 " not in text and "Δ↔ ≈ 0" not in text
    d = json.loads(run(capsys, "compare", "gaussian(mu=1)", "laplace(b=1)", "--tolerance", "0.05", "--json")[1])
    assert d["verdict"] == "equal" and "within the tolerance" in d["verdict_text"]  # the JSON keys stay


def test_dominance_names_the_safer_mechanism_first():
    """G_2 is less private than G_1: R_{G_μ}(½) = Φ(−μ/2) decreases in μ (closed form)."""
    c = dc.compare(dc.Gaussian(mu=2), dc.Gaussian(mu=1))
    assert c.verdict == "a>=b"
    assert c.verdict_text == "B is at least as private as A against every adversary (A Blackwell-dominates B)"
    c = dc.compare(dc.Gaussian(mu=1), dc.Gaussian(mu=2))
    assert c.verdict_text.startswith("A is at least as private as B against every adversary")


def test_equal_mechanisms_and_a_dominance_within_tolerance():
    same = dc.compare(dc.Gaussian(mu=1), dc.Gaussian(sigma=2, sensitivity=2))
    assert same.verdict == "equal" and "every adversary" in same.verdict_text
    # Δ(A‖B) = 0.0053 ≤ T = 0.01 < Δ(B‖A): "a>=b" only within the tolerance, with the value
    c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1), tol=0.01)
    assert c.verdict == "a>=b" and "within the tolerance 0.01" in c.verdict_text and "0.00527" in c.verdict_text
    assert "every adversary" not in c.verdict_text


@pytest.mark.parametrize("t", ["-1", "0.5", "1e300", "nan", "inf"])
def test_tolerance_is_bounded_and_named(capsys, t):
    assert "--tolerance must be in [0, 0.5)" in one_error(capsys, "compare", "pp()", "bnp()", "--tolerance", t)


def test_library_tolerance_is_bounded():
    with pytest.raises(ValueError, match="tol must be in"):
        dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1), tol=0.7)


# ---------------------------------------------------------------------------------------------- ≈ 0
def test_noise_level_delta_is_shown_as_approximately_zero(capsys):
    """Laplace(b=1)^⊗100 vs G_9: Δ(B‖A) is certified in [0, 3.1e-11] (the composition's error bound η)."""
    code, out, _ = run(capsys, "compare", "compose(laplace(b=1), steps=100)", "gaussian(mu=9)")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("│ Δ(B‖A)"))
    assert "≈ 0" in row and row.rstrip(" │").endswith("-")  # no prior "attains" noise
    assert "below the numerical error" in words(out)


def test_delta_result_str():
    zero = dc.DeltaResult(2.4e-16, 0.0, 1e-15, 0.3)
    assert zero.negligible and str(zero) == "Δ ≈ 0 (below the numerical error), certified in [0, 1e-15]"
    big = dc.DeltaResult(0.0341385, 0.0341384, 0.0341386, 1 / (1 + math.e))
    assert not big.negligible and str(big).startswith("Δ = 0.0341385, certified in [0.0341384, 0.0341386], attained")


def test_print_of_a_comparison_is_a_summary():
    text = str(dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)))
    assert text.startswith("A = gaussian(mu=1)\nB = laplace(b=1)\n") and "Verdict (incomparable)" in text
    assert "Comparison(" not in text and "Crossings: R_A and R_B cross at π ≈ 0.4185, 0.5815." in text
    w = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1), hyperprior=dc.parse_hyperprior("jeffreys"))
    assert "Hyper-prior jeffreys" in str(w) and "Expected regret" in str(w)


# ---------------------------------------------------------------------------------------------- --json errors
def test_json_errors_are_json_on_stdout(capsys):
    err = one_error(capsys, "describe", "gaussian(sigma=-1)")
    assert "sigma must be > 0" in err


# ---------------------------------------------------------------------------------------------- the trainer's words
def test_calibrate_in_the_trainers_words_equals_the_rate_and_steps(capsys):
    """b = 100 of n = 1 000 for 3 epochs is p = 0.1 and ⌈3·1000/100⌉ = 30 steps (the spec language's rules)."""
    d = json.loads(run(capsys, "calibrate", "--advantage", "0.3", "--batch-size", "100", "--dataset-size", "1000",
                       "--noise-multiplier", "2", "--json")[1])
    e = json.loads(run(capsys, "calibrate", "--advantage", "0.3", "--sampling-rate", "0.1", "--sigma", "2", "--json")[1])
    assert d["sampling_rate"] == 0.1 and d["steps"] == e["steps"]
    code, out, err = run(capsys, "calibrate", "--epsilon", "4", "--delta", "1e-5", "--batch-size", "100",
                         "--dataset-size", "1000", "--epochs", "3", "--json")
    assert code == 0, err
    assert json.loads(out)["steps"] == math.ceil(3 * 1000 / 100) == 30


@pytest.mark.parametrize(("args", "needle"), [
    (["--batch-size", "256", "--epochs", "1"], "--batch-size and --dataset-size go together"),
    (["--batch-size", "256", "--dataset-size", "100", "--epochs", "1"], "--batch-size (256) must be <= --dataset-size (100)"),
    (["--sampling-rate", "0.1", "--batch-size", "1", "--dataset-size", "10", "--steps", "5"], "give the sampling rate once"),
    (["--sampling-rate", "0.1", "--steps", "5", "--epochs", "1"], "give the training length once"),
    (["--batch-size", "256", "--dataset-size", "60000", "--epochs", "1", "--sampling", "fixed"], "certifies Poisson sampling only"),
    (["--sampling-rate", "0.1", "--steps", "5", "--sampling", "random"], "--sampling must be one of poisson, fixed, shuffle"),
    (["--steps", "5"], "give the sampling rate"),
])
def test_calibrate_training_option_errors(capsys, args, needle):
    assert needle in one_error(capsys, "calibrate", "--advantage", "0.3", *args)


# ---------------------------------------------------------------------------------------------- former internal errors
def test_unwritable_sweep_output_is_a_user_error(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text("[target]\nepsilon = 8.0\ndelta = 1e-5\n[baseline]\nsampling_rate = 0.01\nsteps = 500\n"
                    "[grid]\nsampling_rate = [0.02]\nsteps = [250]\n")
    code, out, err = run(capsys, "sweep", str(grid), "-o", "/proc/dpcompare-test/out.csv")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "/proc/dpcompare-test" in err


def test_emergent_with_astronomical_steps_says_what_it_cannot_compose(capsys):
    code, out, err = run(capsys, "emergent", "laplace(b=1)", "gaussian(mu=1)", "--steps", "1e30")
    assert code == 0, err
    # the refusal names steps and what fits (the composed Laplace's mean loss N·KL is refused up front)
    assert "not composed" in words(out) and "steps must be below" in words(out)


def test_deeply_nested_spec_is_a_user_error(capsys):
    spec = "subsample(" * 150 + "rr(eps=1)" + ", w=0.5)" * 150
    assert "nested too deeply" in one_error(capsys, "describe", spec)


def test_card_html_errors_name_the_option_given(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "--html must end in .html" in one_error(capsys, "card", "laplace(b=1)", "--html", "x.txt")
    assert "-o must end in .html" in one_error(capsys, "card", "laplace(b=1)", "-o", "x.txt")


@pytest.mark.parametrize("text", ["1e-400", "-1e-999"])
def test_delta_that_underflows_names_the_option_and_the_text(capsys, text):
    err = one_error(capsys, "describe", "gaussian(mu=1)", "--delta", text)
    assert "'--delta'" in err and text in err and "got 0" not in err


def test_unicode_key_is_an_unknown_parameter(capsys):
    assert "unknown parameter 'μ' for gaussian" in one_error(capsys, "describe", "gaussian(μ=1)")


def test_event_file_with_infinity_names_file_and_field(capsys, tmp_path):
    f = tmp_path / "run.json"
    f.write_text('{"class_name": "SelfComposedDpEvent", "count": 10, "event": '
                 '{"class_name": "GaussianDpEvent", "noise_multiplier": Infinity}}')
    err = one_error(capsys, "describe", str(f))
    assert str(f) in err and "event.noise_multiplier must be a finite number, got Infinity" in err


def test_directory_named_json_is_said_to_be_a_directory(capsys, tmp_path):
    d = tmp_path / "x.json"
    d.mkdir()
    assert "is a directory" in one_error(capsys, "describe", str(d))


def test_print_of_every_result_type_is_a_titled_summary():
    import dpcompare.gaussian as dg
    from dpcompare.comparison.emergent_dominance import emergent
    from dpcompare.dpsgd import sigma_for_risk

    results = [
        dc.levy_distance(dc.Gaussian(mu=1), dc.Laplace(b=1)),
        dc.TrainingConfig(1.1, batch_size=256, dataset_size=60000, epochs=10),
        dg.compare_clt(1.0, 0.01, 10),
        emergent(dc.Gaussian(mu=1), dc.Gaussian(mu=0.6), 100, 250),
        sigma_for_risk("advantage", 0.2, 1.0, 1, rtol=1e-3),
        dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)).delta_ab,
    ]
    for r in results:
        text = str(r)
        assert text != repr(r) and f"{type(r).__name__}(" not in text, text
    assert "steps: 2344" in str(results[1]) and "spec: sgm(" in str(results[4])
