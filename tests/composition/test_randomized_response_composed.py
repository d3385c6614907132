"""composition/randomized_response.py: the exact multinomial N-fold pair and the certified lattice composition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.composition.randomized_response import composed_randomized_response_pair, randomized_response_lattice
from dpcompare.mechanisms.gaussian_mixture import ComposedGaussianMixture


def _brute_delta(p: float, k: int, n: int, eps: float) -> float:
    """δ(ε) of n steps by enumerating all kⁿ outputs (inputs 0 and 1; the event's definition)."""
    keep, other = 1 - p + p / k, p / k
    p1 = [keep] + [other] * (k - 1)
    q1 = [other, keep] + [other] * (k - 2)
    return sum(max(0.0, math.prod(q1[o] for o in out) - math.exp(eps) * math.prod(p1[o] for o in out))
               for out in itertools.product(range(k), repeat=n))


@pytest.mark.parametrize(("p", "k", "n"), [(0.5, 2, 6), (0.3, 3, 4), (0.9, 5, 3)])
def test_exact_pair_matches_enumeration(p, k, n):
    pair = composed_randomized_response_pair(p, k, n)
    for eps in (0.0, 0.7, 2.5):
        assert float(pair.delta(eps)) == pytest.approx(_brute_delta(p, k, n, eps), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize(("k", "n"), [(4, 50), (2, 30), (3, 7)])
def test_lattice_composition_brackets_the_exact_pair(k, n):
    lattice = ComposedGaussianMixture(randomized_response_lattice(0.9, k), n)
    exact = composed_randomized_response_pair(0.9, k, n)
    eps = np.array([0.0, 1.0, 3.0, 10.0])
    lo, hi = lattice.delta_bounds(eps)
    truth = exact.delta(eps)
    assert np.all(lo <= truth + 1e-15) and np.all(truth <= hi + 1e-15)
    assert np.all(hi - lo <= 1e-10)


def test_many_compositions_take_the_certified_route():
    from dp_accounting import dp_event as e

    from dpcompare.mechanisms.events import Guarantee

    m = dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.9, 4), 5000))  # ∞ through the PLD before
    assert m.guarantee is Guarantee.CERTIFIED and math.isfinite(float(m.epsilon(1e-5)))
    # continuity at the switch from the exact to the certified route (one more step adds less than 0.1)
    a = float(dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.9, 4), 2000)).epsilon(1e-5))
    b = float(dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.9, 4), 2001)).epsilon(1e-5))
    assert a <= b <= a + 0.1
