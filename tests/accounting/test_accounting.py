"""Accounting: the dp-accounting adapter (accounting/pld.py) and certified composition (certified.py, sgm.py).

Sources of reference values:
- the Gaussian mechanism's closed-form profile δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) and Bayes error
  R(π) = π Φ(−λ/μ − μ/2) + (1−π) Φ(λ/μ − μ/2), λ = log(π/(1−π)) (Balle & Wang 2018, Thm 8; Dong, Roth &
  Su 2022, Cor 2.13); N Gaussian steps with noise σ are one Gaussian with μ = √N/σ (Dong et al., Cor 3.3);
- dp-accounting's ``GaussianPrivacyLoss.get_delta_for_epsilon`` (the exact single-step profile of the
  subsampled Gaussian, from Gaussian CDFs) and its PLDs (``from_gaussian_mechanism``,
  ``PLDAccountant``), at the discretisations named in each test;
- brute-force convolution (``np.convolve``) for the FFT composition on small cases.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.pld import privacy_loss_mechanism as plm
from hypothesis import given, settings, strategies as st
from scipy.stats import norm

from dpcompare.composition import compose_subsampled_gaussian
from dpcompare.accounting import (
    pld_from_event,
    pld_pair,
    pld_to_pairs,
    pmf_to_pair,
    subsampled_gaussian_composed,
    subsampled_gaussian_pld,
)
from dpcompare.tradeoff import compose as certified_compose
from dpcompare.tradeoff import grid as certified
from dpcompare.composition.sgm_certified import sgm_partition
from dpcompare.tradeoff import DiscretePair, Rounding, lower_envelope

PI = np.concatenate([np.linspace(0.001, 0.999, 999), [1e-6, 1 - 1e-6]])


def gauss_delta(eps, mu):
    eps = np.asarray(eps, dtype=float)
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def gauss_bayes(pi, mu):
    lam = np.log(pi / (1 - pi))
    return pi * norm.cdf(-lam / mu - mu / 2) + (1 - pi) * norm.cdf(lam / mu - mu / 2)


def totals(pair: DiscretePair) -> tuple[float, float]:
    """(P, Q) total masses including ±∞."""
    return float(pair.p.sum() + pair.p_neg_inf), float(pair.q.sum() + pair.q_pos_inf)


# ---------------------------------------------------------------------------------------------- conventions
def test_pmf_convention_q_is_mu_upper():
    """Our Q = dp-accounting's μ_upper: the converted pair's δ is dp-accounting's own δ, per direction."""
    pld = subsampled_gaussian_composed(1.0, 0.05, 20, discretization=1e-4)
    rem, add = pld_to_pairs(pld)
    eps = np.array([0.0, 0.3, 1.0, 2.0])
    for conv, pmf in ((rem, pld._pmf_remove), (add, pld._pmf_add)):
        ref = np.array([pmf.get_delta_for_epsilon(float(e)) for e in eps])
        np.testing.assert_allclose(conv.pair.delta(eps), ref, rtol=1e-9, atol=1e-12)


def test_remove_pair_is_the_mixture_over_the_null_and_add_is_its_swap():
    """dp-accounting's REMOVE pmf: μ_upper = (1−p)N(0,σ²) + pN(−1,σ²) over μ_lower = N(0,σ²); ADD: the swap.
    Our single certified step (remove pair) reproduces dp-accounting's exact closed-form δ of both."""
    sigma, p = 1.5, 0.2
    c = compose_subsampled_gaussian(sigma, p, 1, 1e-3)
    eps = np.array([0.0, 0.1, 0.5, 1.0])  # grid points: the split (pessimistic) pair is exact there
    for adj, pair in ((plm.AdjacencyType.REMOVE, c.pessimistic), (plm.AdjacencyType.ADD, c.pessimistic.swap())):
        ref = plm.GaussianPrivacyLoss(sigma, sampling_prob=p, adjacency_type=adj).get_delta_for_epsilon(eps)
        np.testing.assert_allclose(pair.delta(eps), ref, rtol=1e-9, atol=1e-13)


