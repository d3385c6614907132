"""``l_f_bounds`` of an exact pair contains the F-divergence of the pair *as stored* (a reviewer's counterexample).

A :class:`DiscretePair` stores (loss, log_p); its masses are the real numbers pₖ = e^{log pₖ}, qₖ = e^{log pₖ + ℓₖ}
(the convention of ``DiscretePair.delta``, whose error bound charges exp's rounding and the rounding of
log pₖ + ℓₖ). ``l_f_rounding`` bounded only the rounding of ``l_f``'s arithmetic on the doubles ``pair.p``,
``pair.q`` = fl(exp(·)), not their own rounding (≈ u·(2 + |log q|) relative per mass). For TV that is a per-atom
error ≈ u·(pₖ + qₖ), not proportional to the bound's |pₖ − qₖ|: on a pair with losses ±1e-9 the bracket had width
≈ 1e-25 and missed the exact TV by ≈ 4e-18 (≈ 1e-8 relative); it now charges (|log m| + 8)·u·m per mass.

Reference: the exact TV ½Σ|e^{log pₖ} − e^{log qₖ}| + ½(p₋∞ + q₊∞) of the stored doubles in 50-digit mpmath.
"""

from __future__ import annotations

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath", reason="the exact reference sum needs mpmath")

from dpcompare.mixtures.f_divergences import TV, l_f_bounds  # noqa: E402
from dpcompare.tradeoff import DiscretePair  # noqa: E402


def _near_identity_pair(seed: int, m: int = 20, scale: float = 1e-9) -> DiscretePair:
    """m randomized-response blocks of weight wₖ and loss ±dₖ (dₖ ~ 1e-9): a valid pair (P and Q sum to 1)."""
    rng = np.random.default_rng(seed)
    w = rng.random(m)
    w /= w.sum()
    d = np.abs(rng.normal(0.0, scale, m)) + scale / 10
    loss = np.concatenate([-d, d])
    lp = np.concatenate([np.log(w) + d - np.log1p(np.exp(d)), np.log(w) - np.log1p(np.exp(d))])
    order = np.argsort(loss)
    return DiscretePair(loss[order], lp[order])


def _exact_tv(pair: DiscretePair):
    mpmath.mp.dps = 50
    p = [mpmath.exp(mpmath.mpf(float(x))) for x in pair.log_p]
    q = [mpmath.exp(mpmath.mpf(float(x))) for x in pair.log_q]
    return sum(abs(a - b) for a, b in zip(p, q)) / 2 + (mpmath.mpf(pair.p_neg_inf) + mpmath.mpf(pair.q_pos_inf)) / 2


@pytest.mark.parametrize("seed", range(8))
def test_tv_bracket_contains_the_stored_pairs_tv(seed):
    pair = _near_identity_pair(seed)
    lo, hi = l_f_bounds(pair, TV)
    truth = _exact_tv(pair)
    assert lo <= truth <= hi, (lo, hi, mpmath.nstr(truth, 20))
