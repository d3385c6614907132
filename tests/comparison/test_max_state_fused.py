"""The prior sweep's fused paths return the doubles of the plain formulas, bit for bit.

* ``_lines`` fills the missing secants' placeholders first and copies the secants in under a mask; the
  reference is its ``np.where`` form.
* ``interval_upper`` evaluates the minimum of the four bounding lines line by line (slopes ±1 of lines 2 and 3
  as an addition and a subtraction); the reference is ``_envelope`` (the (…, 4, 8, n) broadcast of every line at
  every candidate), which ``interval_positive_integrals`` still uses.
* ``crossings``' certified signs (``_certified_signs``, one subtraction of two masks) are its nested ``np.where``.
* ``_max_state`` of an unweighted target on a small grid reads both directions' arrays from
  ``Grid.unweighted_maxima``; the reference is the general path (a grid above ``BOTH_DIRECTIONS_MAX``: one
  direction at a time, nothing shared).

Curves: Bayes error brackets of closed-form mechanisms on the sweep's initial grid (with and without the crossing
seeds), on a refined grid with a geometric cluster, and on random grids.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.comparison import prior_sweep as ps

PAIRS = [(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)), (dc.Laplace(b=0.3), dc.RandomizedResponse(2.0)),
         (dc.Gaussian(mu=0.2), dc.ApproxDP(0.5, 1e-3)), (dc.Gaussian(mu=3.0), dc.Gaussian(mu=2.0))]
IDS = ["g-l", "l-rr", "g-ad", "g-g"]


def _reference_lines(x, lo, hi, gm):
    """The four lines as ``_lines`` first wrote them (``np.where`` per row, an unfixed slope for row 1's
    intercept)."""
    n = gm.n
    slope = np.empty(lo.shape[:-1] + (4, n))
    icept = np.empty(lo.shape[:-1] + (4, n))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        hl, hr = hi[..., :-1], hi[..., 1:]
        s0 = np.where(gm.ok_l, (hl - lo[..., gm.jj_l]) / gm.den_l, np.inf)
        icept[..., 0, :] = np.where(gm.ok_l, hl, np.inf)
        s1 = np.where(gm.ok_r, (lo[..., gm.jj_r] - hr) / gm.den_r, -np.inf)
        icept[..., 1, :] = np.where(gm.ok_r, hr - s1 * gm.h, np.inf)
        slope[..., 0, :] = np.where(np.isfinite(s0), s0, 0.0)
        slope[..., 1, :] = np.where(np.isfinite(s1), s1, 0.0)
    slope[..., 2, :], icept[..., 2, :] = 1.0, gm.xl
    slope[..., 3, :], icept[..., 3, :] = -1.0, gm.one_minus_xl
    return slope, icept


def _reference_upper(x, alo, ahi, blo):
    gm = ps.LineGeometry(x)
    slope, icept = _reference_lines(x, alo, ahi, gm)
    with np.errstate(invalid="ignore", divide="ignore"):
        sb = (blo[1:] - blo[:-1]) / gm.h
    t = ps._candidates(slope, icept, gm.h, ordered=False)
    return np.max(ps._envelope(slope, icept, t) - (blo[None, :-1] + sb[None, :] * t), axis=0)


def _grids(a, b):
    x0 = ps.initial_grid(a, b, False)
    yield x0
    yield ps.initial_grid(a, b, False, ps.crossing_seeds(a, b))
    x = np.unique(np.concatenate([x0, np.linspace(0.0, 0.5, 301), 0.3 * (1 + 4.0 ** -np.arange(1, 30))]))
    yield x[x <= 0.5]
    rng = np.random.default_rng(7)
    for _ in range(5):
        yield np.unique(np.concatenate([[0.0, 0.5], rng.uniform(0.0, 0.5, 40), 0.5 * rng.uniform(0, 1, 20) ** 12]))


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_interval_upper_is_the_envelope_formula(pair):
    a, b = pair
    for x in _grids(a, b):
        alo, ahi = ps._bounds(a, x)
        blo, bhi = ps._bounds(b, x)
        for lo_x, hi_x, lo_y in ((alo, ahi, blo), (blo, bhi, alo)):
            assert np.array_equal(ps.interval_upper(x, lo_x, hi_x, lo_y), _reference_upper(x, lo_x, hi_x, lo_y),
                                  equal_nan=True)


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_lines_are_the_where_formulas(pair):
    a, b = pair
    for x in _grids(a, b):
        gm = ps.LineGeometry(x)
        lo, hi = np.stack([ps._bounds(a, x)[0], ps._bounds(b, x)[0]]), np.stack([ps._bounds(a, x)[1], ps._bounds(b, x)[1]])
        for args in ((lo, hi), (lo[0], hi[0])):
            for got, want in zip(ps._lines(x, *args, gm), _reference_lines(x, *args, gm)):
                assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_unweighted_max_state_is_the_general_path(pair, monkeypatch):
    a, b = pair
    grids = [ps.Grid(x, *ps._bounds(a, x), *ps._bounds(b, x)) for x in _grids(a, b)]
    fused = [[ps._max_state(g, ps.MaxTarget(r), True, tol) for r in (False, True) for tol in (1e-12, 1e-3)]
             for g in grids]
    monkeypatch.setattr(ps, "BOTH_DIRECTIONS_MAX", 0)  # the general path, one direction at a time
    for g, got in zip(grids, fused):
        fresh = ps.Grid(g.x, g.alo, g.ahi, g.blo, g.bhi)
        want = [ps._max_state(fresh, ps.MaxTarget(r), True, tol) for r in (False, True) for tol in (1e-12, 1e-3)]
        for (o1, s1, d1, k1), (o2, s2, d2, k2) in zip(got, want):
            assert (o1.value, o1.lower, o1.upper, o1.pi, o1.certified) == (o2.value, o2.lower, o2.upper, o2.pi,
                                                                          o2.certified)
            assert (d1, k1) == (d2, k2)
            assert (s1 is None) == (s2 is None)
            if s1 is not None:
                assert np.array_equal(s1, s2)


@pytest.mark.parametrize("pair", PAIRS[:2], ids=IDS[:2])
def test_geometry_indices_are_the_where_forms(pair):
    """``LineGeometry``'s far-node indices clipped by a maximum / minimum are its first ``np.where`` forms."""
    for x in _grids(*pair):
        gm = ps.LineGeometry(x)
        n, xl, h = x.size - 1, x[:-1], np.diff(x)
        k_l = np.arange(-1, n - 1)
        far_l = np.minimum(x.searchsorted(xl - h, side="right") - 1, k_l)
        far_r = np.maximum(x.searchsorted(x[1:] + h, side="left"), k_l + 3)
        near_l = np.concatenate([[True], h[:-1] >= 0.25 * h[1:]])
        near_r = np.concatenate([h[1:] >= 0.25 * h[:-1], [True]])
        j_l, j_r = np.where(near_l, k_l, far_l), np.where(near_r, k_l + 3, far_r)
        assert np.array_equal(gm.jj_l, np.where(j_l >= 0, j_l, 0)) and np.array_equal(gm.ok_l, j_l >= 0)
        assert np.array_equal(gm.jj_r, np.where(j_r <= n, j_r, n)) and np.array_equal(gm.ok_r, j_r <= n)
        assert not gm.ok_l[0] and not gm.ok_r[-1]  # (the masks are not trivially all True)