# ---------------------------------------------------------------------------------------------- certified brackets
@pytest.mark.parametrize(("sigma", "steps", "h"), [(5.0, 100, 1e-3), (2.0, 4, 2e-3), (20.0, 400, 2e-4), (1.0, 1, 1e-3)])
def test_p_equal_one_composition_brackets_the_exact_gaussian(sigma, steps, h):
    """The FFT composition path (no shortcut) at p = 1 brackets N(μ=√N/σ) exactly: δ and R."""
    c = compose_subsampled_gaussian(sigma, 1.0, steps, h, exact_gaussian=False)
    mu = math.sqrt(steps) / sigma
    eta = c.numerical_error
    eps = np.linspace(-3, 6, 91)
    exact = gauss_delta(eps, mu)
    # δ(ε) = Q(L>ε) − e^ε P(L>ε): an R-error η moves δ by at most η·(1 + e^ε)
    slack = eta * (1 + np.exp(eps)) + 1e-15
    assert np.all(c.optimistic.delta(eps) <= exact + slack)
    assert np.all(exact <= c.pessimistic.delta(eps) + slack)
    r_exact = gauss_bayes(PI, mu)
    assert np.all(c.pessimistic.bayes_error(PI) <= r_exact + eta + 1e-15)
    assert np.all(r_exact <= c.optimistic.bayes_error(PI) + eta + 1e-15)
    assert np.max(c.optimistic.bayes_error(PI) - c.pessimistic.bayes_error(PI)) < 1e-5


def test_bracket_width_shrinks_like_h_squared():
    widths = []
    for h in (4e-3, 2e-3, 1e-3):
        c = compose_subsampled_gaussian(5.0, 1.0, 100, h, exact_gaussian=False)
        widths.append(float(np.max(c.optimistic.bayes_error(PI) - c.pessimistic.bayes_error(PI))))
    assert widths[0] / widths[1] > 3.0 and widths[1] / widths[2] > 3.0


@pytest.mark.parametrize(("sigma", "p", "steps"), [(1.0, 0.1, 10), (0.8, 0.01, 100), (2.0, 0.3, 20)])
def test_subsampled_gaussian_bracket_contains_dp_accounting(sigma, p, steps):
    """dp-accounting's pessimistic PLD (default discretisation 1e-4, both directions, dense) lies in our
    bracket up to its own floating-point error: its connect-the-dots pmfs carry a total-mass excess per
    step, so its δ can exceed the δ of the pmf it means by at most N × that excess."""
    c = compose_subsampled_gaussian(sigma, p, steps, 1e-4)
    one = subsampled_gaussian_pld(sigma, p, discretization=1e-4)
    excess = max(float(pmf._probs.sum() + pmf._infinity_mass - 1.0) for pmf in (one._pmf_remove, one._pmf_add))
    pld = subsampled_gaussian_composed(sigma, p, steps, discretization=1e-4)
    tol = steps * max(excess, 0.0) + 1e-9
    eps = np.array([0.0, 0.25, 0.5, 1.0, 2.0])
    for pair_lo, pair_hi, pmf in (
        (c.optimistic, c.pessimistic, pld._pmf_remove),
        (c.optimistic.swap(), c.pessimistic.swap(), pld._pmf_add),
    ):
        ref = np.array([pmf.get_delta_for_epsilon(float(e)) for e in eps])
        assert np.all(pair_lo.delta(eps) <= ref + tol)
        assert np.all(ref <= pair_hi.delta(eps) + tol)


