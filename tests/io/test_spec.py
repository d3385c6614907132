"""The spec language: every form, round trips, and one clear error per bad input."""

from __future__ import annotations

import math
import sys
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.comparison.hyperprior import JEFFREYS, BetaPrior, UQuadratic
from dpcompare.io.spec import MECHANISMS, Param, Registry, format_number, parse, parse_hyperprior

finite = dict(allow_nan=False, allow_infinity=False)


# ---------------------------------------------------------------------------------------------- valid forms
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gaussian(mu=1)", dc.Gaussian(mu=1.0)),
        ("gaussian(mu=0.5)", dc.Gaussian(mu=0.5)),
        ("gaussian(sigma=2)", dc.Gaussian(sigma=2.0)),
        ("gaussian(sigma=2, sensitivity=3)", dc.Gaussian(sigma=2.0, sensitivity=3.0)),
        ("laplace(b=1)", dc.Laplace(b=1.0)),
        ("laplace(b=2, sensitivity=0.5)", dc.Laplace(b=2.0, sensitivity=0.5)),
        ("rr(eps=1)", dc.RandomizedResponse(eps=1.0)),
        ("rr(eps=0)", dc.RandomizedResponse(eps=0.0)),
        ("puredp(eps=2)", dc.PureDP(eps=2.0)),
        ("approxdp(eps=1, delta=1e-5)", dc.ApproxDP(eps=1.0, delta=1e-5)),
        ("approxdp(eps=0, delta=0)", dc.ApproxDP(eps=0.0, delta=0.0)),
        ("pp()", dc.PerfectlyPrivate()),
        ("bnp()", dc.BlatantlyNonPrivate()),
    ],
)
def test_every_form_parses_to_the_right_mechanism(text, expected):
    m = parse(text)
    assert type(m) is type(expected)
    assert m == expected
    assert parse(m.spec) == m  # round trip through the mechanism's own spec


def test_gaussian_forms_set_mu():
    assert parse("gaussian(mu=1.5)").mu == 1.5
    g = parse("gaussian(sigma=4, sensitivity=2)")
    assert (g.mu, g.sigma, g.sensitivity) == (0.5, 4.0, 2.0)
    assert parse("gaussian(sigma=4)").sensitivity == 1.0


@pytest.mark.parametrize(
    "text",
    [
        "  gaussian(mu=1)  ",
        "Gaussian(mu=1)",
        "GAUSSIAN ( MU = 1 )",
        "gaussian(\tmu\n=\n1\t)",
        "gaussian(mu=+1.0)",
        "gaussian(mu=1e0)",
        "gaussian(mu=10E-1)",
        "gaussian(mu=1.)",
    ],
)
def test_whitespace_case_and_number_syntax_are_tolerated(text):
    assert parse(text) == dc.Gaussian(mu=1.0)


@pytest.mark.parametrize("text", ["gaussian(mu=1,)", "gaussian(mu=1,,)", "gaussian(,mu=1)", "beta(1,,2)"])
def test_empty_items_are_rejected(text):
    # an empty item is a typo, never silently a shorter list (as `--orders 2,,4` in the CLI)
    with pytest.raises(ValueError, match="empty item|missing value|unknown mechanism"):
        parse(text)


@pytest.mark.parametrize("text", ["sgm(sigma=1, sampling_rate=0.01, steps=100)", "SGM(Sigma=1, Sampling_Rate=1e-2, steps=1e2)"])
def test_sgm_accepts_sampling_rate_as_the_same_key_as_p(text):
    assert parse(text) == parse("sgm(sigma=1, p=0.01, steps=100)")
    assert parse(text).spec == "sgm(sigma=1, p=0.01, steps=100)"


@pytest.mark.parametrize("text", ["sgm(sigma=1, p=0.01, sampling_rate=0.01, steps=100)", "sgm(sigma=1, steps=100)"])
def test_sgm_needs_exactly_one_spelling_of_the_sampling_rate(text):
    with pytest.raises(ValueError, match="sampling_rate"):
        parse(text)


def test_names_without_parentheses_and_leading_dot_numbers():
    assert parse("pp") == dc.PerfectlyPrivate()
    assert parse(" BNP ") == dc.BlatantlyNonPrivate()
    assert parse("gaussian(mu=.25)").mu == 0.25


