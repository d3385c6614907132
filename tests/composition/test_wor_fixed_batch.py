"""Fixed-size batches sampled without replacement, replace-one: the certified bracket of
composition/wor.py and mechanisms/fixed_batch.py, checked against brute force and dp-accounting.

Independent computations: the subsampled mechanism of a tiny dataset written out batch by batch (every
batch of b of n records, 1-D Gaussian sums, numerical integration of the hockey-stick divergence on a
grid); the two-step *adaptive* attack that picks the other records' gradients at step 2 from the output
of step 1 (the reason the steps must be symmetrised before they are composed); dp-accounting's RDP
accountant for the same event (a looser certified bound) and its PLD of the realised Poisson pair.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import dpcompare as dc
from dpcompare.composition.wor import symmetric_step
from dpcompare.io import cli
from dpcompare.mechanisms.fixed_batch import FixedBatchGaussian

X = np.linspace(-10.0, 11.0, 4201)
W = np.full(X.size, X[1] - X[0])
EPS = np.array([0.0, 0.25, 0.5, 1.0, 1.5])


def _hockey(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """δ(ε) = Σ (q − e^ε p)₊ on the quadrature grid (p, q already multiplied by the weights)."""
    return np.array([float(np.maximum(q - math.exp(e) * p, 0.0).sum()) for e in EPS])


def _batch_mixture(values: list[float], b: int, sigma: float) -> np.ndarray:
    """Density of Σ_{i∈B} values[i] + N(0, σ²) with B uniform among the b-subsets (written out)."""
    batches = list(itertools.combinations(range(len(values)), b))
    return sum(norm.pdf(X, loc=sum(values[i] for i in bt), scale=sigma) for bt in batches) / len(batches)


@pytest.mark.parametrize("others", [[-0.5, -0.5], [0.0, 0.0], [0.5, -0.5], [0.3, 0.1]])
def test_one_step_brute_force_is_below_the_pessimistic_side(others: list[float]) -> None:
    # n = 3, b = 2: record 0 is x = +0.5 in D and x' = −0.5 in D' (replace-one sensitivity 1), the others fixed
    sigma, n, b = 1.0, 3, 2
    d = _batch_mixture([0.5, *others], b, sigma) * W
    d2 = _batch_mixture([-0.5, *others], b, sigma) * W
    truth = np.maximum(_hockey(d2, d), _hockey(d, d2))
    lo, hi = FixedBatchGaussian(sigma, dataset_size=n, batch_size=b, steps=1).delta_bounds(EPS)
    assert np.all(truth <= hi + 1e-6)
    if others == [-0.5, -0.5]:  # every other record equals x′: the realised worst case, our optimistic side
        assert np.allclose(truth, lo, atol=1e-6)
        assert np.all(hi - lo < 1e-4)  # one step: the bracket is the discretisation only


def test_adaptive_two_steps_beat_the_poisson_answer_but_not_ours() -> None:
    # n = 4, b = 1 (q = 1/4). Type A step: others at x′ (M(D) = (1−q)N(0) + qN(1), M(D') = N(0)); type B: the
    # swap. Fixed instances give max(δ_AA, δ_BB) (the Poisson-style answer); choosing step 2's type from the
    # output of step 1 does better, so the Poisson answer is not a bound here, and ours must (and does) cover it
    sigma, q = 1.0, 0.25
    x = np.linspace(-8.0, 9.0, 1361)
    w = np.full(x.size, x[1] - x[0])
    base, mix = norm.pdf(x, scale=sigma), (1 - q) * norm.pdf(x, scale=sigma) + q * norm.pdf(x, loc=1.0, scale=sigma)
    aa = _hockey(np.outer(base * w, base * w), np.outer(mix * w, mix * w))
    best = aa.copy()
    for t in np.linspace(0.25, 3.25, 13):
        use_a = (x <= t)[:, None]  # step 2 is type A below the threshold, type B above
        p2 = np.where(use_a, base[None, :], mix[None, :])
        q2 = np.where(use_a, mix[None, :], base[None, :])
        best = np.maximum(best, _hockey(base[:, None] * w[:, None] * p2 * w, mix[:, None] * w[:, None] * q2 * w))
    m = FixedBatchGaussian(sigma, dataset_size=4, batch_size=1, steps=2)
    lo, hi = m.delta_bounds(EPS)
    assert np.all(best > aa + 1e-3 * aa)  # the adaptive attack exceeds the fixed instances at every ε here
    assert np.all(best <= hi + 1e-6)  # and stays below the certified side
    assert np.allclose(lo, aa, atol=1e-5)  # the optimistic side is the realised Poisson pair


@pytest.mark.parametrize("sigma, q", [(1.0, 0.01), (0.5, 0.2), (2.0, 0.5), (0.3, 0.9)])
def test_symmetric_step_keeps_the_remove_profile(sigma: float, q: float) -> None:
    # the mirror pair's δ on ε ≥ 0 is the remove pair's, and the add pair's δ is below it there (composition/wor.py 3.)
    from dpcompare.composition.sgm_certified import default_discretization, sgm_partition
    from dpcompare.tradeoff import DiscretePair, Rounding, grid

    h = default_discretization(sigma, q, 1)
    step = grid.pessimistic_step(sgm_partition(sigma, q, h, tail=1e-18))
    fin = np.isfinite(step.log_p)
    a = DiscretePair(step.losses[fin], step.log_p[fin], None, None, Rounding.PESSIMISTIC)
    s, err = symmetric_step(sigma, q, h)
    eps = np.linspace(0.0, 6.0, 61)
    assert s.is_symmetric and err < 1e-10
    assert np.allclose(s.delta(eps), a.delta(eps), atol=1e-15, rtol=1e-12)
    # (both sides are rounded outwards by their own a-priori bound, ≤ 1e-12 relative: at ε = 0 they are equal in
    # real numbers, δ(0) = TV, and may differ by that much as doubles)
    assert np.all(a.swap().delta(eps) <= a.delta(eps) * (1 + 2e-12) + 1e-15)
    # and it is pessimistic: above the exact remove profile of the continuous pair, in closed form:
    # ℓ(x) > ε ⇔ x > x_ε = σ²·log((e^ε − 1 + q)/q) + 1/2, δ = (1−q)Φ̄(x_ε/σ) + qΦ̄((x_ε−1)/σ) − e^ε Φ̄(x_ε/σ)
    x_eps = sigma**2 * np.log(np.expm1(eps) / q + 1.0) + 0.5
    exact = (1 - q) * norm.sf(x_eps / sigma) + q * norm.sf((x_eps - 1) / sigma) - np.exp(eps) * norm.sf(x_eps / sigma)
    assert np.all(exact <= s.delta(eps) + 1e-15)
    assert np.all(s.delta(eps) - exact <= 1e-3 * exact + 1e-12)  # and close: the grid's second-order excess


def test_between_dp_accounting_poisson_pld_and_its_rdp_bound() -> None:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant
    from dp_accounting.privacy_accountant import NeighboringRelation

    n, b, sigma, steps, delta = 1000, 20, 1.0, 200, 1e-5
    ev = dp_event.SelfComposedDpEvent(dp_event.SampledWithoutReplacementDpEvent(n, b, dp_event.GaussianDpEvent(sigma)), steps)
    m = dc.FromDpEvent(ev)
    assert m.guarantee.value == "certified" and m.adjacency.value == "replace_one"
    ours = m.epsilon(delta)
    rdp = rdp_privacy_accountant.RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    rdp.compose(ev)
    assert ours <= rdp.get_epsilon(delta)  # certified, and tighter than the RDP bound it replaces
    pld = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(dp_event.PoissonSampledDpEvent(b / n, dp_event.GaussianDpEvent(sigma)), steps)
    assert ours >= pld.get_epsilon(delta) - 1e-3  # never below the realised Poisson pair


def test_full_batch_is_the_gaussian_and_training_config_uses_it() -> None:
    m = FixedBatchGaussian(2.0, dataset_size=50, batch_size=50, steps=9)
    g = dc.Gaussian(mu=1.5)
    assert m.exact and m.epsilon(1e-5) == pytest.approx(g.epsilon(1e-5), rel=1e-12)
    cfg = dc.dpsgd_mechanism(noise_multiplier=2.0, batch_size=10, dataset_size=100, steps=3, sampling="fixed")
    assert isinstance(cfg, FixedBatchGaussian) and cfg.sigma == 1.0 and cfg.sampling_rate == 0.1
    assert cfg.spec == "sgm(noise_multiplier=2, batch_size=10, dataset_size=100, steps=3, sampling=fixed)"
    from dpcompare.io.spec import parse

    assert parse(cfg.spec).spec == cfg.spec  # the spec reads back


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(sigma=1.0, dataset_size=10, batch_size=11, steps=1), r"batch_size \(11\) must be <= dataset_size"),
        (dict(sigma=0.0, dataset_size=10, batch_size=1, steps=1), "sigma must be > 0"),
        (dict(sigma=1.0, dataset_size=10, batch_size=0, steps=1), "batch_size"),
        (dict(sigma=1.0, dataset_size=10, batch_size=1, steps=0), "steps"),
        (dict(sigma=1.0, dataset_size=True, batch_size=1, steps=1), "dataset_size"),
        (dict(sigma=1.0, dataset_size=10, batch_size=1, steps=1, discretization=20.0), "discretization"),
    ],
)
def test_bad_input_names_the_field(kwargs, match) -> None:
    sigma = kwargs.pop("sigma")
    with pytest.raises(ValueError, match=match):
        FixedBatchGaussian(sigma, **kwargs)


def test_cli_fixed_sampling(capsys) -> None:
    code = cli.main(["describe", "sgm(noise_multiplier=2, batch_size=10, dataset_size=100, steps=20, sampling=fixed)",
                     "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert "sampling=fixed" in text
    code = cli.main(["describe", "sgm(noise_multiplier=2, batch_size=200, dataset_size=100, steps=20, sampling=fixed)"])
    err = capsys.readouterr().err
    assert code == 2 and "batch_size (200) must be <= dataset_size (100)" in err and err.count("\n") == 1


@given(sigma=st.floats(0.5, 4.0), n=st.integers(2, 400), frac=st.floats(0.0, 1.0), steps=st.integers(1, 40))
@settings(max_examples=10)
def test_law_between_the_realised_poisson_pair_and_the_gaussian(sigma, n, frac, steps) -> None:
    # realised instance ≤ truth ≤ ours ≤ G_{√N/σ} (C_q(f) ≥ f per step), at every ε, with both sides certified
    b = max(1, min(n, round(frac * n)))
    m = FixedBatchGaussian(sigma, dataset_size=n, batch_size=b, steps=steps)
    lo, hi = m.delta_bounds(EPS)
    assert np.all(lo <= hi)
    poisson_lo = dc.SubsampledGaussian(sigma, b / n, steps).delta_bounds(EPS)[0]
    assert np.all(poisson_lo <= hi + 1e-12)
    assert np.all(hi <= dc.Gaussian(mu=math.sqrt(steps) / sigma).delta(EPS) + 1e-12)
    assert m.epsilon(1e-5) >= dc.SubsampledGaussian(sigma, b / n, steps).pairs()[1].epsilon(1e-5) - 1e-9


def test_describe_states_guarantee_and_adjacency() -> None:
    d = FixedBatchGaussian(2.0, dataset_size=100, batch_size=10, steps=5).describe()
    assert d["guarantee"] == "certified" and d["adjacency"] == "replace_one"
    assert FixedBatchGaussian(2.0, dataset_size=10, batch_size=10, steps=5).describe()["guarantee"] == "exact"
