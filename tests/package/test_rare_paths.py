"""Rarely reached paths across the packages (generic solvers, rare views, CLI crash handling, spec and
registry errors), each against an independent computation (mpmath, closed forms, hand sums) rather
than against dpcompare itself. Found by a coverage audit; a test here may move to its package's folder."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest
import reference_values as rv

import dpcompare as dc
from dpcompare.mechanisms import Mechanism, PrivacyLossMechanism


# ---------------------------------------------------------------------------------------------- mechanisms
class _GenericSolverGaussian(dc.Gaussian):
    """G_μ with the generic certified ε(δ) of PrivacyLossMechanism (the one solver on its log δ)
    instead of Gaussian's own Newton start."""

    _epsilon_scalar = PrivacyLossMechanism._epsilon_scalar


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
def test_generic_privacy_loss_epsilon_against_mpmath(mu):
    m = _GenericSolverGaussian(mu=mu)
    for delta in (1e-3, 1e-5, 1e-12, 1e-300):
        e = m.epsilon(delta)
        with mp.workdps(40):
            assert e == pytest.approx(float(rv.gauss_epsilon(delta, mu)), rel=1e-9)
            assert rv.gauss_delta(e, mu) <= mp.mpf(delta) * (1 + mp.mpf(1e-12))  # certified: δ(ε) ≤ δ at the answer


@dataclass(frozen=True, repr=False)
class _RRFromProfile(Mechanism):
    """Randomized response with ε₀ given only by its closed forms (no ε(δ) of its own): the default
    Mechanism._epsilon_scalar must invert δ(ε) = max(0, (e^ε₀ − e^ε)/(1 + e^ε₀)) (Kairouz et al.)."""

    eps0: float

    def _delta_bounds(self, eps):
        e = np.exp(np.minimum(eps, 2 * self.eps0))  # δ = 0 from ε₀ on; no overflow at ε near the largest double
        d = np.maximum(0.0, (math.exp(self.eps0) - e) / (1.0 + math.exp(self.eps0)))
        return d, d

    def _tradeoff_bounds(self, alpha):
        e = math.exp(self.eps0)
        f = np.maximum.reduce([np.zeros_like(alpha), 1 - e * alpha, (1 - alpha) / e])
        return f, f

    def _bayes_error_bounds(self, pi):
        # min over the vertices (0, 1), (1 − p, 1 − p), (1, 0) of π·α + (1 − π)·f(α), p = e^ε₀/(1 + e^ε₀)
        r = np.minimum(np.minimum(pi, 1 - pi), 1 / (1 + math.exp(self.eps0)))
        return r, r

    @property
    def spec(self) -> str:
        return f"rr(eps={self.eps0:g})"


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_default_epsilon_solver_inverts_the_profile(eps0):
    m = _RRFromProfile(eps0)
    for delta in (0.0, 1e-6, 0.1, 0.99):
        # closed-form inverse: e^ε = e^ε₀ − δ(1 + e^ε₀), clipped at ε = 0
        rest = math.exp(eps0) - delta * (1 + math.exp(eps0))
        want = math.log(rest) if rest > 1 else 0.0
        assert m.epsilon(delta) == pytest.approx(want, rel=1e-12, abs=1e-300)
    assert m.epsilon(1.0) == 0.0
    assert repr(m) == f"<_RRFromProfile rr(eps={eps0:g})>"
    assert repr(dc.Gaussian(mu=2.0)) == "<Gaussian gaussian(mu=2)>"


def test_delta_result_width_is_its_bracket():
    d = dc.delta_divergence(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0))
    assert d.width == d.upper - d.lower and 0 <= d.width <= 1e-9
    assert dc.DeltaResult(0.03, 0.029, 0.031, 0.27).width == pytest.approx(0.002, abs=1e-15)


# ---------------------------------------------------------------------------------------------- gaussian views
def test_gaussian_views_mechanism_and_tangent_rejects_arrays():
    import dpcompare.gaussian as dg

    v = dg.views(psi=1.5)
    assert v.mechanism == dc.Gaussian(mu=1.5)
    with pytest.raises(ValueError, match="psi must be a single number"):
        dg.mechanism(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="psi must be a single number"):
        dg.tangent(np.array([1.0, 2.0]), 1.0)
    with pytest.raises(ValueError, match="eps must be a single number"):
        dg.tangent(1.0, np.array([1.0, 2.0]))


