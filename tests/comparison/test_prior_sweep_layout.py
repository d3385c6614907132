"""The prior sweep's shared-geometry and both-directions paths return the doubles of the one-direction formulas.

``Grid.interval_upper`` computes the interval bounds of A over B and of B over A as the rows of one array pass
(and the grid-only parts of the secant lines once, ``LineGeometry``); every operation is element-wise along the
rows, so each row must equal ``interval_upper`` of that direction alone, bit for bit. The reference is the
one-direction function with a fresh ``LineGeometry``; the curves are Bayes error brackets of closed-form
mechanisms on the sweep's own initial grid and on a refined one (clusters: the 4× rule of ``_lines`` active).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.comparison import prior_sweep as ps


def _grid(a, b, refine: bool) -> ps.Grid:
    x = ps.initial_grid(a, b, False)
    if refine:
        x = np.unique(np.concatenate([x, np.linspace(0.0, 0.5, 1001), 0.3 * (1 + 4.0 ** -np.arange(1, 30))]))
        x = x[x <= 0.5]
    return ps.Grid(x, *ps._bounds(a, x), *ps._bounds(b, x))


@pytest.mark.parametrize("refine", [False, True])
@pytest.mark.parametrize("pair", [(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)), (dc.Laplace(b=0.3), dc.RandomizedResponse(2.0)),
                                  (dc.Gaussian(mu=0.2), dc.ApproxDP(0.5, 1e-3))], ids=["g-l", "l-rr", "g-ad"])
def test_both_directions_are_each_direction_alone(pair, refine, monkeypatch):
    g = _grid(*pair, refine)
    for reverse in (False, True):
        alo, ahi, blo, _ = g.sides(reverse)
        alone = ps.interval_upper(g.x, alo, ahi, blo)  # fresh LineGeometry, one direction
        assert np.array_equal(g.interval_upper(reverse), alone, equal_nan=True)
    monkeypatch.setattr(ps, "BOTH_DIRECTIONS_MAX", 0)  # the large-grid path: one direction at a time
    g2 = ps.Grid(g.x, g.alo, g.ahi, g.blo, g.bhi)
    for reverse in (False, True):
        assert np.array_equal(g2.interval_upper(reverse), g.interval_upper(reverse), equal_nan=True)


def test_interval_bound_is_above_the_curve_difference():
    """The batched bound still bounds: max over each interval of R_A − R_B (dense evaluation) ≤ the bound."""
    a, b = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
    g = _grid(a, b, False)
    for reverse in (False, True):
        ub = g.interval_upper(reverse)
        for k in range(0, g.x.size - 1, 7):
            p = np.linspace(g.x[k], g.x[k + 1], 9)
            ra, rb = np.asarray(a.bayes_error(p)), np.asarray(b.bayes_error(p))
            d = (rb - ra) if reverse else (ra - rb)
            assert d.max() <= ub[k] + 1e-15
