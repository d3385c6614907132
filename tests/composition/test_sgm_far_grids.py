"""Which coarser grids the subsampled Gaussian's far tail consults (composition/sgm_far_grids.py)."""

from __future__ import annotations

import math

import numpy as np

import dpcompare as dc
from dpcompare.composition.sgm_compose import pessimistic_side
from dpcompare.composition.sgm_far_grids import far_tail_factors, report_points, window_points
from dpcompare.composition.sgm_grid import default_discretization


def test_window_points_is_the_built_sides_window():
    """The window predicted from the single step alone is the one the composition then uses (its report)."""
    s, p, n, h = 1.0, 0.01, 100, 1e-3
    assert window_points(s, p, n, h) == report_points(pessimistic_side(s, p, n, h).report, h)


def test_grids_whose_window_grows_are_skipped_and_ordinary_ones_kept():
    # 10⁷ steps on h = 4e-5: 4× has a shorter window (4.96e5 < 7.48e5 points), 16× a far longer one (2.3e7)
    s, p, n, h = 2.0, 9e-4, 10**7, 4e-5
    assert window_points(s, p, n, 4 * h) < 748_322 < window_points(s, p, n, 16 * h)
    assert far_tail_factors(s, p, n, h, (4.0, 16.0, 64.0), 748_322) == (4.0,)
    # the case the coarser grids were introduced for (σ, p, N) = (1.12, 0.5, 2): every grid is kept
    h0 = default_discretization(1.12, 0.5, 2)
    base = report_points(pessimistic_side(1.12, 0.5, 2, h0).report, h0)
    assert far_tail_factors(1.12, 0.5, 2, h0, (4.0, 16.0, 64.0), base) == (4.0, 16.0, 64.0)
    assert far_tail_factors(1.12, 0.5, 2, h0, (4.0,), None) == (4.0,)  # no window known: nothing skipped


def test_ten_million_steps_epsilon_at_1e_4_keeps_its_value():
    """ε(1e-4) at (σ, p, N) = (2, 9e-4, 10⁷), h = 4e-5 took 79–241 s (69–90 s of CPU) on the route that composed the
    16× and 64× grids (ε = ∞ on both); it is now ~1.5 s of CPU. Reference at first: that old route's value, 6.2960625817322375
    (commit 0ca9efb, this same call), to 1e-4 relative — since then the pruned low-band DFT's smaller a-priori error
    bound and the ±∞ atoms read at their certified bound lowered the certified ε by 5.6e-6 relative (6.2960271), and
    the one-step cells' honest rounding bound (10⁷ steps multiply it) raised it by 3.5e-5 (6.2962850), and the
    rounding of their log-space mixing, u·(|a| + |b| + |log Q|), charged in full by 1.2e-4 more (6.2967932, now the
    reference) — below dp-accounting 0.6.0's pessimistic PLD ε on the same grid h = 4e-5 (6.2972147, this call), above the ε where
    our optimistic δ reaches 1e-4; the Gaussian bound G_μ with μ = √N/σ above it; δ(ε(δ)) ≤ δ across views."""
    m = dc.SubsampledGaussian(2.0, 9e-4, 10**7, discretization=4e-5)
    eps = m.epsilon(1e-4)
    assert math.isclose(eps, 6.2967932, rel_tol=1e-4) and eps < 6.2972147
    assert float(m.delta_bounds(np.array([eps]))[0][0]) < 1e-4  # the optimistic δ: the truth is not far below
    assert eps < dc.Gaussian(mu=math.sqrt(1e7) / 2.0).epsilon(1e-4)
    assert float(m.delta(eps)) <= 1e-4