def test_rdp_conversions_cite_their_corollaries():
    from dpcompare.gaussian.rdp import Conversion

    # [SI] §6: Cor 11 (Mironov), Cor 12 (improved A, Asoodeh et al.), Cor 13 (improved B, Balle et al.)
    assert [c.citation.split(" (")[0].split(",")[0] for c in Conversion] == ["Cor 11", "Cor 12", "Cor 13"]
    assert "Mironov" in Conversion.STANDARD.citation and "Asoodeh" in Conversion.ASOODEH.citation
    assert "Balle" in Conversion.BALLE.citation


# ---------------------------------------------------------------------------------------------- moments
def test_moments_of_gaussian_against_quadrature():
    from dpcompare.dpsgd.moments import moments_of, thm3

    mu = 0.8
    m = moments_of(dc.Gaussian(mu=mu))
    with mp.workdps(30):
        mom = lambda k, absolute=False: mp.quad(  # noqa: E731  E[L^k] (or E|L|^k), L = μ²/2 − μZ
            lambda z: (abs(mu**2 / 2 - mu * z) if absolute else (mu**2 / 2 - mu * z)) ** k * mp.npdf(z), [-mp.inf, mu / 2, mp.inf])
        v1, v2, v4 = float(mom(1)), float(mom(2)), float(mom(3, absolute=True))
    assert (m.v1, m.v2, m.v4) == pytest.approx((v1, v2, v4), rel=1e-10)
    r = thm3(m, 100, m, 100).to_dict()
    assert r["mu"] == pytest.approx(2 * (v1 / math.sqrt(v2 - v1 * v1)) * 10, rel=1e-10)  # μ = 2η√N
    assert r["precondition"] is True and r["more_informative"] == "equal"


# ---------------------------------------------------------------------------------------------- f-divergences
def test_f_divergence_views_against_closed_forms():
    from dpcompare.mixtures import f_divergences as fd

    lo, hi = fd.profile_from_lf(dc.Gaussian(mu=1.0), 1.0)
    with mp.workdps(30):
        truth = float(rv.gauss_delta(1.0, 1.0))
    assert lo - 1e-12 <= truth <= hi + 1e-12 and hi - lo <= 1e-9
    # randomized response ε: L = ±ε with P-masses (p, 1 − p), p = e^ε/(1+e^ε): KL = (2p − 1)·ε
    eps = 1.0
    p = math.exp(eps) / (1 + math.exp(eps))
    rr = dc.RandomizedResponse(eps=eps)
    assert fd.divergence_of(rr, fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-12)
    assert fd.l_f_quad(rr, fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-9)  # through tradeoff_slope
    assert fd.l_f_quad(rr.pairs()[0], fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-9)  # of a bare pair
    with pytest.raises(ValueError, match="expected a mechanism"):
        fd.divergence_of(3.0, fd.KL)


def test_hiding_among_clones_spec_names_its_parameters():
    from dpcompare.mixtures.clones import HidingAmongClones

    assert HidingAmongClones(eps0=1.0, n=100).spec == "clones(eps0=1, n=100)"


# ---------------------------------------------------------------------------------------------- sweep
def test_sweep_free_axis_is_the_axis_not_gridded():
    from dpcompare.dpsgd.sweep import parse_grid

    cfg = parse_grid("[target]\nepsilon = 2.0\ndelta = 1e-5\n\n[baseline]\nsampling_rate = 0.05\nsteps = 20\n\n"
                     "[grid]\nsampling_rate = [0.1, 0.3]\nsteps = [20, 40]\n")
    assert cfg.free_axis == "sigma"


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


# ---------------------------------------------------------------------------------------------- input checks
@pytest.mark.parametrize("alpha, beta, words", [
    ((0.0,), (1.0,), "same length"),
    ((0.0, 1.0), (1.0, 0.0, 0.0), "same length"),
    ((0.0, 1.5), (1.0, 0.0), "alpha must be in [0, 1]"),
    ((0.0, 1.0), (1.0, float("nan")), "beta must be in [0, 1]"),
    ((0.1, 1.0), (0.9, 0.0), "first point must have alpha = 0"),
    ((0.0, 0.5, 0.5, 1.0), (1.0, 0.5, 0.4, 0.0), "strictly increasing"),
    ((0.0, 0.5, 1.0), (0.5, 0.6, 0.0), "non-increasing"),
    ((0.0, 0.5, 1.0), (1.0, 0.6, 0.0), "f(α) ≤ 1 − α"),
    ((0.0, 0.2, 0.6, 1.0), (1.0, 0.5, 0.3, 0.0), "convex"),  # slopes −2.5, −0.5, −0.75
])
def test_tradeoff_curve_rejects_what_is_not_a_tradeoff_function(alpha, beta, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        dc.TradeoffCurve(alpha=alpha, beta=beta)


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
