"""dpcompare's extension DpEvents (RandomAllocationDpEvent, ShuffledBatchesDpEvent): written by
``dpcompare event``, valid JSON, read back anywhere a spec is accepted as the same certified mechanism; their
``dp_accounting_upper_bound`` checked against dp-accounting itself; bad files refused in one line naming the
field."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.accounting.extension_events import check_extension_dict, extension_event_dict
from dpcompare.io.cli import main
from dpcompare.io.spec_training import load_event_file, parse_training, training_event_json
from dpcompare.mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
from dpcompare.mechanisms.events import Guarantee

BB = "sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=2, sampling=balls_in_bins)"
SH = "sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=2, sampling=shuffle)"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize(("spec", "cls", "guarantee"), [(BB, BallsInBinsGaussian, Guarantee.CERTIFIED),
                                                        (SH, ShuffledGaussian, Guarantee.OPEN_BRACKET)])
def test_event_file_round_trip_is_the_same_certified_mechanism(tmp_path, spec, cls, guarantee):
    text = training_event_json(spec)
    node = json.loads(text)  # strict JSON (no NaN/Infinity: json.dumps(allow_nan=False) wrote it)
    assert node["module_name"] == "dpcompare.events" and "not a dp-accounting DpEvent" in node["dpcompare_extension"]
    path = _write(tmp_path, "run.json", text)
    direct = dc.parse(spec)
    assert dc.FromDpEvent(node).spec == spec  # the unnamed event shows the run's spec
    for m in (load_event_file(path), dc.parse(path), dc.FromDpEvent(node)):
        assert isinstance(m.mechanism, cls) and m.mechanism == direct
        assert m.guarantee is guarantee
        assert m.adjacency.value == direct.describe()["adjacency"]
        for eps in (0.0, 0.5, 2.0):
            assert tuple(m.delta_bounds(eps)) == tuple(direct.delta_bounds(eps))
        assert m.epsilon(1e-5) == direct.epsilon(1e-5)
    a, b = load_event_file(path).describe(1e-5), direct.describe(1e-5)
    a.pop("mechanism", None), b.pop("mechanism", None)
    assert a == b  # every view, the guarantee, the adjacency and (shuffle) the certified lower end
    assert training_event_json(path) == text  # the file reproduces itself
    assert parse_training(path) == parse_training(spec)  # `dpcompare ran run.json` is the run


def test_shuffle_file_carries_both_sides_and_the_open_width():
    node = json.loads(training_event_json(SH))
    assert set(node["bracket"]) == {"lower", "upper", "width"}
    assert "open research question" in node["bracket"]["width"]
    assert node["neighboring_relation"] == "replace_one"
    m = dc.FromDpEvent(node)
    d = m.describe(1e-5)
    assert d["guarantee"] == "certified bracket (open width)"
    assert 0 < d["epsilon_lower"] < d["epsilon"]
    assert d["epsilon"] == pytest.approx(dc.Gaussian(mu=2 * math.sqrt(2) / 2).epsilon(1e-5), rel=1e-12)


def test_minimal_random_allocation_event_needs_only_sigma_steps_and_epochs():
    m = dc.FromDpEvent({"class_name": "RandomAllocationDpEvent", "noise_multiplier": 2.0,
                        "num_steps_per_epoch": 10, "num_epochs": 2})
    # the analysis depends on (σ, k, E) only: the same numbers as the run with n = 95, b = 10 (k = 10)
    assert m.epsilon(1e-5) == dc.parse(BB).epsilon(1e-5)


def test_the_standard_upper_bound_is_valid_according_to_dp_accounting():
    pytest.importorskip("dp_accounting", reason="the cross-check runs dp-accounting's own accountant")
    from dp_accounting import pld
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    from dpcompare.accounting.dp_accounting import event_from_dict

    for spec in (BB, SH):
        node = json.loads(training_event_json(spec))
        acc = pld.PLDAccountant(NR.ADD_OR_REMOVE_ONE)  # as the file says
        acc.compose(event_from_dict(node["dp_accounting_upper_bound"]))
        eps_da = acc.get_epsilon(1e-5)
        m = dc.parse(spec)
        assert eps_da >= m.epsilon(1e-5) * (1 - 1e-3)  # an upper bound on the certified upper end (PLD grid 1e-3)
    # shuffle: the standard event IS the bracket's upper end G_{2√E/σ} (dp-accounting's PLD, relative 1e-3)
    assert eps_da == pytest.approx(dc.parse(SH).epsilon(1e-5), rel=1e-3)


def test_no_dp_accounting_object_for_an_extension_event():
    from dpcompare.accounting.dp_accounting import event_from_dict

    with pytest.raises(ValueError, match="dpcompare extension event with no dp-accounting class.*dp_accounting_upper_bound"):
        event_from_dict(json.loads(training_event_json(BB)))
    with pytest.raises(ValueError, match="sampling=balls_in_bins has no dp-accounting DpEvent"):
        parse_training(BB).event_dict()


def _base():
    return extension_event_dict("balls_in_bins", 2.0, dataset_size=95, batch_size=10, epochs=2)


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda d: d.update(num_steps_per_epoch=11), r"event\.num_steps_per_epoch must be ceil\(dataset_size/batch_size\) = 10"),
        (lambda d: d.update(num_epochs=1.5), r"event\.num_epochs must be an integer >= 1"),
        (lambda d: d.update(noise_multiplier=0.01), r"event\.noise_multiplier must be a number in \[0\.05, 1000\]"),
        (lambda d: d.update(noise_multiplier="1"), r"event\.noise_multiplier must be a number"),
        (lambda d: d.update(module_name="dp_accounting.dp_event"), r"event\.module_name must be 'dpcompare\.events'"),
        (lambda d: d.update(neighboring_relation="replace_one"), r"event\.neighboring_relation must be 'add_remove'"),
        (lambda d: d.update(batch_size=100), r"event\.batch_size \(100\) must be <= dataset_size \(95\)"),
        (lambda d: d.pop("batch_size"), "dataset_size and batch_size go together"),
        (lambda d: d.pop("num_epochs"), "needs field num_epochs"),
        (lambda d: d.update(colour="red"), "unknown field\\(s\\) colour"),
        (lambda d: d["dp_accounting_upper_bound"]["event"].update(noise_multiplier=9.0),
         r"event\.dp_accounting_upper_bound must be SelfComposed\(Gaussian\(2\), 2\)"),
        (lambda d: d.update(bracket={"lower": "x"}), "unknown field bracket"),
    ],
)
def test_bad_extension_event_one_line_naming_the_field(edit, words):
    d = _base()
    edit(d)
    with pytest.raises(ValueError, match=words):
        check_extension_dict(d)
    with pytest.raises(ValueError, match=words):
        dc.FromDpEvent(d)


def test_extension_events_are_top_level_only():
    inner = _base()
    with pytest.raises(ValueError, match=r"event\.event: RandomAllocationDpEvent is a dpcompare extension event and "
                                         "must be the top-level object"):
        dc.FromDpEvent({"class_name": "SelfComposedDpEvent", "count": 2, "event": inner})


def test_cli_event_describe_and_bad_file(tmp_path, capsys):
    assert main(["event", SH]) == 0
    path = _write(tmp_path, "shuffle.json", capsys.readouterr().out)
    assert main(["describe", path, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["guarantee"] == "certified bracket (open width)" and d["adjacency"] == "replace_one"
    bad = json.loads(open(path).read())
    bad["num_steps_per_epoch"] = 3
    bad_path = _write(tmp_path, "bad.json", json.dumps(bad))
    assert main(["describe", bad_path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "num_steps_per_epoch" in err and "bad.json" in err


def test_top_level_exports_and_repr():
    from dpcompare.mechanisms import allocation

    assert dc.BallsInBinsGaussian is allocation.BallsInBinsGaussian
    assert dc.ShuffledGaussian is allocation.ShuffledGaussian
    assert {"BallsInBinsGaussian", "ShuffledGaussian"} <= set(dc.__all__) <= set(dir(dc))
    for spec in (BB, SH):
        m = dc.parse(spec)
        assert repr(m) == f"<{type(m).__name__} {spec}>" == str(m)  # as every mechanism: <Class spec>
        assert repr(dc.SubsampledGaussian(1.0, 0.1, 10)) == "<SubsampledGaussian sgm(sigma=1, p=0.1, steps=10)>"


def test_a_fixed_batch_event_file_is_a_run_too(tmp_path):
    spec = "sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=2, sampling=fixed)"
    path = _write(tmp_path, "fixed.json", training_event_json(spec))
    c, d = parse_training(path), parse_training(spec)
    assert (c.steps, c.sampling, c.mechanism) == (d.steps, d.sampling, d.mechanism)
    gaussian = _write(tmp_path, "g.json", '{"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}')
    with pytest.raises(ValueError, match="does not describe a run with a batch size and dataset size"):
        parse_training(gaussian)


@settings(max_examples=60, deadline=None)
@given(sampling=st.sampled_from(["balls_in_bins", "shuffle"]), sigma=st.floats(0.05, 1000.0),
       n=st.integers(1, 10**6), b_frac=st.floats(0.0, 1.0), epochs=st.integers(1, 10**4))
def test_extension_events_round_trip_law(sampling, sigma, n, b_frac, epochs):
    """check(write(run)) = write(run) and FromDpEvent(write(run)).mechanism = the run's mechanism, whenever the
    run is valid (the mechanism is built lazily: no composition runs here)."""
    b = max(1, min(n, round(b_frac * n)))
    if -(-n // b) > 10**6 or (sampling == "shuffle" and sigma < 0.1):  # shuffle serves σ ≥ 0.1 (its lower side is σ/2)
        return
    node = extension_event_dict(sampling, sigma, dataset_size=n, batch_size=b, epochs=epochs)
    assert check_extension_dict(json.loads(json.dumps(node, allow_nan=False))) == node
    cls = BallsInBinsGaussian if sampling == "balls_in_bins" else ShuffledGaussian
    assert dc.FromDpEvent(node).mechanism == cls(sigma, dataset_size=n, batch_size=b, epochs=epochs)


def test_the_privacy_card_of_an_event_file_has_the_ran_section(tmp_path):
    from dpcompare.io.privacy_card import ran_section

    path = _write(tmp_path, "bb.json", training_event_json(BB))
    r = ran_section(dc.parse(path))
    assert r is not None and r.ran == ran_section(dc.parse(BB)).ran
