"""Rarely reached I/O paths: CLI crash handling, rendering, spec and registry errors, event JSON and the
calibration progress line, each against a hand-written expectation."""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc


# ---------------------------------------------------------------------------------------------- CLI failures
@pytest.mark.parametrize("exc, code, words", [
    (RuntimeError("boom"), 1, "internal error (RuntimeError: boom); set DPCOMPARE_DEBUG=1"),
    (KeyboardInterrupt(), 130, ""),  # typer turns it into Exit(130) itself: no message, no traceback
])
def test_cli_turns_a_crash_into_one_line(monkeypatch, capsys, exc, code, words):
    from dpcompare.io.cli import describe
    from dpcompare.io import cli

    def boom(text):
        raise exc

    monkeypatch.delenv("DPCOMPARE_DEBUG", raising=False)
    monkeypatch.setattr(describe, "parse", boom)
    assert cli.main(["describe", "gaussian(mu=1)"]) == code
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == (1 if words else 0) and words in err and "Traceback" not in err


def test_cli_debug_shows_the_bug_and_a_closed_pipe_is_quiet(monkeypatch, capsys):
    import sys

    from dpcompare.io.cli import describe
    from dpcompare.io import cli

    def boom(text):
        raise RuntimeError("boom")

    monkeypatch.setattr(describe, "parse", boom)
    monkeypatch.setenv("DPCOMPARE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main(["describe", "gaussian(mu=1)"])

    def gone(text):
        raise BrokenPipeError

    monkeypatch.setattr(describe, "parse", gone)
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # the handler swaps stdout for os.devnull: restore it after
    assert cli.main(["describe", "gaussian(mu=1)"]) == 1
    assert capsys.readouterr().err == ""


def test_render_cells_and_json_values():
    from dpcompare.io.render import jsonable, num, short

    assert num(None) == short(None) and num(float("nan")) == "nan" and short(float("-inf")) == "−∞"
    assert short(0.0) == "0" and short(float("nan")) == "nan"
    with pytest.raises(TypeError, match="a number is needed, got bool"):
        num(True)
    assert jsonable(np.array([1.5, np.inf])) == [1.5, None] and jsonable(np.int64(3)) == 3
    assert jsonable(True) is True and jsonable(dc.Gaussian(mu=1.0)) == "<Gaussian gaussian(mu=1)>"
    assert jsonable(dc.DeltaResult(0.03, 0.029, float("inf"), 0.27))["upper"] is None  # through to_dict


@pytest.mark.parametrize("spec, words", [
    ("mixture(0.5*rr(eps=1),, 0.5*pp())", "empty argument"),
    ("subsample(gaussian(mu=1), w=0.1, w=0.2)", "given twice"),
    ("random_init(loss=logistic, sigma=1, clip=1)", "clip applies only to loss=clipped_least_squares"),
    ("random_init(loss=clipped_least_squares, a=0.5, clip=1, sigma=1, bound=1)", "bound applies only to loss=logistic"),
    ("sgm(sigma=1, noise_multiplier=1, p=0.01, steps=10)", "sigma or noise_multiplier, not both"),
])
def test_nested_and_training_specs_name_the_problem(spec, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        dc.parse(spec)


def test_split_arguments_checks_parentheses():
    from dpcompare.io.spec_mixtures import split_arguments

    assert split_arguments(" 0.5*rr(eps=1), 0.5*mixture(1*pp()) ") == ["0.5*rr(eps=1)", "0.5*mixture(1*pp())"]
    with pytest.raises(ValueError, match="unbalanced '\\)' at position 6"):
        split_arguments("rr(1)), pp()")
    with pytest.raises(ValueError, match="missing '\\)'"):
        split_arguments("rr(eps=1")


def test_event_json_of_closed_form_mechanisms(tmp_path):
    import json

    from dpcompare.io.spec_training import training_event_json

    # the Gaussian mechanism G_μ is GaussianDpEvent(σ = 1/μ); Laplace(b, Δ) is LaplaceDpEvent(b/Δ)
    g = json.loads(training_event_json("gaussian(mu=2)"))
    assert (g["class_name"], g["noise_multiplier"]) == ("GaussianDpEvent", 0.5)
    lap = json.loads(training_event_json("laplace(b=2, sensitivity=0.5)"))
    assert (lap["class_name"], lap["noise_multiplier"]) == ("LaplaceDpEvent", 4.0)
    path = tmp_path / "run.json"
    path.write_text(training_event_json("sgm(sigma=1, p=0.01, steps=10)"))
    assert json.loads(training_event_json(str(path))) == json.loads(path.read_text())  # a file reads back as itself
    with pytest.raises(ValueError, match="rr has no DpEvent equivalent"):
        training_event_json("rr(eps=1)")


def test_calibration_progress_on_a_terminal():
    import io

    from rich.console import Console

    from dpcompare.io.cli.dpsgd import _BracketProgress

    quiet = _BracketProgress("sigma", enabled=True, delay=0.0)  # stderr under pytest is not a terminal
    quiet(1.0, 2.0)
    assert not quiet.enabled and quiet.status is None and quiet.calls == 1
    p = _BracketProgress("sigma", enabled=False, delay=0.0)
    buf = io.StringIO()
    p.console, p.enabled = Console(file=buf, force_terminal=True, width=200), True
    p(None, 2.0)
    p(1.5, 2.0)
    p.close()
    assert "calibrating sigma: boundary in [1.5, 2]; certified so far: 1.5 (2 accountant calls" in buf.getvalue()
    assert p.status is None


@pytest.mark.parametrize("spec, words", [
    ("sgm(sigma=1, p=0.1, steps=1234567890123456789012345678901)", "steps (number of steps) is too large"),
    ("gaussian(mu=1,", "missing ')' at the end"),
    ("gaussian(mu", "expected '=' after 'mu' at the end"),
    ("mixture x", "unexpected text at position 9 ('x')"),
    ("subsample(gaussian(mu=1), w=0.1) x", "unexpected text at position 34 ('x')"),
])
def test_spec_grammar_errors_say_where(spec, words):
    with pytest.raises(ValueError) as info:
        dc.parse(spec)
    assert words in str(info.value) and str(info.value).endswith(f"(in mechanism spec {spec!r})")


def test_registry_refuses_bad_declarations():
    from dpcompare.io.spec import Param, Registry

    reg: Registry[float] = Registry("thing")
    with pytest.raises(ValueError, match="invalid thing name '2x'"):
        reg.register("2x", {})
    with pytest.raises(ValueError, match="positional key 'b' is not a parameter of t"):
        reg.register("t", {"a": Param.positive()}, positional=("b",))
