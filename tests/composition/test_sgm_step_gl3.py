"""composition/sgm_step.py: narrow cells (width ≤ THREE_NODE_WIDTH) take the 3-point Gauss–Legendre rule, whose bound
on the interval itself (``_gl3_rel_bound``) is ≤ u/4 there, the others the 8-point rule; every cell's log mass is within its stated relative
error bound of the truth. Reference: mpmath at 50 digits (Φ(b) − Φ(a) by erfc on the tail side)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition.sgm_step import (
    _GL3_BOUND, THREE_NODE_MAX, THREE_NODE_WIDTH, _gauss_legendre_log_mass, _gl3_rel_bound, _log_gauss_cells)

mpmath = pytest.importorskip("mpmath", reason="the reference cell masses are computed by mpmath")


def _true_log_mass(a: float, b: float) -> float:
    with mpmath.workdps(50):
        a_, b_ = mpmath.mpf(a), mpmath.mpf(b)
        if a_ >= 0:  # upper tail: Φ(−a) − Φ(−b), no cancellation at 50 digits
            m = (mpmath.erfc(a_ / mpmath.sqrt(2)) - mpmath.erfc(b_ / mpmath.sqrt(2))) / 2
        else:
            m = (mpmath.erfc(-b_ / mpmath.sqrt(2)) - mpmath.erfc(-a_ / mpmath.sqrt(2))) / 2
            if b_ > 0:
                m = mpmath.ncdf(b_) - mpmath.ncdf(a_)
        return float(mpmath.log(m))


CELLS = [(0.5, 0.5 + 1e-4), (6.0, 6.0 + 1.3e-4), (11.0, 11.0 + 2.6e-4), (-9.0, -9.0 + 1e-4), (-1e-4, 1e-4),
         (2.0, 2.001), (3.0, 3.004), (0.1, 0.15), (4.0, 4.3), (-0.2, 0.3), (7.5, 7.5 + 5e-4)]


@pytest.mark.parametrize("a, b", CELLS)
def test_cell_mass_within_its_bound(a, b):
    lq, rq = _gauss_legendre_log_mass(np.array([a]), np.array([b]), np.array([max(abs(a), abs(b))]))
    truth = _true_log_mass(a, b)
    # the relative error of the mass is |e^{lq − truth} − 1|
    assert abs(math.expm1(float(lq[0]) - truth)) <= float(rq[0]), (float(lq[0]), truth, float(rq[0]))


def test_the_charged_bound_covers_every_narrow_cell():
    """_GL3_BOUND, charged to every cell of width ≤ THREE_NODE_WIDTH, is ≥ the cell's own bound at every position with
    |x| ≤ 12 (both sides of 0, across 0, at the width limit)."""
    w = np.linspace(1e-6, THREE_NODE_WIDTH, 40)[:, None]
    lo = np.linspace(-12.0, 12.0, 2401)[None, :]
    a, b = np.broadcast_arrays(lo - w / 2, lo + w / 2)
    ok = np.maximum(np.abs(a), np.abs(b)) <= 12.0
    far = np.maximum(np.abs(a), np.abs(b))
    near = np.where(a > 0, a, np.where(b < 0, -b, 0.0))
    r3 = _gl3_rel_bound(b - a, far, near)
    assert np.all(r3[ok] <= _GL3_BOUND) and _GL3_BOUND <= THREE_NODE_MAX
    assert float(np.max(r3[ok])) > 0.9 * _GL3_BOUND  # attained near the corner: the constant is not loose


def test_three_points_only_where_the_bound_proves_them():
    a = np.array([6.0, 2.0, 0.1, 11.0])
    b = a + np.array([1.3e-4, 1e-3, 0.05, 2.6e-4])
    far = np.abs(b)
    r3 = _gl3_rel_bound(b - a, far, a)
    assert r3[0] < 1e-20 and r3[3] < 1e-17 and r3[2] > THREE_NODE_MAX
    # the bound is ≥ the true error of the 3-point rule on a cell where that error is measurable
    nodes, weights = np.polynomial.legendre.leggauss(3)
    aa, bb = 0.1, 0.6
    with mpmath.workdps(40):
        mid, half = (aa + bb) / 2, (bb - aa) / 2
        q3 = half * sum(w * mpmath.npdf(mid + half * t) for t, w in zip(nodes, weights))
        exact = mpmath.ncdf(bb) - mpmath.ncdf(aa)
        err = abs(q3 / exact - 1)
    bound = _gl3_rel_bound(np.array([bb - aa]), np.array([bb]), np.array([aa]))[0]
    assert 0.0 < float(err) <= bound <= 20 * float(err)


def test_partition_cells_mixed_rules_within_bounds():
    """A grid of narrow cells (3 points) next to wider ones (8 points, or log_ndtr): every cell within its bound."""
    edges = np.concatenate([np.linspace(-0.4, 0.4, 9), np.linspace(0.5, 0.52, 5), np.linspace(0.6, 9.0, 2001)])
    lp, rel = _log_gauss_cells(edges)
    pick = list(range(0, edges.size - 1, 97)) + [8, 9, 10, 12, 13]
    for i in pick:
        truth = _true_log_mass(float(edges[i]), float(edges[i + 1]))
        assert abs(math.expm1(float(lp[i]) - truth)) <= float(rel[i]), i