@pytest.mark.parametrize(("sigma", "p", "steps"), [(3.0, 0.1, 50), (2.0, 0.05, 200)])
def test_coarse_bracket_contains_dp_accounting_at_fine_discretisation(sigma, p, steps):
    """Our bracket at h = 2e-4 contains dp-accounting's δ at its fine discretisation 1e-5 (both
    directions). Measured margins are ≥ 1e-14 here; the tolerance 1e-10 only absorbs rounding."""
    c = compose_subsampled_gaussian(sigma, p, steps, 2e-4)
    pld = subsampled_gaussian_composed(sigma, p, steps, discretization=1e-5)
    eps = np.array([0.0, 0.25, 0.5, 1.0, 2.0])
    for lo, hi, pmf in ((c.optimistic, c.pessimistic, pld._pmf_remove), (c.optimistic.swap(), c.pessimistic.swap(), pld._pmf_add)):
        ref = np.array([pmf.get_delta_for_epsilon(float(e)) for e in eps])
        assert np.all(lo.delta(eps) <= ref + 1e-10) and np.all(ref <= hi.delta(eps) + 1e-10)


def test_fft_composition_matches_brute_force_convolution():
    """compose(step, N) against np.convolve on a small grid step, within the reported error bound."""
    part = sgm_partition(1.0, 0.3, 0.05, sub=2, tail=1e-20)
    for build in (certified.pessimistic_step, certified.optimistic_step):
        step = build(part)
        q = np.exp(step.log_p + step.losses)
        ref = q.copy()
        for _ in range(3):
            ref = np.convolve(ref, q)
        log_p, i_lo, rep = certified_compose.compose(step, 4, workers=1)
        L = 4 * step.offset + (i_lo + np.arange(log_p.size)) * step.h
        got_q = np.exp(log_p + L)
        j0 = i_lo - 4 * step.k_lo  # composed index relative to the brute-force array
        assert j0 >= 0
        np.testing.assert_allclose(got_q, ref[j0 : j0 + got_q.size], atol=max(rep.numerical_error, 1e-15))
        assert ref[:j0].sum() + ref[j0 + got_q.size :].sum() <= 4 * 1e-18 + 1e-15


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), h=st.sampled_from([0.05, 0.2, 0.7]))
def test_single_step_sides_are_exact_blackwell_bounds(seed, n, h):
    """Steps 2–3 on a random discrete 'true' pair whose atoms are the cells: pessimistic R ≤ true R ≤ optimistic R."""
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    loss = np.log(q) - np.log(p)
    order = np.argsort(loss)
    p, q, loss = p[order], q[order], loss[order]
    k_lo, k_hi = math.floor(loss[0] / h) - 1, math.ceil(loss[-1] / h) + 1
    cell_k = np.floor(loss / h).astype(int) - k_lo
    part = certified.StepPartition(h, 0.0, k_lo, k_hi, cell_k, np.log(p), np.log(q))
    true = DiscretePair.from_masses(p, q)
    pess = certified.pessimistic_step(part).to_pair()
    opt_step = certified.optimistic_step(part)
    keep = np.isfinite(opt_step.log_p)
    opt = DiscretePair(opt_step.losses[keep], opt_step.log_p[keep], 0.0, 0.0)
    r_true = true.bayes_error(PI)
    assert np.all(pess.bayes_error(PI) <= r_true + 1e-12)
    assert np.all(r_true <= opt.bayes_error(PI) + 1e-12)
    assert np.allclose(np.round(opt.loss / h), opt.loss / h, atol=1e-9)  # the optimistic side lives on the grid
    assert totals(opt)[0] == pytest.approx(1.0) and totals(opt)[1] == pytest.approx(1.0)


def test_composed_pairs_are_valid_probability_pairs():
    c = compose_subsampled_gaussian(1.0, 0.01, 2000)
    for pair in (c.pessimistic, c.optimistic):
        tp, tq = totals(pair)
        assert tp <= 1 + 1e-12 and tq <= 1 + 1e-12
        assert np.all(np.isfinite(pair.loss)) and np.all(pair.p >= 0)
    assert c.pessimistic.rounding is Rounding.PESSIMISTIC and c.optimistic.rounding is Rounding.OPTIMISTIC
    assert 0 < c.numerical_error < 1e-6
    eps = np.linspace(0, 3, 13)
    assert np.all(c.optimistic.delta(eps) <= c.pessimistic.delta(eps) + c.numerical_error * (1 + np.exp(eps)))


