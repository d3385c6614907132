"""The default accuracy of δ(ε) chosen from the mechanism and the δ asked (composition/sgm_accuracy.py,
``delta_to_accuracy`` with ``max_spacing=DEFAULT_MAX_SPACING``; ``SubsampledGaussian.delta`` / ``delta_bounds``
without a grid).

Independent truths: (i) a certified bracket of the same engine on a grid 8× finer than the default (it
contains the true δ by proof: tradeoff/compose.py steps 1–8), which the default's reported bracket must meet;
(ii) dp-accounting's PLD accountant at its default grid (another code base), whose excess over that truth is
the yardstick of the default's.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.sgm_accuracy import (
    DEFAULT_MAX_SPACING,
    DELTA_ABS_DEFAULT,
    DELTA_REL_DEFAULT,
    ETA_FLOOR,
    delta_to_accuracy,
)
from dpcompare.composition.sgm_certified import compose_subsampled_gaussian, default_discretization, profile_bracket
from dpcompare.mechanisms.sgm import SubsampledGaussian

#: (σ, p, N) and ε: a row whose default grid (h₀ = 1.06e-3) is 8× coarser than DEFAULT_MAX_SPACING, where the
#: width 1.5e-7 alone left an excess 4.5× dp-accounting's default, and a row of typical DP-SGD δ (1e-5–1e-3)
#: where the default grid is 3× coarser
ROWS = [((2.0, 0.2, 50), np.array([0.5, 1.0, 2.0])), ((0.6, 0.01, 50), np.array([1.4, 3.4]))]


def _fine_bracket(sigma, p, n, eps, divisor=8):
    comp = compose_subsampled_gaussian(sigma, p, n, default_discretization(sigma, p, n) / divisor)
    b = profile_bracket(comp, eps)
    return np.asarray(b.optimistic), np.asarray(b.pessimistic)


@pytest.mark.parametrize("args, eps", ROWS)
def test_default_delta_is_the_pessimistic_side_of_a_grid_no_coarser_than_the_spacing(args, eps):
    """δ(ε) by default is the minimum over certified grids, the finest of them no coarser than DEFAULT_MAX_SPACING."""
    a = delta_to_accuracy(*args, eps, DELTA_REL_DEFAULT, DELTA_ABS_DEFAULT, upper_only=True, max_spacing=DEFAULT_MAX_SPACING)
    assert a.discretization <= DEFAULT_MAX_SPACING < default_discretization(*args)
    np.testing.assert_allclose(SubsampledGaussian(*args).delta(eps), a.delta, rtol=1e-15, atol=0)


def test_max_spacing_above_the_default_grid_changes_nothing():
    """Where the default grid is already finer than the spacing asked (s ≤ 0.013), the answer is the width rule's."""
    args, e = (2.0, 0.01, 300), np.array([0.3])
    assert default_discretization(*args) < DEFAULT_MAX_SPACING
    a = delta_to_accuracy(*args, e, DELTA_REL_DEFAULT, DELTA_ABS_DEFAULT, max_spacing=DEFAULT_MAX_SPACING)
    b = delta_to_accuracy(*args, e, DELTA_REL_DEFAULT, DELTA_ABS_DEFAULT)
    assert a.discretization == b.discretization and a.attempts == b.attempts
    np.testing.assert_array_equal(a.delta, b.delta)


@pytest.mark.parametrize("bad", [0.0, -1e-4, float("inf"), float("nan"), True, "1e-4"])
def test_max_spacing_validation(bad):
    with pytest.raises(ValueError, match="max_spacing"):
        delta_to_accuracy(1.0, 0.01, 100, 1.0, max_spacing=bad)


@pytest.mark.parametrize("args, eps", ROWS)
def test_default_bracket_meets_a_fine_grid_truth_and_its_width_target(args, eps):
    m = SubsampledGaussian(*args)
    lo, hi = m.delta_bounds(eps)
    f_lo, f_hi = _fine_bracket(*args, eps)
    # both brackets are certified, so both contain the true δ: they intersect
    assert np.all(lo <= f_hi) and np.all(f_lo <= hi)
    # the width aimed at: min(DELTA_REL_DEFAULT·δ, DELTA_ABS_DEFAULT), or the floating-point floor, met on these rows
    target = np.maximum(np.minimum(DELTA_REL_DEFAULT * hi, DELTA_ABS_DEFAULT), ETA_FLOOR * 2 * m.composition.numerical_error)
    assert np.all(hi - lo <= target), (hi - lo, target)
    # the upper end alone (what ``delta`` reports) is the same certified bound or a tighter one
    d = m.delta(eps)
    assert np.all(d >= f_lo) and np.all(d <= hi + 1e-15)


def test_default_excess_at_most_twice_dp_accounting_default_where_s_is_large():
    """At (2, 0.2, 50) the width 1.5e-7 alone left an excess 4.5× dp-accounting's default; the grid no coarser
    than DEFAULT_MAX_SPACING brings it within 2×."""
    dpa = pytest.importorskip("dp_accounting", reason="dp-accounting's default PLD accountant is the yardstick")
    from dp_accounting.pld import pld_privacy_accountant

    (sigma, p, n), eps = ROWS[0]
    f_lo, f_hi = _fine_bracket(sigma, p, n, eps, divisor=24)  # width ≤ 7e-9 here: small against both excesses
    assert np.max(f_hi - f_lo) <= 1e-8
    acc = pld_privacy_accountant.PLDAccountant()  # its default value_discretization_interval (1e-4)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n))
    peer = np.array([acc.get_delta(float(e)) for e in eps])
    ours = SubsampledGaussian(sigma, p, n).delta(eps)
    # both excesses against the same certified lower end of the truth (each an upper bound of the excess)
    assert np.max(ours - f_lo) <= 2.0 * np.max(peer - f_lo), (ours - f_lo, peer - f_lo)
