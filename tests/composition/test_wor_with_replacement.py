"""Batches drawn *with* replacement (dp-accounting's SampledWithReplacementDpEvent of a Gaussian, replace-one):
the certified upper bound of composition/wor.py ``compose_with_replacement``.

Independent computations: the mechanism of a tiny dataset written out draw by draw (all n^b ordered draws,
1-D Gaussian sums, numerical integration of the hockey-stick divergence); the closed form of the one-step
bound δ(ε') = Σ_k P(K = k)·δ_{G_{k/σ}}(ε), ε = log(1 + (e^{ε'} − 1)/η) (Gaussian profile: Balle & Wang 2018);
the Gaussian G_{b/σ} when n = 1. dp-accounting has no accountant for this event (checked below).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom, norm

import dpcompare as dc
from dpcompare.composition.wor import multiplicity_weights
from dpcompare.mechanisms.fixed_batch import FixedBatchGaussian, WithReplacementGaussian

X = np.linspace(-12.0, 14.0, 5201)
W = np.full(X.size, X[1] - X[0])
EPS = np.array([0.0, 0.25, 0.5, 1.0, 2.0])


def _hockey(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.array([float(np.maximum(q - math.exp(e) * p, 0.0).sum()) for e in EPS])


def _draws_density(values: list[float], b: int, sigma: float) -> np.ndarray:
    """Density of Σ_j values[I_j] + N(0, σ²), I_1..I_b independent uniform (all n^b draws written out)."""
    n = len(values)
    return sum(norm.pdf(X, loc=sum(values[i] for i in d), scale=sigma)
               for d in itertools.product(range(n), repeat=b)) / n**b


def _gauss_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("others", [[-0.5, -0.5], [0.0, 0.0], [0.5, -0.5], [-0.5, 0.2]])
def test_brute_force_draws_are_below_the_bound(others: list[float]) -> None:
    # n = 3, b = 2 (9 ordered draws): record 0 is +0.5 in D and −0.5 in D' (replace-one sensitivity 1)
    sigma, b = 1.0, 2
    d = _draws_density([0.5, *others], b, sigma) * W
    d2 = _draws_density([-0.5, *others], b, sigma) * W
    truth = np.maximum(_hockey(d2, d), _hockey(d, d2))
    m = WithReplacementGaussian(sigma, dataset_size=3, batch_size=b, steps=1)
    hi = m.delta_bounds(EPS)[1]
    assert np.all(truth <= hi + 1e-6)


def test_one_step_is_the_closed_form_bound() -> None:
    sigma, n, b = 1.0, 20, 5
    eta, ks, log_w, tail = multiplicity_weights(n, b)
    assert eta == pytest.approx(1 - (1 - 1 / n) ** b, rel=1e-14) and tail <= 1e-20
    assert np.allclose(np.exp(log_w), binom.pmf(ks, b, 1 / n), rtol=1e-12)
    eps_p = np.array([0.0, 0.1, 0.5, 1.0, 2.0])
    eps = np.log1p(np.expm1(eps_p) / eta)
    bound = sum(binom.pmf(k, b, 1 / n) * _gauss_delta(k / sigma, eps) for k in range(1, b + 1))
    ours = WithReplacementGaussian(sigma, dataset_size=n, batch_size=b, steps=1).delta_bounds(eps_p)[1]
    assert np.all(ours >= bound - 1e-15)
    assert np.all(ours - bound <= 1e-3 * bound + 1e-9)  # tight to the discretisation


def test_one_draw_is_sampling_without_replacement_and_one_record_is_the_gaussian() -> None:
    a = WithReplacementGaussian(1.5, dataset_size=40, batch_size=1, steps=30)
    f = FixedBatchGaussian(1.5, dataset_size=40, batch_size=1, steps=30)
    assert a.epsilon(1e-5) == pytest.approx(f.epsilon(1e-5), rel=1e-3)
    g = WithReplacementGaussian(4.0, dataset_size=1, batch_size=3, steps=5)  # every draw is the record: shift 3
    exact = dc.Gaussian(mu=3 * math.sqrt(5) / 4.0)
    assert exact.epsilon(1e-5) <= g.epsilon(1e-5) <= exact.epsilon(1e-5) + 1e-3


def test_from_dp_event_labels_it_a_bound_and_dp_accounting_has_no_accountant() -> None:
    from dp_accounting import dp_event as e
    from dp_accounting.privacy_accountant import NeighboringRelation
    from dp_accounting.rdp import rdp_privacy_accountant

    ev = e.SelfComposedDpEvent(e.SampledWithReplacementDpEvent(1000, 20, e.GaussianDpEvent(1.0)), 50)
    m = dc.FromDpEvent(ev)
    assert m.guarantee.value == "certified bound" and m.adjacency.value == "replace_one"
    assert not rdp_privacy_accountant.RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE).supports(ev)
    # duplicates can only hurt: never below the fixed batch of the same size
    assert m.epsilon(1e-5) >= FixedBatchGaussian(1.0, dataset_size=1000, batch_size=20, steps=50).epsilon(1e-5)


@pytest.mark.parametrize(
    "ev, words",
    [
        ("e.SampledWithReplacementDpEvent(100, 10, e.LaplaceDpEvent(1.0))", "of LaplaceDpEvent is not supported"),
        ("e.ComposedDpEvent([e.SampledWithReplacementDpEvent(100, 10, e.GaussianDpEvent(1.0)), "
         "e.RandomizedResponseDpEvent(0.5, 2)])", "supported on its own"),
        ("e.SampledWithReplacementDpEvent(0, 10, e.GaussianDpEvent(1.0))", "source_dataset_size must be >= 1"),
    ],
)
def test_bad_events_name_the_field(ev: str, words: str) -> None:
    from dp_accounting import dp_event as e  # noqa: F401 - used by eval

    with pytest.raises(ValueError, match=words):
        dc.FromDpEvent(eval(ev))  # noqa: S307 - test table


def test_zero_sample_is_perfectly_private() -> None:
    from dp_accounting import dp_event as e

    m = dc.FromDpEvent(e.SampledWithReplacementDpEvent(10, 0, e.GaussianDpEvent(1.0)))
    assert m.advantage == 0.0


def test_cli_event_file_bad_field_one_line_exit_2(tmp_path, capsys) -> None:
    import json

    from dpcompare.io import cli

    path = tmp_path / "wr.json"
    ev = {"class_name": "SelfComposedDpEvent", "count": 10, "event": {
        "class_name": "SampledWithReplacementDpEvent", "source_dataset_size": 100, "sample_size": -3,
        "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}}
    path.write_text(json.dumps(ev))
    code = cli.main(["describe", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "event.event.sample_size must be an integer >= 0" in err and err.count("\n") == 1
    ev["event"]["sample_size"] = 5
    path.write_text(json.dumps(ev))
    code = cli.main(["describe", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["guarantee"] == "certified bound" and out["adjacency"] == "replace_one"