# ---------------------------------------------------------------------------------------------- sgm
@pytest.fixture
def fake_sgm(monkeypatch):
    """A stand-in for dpcompare.mechanisms.sgm that records the arguments it gets."""
    calls = []

    class SubsampledGaussian:  # noqa: D401 - a stub
        def __init__(self, *, sigma, sampling_rate, steps):
            calls.append(dict(sigma=sigma, sampling_rate=sampling_rate, steps=steps))

    mod = types.ModuleType("dpcompare.mechanisms.sgm")
    mod.SubsampledGaussian = SubsampledGaussian
    monkeypatch.setitem(sys.modules, "dpcompare.mechanisms.sgm", mod)
    return calls


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("sgm(sigma=1.1, p=0.01, steps=1000)", 1000),
        ("sgm(sigma=1.1, p=0.01, steps=1.4e6)", 1_400_000),
        ("sgm(sigma=1.1, p=0.01, steps=1e3)", 1000),
        ("sgm(sigma=1.1, p=0.01, steps=3400000.0)", 3_400_000),
        ("SGM( P = 0.01 , Steps = 1000 , Sigma = 1.1 )", 1000),
    ],
)
def test_sgm_maps_keys_and_accepts_integral_floats_for_steps(fake_sgm, text, steps):
    parse(text)
    (call,) = fake_sgm
    assert call == dict(sigma=1.1, sampling_rate=0.01, steps=steps)
    assert type(call["steps"]) is int


def test_sgm_accepts_p_equal_to_one(fake_sgm):
    parse("sgm(sigma=1, p=1, steps=1)")
    assert fake_sgm[0]["sampling_rate"] == 1.0


def test_sgm_with_the_real_mechanism():
    sgm = pytest.importorskip("dpcompare.mechanisms.sgm")
    m = parse("sgm(sigma=1.0, p=0.5, steps=2)")
    assert isinstance(m, sgm.SubsampledGaussian)
    assert isinstance(parse(m.spec), sgm.SubsampledGaussian)


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("text", "must_contain"),
    [
        # unknown names and keys: the message lists what is allowed
        ("gauss(mu=1)", ["unknown mechanism 'gauss'", "known: approxdp, bnp, compose, gaussian", "did you mean 'gaussian'"]),
        ("shuffles(eps0=1, n=10)", ["unknown mechanism 'shuffles'", "known:"]),
        ("gaussian(sd=1)", ["unknown parameter 'sd'", "allowed: mu, sensitivity, sigma"]),
        ("laplace(b=1, eps=2)", ["unknown parameter 'eps'", "allowed: b, sensitivity"]),
        ("pp(eps=1)", ["unknown parameter 'eps'", "allowed: none"]),
        ("sgm(sigma=1, q=0.1, steps=10)", ["unknown parameter 'q'", "noise_multiplier", "p, sampling", "sigma, steps"]),
        # missing and conflicting keys
        ("gaussian()", ["gaussian needs mu or sigma", "usage:"]),
        ("gaussian(sensitivity=2)", ["missing parameter sigma"]),
        ("gaussian(mu=1, sigma=2)", ["cannot combine mu and sigma"]),
        ("gaussian(mu=1, sensitivity=2)", ["cannot combine mu and sensitivity"]),
        ("approxdp(eps=1)", ["missing parameter delta"]),
        ("sgm(sigma=1, p=0.1)", ["exactly one of epochs and steps"]),
        ("laplace()", ["missing parameter b"]),
        ("gaussian(mu=1, mu=2)", ["'mu' given twice"]),
        # bad values: sigma ≤ 0, sampling rate outside (0, 1], steps < 1 or non-integer, NaN/inf
        ("gaussian(sigma=-1)", ["sigma must be > 0, got -1"]),
        ("gaussian(sigma=0)", ["sigma must be > 0, got 0"]),
        ("gaussian(mu=0)", ["mu must be > 0"]),
        ("gaussian(sigma=1, sensitivity=-2)", ["sensitivity must be > 0"]),
        ("sgm(sigma=-1, p=0.1, steps=10)", ["sigma", "must be > 0, got -1"]),
        ("sgm(sigma=0, p=0.1, steps=10)", ["sigma", "must be > 0, got 0"]),
        ("sgm(sigma=1, p=0, steps=10)", ["p (sampling rate) must be in (0, 1], got 0"]),
        ("sgm(sigma=1, p=1.5, steps=10)", ["p (sampling rate) must be in (0, 1], got 1.5"]),
        ("sgm(sigma=1, p=-0.1, steps=10)", ["p (sampling rate)", "got -0.1"]),
        ("sgm(sigma=1, p=0.1, steps=0)", ["steps", "must be an integer >= 1, got 0"]),
        ("sgm(sigma=1, p=0.1, steps=-3)", ["steps", "must be an integer >= 1"]),
        ("sgm(sigma=1, p=0.1, steps=2.5)", ["steps", "must be an integer >= 1, got 2.5"]),
        ("sgm(sigma=1, p=0.1, steps=1.5e0)", ["steps", "got 1.5"]),
        ("sgm(sigma=1, p=0.1, steps=inf)", ["steps", "got inf"]),
        ("sgm(sigma=1, p=0.1, steps=nan)", ["steps", "got nan"]),
        ("sgm(sigma=1, p=0.1, steps=1e400)", ["steps"]),
        ("sgm(sigma=nan, p=0.1, steps=10)", ["sigma", "finite", "nan"]),
        ("sgm(sigma=1, p=nan, steps=10)", ["p (sampling rate)", "nan"]),
        ("gaussian(mu=nan)", ["mu must be finite, got nan"]),
        ("gaussian(mu=NaN)", ["mu must be finite, got nan"]),
        ("gaussian(mu=inf)", ["mu must be finite, got inf"]),
        ("gaussian(mu=-Infinity)", ["mu must be finite, got -inf"]),
        ("gaussian(sigma=1e999)", ["sigma must be finite"]),
        ("laplace(b=-1)", ["b must be > 0, got -1"]),
        ("rr(eps=-1)", ["eps must be >= 0, got -1"]),
        ("approxdp(eps=1, delta=1.5)", ["delta must be in [0, 1], got 1.5"]),
        ("puredp(eps=inf)", ["eps must be finite"]),
        # syntax
        ("", ["empty mechanism spec"]),
        ("   ", ["empty mechanism spec"]),
        ("gaussian(mu=abc)", ["bad value for mu", "'abc'"]),
        ("gaussian(mu=1/2)", ["bad value for mu", "'1/2'"]),
        ("gaussian(mu=1.2.3)", ["bad value for mu"]),
        ("gaussian(mu=)", ["missing value for mu"]),
        ("gaussian(mu=1", ["missing ')'"]),
        ("gaussian(mu=1))", ["unexpected text"]),
        ("gaussian(mu=1) extra", ["unexpected text"]),
        ("gaussian(1)", ["key=value"]),
        ("gaussian(mu 1)", ["expected '=' after 'mu'"]),
        ("laplace(b=1 sensitivity=2)", ["bad value for b", "'1 sensitivity=2'"]),
        ("(mu=1)", ["expected a mechanism name"]),
        ("__import__('os')", ["unknown mechanism"]),
    ],
)
def test_bad_input_raises_one_clear_line(text, must_contain):
    with pytest.raises(ValueError) as info:
        parse(text)
    msg = str(info.value)
    assert "\n" not in msg
    for part in must_contain:
        assert part in msg, (part, msg)
    if text.strip():
        assert repr(text.strip()) in msg  # the message says which spec it came from


