"""The crossing seeds of the prior sweep (``prior_sweep.crossing_seeds``) and the estimates they are built from.

The seeds only place points: every sign ``crossings`` reads is still a certified bracket. So the tests check
(1) the plain estimates of R and R′ of the Gaussian and the Laplace against mpmath at 40 digits (R from
[BCP] eq 2 with the NP test, R′ by mpmath's numerical derivative); (2) that ``compare`` with the seeds reports
the crossings the refinement rounds found without them, within the certified xtol, and that each reported
crossing lies within xtol of mpmath's root; (3) that a wrong estimate costs only time (the rounds run and
find the true root); (4) that for Gaussian(1) against Laplace(1) no refinement round is needed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.comparison import prior_sweep as ps

mp = pytest.importorskip("mpmath", reason="mpmath gives the independent Bayes errors and roots")
mp.mp.dps = 40

XTOL = 1e-13


def _r_gauss(p, mu):
    p, mu = mp.mpf(p), mp.mpf(mu)
    lam = mp.log(p / (1 - p))
    return p * mp.ncdf(-lam / mu - mu / 2) + (1 - p) * mp.ncdf(lam / mu - mu / 2)


def _r_laplace(p, m):
    p = mp.mpf(p)
    return min(p, 1 - p, mp.e ** (-mp.mpf(m) / 2) * mp.sqrt(p * (1 - p)))


PIS = [1e-6, 0.01, 0.1, 0.2, 0.3, 0.4185, 0.45, 0.5]


@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("pi", PIS)
def test_gaussian_estimates_against_mpmath(mu, pi):
    g = dc.Gaussian(mu=mu)
    r, s = g.bayes_error_and_slope(pi)
    truth = _r_gauss(pi, mu)
    assert abs(r - float(truth)) <= 1e-13 * float(truth)
    assert abs(float(g.bayes_error_estimate(np.array([pi]))[0]) - float(truth)) <= 1e-13 * float(truth)
    slope = mp.diff(lambda q: _r_gauss(q, mu), mp.mpf(pi))
    assert abs(s - float(slope)) <= 1e-12 * max(1.0, abs(float(slope)))


@pytest.mark.parametrize("b", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("pi", PIS)
def test_laplace_estimates_against_mpmath(b, pi):
    lap = dc.Laplace(b=b)
    r, s = lap.bayes_error_and_slope(pi)
    truth = _r_laplace(pi, lap.m)
    assert abs(r - float(truth)) <= 1e-14 * float(truth)
    assert abs(float(lap.bayes_error_estimate(np.array([pi]))[0]) - float(truth)) <= 1e-14 * float(truth)
    kink = 1.0 / (1.0 + math.exp(lap.m))
    if abs(pi - kink) > 1e-6:  # R′ jumps at the kink
        slope = mp.diff(lambda q: _r_laplace(q, lap.m), mp.mpf(pi))
        assert abs(s - float(slope)) <= 1e-12 * max(1.0, abs(float(slope)))


def _root(mu, m, guess):
    return float(mp.findroot(lambda p: _r_gauss(p, mu) - _r_laplace(p, m), mp.mpf(guess)))


def _unseeded_crossings(a, b):
    g, _ = ps.sweep(a, b, [ps.MaxTarget(False), ps.MaxTarget(True)], tol=1e-12)
    return ps.crossings(a, b, g)


def test_gaussian_laplace_crossing_against_mpmath_without_rounds(monkeypatch):
    a, b = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
    calls = []
    orig = ps._signs
    monkeypatch.setattr(ps, "_signs", lambda *args, **kw: calls.append(1) or orig(*args, **kw))
    c = dc.compare(a, b, tol=1e-3)
    assert calls == []  # the seeded first grid brackets the root: no refinement round
    root = _root(1.0, b.m, 0.4185)  # mpmath, 40 digits: 0.41853937663701369…
    assert len(c.crossings) == 2
    assert abs(c.crossings[0] - root) <= XTOL and abs(c.crossings[1] - (1.0 - root)) <= XTOL
    old = _unseeded_crossings(a, b)
    assert all(abs(x - y) <= XTOL for x, y in zip(c.crossings, old)) and len(old) == 2


def test_seeds_of_mechanisms_without_estimates_are_empty():
    assert ps.crossing_seeds(dc.Gaussian(mu=1.0), dc.RandomizedResponse(1.0)).size == 0
    assert ps.crossing_seeds(dc.Gaussian(mu=1.0), dc.Gaussian(mu=2.0)).size == 0  # no sign change: no root


class _OffGaussian(dc.Gaussian):
    """A Gaussian whose plain estimates are wrong (R + 1e-6): its seeds miss the root by ≈ 1e-5."""

    def bayes_error_and_slope(self, pi):
        r, s = super().bayes_error_and_slope(pi)
        return r + 1e-6, s


def test_a_wrong_estimate_costs_only_time():
    a, b = _OffGaussian(mu=1.0), dc.Laplace(b=1.0)
    seeds = ps.crossing_seeds(a, b)
    root = _root(1.0, b.m, 0.4185)
    assert seeds.size and abs(float(np.median(seeds)) - root) > 1e-7  # the seed is far off
    c = dc.compare(a, b, tol=1e-3)
    assert len(c.crossings) == 2 and abs(c.crossings[0] - root) <= XTOL


@settings(max_examples=25, deadline=None)
@given(mu=st.floats(0.2, 4.0), b=st.floats(0.25, 4.0))
def test_seeded_crossings_match_the_refinement_rounds(mu, b):
    a, lap = dc.Gaussian(mu=mu), dc.Laplace(b=b)
    new = dc.compare(a, lap, tol=1e-3).crossings
    old = _unseeded_crossings(a, lap)
    assert len(new) == len(old)
    assert all(abs(x - y) <= 2 * XTOL for x, y in zip(new, old))  # each within xtol of the same root


class _RaisingGaussian(dc.Gaussian):
    """A Gaussian whose scalar estimate raises (a ``math`` domain error): no seeds, the rounds find the root."""

    def bayes_error_and_slope(self, pi):
        raise ValueError("math domain error")


def test_an_estimate_that_raises_gives_no_seed():
    a, b = _RaisingGaussian(mu=1.0), dc.Laplace(b=1.0)
    assert ps.crossing_seeds(a, b).size == 0
    c = dc.compare(a, b, tol=1e-3)
    root = _root(1.0, b.m, 0.4185)
    assert len(c.crossings) == 2 and abs(c.crossings[0] - root) <= XTOL
