"""composition/randomized_response.py ``compose_randomized_response``: every δ(ε) and Bayes error of the composed
pair lies within its stated η of the true N-fold k-ary randomized response, evaluated in mpmath at 50 digits
from the double noise parameter (keep = 1 − p + p/k and o = p/k exactly, multinomial sums)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition.randomized_response import compose_randomized_response

mp = pytest.importorskip("mpmath", reason="mpmath is the reference for the composed randomized response")


def _truth_atoms(p: float, k: int, n: int):
    """[(m, P-mass, Q-mass)] of the N-fold pair: i outputs a, j outputs b, r others; m = j − i."""
    with mp.workdps(50):
        pp = mp.mpf(p)
        o = pp / k
        keep = 1 - pp + o
        rest = (k - 2) * o
        atoms: dict[int, list] = {}
        for i in range(n + 1):
            for j in range(n + 1 - i):
                r = n - i - j
                if k == 2 and r:
                    continue
                c = mp.factorial(n) / (mp.factorial(i) * mp.factorial(j) * mp.factorial(r))
                pm = c * keep**i * o**j * rest**r
                qm = c * o**i * keep**j * rest**r
                a = atoms.setdefault(j - i, [mp.mpf(0), mp.mpf(0)])
                a[0] += pm
                a[1] += qm
        return [(m, v[0], v[1]) for m, v in sorted(atoms.items())]


@pytest.mark.parametrize(("p", "k", "n"), [(0.9, 2, 400), (0.3, 2, 60), (0.3, 3, 40), (0.9, 5, 30), (0.05, 4, 25)])
def test_delta_and_bayes_error_within_eta_of_mpmath(p, k, n):
    pair, eta = compose_randomized_response(p, k, n)
    assert 0 < eta < 1e-10
    atoms = _truth_atoms(p, k, n)
    with mp.workdps(50):
        big_l = mp.log((1 - mp.mpf(p) + mp.mpf(p) / k) / (mp.mpf(p) / k))
        for eps in (0.0, 0.5, 2.0, 6.0):
            truth = sum(max(mp.mpf(0), q - mp.exp(eps) * pm) for m, pm, q in atoms if m * big_l > eps)
            assert abs(mp.mpf(float(pair.delta(eps))) - truth) <= eta, eps
        for pi in (0.1, 0.5, 0.77):
            truth = sum(min(pi * pm, (1 - mp.mpf(pi)) * q) for _, pm, q in atoms)
            assert abs(mp.mpf(float(pair.bayes_error(pi))) - truth) <= eta, pi


def test_the_event_route_brackets_the_truth():
    pytest.importorskip("dp_accounting", reason="the DpEvent front end needs dp-accounting")
    from dp_accounting import dp_event as e

    import dpcompare as dc

    m = dc.FromDpEvent(e.SelfComposedDpEvent(e.RandomizedResponseDpEvent(0.3, 3), 40))
    atoms = _truth_atoms(0.3, 3, 40)
    with mp.workdps(50):
        big_l = mp.log((1 - mp.mpf(0.3) + mp.mpf(0.3) / 3) / (mp.mpf(0.3) / 3))
        for eps in (0.0, 1.0, 3.0):
            truth = sum(max(mp.mpf(0), q - mp.exp(eps) * pm) for mm, pm, q in atoms if mm * big_l > eps)
            b = m.delta_bounds(eps)
            assert mp.mpf(float(b.optimistic)) <= truth <= mp.mpf(float(b.pessimistic))
            assert float(b.pessimistic) - float(b.optimistic) < 1e-11


def test_large_binary_count_error_grows_with_n_but_stays_small():
    # N = 10⁶ binary steps (the largest the exact route serves): η covers the one-step inputs' rounding
    # N times over (≈ 2N·u·|log| ≈ 1e-8), and is reported, not hidden
    _, eta = compose_randomized_response(0.5, 2, 10**6)
    assert 1e-10 < eta < 1e-7
    assert math.isfinite(eta)
