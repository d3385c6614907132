"""The Gaussian R bracket summed in linear space (``Gaussian._bayes_error_directed``) contains mpmath's R, both ends.

The bracket's error analysis takes each log term's error e, weights it by the term's own size (Â·expm1(eₐ) +
B̂·expm1(e_b)) and uses the cheaper bounds ``ndtr_rel_coarse_raw`` and ``mills_bound_coarse``; the mpmath
test of tests/mechanisms/test_directed_rounding_f_r.py checks the lower end (the reported R) only, so here both
ends are checked against R at 50 digits ([BCP] eq 2 with the NP test), over μ from 1e-8 to 1e3 and π over
[0, 1] with its edges, and the bracket's relative width is held to the stated gap. Plus the laws of the two
coarse bounds (each ≥ the bound it replaces).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare import directed_rounding as rnd

mp = pytest.importorskip("mpmath", reason="mpmath gives the independent Bayes errors")
mp.mp.dps = 50

#: the bracket's relative width where R is a normal double (worst measured over these draws: see the test)
GAP = 1e-11


def _truth(mu, p):
    mu, p = mp.mpf(mu), mp.mpf(p)
    if p in (0, 1):
        return mp.mpf(0)
    lam = mp.log(p / (1 - p))
    return p * mp.ncdf(-lam / mu - mu / 2) + (1 - p) * mp.ncdf(lam / mu - mu / 2)


def _unit(rng) -> float:
    k = rng.integers(4)
    if k == 0:
        return float(10 ** rng.uniform(-320, -1))
    if k == 1:
        return float(1 - 10 ** rng.uniform(-16, -1))
    if k == 2:
        return float(rng.uniform(0, 1))
    return float(0.5 + rng.choice([-1, 1]) * 10 ** rng.uniform(-16, -1))


EDGES = [0.0, 5e-324, 1e-310, 1e-300, 1e-100, 1e-27, 1e-16, 0.01, 0.25, 0.4185, 0.5 - 2**-54, 0.5, 0.5 + 2**-53, 0.75,
         1 - 1e-12, 1 - 2**-53, 1.0]


def _check(mu, pis):
    lo, hi = dc.Gaussian(mu=mu)._bayes_error_directed(np.array(pis))
    for p, a, b in zip(pis, lo.tolist(), hi.tolist()):
        t = _truth(mu, p)
        assert mp.mpf(a) <= t <= mp.mpf(b), (mu, p, a, float(t), b)
        if t > mp.mpf(1e-300):
            assert (mp.mpf(b) - mp.mpf(a)) <= GAP * t, (mu, p, a, b, float((mp.mpf(b) - mp.mpf(a)) / t))


@pytest.mark.parametrize("mu", [1e-8, 1e-3, 0.25, 1.0, 10.0, 37.0, 1e3])
def test_both_ends_at_the_edges(mu):
    _check(mu, EDGES)


def test_both_ends_on_seeded_draws():
    rng = np.random.default_rng(2026)
    for _ in range(60):
        mu = float(10 ** rng.uniform(-8, 3))
        _check(mu, [_unit(rng) for _ in range(5)])


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e300, 1e300))
def test_coarse_bounds_are_above_the_fine_ones(z):
    z = np.array([z])
    fine = rnd.ndtr_rel(z)[0]  # (not finite where its 8·(1 + z²) overflows: |z| ≳ 1.5e153)
    assert not np.isfinite(fine) or rnd.ndtr_rel_coarse_raw(z)[0] >= fine
    assert rnd.mills_bound_coarse(z)[0] >= rnd.mills_bound(z)[0]
