"""δ(ε) of discrete pairs with more than 16 atoms, rounded outwards: never below (exact and pessimistic
pairs) or above (optimistic pairs) the real-number δ of the pair as stored.

Reference: mpmath at 50 digits of δ(ε) = q₊∞ + Σ_{ℓᵢ>ε} qᵢ(1 − e^{ε−ℓᵢ}) ([BCP] eq 25) from the stored
(ℓᵢ, log pᵢ, log qᵢ), independent of the tail sums and log-space sums under test. Before the outward
rounding about 47 % of 2700 such draws were on the wrong side, by up to 2.5e-12 relative.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpcompare.tradeoff import DiscretePair
from dpcompare.tradeoff.pair import DIRECTED_ATOMS, Rounding

mp.mp.dps = 50
#: stated pessimistic gap: the tail-sum read-out is used only where its bound is ≤ 1e-12 of δ (TAIL_RTOL), and the
#: log-space sum's bound is (136 + log₂ n + |log qᵢ| + |log δ| + …)·u; measured ≤ 9.8e-13 over 2700 draws
GAP = mp.mpf(5e-12)


def _truth(pair: DiscretePair, e: float):
    lq = pair.log_q
    tot = mp.mpf(pair.q_pos_inf)
    big_e = mp.mpf(e)
    for i, loss in enumerate(pair.loss):
        if loss > e:
            q = mp.exp(mp.mpf(lq[i])) if pair.exact_log_q is not None else mp.exp(mp.mpf(pair.log_p[i]) + mp.mpf(loss))
            tot += q * (1 - mp.exp(big_e - mp.mpf(loss)))
    return min(tot, mp.mpf(1))  # a stored total of 1 + 1e-16 is a mass of 1: δ ≤ 1


def _pair(rng) -> DiscretePair:
    n = int(rng.integers(DIRECTED_ATOMS + 1, 300))
    kind = rng.integers(3)
    if kind == 0:  # a discretised Gaussian pair (the FFT engines' kind)
        mu = float(10 ** rng.uniform(-1, 1))
        x = np.linspace(-8, 8 + mu, n)
        p, q = np.exp(-x**2 / 2), np.exp(-(x - mu) ** 2 / 2)
        pair = DiscretePair.from_masses(p / p.sum(), q / q.sum())  # exact_log_q set
    elif kind == 1:
        pair = DiscretePair.from_masses(rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n)))
    else:  # masses down to e^{−800} (the log-space path) and a Q-mass at +∞
        lp = rng.uniform(-800, -1, n)
        lp -= np.logaddexp.reduce(lp) - math.log(0.5)
        lq = rng.uniform(-800, -1, n)
        lq -= np.logaddexp.reduce(lq) - math.log(0.5)
        q_inf = float(10 ** rng.uniform(-300, -1)) * float(rng.integers(2))
        pair = DiscretePair.from_atoms(lq - lp, lp, q_pos_inf=q_inf)  # log q = log p + ℓ
    rounding = [Rounding.EXACT, Rounding.PESSIMISTIC, Rounding.OPTIMISTIC][int(rng.integers(3))]
    return DiscretePair(pair.loss, pair.log_p, pair.p_neg_inf, pair.q_pos_inf, rounding, exact_log_q=pair.exact_log_q)


@pytest.mark.parametrize("seed", [0, 1])
def test_large_pair_delta_is_rounded_outwards(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        pair = _pair(rng)
        assert pair.size > DIRECTED_ATOMS
        picks = pair.loss[rng.integers(0, pair.size, 5)]
        eps = np.concatenate([rng.uniform(pair.loss[0] - 1, pair.loss[-1] + 0.1, 8),
                              picks * (1 - 10 ** rng.uniform(-15, -3, 5)), [pair.loss[-1], 750.0]])
        got = pair.delta(eps)
        for e, g in zip(eps, got):
            t, g = _truth(pair, float(e)), mp.mpf(float(g))
            if pair.rounding is Rounding.OPTIMISTIC:
                assert g <= t, (pair.size, float(e), float(g), float(t))
            else:
                assert g >= t, (pair.size, float(e), float(g), float(t))
            if t > mp.mpf(1e-300):
                assert abs(g - t) <= GAP * t, (pair.size, float(e), float(g), float(t))
        # the scalar call takes the same path
        e0 = float(eps[0])
        assert float(pair.delta(e0)) == float(pair.delta(np.array([e0]))[0])


def test_large_pair_delta_above_the_largest_loss_is_q_pos_inf_exactly():
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(40)), rng.dirichlet(np.ones(40))
    q[0] += 0.01
    q /= q.sum()
    pair = DiscretePair.from_masses(np.append(p, 0.0), np.append(q * 0.9, 0.1))
    assert pair.size > DIRECTED_ATOMS
    assert float(pair.delta(pair.loss[-1])) == pair.q_pos_inf == float(pair.delta(1e6))


def test_pinned_large_pair_delta_that_was_below_the_truth():
    # a discretised G_1 pair of 200 atoms: the plain tail-sum value was below the mpmath δ at ε = 0 and 4
    # (by 2.1e-16 and 6.8e-17 relative)
    x = np.linspace(-8, 9, 200)
    p, q = np.exp(-x**2 / 2), np.exp(-(x - 1) ** 2 / 2)
    pair = DiscretePair.from_masses(p / p.sum(), q / q.sum())
    for e in (0.0, 4.0):
        assert mp.mpf(float(pair.delta(e))) >= _truth(pair, e), e


def test_many_epsilons_in_one_pass_are_rounded_outwards():
    """More than 8 ε needing the log-space sum at once take the one-pass suffix sums (``log_delta_many``),
    rounded outwards by their own bound: still on the safe side of the 50-digit truth, within 1e-10."""
    rng = np.random.default_rng(7)
    for k in range(6):
        n = 200
        lp = rng.uniform(-800, -1, n)
        lp -= np.logaddexp.reduce(lp) - math.log(0.5)
        lq = rng.uniform(-800, -1, n)
        lq -= np.logaddexp.reduce(lq) - math.log(0.5)
        base = DiscretePair.from_atoms(lq - lp, lp, q_pos_inf=1e-200 * (k % 2))
        rounding = [Rounding.PESSIMISTIC, Rounding.OPTIMISTIC, Rounding.EXACT][k % 3]
        pair = DiscretePair(base.loss, base.log_p, base.p_neg_inf, base.q_pos_inf, rounding, exact_log_q=base.exact_log_q)
        eps = np.sort(rng.uniform(pair.loss[0] - 1, pair.loss[-1], 40))
        got = pair.delta(eps)
        for e, g in zip(eps, got):
            t, g = _truth(pair, float(e)), mp.mpf(float(g))
            assert (g <= t) if rounding is Rounding.OPTIMISTIC else (g >= t), (k, float(e), float(g), float(t))
            if t > mp.mpf(1e-300):
                assert abs(g - t) <= mp.mpf(1e-10) * t, (k, float(e), float(g), float(t))