def test_non_string_is_a_type_error():
    with pytest.raises(TypeError):
        parse(1.0)  # type: ignore[arg-type]


def test_constructor_errors_are_reported_on_one_line():
    reg: Registry = Registry("mechanism")

    @reg.register("odd", {"x": Param.positive()})
    def _odd(x):
        raise ValueError("x is odd:\n  really odd")

    with pytest.raises(ValueError, match=r"^x is odd: really odd \(in mechanism spec 'odd\(x=1\)'\)$"):
        reg.parse("odd(x=1)")


# ---------------------------------------------------------------------------------------------- round trips
@given(st.floats(1e-3, 1e3, **finite))
def test_random_gaussian_mu_round_trips_exactly(mu):
    m = parse(f"gaussian(mu={format_number(mu)})")
    assert m.mu == mu
    assert parse(m.spec).spec == m.spec


@given(st.floats(1e-3, 1e3, **finite), st.floats(1e-3, 1e3, **finite))
def test_random_gaussian_sigma_round_trips_exactly(sigma, sens):
    m = parse(f"gaussian(sigma={format_number(sigma)}, sensitivity={format_number(sens)})")
    assert (m.sigma, m.sensitivity) == (sigma, sens)
    assert m == dc.Gaussian(sigma=sigma, sensitivity=sens)
    assert parse(m.spec).spec == m.spec


@given(
    st.sampled_from(["laplace", "rr", "puredp", "approxdp"]),
    st.floats(1e-3, 50.0, **finite),
    st.floats(0.0, 1.0, **finite),
)
def test_random_mechanisms_round_trip(name, x, d):
    text = {
        "laplace": f"laplace(b={format_number(x)}, sensitivity={format_number(x / 2 + 0.5)})",
        "rr": f"rr(eps={format_number(x)})",
        "puredp": f"puredp(eps={format_number(x)})",
        "approxdp": f"approxdp(eps={format_number(x)}, delta={format_number(d)})",
    }[name]
    m = parse(text)
    assert parse(text) == m
    again = parse(m.spec)  # the mechanism's spec keeps ~6 significant digits
    assert type(again) is type(m)
    assert parse(again.spec) == again
    fields = {"laplace": ("b", "sensitivity"), "rr": ("eps",), "puredp": ("eps",), "approxdp": ("eps", "dp_delta")}[name]
    for field in fields:
        assert math.isclose(getattr(again, field), getattr(m, field), rel_tol=1e-5, abs_tol=1e-300)


