"""The fused layouts of the closed-form Bayes error brackets return the doubles of the term-by-term formulas.

``Gaussian._bayes_error_directed`` runs its two terms as the rows of (2, n) arrays and rounds both ends at once
(v ∓ the bound as the rows of one array); ``Laplace._bayes_error_directed`` rounds its two ends at once; and
``bayes_error_interval`` skips the clip/check pass for a bracket already in [0, min(π, 1 − π)]. None of this may
move a double: the references below are the straightforward one-sided formulas (the code before the fusion,
with ``lower_raw``/``upper_raw``), compared bit for bit (``np.array_equal``; the bracket's soundness against
mpmath is tests/mechanisms/test_directed_rounding_f_r.py's and, both ends of the Gaussian's,
tests/mechanisms/test_gaussian_r_linear_sum.py's, which carries over to identical doubles).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc
from dpcompare import directed_rounding as rnd
from dpcompare._numerics import log_ndtr
from dpcompare.directed_rounding import ELEM, TINY, U
from dpcompare.mechanisms.base import Mechanism


def _gaussian_reference(mu: float, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Gaussian R bracket term by term ([aₐ, a_b] concatenated, each term's error weighted by the term, one-sided
    lower/upper rounding of v ∓ the bound)."""
    pi = np.asarray(pi, dtype=float).ravel()
    n = pi.size

    def twice(x):
        return np.concatenate((x, x))

    with np.errstate(all="ignore"):
        lp, lq = np.log(pi), np.log1p(-pi)
        mid = np.abs(pi - 0.5) <= 0.25
        lam = np.where(mid, np.log1p((2.0 * pi - 1.0) / (1.0 - pi)), lp - lq)
        ratio = lam / mu
        z = np.concatenate((-0.5 * mu - ratio, ratio - 0.5 * mu))
        logw = np.concatenate((lp, lq))
        terms = logw + log_ndtr(z)
        lin = np.exp(terms)
        v = lin[:n] + lin[n:]
        alam = np.abs(lam)
        dlam = np.where(mid, (ELEM + 5.0 * U) * alam, ELEM * (np.abs(lp) + np.abs(lq)) + U * alam)
        d = 1.01 * (twice(dlam / mu) + U * (twice(np.abs(ratio)) + np.abs(z)))
        elog, eterm = ELEM * np.abs(logw), U * np.abs(terms)
        e = elog + rnd.ndtr_rel_coarse_raw(z) + rnd.mills_bound_coarse(z - d) * d + eterm
        e = np.where(z == np.inf, elog + eterm, e)
        err = np.where(lin > 0.0, np.expm1(e), 0.0) * lin
        bound = 1.01 * (err[:n] + err[n:] + (ELEM + 2.0 * U) * v) + 16.0 * TINY
        m = bound * (1.0 + 8.0 * U) + 2.0 * TINY
        lo = np.maximum(np.nextafter(v - m, -np.inf), 0.0)
        hi = np.nextafter(v + m, np.inf)
    exact = (pi <= 0.0) | (pi >= 1.0)
    lo = np.where(exact, 0.0, lo)
    hi = np.where(exact, 0.0, np.minimum(hi, np.minimum(pi, 1.0 - pi)))
    return lo, hi


