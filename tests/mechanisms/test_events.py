"""Every dp-accounting DpEvent → a mechanism (mechanisms/events.py), checked against dp-accounting's own
accountants and against brute-force sums for the exact discrete pairs; DpEvent JSON files; the training
vocabulary (dpsgd/training.py); ``dpcompare event``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from dp_accounting import dp_event as e
from dp_accounting.pld import pld_privacy_accountant as pld_acc
from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc
from hypothesis import given, settings, strategies as st

import dpcompare as dc
from dpcompare.accounting import event_from_dict, event_to_dict, event_to_json
from dpcompare.composition import profile_bound_pair
from dpcompare.io.cli import main
from dpcompare.mechanisms.events import Guarantee, discrete_laplace_pair, randomized_response_pair

NR = pld_acc.NeighborRel


def pld_eps(ev, delta, rel=NR.ADD_OR_REMOVE_ONE, h=1e-4):
    acc = pld_acc.PLDAccountant(rel, value_discretization_interval=h)
    acc.compose(ev)
    return acc.get_epsilon(delta)


def rdp_eps(ev, delta, rel):
    acc = rdp_acc.RdpAccountant(neighboring_relation=rel)
    acc.compose(ev)
    return acc.get_epsilon(delta)


# ---------------------------------------------------------------------------------------------- exact routes
def test_noop_and_nonprivate():
    pp = dc.FromDpEvent(e.NoOpDpEvent())
    assert pp.advantage == 0.0 and pp.epsilon(1e-9) == 0.0 and pp.guarantee is Guarantee.EXACT
    bnp = dc.FromDpEvent(e.NonPrivateDpEvent())  # raised IndexError before
    assert bnp.advantage == 1.0 and math.isinf(bnp.epsilon(0.5))
    # a zero noise parameter anywhere makes the whole composition non-private
    ev = e.ComposedDpEvent([e.GaussianDpEvent(1.0), e.PoissonSampledDpEvent(0.1, e.GaussianDpEvent(0.0))])
    assert dc.FromDpEvent(ev).advantage == 1.0


def test_gaussian_compositions_are_the_exact_gaussian():
    ev = e.ComposedDpEvent([e.SelfComposedDpEvent(e.GaussianDpEvent(2.0), 3), e.GaussianDpEvent(1.0)])
    m = dc.FromDpEvent(ev)
    assert m.guarantee is Guarantee.EXACT and isinstance(m.mechanism, dc.Gaussian)
    assert m.mechanism.mu == pytest.approx(math.sqrt(3 / 4 + 1))  # μ² adds up (Dong, Roth & Su Cor 3.3)
    for d in (1e-3, 1e-6):
        ref = pld_eps(ev, d)  # dp-accounting's pessimistic discretisation: ≥ exact, close
        assert m.epsilon(d) <= ref + 1e-9 and m.epsilon(d) == pytest.approx(ref, abs=2e-3)


def test_laplace_is_exact():
    m = dc.FromDpEvent(e.LaplaceDpEvent(0.5))
    assert isinstance(m.mechanism, dc.Laplace) and m.delta(2.0) == 0.0 and m.delta(1.9) > 0
    assert m.epsilon(1e-3) <= pld_eps(e.LaplaceDpEvent(0.5), 1e-3) + 1e-9


@pytest.mark.parametrize(("a", "sens"), [(0.5, 1), (0.5, 3), (2.0, 2)])
def test_discrete_laplace_pair_against_brute_force(a, sens):
    x = np.arange(-400, 400 + sens)
    p = np.tanh(a / 2) * np.exp(-a * np.abs(x))
    q = np.tanh(a / 2) * np.exp(-a * np.abs(x - sens))
    pair = discrete_laplace_pair(a, sens)
    for pi in (0.1, 0.3, 0.5, 0.8):
        assert pair.bayes_error(pi) == pytest.approx(np.minimum(pi * p, (1 - pi) * q).sum(), abs=1e-12)
    for eps in (0.0, 0.5, a * sens / 2):
        assert pair.delta(eps) == pytest.approx(np.maximum(q - math.exp(eps) * p, 0).sum(), abs=1e-12)
    m = dc.FromDpEvent(e.DiscreteLaplaceDpEvent(a, sens))
    assert m.guarantee is Guarantee.EXACT
    assert m.epsilon(1e-3) <= pld_eps(e.DiscreteLaplaceDpEvent(a, sens), 1e-3) + 1e-9


@pytest.mark.parametrize(("noise", "k"), [(0.3, 4), (0.5, 2), (0.9, 10)])
def test_randomized_response_pair_against_brute_force(noise, k):
    keep, other = 1 - noise + noise / k, noise / k
    p = np.array([keep, other] + [other] * (k - 2))
    q = np.array([other, keep] + [other] * (k - 2))
    pair = randomized_response_pair(noise, k)
    for pi in (0.2, 0.5, 0.7):
        assert pair.bayes_error(pi) == pytest.approx(np.minimum(pi * p, (1 - pi) * q).sum(), abs=1e-14)
    m = dc.FromDpEvent(e.RandomizedResponseDpEvent(noise, k))
    assert m.adjacency.value == "replace_one"
    ref = pld_eps(e.RandomizedResponseDpEvent(noise, k), 1e-3, NR.REPLACE_ONE)  # dp-accounting: replace-one only
    assert m.epsilon(1e-3) <= ref + 1e-9 and m.epsilon(1e-3) == pytest.approx(ref, abs=1e-3)


# ---------------------------------------------------------------------------------------------- numeric routes
def test_poisson_gaussian_is_the_certified_subsampled_gaussian():
    ev = e.SelfComposedDpEvent(e.PoissonSampledDpEvent(0.01, e.GaussianDpEvent(1.0)), 100)
    m = dc.FromDpEvent(ev)
    assert m.guarantee is Guarantee.CERTIFIED and m.spec == "sgm(sigma=1, p=0.01, steps=100)"
    ref = pld_eps(ev, 1e-5)
    assert m.epsilon(1e-5) == pytest.approx(ref, rel=5e-3)


@pytest.mark.parametrize(
    ("ev", "h"),
    [
        # (mixtures of Gaussians and truncated subsampled Gaussians are certified now:
        # tests/accounting/test_jax_privacy_events.py)
        (e.SelfComposedDpEvent(e.LaplaceDpEvent(2.0), 5), 1e-4),
        (e.SelfComposedDpEvent(e.PoissonSampledDpEvent(0.05, e.LaplaceDpEvent(1.0)), 10), 1e-4),
        (e.ComposedDpEvent([e.GaussianDpEvent(1.0), e.LaplaceDpEvent(2.0)]), 1e-3),
    ],
)
def test_pld_route_matches_dp_accountings_accountant(ev, h):
    m = dc.FromDpEvent(ev, discretization=h)
    assert m.guarantee is Guarantee.PLD
    for d in (1e-3, 1e-6):
        ours, ref = m.epsilon(d), pld_eps(ev, d, h=h)
        assert ours >= ref - 1e-6  # ours is its pessimistic PLD, corrected only towards less privacy
        assert ours == pytest.approx(ref, rel=0.03)
        lo, hi = m.delta_bounds(ref)
        assert lo <= d * (1 + 1e-6) <= hi * (1 + 1e-6) + 1e-12


@pytest.mark.parametrize(
    ("ev", "rel"),
    [
        (e.ZCDpEvent(0.5), NR.ADD_OR_REMOVE_ONE),
        (e.RepeatAndSelectDpEvent(e.GaussianDpEvent(2.0), 5, 1), NR.ADD_OR_REMOVE_ONE),
        (e.SingleEpochTreeAggregationDpEvent(2.0, 8), NR.REPLACE_SPECIAL),
        (e.ComposedDpEvent([e.SelfComposedDpEvent(e.SampledWithoutReplacementDpEvent(1000, 10, e.GaussianDpEvent(1.0)),
                                                  100), e.RandomizedResponseDpEvent(0.9, 2)]),
         NR.REPLACE_ONE),
    ],
)
def test_rdp_bounds_are_labelled_and_never_below_dp_accountings_rdp(ev, rel):
    m = dc.FromDpEvent(ev)
    assert m.guarantee is Guarantee.BOUND and not m.exact
    for d in (1e-3, 1e-6):
        ours, ref = m.epsilon(d), rdp_eps(ev, d, rel)
        assert ref - 1e-9 <= ours <= ref * 1.01


def test_zcdp_bound_is_above_the_gaussian_it_contains():
    """ρ-zCDP holds for the Gaussian with μ = √(2ρ); the bound must be at least as pessimistic."""
    m = dc.FromDpEvent(e.ZCDpEvent(0.5))
    g = dc.Gaussian(mu=1.0)
    eps = np.linspace(0, 6, 25)
    assert np.all(m.delta(eps) >= g.delta(eps) - 1e-12)


@pytest.mark.parametrize(
    ("ev", "words"),
    [
        (e.UnsupportedDpEvent(), "UnsupportedDpEvent"),
        (e.SampledWithReplacementDpEvent(100, 10, e.LaplaceDpEvent(1.0)), "SampledWithReplacementDpEvent of LaplaceDpEvent"),
        (e.PoissonSampledDpEvent(0.1, e.ZCDpEvent(1.0)), "PoissonSampledDpEvent of ZCDpEvent"),
        (e.ComposedDpEvent([e.GaussianDpEvent(1.0), e.RandomizedResponseDpEvent(0.5, 2)]), "neighbouring relations"),
        (e.SampledWithoutReplacementDpEvent(10, 20, e.GaussianDpEvent(1.0)), "sample_size"),
        (e.ComposedDpEvent([e.MixtureOfGaussiansDpEvent(1.0, [1.0], [1.0]), e.ZCDpEvent(0.1)]), "no accountant covers both"),
    ],
)
def test_events_without_an_answer_raise_naming_the_type(ev, words):
    with pytest.raises(ValueError, match=words):
        dc.FromDpEvent(ev)


# ---------------------------------------------------------------------------------------------- profile bound
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 5), st.floats(0, 1)), min_size=1, max_size=6))
def test_profile_bound_pair_is_the_envelope_of_the_approxdp_curves(points):
    eps, delta = (np.array(v) for v in zip(*points))
    pair = profile_bound_pair(eps, delta)
    assert np.all(pair.delta(eps) <= delta + 1e-9)  # the bound holds at every point
    alpha = np.linspace(0, 1, 101)
    ref = np.max([np.maximum.reduce([np.zeros_like(alpha), 1 - d - math.exp(x) * alpha,
                                     math.exp(-x) * (1 - d - alpha)]) for x, d in points], axis=0)
    assert np.allclose(pair.tradeoff(alpha), ref, atol=1e-9)


# ---------------------------------------------------------------------------------------------- JSON form
ALL_EVENTS = [
    e.NoOpDpEvent(), e.NonPrivateDpEvent(), e.GaussianDpEvent(1.5), e.LaplaceDpEvent(2.0),
    e.DiscreteLaplaceDpEvent(0.5, 2), e.RandomizedResponseDpEvent(0.3, 4),
    e.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.4, 0.6]),
    e.SelfComposedDpEvent(e.PoissonSampledDpEvent(0.01, e.GaussianDpEvent(1.0)), 100),
    e.ComposedDpEvent([e.GaussianDpEvent(1.0), e.LaplaceDpEvent(1.0)]),
    e.SampledWithoutReplacementDpEvent(100, 10, e.GaussianDpEvent(1.0)),
    e.SampledWithReplacementDpEvent(100, 10, e.GaussianDpEvent(1.0)),
    e.SingleEpochTreeAggregationDpEvent(1.0, [4, 8]), e.RepeatAndSelectDpEvent(e.GaussianDpEvent(1.0), 3.0, 1.0),
    e.ZCDpEvent(0.5, 0.1), e.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 15, 1.0), e.UnsupportedDpEvent(),
]


@pytest.mark.parametrize("ev", ALL_EVENTS, ids=lambda ev: type(ev).__name__)
def test_json_round_trip_and_named_tuple_structure(ev):
    text = event_to_json(ev)
    assert event_from_dict(json.loads(text)) == ev
    nt = ev.to_named_tuple()
    assert json.loads(text)["class_name"] == nt.class_name
    assert set(json.loads(text)) == set(nt._fields)
    assert e.DpEvent.from_named_tuple(nt) == event_from_dict(event_to_dict(ev))


@pytest.mark.parametrize(
    ("obj", "words"),
    [
        ({"class_name": "FooDpEvent"}, "class_name must be one of"),
        ({"class_name": "GaussianDpEvent"}, "needs field noise_multiplier"),
        ({"class_name": "GaussianDpEvent", "noise_multiplier": -1}, "noise_multiplier must be in"),
        ({"class_name": "GaussianDpEvent", "noise_multiplier": "1"}, "must be a number"),
        ({"class_name": "GaussianDpEvent", "noise_multiplier": 1, "x": 2}, "unknown field"),
        ({"class_name": "PoissonSampledDpEvent", "sampling_probability": 1.5,
          "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1}}, "sampling_probability must be in"),
        ({"class_name": "SelfComposedDpEvent", "count": 2.5, "event": {"class_name": "NoOpDpEvent"}}, "count"),
        ({"class_name": "GaussianDpEvent", "noise_multiplier": 1, "module_name": "os"}, "module_name"),
    ],
)
def test_bad_plain_events_name_the_field(obj, words):
    with pytest.raises(ValueError, match=words):
        dc.FromDpEvent(obj)


# ---------------------------------------------------------------------------------------------- training vocabulary
def test_training_vocabulary_maps_to_sigma_p_steps():
    c = dc.TrainingConfig(1.1, batch_size=300, dataset_size=1000, epochs=1)
    assert c.sampling_rate == 0.3 and c.steps == 4  # ⌈1·1000/300⌉ = ⌈3.33⌉, rounded up
    assert dc.TrainingConfig(1.1, batch_size=250, dataset_size=1000, epochs=3).steps == 12
    assert dc.TrainingConfig(1.1, p=0.3, epochs=1).steps == 4  # ⌈1/0.3⌉
    assert dc.TrainingConfig(1.1, sampling_rate=0.1, epochs=0.3).steps == 3  # rationals of the floats: 2.99…9 → 3
    m = dc.parse("sgm(noise_multiplier=1.1, batch_size=300, dataset_size=1000, epochs=1)")
    assert isinstance(m, dc.SubsampledGaussian) and (m.sigma, m.sampling_rate, m.steps) == (1.1, 0.3, 4)
    assert m == dc.dpsgd_mechanism(noise_multiplier=1.1, batch_size=300, dataset_size=1000, epochs=1)
    assert dc.parse("sgm(sigma=1.1, sampling_rate=0.3, steps=4)") == m


def test_shuffle_is_the_gaussian_bound_per_epoch():
    m = dc.parse("sgm(noise_multiplier=2, batch_size=10, dataset_size=100, epochs=4, sampling=shuffle)")
    # the upper side is G_μ with μ = 2√E/σ (the lower side: tests/mechanisms/test_allocation_modes.py)
    assert m.gdp_mu == pytest.approx(2 * math.sqrt(4) / 2)
    assert m.epsilon(1e-5) == pytest.approx(dc.Gaussian(mu=2.0).epsilon(1e-5), rel=1e-12)
    c = dc.TrainingConfig(2.0, batch_size=10, dataset_size=100, steps=40, sampling="shuffle")
    assert c.adjacency.value == "replace_one" and c.event_dict()["count"] == 4


def test_fixed_batches_are_certified_and_tighter_than_the_replace_one_rdp_bound():
    # tests/composition/test_wor_fixed_batch.py checks the bracket itself (brute force, adaptive attack, dp-accounting)
    c = dc.TrainingConfig(2.0, batch_size=10, dataset_size=1000, steps=50, sampling="fixed")
    ev = c.event()
    assert ev == e.SelfComposedDpEvent(e.SampledWithoutReplacementDpEvent(1000, 10, e.GaussianDpEvent(1.0)), 50)
    m = dc.FromDpEvent(ev)
    assert m.guarantee is Guarantee.CERTIFIED and m.adjacency.value == "replace_one"
    assert m.epsilon(1e-5) == c.mechanism.epsilon(1e-5)
    assert m.epsilon(1e-5) <= rdp_eps(ev, 1e-5, NR.REPLACE_ONE)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("sgm(noise_multiplier=1, batch_size=101, dataset_size=100, epochs=1)", "batch_size \\(101\\) must be <= dataset_size"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1.5, sampling=shuffle)", "whole number"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, steps=15, sampling=shuffle)", "multiple of 10"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1, sampling=fixed, adjacency=add_remove)",
         "adjacency=add_remove does not fit sampling=fixed"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1, sampling=random)",
         "must be one of poisson\\|shuffle\\|fixed"),
        ("sgm(noise_multiplier=1, p=0.1, epochs=1, sampling=fixed)", "needs batch_size and dataset_size"),
        ("sgm(noise_multiplier=1, batch_size=10, epochs=1)", "go together"),
        ("sgm(noise_multiplier=1, sigma=1, p=0.1, steps=1)", "once"),
        ("sgm(noise_multiplier=1, p=0.1, steps=1, epochs=1)", "exactly one of epochs and steps"),
        ("sgm(noise_multiplier=poisson, p=0.1, steps=1)", "expected a number"),
    ],
)
def test_training_vocabulary_errors(spec, words):
    with pytest.raises(ValueError, match=words):
        dc.parse(spec)


# ---------------------------------------------------------------------------------------------- CLI
def test_event_command_and_event_files_on_the_command_line(tmp_path, capsys):
    spec = "sgm(noise_multiplier=1.0, batch_size=100, dataset_size=10000, epochs=1)"
    assert main(["event", spec]) == 0
    text = capsys.readouterr().out
    ev = event_from_dict(json.loads(text))
    assert ev == e.SelfComposedDpEvent(e.PoissonSampledDpEvent(0.01, e.GaussianDpEvent(1.0)), 100)
    a = tmp_path / "a.json"
    a.write_text(text)
    b = tmp_path / "b.json"
    b.write_text(event_to_json(e.SelfComposedDpEvent(e.GaussianDpEvent(2.0), 4)))
    assert main(["compare", str(a), "gaussian(mu=1)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["a"] == str(a)
    assert main(["describe", str(b), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["gdp_mu"] == pytest.approx(1.0) and d["guarantee"] == "exact" and d["adjacency"] == "add_remove"


@pytest.mark.parametrize(
    ("content", "words"),
    [("{", "malformed JSON"), ('{"class_name": "Foo"}', "class_name must be one of"),
     ('{"class_name": "UnsupportedDpEvent"}', "UnsupportedDpEvent")],
)
def test_bad_event_files_exit_2_with_one_line(tmp_path, capsys, content, words):
    f = tmp_path / "bad.json"
    f.write_text(content)
    assert main(["describe", str(f)]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err.count("\n") == 1 and words in err.err
    assert main(["describe", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_event_command_rejects_specs_without_an_event(capsys):
    assert main(["event", "rr(eps=1)"]) == 2
    assert "no DpEvent equivalent" in capsys.readouterr().err


def test_composed_randomized_response_says_certified_not_exact():
    """Randomized response composed N times is the exact multinomial pair up to its rounding bound η > 0
    (composition/randomized_response.py): its guarantee is "certified"; one step stays "exact"."""
    from dpcompare.mechanisms.events import Guarantee

    composed = dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.5, 2), 20))
    assert composed.mechanism.composition.numerical_error > 0.0
    assert composed.guarantee is Guarantee.CERTIFIED
    assert dc.FromDpEvent(e.RandomizedResponseDpEvent(0.5, 2)).guarantee is Guarantee.EXACT