@given(st.floats(1e-3, 10.0, **finite), st.floats(1e-6, 1.0, **finite), st.integers(1, 10**9))
def test_random_sgm_parameters_reach_the_factory(sigma, p, steps):
    calls = []

    class Stub:
        def __init__(self, *, sigma, sampling_rate, steps):
            calls.append((sigma, sampling_rate, steps))

    mod = types.ModuleType("dpcompare.mechanisms.sgm")
    mod.SubsampledGaussian = Stub
    saved = sys.modules.get("dpcompare.mechanisms.sgm")
    sys.modules["dpcompare.mechanisms.sgm"] = mod
    try:
        parse(f"sgm(sigma={format_number(sigma)}, p={format_number(p)}, steps={steps})")
        parse(f"sgm(sigma={format_number(sigma)}, p={format_number(p)}, steps={float(steps)!r})")  # e.g. 1400000.0
    finally:
        if saved is None:
            del sys.modules["dpcompare.mechanisms.sgm"]
        else:
            sys.modules["dpcompare.mechanisms.sgm"] = saved
    assert calls[0] == (sigma, p, steps)
    for call in calls[1:]:
        assert call[2] == steps and type(call[2]) is int


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_format_number_parses_back_exactly(x):
    text = format_number(x)
    if math.isnan(x):
        assert text == "nan"
    else:
        from dpcompare.io.spec import Parser

        num = Parser(f"f(x={text})", "thing").parse().args[0][1]
        assert num.value == x


# ---------------------------------------------------------------------------------------------- registry
def test_registry_lists_the_contract_names():
    assert {"gaussian", "laplace", "rr", "puredp", "approxdp", "pp", "bnp", "sgm", "shuffle"} <= set(MECHANISMS.names())
    assert "gaussian(mu=...) | gaussian(sigma=..., [sensitivity=...])" in MECHANISMS.usage()


def test_a_later_issue_adds_a_spec_without_touching_the_parser():
    @MECHANISMS.register("standin", {"eps0": Param.nonnegative(), "n": Param.integer(minimum=1)})
    def _shuffle(eps0, n):
        return dc.RandomizedResponse(eps=eps0 / n)  # a stand-in

    try:
        assert parse("Standin(eps0=2, n=1e1)") == dc.RandomizedResponse(eps=0.2)
        with pytest.raises(ValueError, match="n must be an integer >= 1, got 0.5"):
            parse("standin(eps0=2, n=0.5)")
        with pytest.raises(ValueError, match="already registered"):
            MECHANISMS.register("standin", {})(_shuffle)
    finally:
        MECHANISMS.unregister("standin")
    assert "standin" not in MECHANISMS


def test_registration_rejects_forms_with_undeclared_keys():
    reg: Registry = Registry("thing")
    with pytest.raises(ValueError, match="undeclared"):
        reg.register("x", {"a": Param()}, forms=["a, b?"])


# ---------------------------------------------------------------------------------------------- hyperpriors
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jeffreys", JEFFREYS),
        ("Jeffreys()", JEFFREYS),
        ("uquadratic", UQuadratic()),
        ("UQUADRATIC", UQuadratic()),
        ("beta(2,3)", BetaPrior(2.0, 3.0)),
        (" beta( 0.5 , 0.5 ) ", JEFFREYS),
        ("beta(a=2, b=0.5)", BetaPrior(2.0, 0.5)),
        ("beta(2, b=0.5)", BetaPrior(2.0, 0.5)),
    ],
)
def test_parse_hyperprior(text, expected):
    assert parse_hyperprior(text) == expected


@pytest.mark.parametrize(
    ("text", "must_contain"),
    [
        ("uniform", "unknown hyperprior 'uniform'; known: beta, jeffreys, uquadratic"),
        ("beta(1)", "missing parameter b"),
        ("beta(1, 2, 3)", "at most 2 positional"),
        ("beta(0, 1)", "a must be > 0, got 0"),
        ("beta(1, nan)", "b must be finite"),
        ("beta(a=1, 2)", "cannot follow key=value"),
        ("jeffreys(a=1)", "unknown parameter 'a'"),
    ],
)
def test_bad_hyperprior(text, must_contain):
    with pytest.raises(ValueError) as info:
        parse_hyperprior(text)
    assert must_contain in str(info.value)
    assert "\n" not in str(info.value)
