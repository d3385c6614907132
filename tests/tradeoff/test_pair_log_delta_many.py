"""tradeoff/pair.py: δ(ε) for many ε at once in log space (``log_delta_many``, ``log_suffix_sums``).

The truth is the definition δ(ε) = q₊∞ + Σ_{ℓᵢ>ε} qᵢ(1 − e^{ε−ℓᵢ}) ([BCP] eq 25) summed in 40-digit mpmath.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.tradeoff.pair import DiscretePair, log_suffix_sums

mp = pytest.importorskip("mpmath", reason="mpmath is the independent truth")


def _random_pair(rng: np.random.Generator, n: int, spread: float, q_inf: float) -> DiscretePair:
    loss = np.unique(rng.uniform(-50.0, spread, n))
    log_p = rng.uniform(-30.0, 0.0, loss.size) - np.maximum(loss, 0.0)  # far-tail atoms: P-masses down to e^−(spread+30)
    log_p -= np.logaddexp.reduce(np.logaddexp(log_p, log_p + loss)) + 0.1
    return DiscretePair(loss, log_p, None, q_inf)


def _mp_log_delta(pair: DiscretePair, eps: float) -> float:
    mp.mp.dps = 40
    terms = [mp.exp(mp.mpf(float(lq))) * (1 - mp.exp(mp.mpf(eps) - mp.mpf(float(l))))
             for l, lq in zip(pair.loss, pair.log_q) if l > eps]
    total = mp.fsum(terms) + mp.mpf(pair.q_pos_inf)
    return float(mp.log(total)) if total > 0 else -math.inf


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_log_delta_many_matches_mpmath(seed):
    rng = np.random.default_rng(seed)
    pair = _random_pair(rng, 400, 800.0, [0.0, 1e-7, 0.0][seed - 1])
    eps = np.concatenate([rng.uniform(-10.0, 850.0, 40), pair.loss[rng.integers(pair.size, size=5)]])
    got = pair.log_delta_many(eps)
    for e, g in zip(eps, got):
        want = _mp_log_delta(pair, float(e))
        if math.isinf(want):
            assert g == -math.inf
        else:
            assert g == pytest.approx(want, abs=1e-12 * max(1.0, abs(want)))


def test_log_delta_many_agrees_with_the_scalar_log_space_sum():
    rng = np.random.default_rng(7)
    pair = _random_pair(rng, 3000, 800.0, 0.0)
    eps = rng.uniform(-10.0, 900.0, 300)
    many = pair.log_delta_many(eps)
    one = np.array([pair.log_delta(float(e)) for e in eps])
    assert np.array_equal(np.isfinite(many), np.isfinite(one))
    fin = np.isfinite(one)
    assert np.allclose(many[fin], one[fin], rtol=0, atol=1e-12 * np.max(np.abs(one[fin])))


def test_delta_of_a_large_pair_takes_the_vectorised_route(monkeypatch):
    """``delta`` at many ε where the tail sums cancel goes through ``log_delta_many`` (one pass), not a
    per-ε ``log_delta`` (an O(n) sum each: 57 543 calls took 60 s in the deep API fuzz)."""
    rng = np.random.default_rng(3)
    pair = _random_pair(rng, 2000, 800.0, 0.0)
    calls, many = [], []
    vectorised = DiscretePair.log_delta_many
    monkeypatch.setattr(DiscretePair, "log_delta", lambda self, e: calls.append(e) or 0.0)
    monkeypatch.setattr(DiscretePair, "log_delta_many", lambda self, e: many.append(np.size(e)) or vectorised(self, e))
    eps = np.linspace(0.0, 900.0, 5000)
    out = pair.delta(eps)
    assert not calls and many and many[0] > 1000 and np.all((out >= 0) & (out <= 1))


def test_log_suffix_sums_across_a_wide_dynamic_range():
    rng = np.random.default_rng(5)
    x = rng.uniform(-3000.0, 0.0, 1000)
    x[::7] = -np.inf
    got = log_suffix_sums(x)
    mp.mp.dps = 30
    for k in range(0, 1000, 37):
        want = mp.log(mp.fsum(mp.exp(mp.mpf(float(v))) for v in x[k:] if np.isfinite(v)))
        assert got[k] == pytest.approx(float(want), abs=1e-13 * abs(float(want)))
    assert got[-1] == -math.inf and log_suffix_sums(np.array([])).tolist() == [-math.inf]
