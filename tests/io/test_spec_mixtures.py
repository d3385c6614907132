"""Specs mixture(...), subsample(SPEC, w=…), random_init(...): parse, round-trip,
values against independent computations, validation messages, and every CLI command reaching them."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.io import cli
from dpcompare.mixtures import JointConcavity, RandomInit, Subsampled
from dpcompare.tradeoff import DiscretePair

X = np.linspace(0.0, 1.0, 401)
EPS = np.linspace(0.0, 3.0, 31)

SPECS = [
    "mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))",
    "mixture(0.5*rr(eps=1), 0.25*laplace(b=1), 0.25*shuffle(eps0=1, n=100))",
    "subsample(gaussian(mu=1), w=0.01)",
    "subsample(subsample(rr(eps=2), w=0.5), w=0.5)",
    "subsample(mixture(0.5*rr(eps=1), 0.5*rr(eps=3)), w=0.2)",
    "random_init(loss=clipped_least_squares, a=0.5, clip=1, sigma=1, steps=1)",
    "random_init(loss=logistic, bound=1, sigma=2, steps=2, heuristic=1)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_parse_round_trip(spec):
    m = dc.parse(spec)
    assert m.spec == spec
    assert dc.parse(m.spec).spec == spec
    assert 0.0 <= float(m.delta(0.5)) <= 1.0


def test_mixture_is_lemma_31_and_matches_brute_force():
    # the revealed-index pair of two randomized responses, enumerated by hand: outcomes (i, y)
    m = dc.parse("mixture(0.25*rr(eps=1), 0.75*rr(eps=3))")
    assert isinstance(m, JointConcavity)
    p, q = [], []
    for w, e in ((0.25, 1.0), (0.75, 3.0)):
        a = np.exp(e) / (1 + np.exp(e))
        p += [w * a, w * (1 - a)]
        q += [w * (1 - a), w * a]
    brute = DiscretePair.from_masses(np.array(p), np.array(q))
    assert np.max(np.abs(m.tradeoff(X) - brute.tradeoff(X))) <= 1e-12
    assert np.max(np.abs(m.delta(EPS) - brute.delta(EPS))) <= 1e-12


def test_subsample_any_tradeoff_is_prop_e1_and_below_the_exact_sgm():
    # Prop E.1 for f = G_1, w = 0.1 is a valid lower bound of the exact sub-sampled Gaussian
    m = dc.parse("subsample(gaussian(mu=1), w=0.1)")
    assert isinstance(m, Subsampled)
    sgm = dc.parse("sgm(sigma=1, p=0.1, steps=1)")
    assert np.all(m.tradeoff(X) <= sgm.tradeoff_bounds(X)[1] + 1e-9)
    assert np.all(m.delta(EPS) >= sgm.delta_bounds(EPS)[0] - 1e-9)
    # and TV is exactly w·TV(f) (C(·) keeps δ(0) = w·δ_f(0))
    rr = dc.parse("subsample(rr(eps=2), w=0.1)")
    assert float(rr.delta(0.0)) == pytest.approx(0.1 * float(dc.RandomizedResponse(eps=2.0).delta(0.0)), abs=1e-12)


def test_random_init_one_step_is_certified_and_t_steps_labelled():
    one = dc.parse("random_init(loss=clipped_least_squares, a=0.5, clip=1, sigma=1)")
    assert isinstance(one, RandomInit) and one.guarantee.startswith("certified")
    many = dc.parse("random_init(loss=logistic, bound=1, sigma=2, steps=2, heuristic=1)")
    assert many.guarantee == "heuristic, not a guarantee"
    assert many.describe(1e-5)["guarantee"] == "heuristic, not a guarantee"
    assert "heuristic" in repr(many) and "heuristic=1" in many.spec


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mixture()", "at least one term"),
        ("mixture(0.5*rr(eps=1), 0.6*rr(eps=2))", "weights must sum to 1"),
        ("mixture(rr(eps=1))", "must be weight\\*SPEC"),
        ("mixture(1.5*rr(eps=1))", "weight 1 must be"),
        ("mixture(1*nosuch(x=1))", "unknown mechanism 'nosuch'"),
        ("subsample(gaussian(mu=1))", "missing parameter w"),
        ("subsample(gaussian(mu=1), w=1.5)", "w \\(sampling probability\\) must be"),
        ("subsample(gaussian(mu=1), w=abc)", "bad value for w"),
        ("subsample(w=0.1)", "exactly one mechanism spec"),
        ("subsample(gaussian(mu=1), w=0.1, x=2)", "unknown parameter 'x' for subsample"),
        ("subsample(gaussian(mu=1), w=0.1", "missing '\\)'"),
        ("random_init(a=1)", "missing parameter loss"),
        ("random_init(loss=hinge)", "loss must be one of"),
        ("random_init(loss=clipped_least_squares, a=1)", "missing parameter clip"),
        ("random_init(loss=least_squares, clip=1)", "clip applies only"),
        ("random_init(loss=logistic, sigma=0)", "sigma \\(noise standard deviation\\) must be"),
        ("random_init(loss=logistic, steps=0)", "steps must be an integer >= 1"),
        ("random_init(loss=logistic, steps=3)", "heuristic, not a guarantee"),
        ("random_init(loss=logistic, steps=3, heuristic=2)", "heuristic must be 0 or 1"),
    ],
)
def test_bad_specs_name_the_parameter(spec, message):
    with pytest.raises(ValueError, match=message):
        dc.parse(spec)


@pytest.mark.parametrize("spec", ["subsample(gaussian(mu=1), w=2)", "random_init(loss=logistic, steps=3)", "mixture(0.5*rr(eps=1))"])
def test_cli_bad_spec_one_line_exit_2(spec, capsys):
    assert cli.main(["describe", spec]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize("spec", [SPECS[0], SPECS[2], SPECS[6]])
def test_cli_describe_json(spec, capsys):
    assert cli.main(["describe", spec, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["mechanism"] == spec
    assert d["epsilon"] == pytest.approx(float(dc.parse(spec).epsilon(1e-5)))
    if "random_init" in spec:
        assert d["guarantee"] == "heuristic, not a guarantee"


def test_cli_compare_reaches_the_new_specs(capsys):
    code = cli.main(["compare", "subsample(gaussian(mu=1), w=0.1)", "mixture(0.5*rr(eps=1), 0.5*gaussian(mu=1))", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)


