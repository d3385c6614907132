"""sampling=balls_in_bins and sampling=shuffle: spec, adjacency, bad input, and the shuffle lower bound checked
against a Monte Carlo of the realised dataset itself (partial last batch included)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.composition.sgm_certified import profile_bracket
from dpcompare.mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian


def test_balls_in_bins_spec_round_trip():
    m = dc.parse("sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=3, sampling=balls_in_bins)")
    assert isinstance(m, BallsInBinsGaussian)
    assert (m.steps_per_epoch, m.epochs, m.steps) == (10, 3, 30)  # k = ⌈95/10⌉
    assert m.describe()["adjacency"] == "add_remove"
    assert dc.parse(m.spec).epsilon(1e-5) == m.epsilon(1e-5)
    c = dc.TrainingConfig(2.0, batch_size=10, dataset_size=95, steps=30, sampling="balls_in_bins")
    assert c.adjacency.value == "add_remove" and c.mechanism.epochs == 3


def test_balls_in_bins_sits_below_its_gaussian_bound():
    m = BallsInBinsGaussian(1.0, dataset_size=200, batch_size=20, epochs=2)
    lo, hi = m.delta_bounds(1.0)
    assert hi <= float(dc.Gaussian(mu=math.sqrt(2)).delta(1.0)) + 1e-12
    assert 0 < lo <= hi and hi - lo < 5e-3 * hi  # δ relative width (ε: ~1e-3)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1.5, sampling=balls_in_bins)",
         "epochs must be a whole number for sampling=balls_in_bins"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, steps=15, sampling=balls_in_bins)", "multiple of 10"),
        ("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1, sampling=balls_in_bins, "
         "adjacency=replace_one)", "adjacency=replace_one does not fit sampling=balls_in_bins"),
        ("sgm(noise_multiplier=1, p=0.1, epochs=1, sampling=balls_in_bins)", "needs batch_size and dataset_size"),
        ("sgm(noise_multiplier=0.01, batch_size=10, dataset_size=100, epochs=1, sampling=balls_in_bins)",
         "noise_multiplier must be in"),
    ],
)
def test_bad_input_one_line_naming_the_field(spec, words):
    with pytest.raises(ValueError, match=words):
        dc.parse(spec)


def test_balls_in_bins_has_no_dp_accounting_event():
    # `dpcompare event` writes dpcompare's extension event instead (tests/accounting/test_extension_events.py)
    from dpcompare.io.spec_training import parse_training

    with pytest.raises(ValueError, match="sampling=balls_in_bins has no dp-accounting DpEvent"):
        parse_training("sgm(noise_multiplier=1, batch_size=10, dataset_size=100, epochs=1, "
                       "sampling=balls_in_bins)").event_dict()


def _mc_shuffle_instance(sigma, n, b, epochs, eps, draws, seed):
    """Monte Carlo of the realised dataset's profile, nothing dropped: batches of sizes b, …, b, r; the example's
    batch J has probability (size)/n; its clipped sum moves by 2 (others −1, the example +1 vs −1).
    δ_rem(ε) = E_Q[(1 − e^ε/L)₊] with L = Σⱼ (bⱼ/n)·exp((2yⱼ − 2)/σ²) multiplied over epochs."""
    sizes = [b] * (n // b) + ([n % b] if n % b else [])
    wts = np.array(sizes, dtype=float) / n
    rng = np.random.default_rng(seed)
    log_l = np.zeros(draws)
    for _ in range(epochs):
        j = rng.choice(len(sizes), size=draws, p=wts)
        y = rng.standard_normal((draws, len(sizes))) * sigma
        y[np.arange(draws), j] += 2.0
        z = (2.0 * y - 2.0) / sigma**2 + np.log(wts)[None, :]
        m = z.max(axis=1)
        log_l += m + np.log(np.sum(np.exp(z - m[:, None]), axis=1))
    v = -np.expm1(np.minimum(eps - log_l, 0.0))
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(draws))


def test_shuffle_lower_side_is_below_the_realised_dataset():
    # n = 25, b = 10: batches 10, 10, 5; the certified lower side drops the partial batch (a post-processing),
    # so it must sit below the Monte Carlo of the whole instance, and the upper side G_{2√E/σ} above it
    m = ShuffledGaussian(2.0, dataset_size=25, batch_size=10, epochs=2)
    eps = 1.0
    c = m.composition
    lower = float(c.optimistic.delta(eps)) - c.optimistic_error
    mc, se = _mc_shuffle_instance(2.0, 25, 10, 2, eps, 200_000, seed=7)
    assert lower <= mc + 5 * se
    assert mc - 5 * se <= float(m.delta(eps))
    assert lower > 0.5 * mc  # and it is not vacuous


def test_shuffle_lower_side_is_above_poisson_at_small_sigma():
    # Chua et al. (ICML 2024) report shuffle ε far above the Poisson ε at small σ: the certified lower side
    # of the realised dataset shows it (σ = 0.8, one epoch of 10 batches)
    s = ShuffledGaussian(0.8, dataset_size=1000, batch_size=100, epochs=1)
    poisson = dc.SubsampledGaussian(0.8, 0.1, 10)
    assert s.epsilon_lower(1e-5) > poisson.epsilon(1e-5)
    assert s.epsilon_lower(1e-5) <= s.epsilon(1e-5)
    b = profile_bracket(s.composition, 1.0)
    assert b.optimistic <= b.pessimistic


def test_shuffle_refuses_a_noise_its_lower_side_cannot_serve():
    # the shuffle lower side is the random allocation at σ/2, whose engine serves σ/2 ≥ 0.05
    with pytest.raises(ValueError, match=r"noise_multiplier must be in \[0.1, 1000\] for sampling=shuffle"):
        dc.ShuffledGaussian(0.08, dataset_size=20, batch_size=5, epochs=1)
