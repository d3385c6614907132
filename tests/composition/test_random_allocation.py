"""Certified random allocation (balls-in-bins) brackets: closed form at k = 1, a seeded Monte Carlo of the
k-dimensional pair, pld-accounting, and the Blackwell laws of the construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition.sgm_certified import profile_bracket
from dpcompare.composition.random_allocation import (
    allocation_law,
    compose_random_allocation,
    epsilon_bracket,
)
from dpcompare.mechanisms import Gaussian
from dpcompare.tradeoff.pair import Rounding


def _directions(c, eps):
    """(rem_lo, rem_hi, add_lo, add_hi) of the asymmetric pairs with their error bounds."""
    pe, oe = c.pessimistic_error, c.optimistic_error
    return (float(c.optimistic.delta(eps)) - oe, float(c.pessimistic.delta(eps)) + pe,
            float(c.optimistic.swap().delta(eps)) - oe, float(c.pessimistic.swap().delta(eps)) + pe)


def test_one_step_is_the_gaussian():
    # k = 1: Q = N(1, σ²), the Gaussian with μ = √E/σ (closed form of Balle & Wang 2018, Thm 8)
    lo, hi = epsilon_bracket(0.8, 1, 3, 1e-6)
    exact = Gaussian(mu=math.sqrt(3) / 0.8).epsilon(1e-6)
    assert lo <= exact <= hi
    assert hi - lo < 1e-3 * exact


def _mc_profile(sigma, k, epochs, eps, n, seed):
    """Seeded Monte Carlo of δ_rem(ε) = E_Q[(1 − e^ε/L)₊] and δ_add(ε) = E_P[(1 − e^ε·L)₊] of E epochs
    (L multiplies over epochs): both integrands lie in [0, 1], so the CLT interval is honest."""
    rng = np.random.default_rng(seed)
    out = []
    for under_q in (True, False):
        log_l = np.zeros(n)
        for _ in range(epochs):
            x = rng.standard_normal((n, k)) * sigma
            if under_q:
                x[:, 0] += 1.0  # the example's step (by symmetry, step 1)
            y = (x - 0.5) / sigma**2
            m = y.max(axis=1)
            log_l += m + np.log(np.mean(np.exp(y - m[:, None]), axis=1))
        v = -np.expm1(np.minimum(eps - log_l, 0.0)) if under_q else np.maximum(-np.expm1(eps + log_l), 0.0)
        out.append((float(v.mean()), float(v.std(ddof=1) / math.sqrt(n))))
    return out


@pytest.mark.parametrize("sigma,k,epochs,eps", [(0.8, 3, 1, 0.5), (1.0, 8, 2, 0.7), (0.5, 4, 1, 2.0)])
def test_bracket_contains_monte_carlo(sigma, k, epochs, eps):
    c = compose_random_allocation(sigma, k, epochs)
    rem_lo, rem_hi, add_lo, add_hi = _directions(c, eps)
    (rem, se_r), (add, se_a) = _mc_profile(sigma, k, epochs, eps, 200_000, seed=20260101 + k)
    # 5 standard errors: a false failure has probability < 1e-6 per check
    assert rem_lo - 5 * se_r <= rem <= rem_hi + 5 * se_r
    assert add_lo - 5 * se_a <= add <= add_hi + 5 * se_a
    assert rem_hi - rem_lo < 1e-3 and add_hi - add_lo < 1e-3  # the bracket is tight too


def test_pld_accounting_brackets_overlap():
    # pld-accounting 2.0 (Feldman & Shenfeld's random-allocation accountant, an independent implementation):
    # gaussian_allocation_epsilon_range(delta=1e-5, sigma=1.0, num_steps=10, num_epochs=1) returned
    # (upper, lower) = (2.2089584288875757, 2.166168564357366) on this machine (6 s; run live in
    # benchmarks/bench_balls_in_bins.py). Their bracket and ours must intersect; ours is narrower.
    lo, hi = epsilon_bracket(1.0, 10, 1, 1e-5)
    assert lo <= 2.2089584288875757 * (1 + 1e-6) and hi >= 2.166168564357366 * (1 - 1e-6)
    assert hi - lo < 2.2089584288875757 - 2.166168564357366


def test_pld_accounting_live():
    pld = pytest.importorskip("PLD_accounting", reason="pld-accounting is an optional cross-check")
    up, low = pld.gaussian_allocation_epsilon_range(delta=1e-5, sigma=0.8, num_steps=4, num_epochs=2)
    lo, hi = epsilon_bracket(0.8, 4, 2, 1e-5)
    assert lo <= up * (1 + 1e-9) and hi >= low * (1 - 1e-9)


def test_laws_are_ordered_and_keep_their_masses():
    # pessimistic = a mean-preserving spread: both laws keep P-mass 1 and Q-mass 1 (with q₊∞), and every
    # call price E[(L − c)₊] (+ q₊∞) of the pessimistic law is ≥ the optimistic one's (convex order)
    k = 12
    pess = allocation_law(0.9, k, Rounding.PESSIMISTIC)
    opt = allocation_law(0.9, k, Rounding.OPTIMISTIC)
    for node in (pess, opt):
        assert abs(node.w.sum() - 1.0) < 1e-10
        assert abs((node.w * node.t).sum() / k + node.q_inf - 1.0) < 1e-10
    for c in np.linspace(0.0, 5.0, 41):
        call_p = float(np.sum(pess.w * np.maximum(pess.t / k - c, 0.0))) + pess.q_inf
        call_o = float(np.sum(opt.w * np.maximum(opt.t / k - c, 0.0))) + opt.q_inf
        assert call_p >= call_o - 1e-12


def test_more_steps_amplify_more():
    # the random allocation over more steps hides the example better (both brackets move down together)
    a = epsilon_bracket(1.0, 4, 1, 1e-5)
    b = epsilon_bracket(1.0, 16, 1, 1e-5)
    assert b[1] < a[0]


def test_null_weight_mixes_the_null():
    # π = 1/2: Q' = (P + Q)/2; the profile δ' = δ(½(P+Q)‖P) is below δ(Q‖P) (joint convexity)
    c0 = compose_random_allocation(1.0, 4, 1)
    c1 = compose_random_allocation(1.0, 4, 1, null_weight=0.5)
    assert profile_bracket(c1, 0.5).pessimistic < profile_bracket(c0, 0.5).optimistic


@pytest.mark.parametrize("kw,field", [({"sigma": 0.0}, "noise_multiplier"), ({"steps": 0}, "steps per epoch"),
                                      ({"epochs": 1.5}, "epochs"), ({"null_weight": 1.0}, "null_weight")])
def test_bad_input_names_the_field(kw, field):
    args = {"sigma": 1.0, "steps": 4, "epochs": 1}
    null = kw.pop("null_weight", 0.0)
    args.update(kw)
    with pytest.raises(ValueError, match=field):
        compose_random_allocation(args["sigma"], args["steps"], args["epochs"], null_weight=null)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=8, deadline=None)
@given(sigma=st.floats(0.4, 4.0), k=st.integers(1, 7))
def test_law_sides_bracket_every_call_price(sigma, k):
    # law: the pessimistic law dominates the optimistic one in convex order (call prices, q₊∞ included), both
    # keep the masses of a pair, and the exact law sits between: its call price at c = 1 is checked against
    # a closed form at k = 1 (E[(Y − 1)₊] = Φ(1/(2σ)) − Φ(−1/(2σ)), the Gaussian TV)
    pess = allocation_law(sigma, k, Rounding.PESSIMISTIC)
    opt = allocation_law(sigma, k, Rounding.OPTIMISTIC)
    calls = []
    for node in (pess, opt):
        assert abs(node.w.sum() - 1.0) < 1e-10
        assert abs((node.w * node.t).sum() / k + node.q_inf - 1.0) < 1e-10
        calls.append([float(np.sum(node.w * np.maximum(node.t / k - c, 0.0))) + node.q_inf for c in (0.5, 1.0, 2.0)])
    assert all(p >= o - 1e-12 for p, o in zip(*calls))
    if k == 1:
        from scipy.stats import norm

        tv = norm.cdf(1 / (2 * sigma)) - norm.cdf(-1 / (2 * sigma))
        assert calls[1][1] - 1e-12 <= tv <= calls[0][1] + 1e-12