def _laplace_reference(m: float, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Laplace R bracket with one-sided lower/upper rounding of each end."""
    pi = np.asarray(pi, dtype=float).ravel()
    om = rnd.one_minus_down(np.clip(pi, 0.0, 1.0))
    r = 1.01 * (2.0 * ELEM + 4.0 * U + U * 0.5 * m)
    with np.errstate(all="ignore"):
        scale = np.exp(-0.5 * m)
        mid = scale * np.sqrt(pi * om)
        lo = np.minimum(np.minimum(pi, om), rnd.lower_raw(mid, r, 2.0 * TINY, 0.0))
        q = 1.0 - pi
        hi_mid = rnd.upper_raw(scale * np.sqrt(pi * q), r + 2.0 * U, 2.0 * TINY, None)
        hi = np.minimum(np.minimum(pi, q), hi_mid)
    return lo, np.maximum(hi, lo)


def _priors(seed: int) -> np.ndarray:
    """Uniform, log-uniform down to the subnormals, near 1 and near ½, and the exact ends."""
    rng = np.random.default_rng(seed)
    lg = 10.0 ** rng.uniform(-320, 0, 2000)
    ext = [0.0, 1.0, 0.5, 5e-324, 1e-300, 0.25, 0.75, np.nextafter(0.25, 0), np.nextafter(0.75, 1), 1 - 2**-53,
           np.nextafter(0.5, 0), np.nextafter(0.5, 1)]
    return np.concatenate([rng.random(3000), lg, 1.0 - lg, 0.5 + (rng.random(500) - 0.5) * 1e-9, ext])


@pytest.mark.parametrize("mu", [1e-300, 1e-8, 1e-3, 0.5, 1.0, 3.0, 37.0, 1e3])
def test_gaussian_rows_layout_is_the_term_by_term_bracket(mu):
    pi = _priors(1)
    lo, hi = dc.Gaussian(mu=mu)._bayes_error_directed(pi)
    rlo, rhi = _gaussian_reference(mu, pi)
    assert np.array_equal(lo, rlo) and np.array_equal(hi, rhi)


@pytest.mark.parametrize("b", [1e-3, 0.1, 1.0, 3.0, 100.0])
def test_laplace_two_rows_are_the_one_sided_bracket(b):
    pi = _priors(2)
    mech = dc.Laplace(b=b)
    lo, hi = mech._bayes_error_directed(pi)
    rlo, rhi = _laplace_reference(mech.m, pi)
    assert np.array_equal(lo, rlo) and np.array_equal(hi, rhi)


@pytest.mark.parametrize("mech", [dc.Gaussian(mu=1e-8), dc.Gaussian(mu=1.0), dc.Gaussian(mu=40.0),
                                  dc.Laplace(b=1e-3), dc.Laplace(b=1.0)], ids=repr)
def test_interval_fast_path_is_the_clipped_checked_bracket(mech):
    """``_directed_r_in_range``: the bracket is in [0, min(π, 1 − π)] and ordered, so skipping the base class's
    clip/check pass (``Mechanism.bayes_error_interval``) returns its doubles; shapes and scalar types too."""
    pi = _priors(3)
    lo, hi = mech._bayes_error_directed(pi)
    assert (lo >= 0).all() and (lo <= hi).all() and (hi <= np.minimum(pi, 1.0 - pi)).all()
    fast, general = mech.bayes_error_interval(pi), Mechanism.bayes_error_interval(mech, pi)
    assert all(np.array_equal(f, g) for f, g in zip(fast, general))
    for p in (np.asarray(0.3), np.asarray(0.0), np.asarray([[0.1, 0.4], [0.5, 1e-200]])):
        fast, general = mech.bayes_error_interval(p), Mechanism.bayes_error_interval(mech, p)
        for f, g in zip(fast, general):
            assert type(f) is type(g) and np.shape(f) == np.shape(g) and np.array_equal(f, g)


def test_outward_raw_rows_are_lower_raw_and_upper_raw():
    rng = np.random.default_rng(4)
    v = np.concatenate([rng.random(500), 10.0 ** rng.uniform(-323, 0, 500), [0.0, np.inf, np.nan, 5e-324, 1.0]])
    rel = np.stack([10.0 ** rng.uniform(-17, -10, v.size), 10.0 ** rng.uniform(-17, -10, v.size)])
    rel[:, :3] = 0.0
    with np.errstate(all="ignore"):
        for abs_ in (0.0, 2.0 * TINY, 1e-300):
            fin = np.isfinite(v)
            both = rnd.outward_raw(v, rel, abs_, fin)
            lo = rnd.lower_raw(v, rel[0], abs_, None, fin)
            hi = rnd.upper_raw(v, rel[1], abs_, None, fin)
            assert np.array_equal(both[0], lo, equal_nan=True) and np.array_equal(both[1], hi, equal_nan=True)


def test_unchecked_pair_follows_an_overridden_directed_bracket():
    """``bayes_error_interval_unchecked`` runs ``_bayes_error_directed_raw`` (the body without its errstate) only
    where that is the class's ``_bayes_error_directed``: a subclass overriding the latter alone gets its own pair."""

    class Halved(dc.Gaussian):
        def _bayes_error_directed(self, pi):
            lo, hi = super()._bayes_error_directed(pi)
            return 0.5 * lo, hi

    pi = np.linspace(0.0, 0.5, 9)
    with np.errstate(all="ignore"):  # (the caller's errstate, as the prior sweep gives it)
        got = Halved(mu=1.0).bayes_error_interval_unchecked(pi)
        plain = dc.Gaussian(mu=1.0).bayes_error_interval_unchecked(pi)
    want = Halved(mu=1.0)._bayes_error_directed(pi)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.array_equal(plain[0], dc.Gaussian(mu=1.0)._bayes_error_directed(pi)[0])
    assert not np.array_equal(got[0], plain[0])  # (the override is seen: the test can fail)