def test_optimistic_pair_adds_no_mass_at_infinity():
    """Filling the optimistic pair's numerical deficit at +∞ would overstate δ_lo at large ε."""
    c = compose_subsampled_gaussian(1.0, 0.01, 200)
    assert c.optimistic.q_pos_inf == 0.0 and c.optimistic.p_neg_inf == 0.0


# ---------------------------------------------------------------------------------------------- mass corrections
def test_pmf_to_pair_moves_excess_and_negative_mass_explicitly():
    """A composed dp-accounting pmf with negative entries and total > 1 is corrected without renormalising."""
    pld = subsampled_gaussian_composed(1.0, 0.05, 10, discretization=1e-3)
    pmf = pld._pmf_remove.to_dense_pmf()
    pmf._probs = pmf._probs.copy()
    pmf._probs[0] = -1e-6  # a negative entry
    pmf._probs[-5] += 2e-6  # and an excess at a high loss
    conv = pmf_to_pair(pmf)
    assert conv.negative_mass == pytest.approx(1e-6)
    assert conv.removed_q > 0
    tp, tq = totals(conv.pair)
    assert tp <= 1 + 1e-12 and tq <= 1 + 1e-12
    # the high-loss atoms are untouched (the excess was taken from the lowest losses)
    hi = conv.pair.loss > 0.5
    h = pmf._discretization
    idx = np.round(conv.pair.loss[hi] / h).astype(int) - pmf._lower_loss
    np.testing.assert_allclose(conv.pair.q[hi], pmf._probs[idx], rtol=1e-12)


def test_add_direction_mass_excess_of_dp_accounting_is_removed_not_renormalised():
    """At fine discretisations dp-accounting's ADD pmf of σ=2, p=9e-4 carries total mass > 1."""
    one = subsampled_gaussian_pld(2.0, 9e-4, discretization=1e-5)
    add = one._pmf_add
    assert add._probs.sum() + add._infinity_mass > 1 + 1e-8  # the documented trap
    conv = pmf_to_pair(add)
    assert conv.removed_q == pytest.approx(add._probs.sum() + add._infinity_mass - 1, rel=1e-6)
    tp, tq = totals(conv.pair)
    assert tq <= 1 + 1e-12 and tp <= 1 + 1e-12


# ---------------------------------------------------------------------------------------------- envelope
def test_envelope_of_a_pair_and_its_swap_is_the_symmetrisation():
    rng = np.random.default_rng(3)
    a = DiscretePair.from_masses(rng.dirichlet(np.ones(25)), rng.dirichlet(np.ones(25)))
    env = lower_envelope([a, a.swap()])
    np.testing.assert_allclose(env.bayes_error(PI), a.symmetrize().bayes_error(PI), atol=1e-15)


def test_envelope_is_the_pointwise_minimum_and_clips_to_perfect_privacy():
    rng = np.random.default_rng(4)
    a = DiscretePair.from_masses(rng.dirichlet(np.ones(20)), rng.dirichlet(np.ones(20)))
    b = DiscretePair.from_masses(rng.dirichlet(np.ones(15)), rng.dirichlet(np.ones(15)))
    env = lower_envelope([a, b], include_perfectly_private=True)
    ref = np.minimum.reduce([a.bayes_error(PI), b.bayes_error(PI), np.minimum(PI, 1 - PI)])
    np.testing.assert_allclose(env.bayes_error(PI), ref, atol=1e-15)
    # a pseudo-pair with P-mass > 1 (an optimistic pmf) becomes a valid pair
    loss = np.array([-0.5, 0.0, 0.7])
    log_p = np.log([0.6, 0.5, 0.3])  # Σp = 1.4
    pseudo = lower_envelope([(loss, log_p)], include_perfectly_private=True)
    tp, tq = totals(pseudo)
    assert tp <= 1 + 1e-12 and tq <= 1 + 1e-12


