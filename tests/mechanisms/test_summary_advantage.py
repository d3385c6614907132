"""``describe``'s advantage (``summary_advantage``): δ(0) read off the pair the summary's other views read.

Independent references: the finer grid's certified bracket of δ(0) (``delta_bounds``, the default δ(ε)'s grid
with its optimistic side: the truth lies in it), and the closed form at p = 1 (G_μ: δ(0) = 2Φ(μ/2) − 1).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

import dpcompare as dc


@pytest.mark.parametrize("sigma, p, steps", [(1.0, 0.01, 1000), (2.0, 0.1, 50), (0.8, 0.003, 300)])
def test_summary_advantage_is_certified_and_close(sigma, p, steps):
    m = dc.SubsampledGaussian(sigma, p, steps)
    adv = m.summary_advantage()
    truth_lo, truth_hi = m.delta_bounds(0.0)  # the finer grid's bracket: truth within it
    assert adv >= float(truth_lo)  # never below the truth (an upper end)
    # the composition's own bracket is ≈ 1e-5 relative wide at these grids
    assert adv == pytest.approx(float(truth_hi), rel=1e-4)
    # the same number as the default grid given explicitly
    h = m.composition.discretization
    assert adv == dc.SubsampledGaussian(sigma, p, steps, discretization=h).delta(0.0)


def test_summary_advantage_at_the_reference_point():
    # sgm(1, 0.01, 1000): the composition's δ(0) bracket [0.16101686, 0.16101901]; the finer grid's 0.16101771
    adv = dc.SubsampledGaussian(1.0, 0.01, 1000).summary_advantage()
    assert 0.16101757 <= adv <= 0.161019011


def test_closed_form_and_other_mechanisms_keep_advantage():
    m = dc.SubsampledGaussian(1.0, 1.0, 4)  # p = 1: G_μ, μ = 2
    assert m.summary_advantage() == m.advantage
    assert m.summary_advantage() == pytest.approx(2 * NormalDist().cdf(1.0) - 1, rel=1e-12)
    lap = dc.Laplace(b=1.0)
    assert lap.summary_advantage() == lap.advantage == pytest.approx(1 - math.exp(-0.5), rel=1e-12)
    assert lap.describe()["advantage"] == lap.advantage


def test_describe_reports_summary_advantage():
    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    assert m.describe()["advantage"] == m.summary_advantage()


def test_describe_and_fit_do_not_compose_the_finer_grid():
    # the summary reads δ(0) off the composition: neither describe nor the μ̂ fit asks for ``advantage`` (which composes
    # the default δ(ε)'s finer grid); the values stay certified (checked above)
    from dpcompare.gaussian.fit import gdp_fit

    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    m.describe()
    gdp_fit(m)
    assert "advantage" not in m.__dict__


def test_summary_advantage_does_not_depend_on_what_was_asked_before():
    a = dc.SubsampledGaussian(1.0, 0.01, 100)
    b = dc.SubsampledGaussian(1.0, 0.01, 100)
    b.advantage  # noqa: B018 — the finer grid's δ(0), cached on b
    assert a.summary_advantage() == b.summary_advantage()
    assert a.describe()["advantage"] == b.describe()["advantage"]
