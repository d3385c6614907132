"""ε(δ) with a per-threshold η(ε) where δ is certified only beyond the pair's last atom: above it δ(ε) is constant
(q₊∞) but η(ε) still falls, so the answer is where η(ε) + q₊∞ first meets δ — not ∞ (what the reader gave when η at
the last atom was a hair above δ, as a CI machine's last digits made it for (σ, p, N) = (0.5, 1e-4, 100), δ = 1e-13)."""

from __future__ import annotations

import math

import numpy as np

from dpcompare.composition.sgm_certified import pair_epsilon
from dpcompare.tradeoff import DiscretePair


def test_the_answer_beyond_the_last_atom_is_found():
    pair = DiscretePair.from_masses([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])  # losses −0.92, 0, 0.92; no mass at ±∞
    top = float(pair.loss[-1])

    def eta_at(e):  # a per-threshold bound falling in ε, 1e-3 at ε = 0
        return 1e-3 * np.exp(-np.asarray(e, dtype=float))

    delta = 1e-5
    assert float(eta_at(top)) > delta  # at the last atom η alone exceeds δ; the scalar η = η(0) too
    eps = pair_epsilon(pair, float(eta_at(0.0)), delta, eta_at=eta_at)
    truth = math.log(1e-3 / delta)  # δ(ε) = 0 above the last atom: η(ε) = δ there (4.605)
    assert math.isfinite(eps) and truth <= eps <= truth * (1 + 1e-8)
    assert max(float(pair.delta(eps)), float(pair.swap().delta(eps))) + float(eta_at(eps)) <= delta  # certified


def test_no_answer_where_eta_never_falls_below_delta():
    pair = DiscretePair.from_masses([0.5, 0.5], [0.25, 0.75])
    eps = pair_epsilon(pair, 2e-5, 1e-5, eta_at=lambda e: 2e-5 + 0.0 * np.asarray(e, dtype=float))
    assert eps == math.inf