# ---------------------------------------------------------------------------------------------- DpEvent and PLD
def test_pld_from_event_matches_dp_accountings_accountant():
    event = dp_event.ComposedDpEvent([
        dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.02, dp_event.GaussianDpEvent(1.2)), 50),
        dp_event.LaplaceDpEvent(3.0),
        dp_event.NoOpDpEvent(),
    ])
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event)
    pld = pld_from_event(event)
    for eps in (0.0, 0.5, 1.0, 2.0):
        assert pld.get_delta_for_epsilon(eps) == pytest.approx(acc.get_delta(eps), rel=1e-9, abs=1e-14)


def test_optimistic_event_pld_brackets_the_exact_gaussian():
    """pessimistic_estimate=False gives a certified (loose) lower version: Gaussian σ=2 self-composed 8×."""
    event = dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0), 8)
    lo = pld_pair(pld_from_event(event, pessimistic=False)).symmetrize()
    hi = pld_pair(pld_from_event(event)).symmetrize()
    mu = math.sqrt(8) / 2.0
    r = gauss_bayes(PI, mu)
    assert np.all(hi.bayes_error(PI) <= r + 1e-9)
    assert np.all(r <= lo.bayes_error(PI) + 1e-9)


@pytest.mark.parametrize(
    "event",
    [
        dp_event.PoissonSampledDpEvent(0.1, dp_event.RandomizedResponseDpEvent(0.5, 4)),
        dp_event.UnsupportedDpEvent(),
        dp_event.SampledWithReplacementDpEvent(100, 10, dp_event.GaussianDpEvent(1.0)),
        dp_event.ZCDpEvent(0.5),  # an RDP bound only: no PLD
    ],
)
def test_unsupported_events_raise_naming_the_event(event):
    with pytest.raises(ValueError, match="DpEvent|PoissonSampled|privacy loss distribution"):
        pld_from_event(event)


def test_non_event_is_rejected():
    with pytest.raises(ValueError, match="event must be a dp_accounting DpEvent"):
        pld_from_event("gaussian")  # type: ignore[arg-type]


def test_dense_self_composition_is_used():
    """The adapter composes dense pmfs (sparse self_compose is ~200× slower)."""
    pld = subsampled_gaussian_pld(3.0, 9e-4, discretization=1e-4)
    assert isinstance(pld._pmf_remove, pld_lib.pld_pmf.DensePLDPmf)
    assert isinstance(pld._pmf_add, pld_lib.pld_pmf.DensePLDPmf)


@pytest.mark.parametrize("sigma, p, steps, h", [(1.0, 0.01, 200, None), (0.8, 0.05, 50, 2e-3), (2.0, 1.0, 30, None)])
def test_pessimistic_pair_alone_is_the_pessimistic_side(sigma, p, steps, h):
    """composition.sgm_certified.pessimistic_pair (what calibration composes) is the pessimistic field of the full
    composition, atom for atom, and its ε/δ equal the mechanism's (so calibrated ε are the public ones)."""
    from dpcompare import SubsampledGaussian
    from dpcompare.composition.sgm_certified import pessimistic_pair
    from dpcompare.composition.sgm_certified import certified_epsilon

    full = compose_subsampled_gaussian(sigma, p, steps, h).pessimistic
    alone = pessimistic_pair(sigma, p, steps, h)
    np.testing.assert_array_equal(alone.loss, full.loss)
    np.testing.assert_array_equal(alone.log_p, full.log_p)
    assert (alone.p_neg_inf, alone.q_pos_inf) == (full.p_neg_inf, full.q_pos_inf)
    m = SubsampledGaussian(sigma, p, steps, discretization=h)
    for d in (1e-3, 1e-6, 1e-14):
        if p < 1.0:
            assert certified_epsilon(sigma, p, steps, d, h) == m.epsilon(d)
        else:  # the mechanism is the closed form at p = 1; the grid is a certified upper bound of it
            assert m.epsilon(d) <= certified_epsilon(sigma, p, steps, d, h) <= 1.05 * m.epsilon(d)