def test_seed_combs_are_the_broadcast_form():
    """``crossing_seeds``' combs (per root, from Python floats) are the points of the broadcast form."""
    for a, b in [(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)), (dc.Gaussian(mu=7.9956), dc.Laplace(b=0.04928)),
                 (dc.Gaussian(mu=0.3), dc.Laplace(b=2.0))]:
        got = ps.crossing_seeds(a, b)
        x = ps._SCAN_GRID
        d = a.bayes_error_estimate(x) - b.bayes_error_estimate(x)
        s = np.sign(d)
        roots = [ps._newton_root(a.bayes_error_and_slope, b.bayes_error_and_slope, float(x[i]), float(x[i + 1]),
                                 float(d[i])) for i in np.flatnonzero(s[:-1] * s[1:] < 0.0)]
        r = np.array([p for p in roots if p is not None and 0.0 < p < 0.5])
        want = (r[:, None] + (1e-13 * np.maximum(r, 1.0))[:, None] * ps._SEED_COMB[None, :]).ravel()
        want = want[(want > 0.0) & (want < 0.5)]
        assert want.size and np.array_equal(got, want)


@pytest.mark.parametrize("pair", PAIRS + [(dc.Laplace(b=0.5), dc.Gaussian(mu=0.7))], ids=IDS + ["l-g"])
def test_both_bounds_are_each_mechanism_alone(pair):
    """``_both_bounds`` (the directed pairs read directly when both mechanisms allow it, one order check) gives the
    rows of ``_bounds`` of each mechanism, bit for bit."""
    a, b = pair
    for x in _grids(a, b):
        lo, hi = ps._both_bounds(a, b, x)
        for row, m in enumerate(pair):
            mlo, mhi = ps._bounds(m, x)
            assert np.array_equal(lo[row], mlo) and np.array_equal(hi[row], mhi)


def test_certified_signs_are_the_nested_where():
    """``_certified_signs`` is np.where(d_lo > slack, 1, np.where(d_hi < −slack, −1, 0)) with its dtype, on random
    values with ties at ±slack, NaN and ±∞, and unordered pairs (d_lo > d_hi, where both masks hold)."""
    rng = np.random.default_rng(7)
    vals = np.array([-1.0, -1e-12, -1e-13, 0.0, -0.0, 1e-13, 1e-12, 1.0, np.nan, np.inf, -np.inf])
    for _ in range(300):
        n = int(rng.integers(0, 30))
        slack = float(rng.choice([0.0, 1e-12]))
        d_lo, d_hi = rng.choice(vals, n), rng.choice(vals, n)
        want = np.where(d_lo > slack, 1, np.where(d_hi < -slack, -1, 0))
        got = ps._certified_signs(d_lo, d_hi, slack)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    both = ps._certified_signs(np.array([1.0]), np.array([-1.0]), 0.0)  # (both masks: the 1 wins)
    assert both.tolist() == [1]
