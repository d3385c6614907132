"""Each parameter domain is declared once (``PARAMS`` of the mechanism class, ``dpcompare._validation.Param``);
the constructor's check, the spec language's parameter and the hypothesis strategies all derive from it.

The two wordings are the public contract and stay as they were: the constructor says "b must be in
(0, inf), got 0", the spec language "b must be > 0, got 0 (in mechanism spec 'laplace(b=0)')".
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import inside, outside

import dpcompare as dc
from dpcompare.comparison.hyperprior import BetaPrior
from dpcompare.mixtures import Shuffled
from dpcompare._validation import NONNEGATIVE, POSITIVE, UNIT, Interval

# (class, spec name, the other keys a valid spec needs)
DECLARED = [
    (dc.Gaussian, "gaussian", {"mu": {}, "sigma": {}, "sensitivity": {"sigma": 1.0}}),
    (dc.Laplace, "laplace", {"b": {}, "sensitivity": {"b": 1.0}}),
    (dc.RandomizedResponse, "rr", {"eps": {}}),
    (dc.PureDP, "puredp", {"eps": {}}),
    (dc.ApproxDP, "approxdp", {"eps": {"delta": 0.0}, "delta": {"eps": 1.0}}),
    (dc.SubsampledGaussian, "sgm", {"sigma": {"sampling_rate": 0.1, "steps": 3},
                                    "sampling_rate": {"sigma": 1.0, "steps": 3},
                                    "steps": {"sigma": 1.0, "sampling_rate": 0.1}}),
]
DECLARED.append((Shuffled, "shuffle", {"eps0": {"n": 10}, "n": {"eps0": 1.0}}))
#: classes whose constructor words a domain as the spec language does ("sigma must be > 0")
SPEC_WORDED = {dc.SubsampledGaussian, Shuffled}
#: the constructor's label of a key, where it differs from the key
LIB_LABELS = {("shuffle", "n"): "n (number of users)"}
#: the spec language's label of a key ("sigma (noise multiplier)"), where it differs from the key
LABELS = {("sgm", "sigma"): "sigma (noise multiplier)", ("sgm", "sampling_rate"): "sampling_rate (sampling rate)",
          ("sgm", "steps"): "steps (number of steps)", ("shuffle", "eps0"): "eps0 (epsilon of each local randomiser)",
          ("shuffle", "n"): "n (number of users)"}
CASES = [(cls, spec, p, others[p.name]) for cls, spec, others in DECLARED for p in cls.PARAMS]
IDS = [f"{spec}.{p.name}" for _, spec, p, _ in CASES]


def _spec(name: str, args: dict[str, float]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def test_every_spec_key_of_these_mechanisms_is_a_declared_parameter():
    for cls, spec, others in DECLARED:
        assert set(others) == {p.name for p in cls.PARAMS}, spec


@pytest.mark.parametrize(("cls", "spec", "param", "others"), CASES, ids=IDS)
@given(data=st.data())
def test_inside_is_accepted_by_constructor_and_spec(cls, spec, param, others, data):
    v = data.draw(inside(param), label=param.name)
    # a joint constraint beyond the per-parameter domains: μ = sensitivity/σ (m = sensitivity/b) must be a double
    assume(math.isfinite(1.0 / v) if (spec, param.name) in {("gaussian", "sigma"), ("laplace", "b")} else True)
    assume(v >= 1e-6 if (spec, param.name) == ("sgm", "sigma") else True)  # σ ≥ 1e-6: the loss must fit a double
    # ε₀ ≤ 700: beyond, the clone probability e^{−ε₀} is below double precision (refused with that reason)
    assume(v <= 700.0 if param.name == "eps0" else True)
    kwargs = {param.name: v, **others}
    m = dc.parse(_spec(spec, kwargs))
    assert isinstance(m, cls)
    assert isinstance(cls(**kwargs), cls)


@pytest.mark.parametrize(("cls", "spec", "param", "others"), CASES, ids=IDS)
@given(data=st.data())
def test_outside_is_refused_by_both_in_their_own_words(cls, spec, param, others, data):
    v = data.draw(outside(param), label=param.name)
    kwargs = {param.name: v, **others}
    with pytest.raises(ValueError) as lib:
        cls(**kwargs)
    text = _spec(spec, kwargs)
    with pytest.raises(ValueError) as lang:
        dc.parse(text)
    # the spec language words the same domain: "> a" / ">= a" for a half-line, the interval otherwise
    d = param.domain
    half = d.high == float("inf")
    if param.integer:
        words = f"must be an integer >= {d.low:g}"
    else:
        words = f"must be {'>' if d.low_open else '>='} {d.low:g}" if half else f"must be in {d}"
    label = LABELS.get((spec, param.name), param.name)
    assert str(lang.value).startswith(f"{label} {words}, got "), str(lang.value)
    assert str(lang.value).endswith(f"(in mechanism spec {text!r})")
    lib_words = words if cls in SPEC_WORDED else (f"must be an integer in {d}" if param.integer else f"must be in {d}")
    assert str(lib.value).startswith(f"{LIB_LABELS.get((spec, param.name), param.name)} {lib_words}, got "), str(lib.value)


@pytest.mark.parametrize(("domain", "value", "message"), [
    (POSITIVE, 0, "b must be > 0, got 0"),
    (NONNEGATIVE, -1, "b must be >= 0, got -1"),
    (UNIT, 2, "b must be in [0, 1], got 2"),
    (Interval(0.0, 1.0, low_open=True), 0, "b must be in (0, 1], got 0"),
    (Interval(1.0, float("inf"), low_open=True), 1, "b must be > 1, got 1"),
])
def test_spec_wording_of_a_domain(domain, value, message):
    with pytest.raises(ValueError) as e:
        domain.check_spec("b", value)
    assert str(e.value) == message


@pytest.mark.parametrize("param", BetaPrior.PARAMS, ids=lambda p: p.name)
@given(data=st.data())
def test_beta_hyperprior_domain_is_declared_once(param, data):
    """beta(a, b): the constructor and the spec language refuse the same values in the same words."""
    v = data.draw(outside(param), label=param.name)
    kwargs = {"a": 1.0, "b": 1.0, param.name: v}
    with pytest.raises(ValueError) as lib:
        BetaPrior(**kwargs)
    text = f"beta({kwargs['a']!r}, {kwargs['b']!r})"
    with pytest.raises(ValueError) as lang:
        dc.parse_hyperprior(text)
    assert str(lang.value) == f"{lib.value} (in hyperprior spec {text!r})"
    assert str(lib.value).startswith(f"{param.name} must be > 0, got ")
