"""δ(ε) of the subsampled Gaussian to the accuracy chosen from the question (composition/sgm_accuracy.py,
``delta_to_accuracy``; the default of ``SubsampledGaussian.delta``).

Independent truth: a certified bracket of the same engine on a grid 16× finer than the default (width
≈ 3e-8 at the audit point), i.e. the true δ lies in [TRUTH_LO, TRUTH_HI]; and dp-accounting's PLD accountant
(a different code base) at its default grid, whose excess over that truth is the yardstick.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.sgm_accuracy import DELTA_ABS_DEFAULT, delta_to_accuracy
from dpcompare.composition.sgm_certified import compose_subsampled_gaussian, default_discretization, profile_bracket
from dpcompare.mechanisms.sgm import SubsampledGaussian

#: the audit point: moderate ε, δ ≈ 0.16–0.45
AUDIT = (0.7, 0.05, 300)
EPS = np.array([1.0, 1.5, 2.0, 3.0])


def _fine_bracket(sigma, p, n, eps, divisor=16):
    """(lo, hi) of the certified engine at h = h_default/divisor: contains the true δ."""
    comp = compose_subsampled_gaussian(sigma, p, n, default_discretization(sigma, p, n) / divisor)
    b = profile_bracket(comp, eps)
    return np.asarray(b.optimistic), np.asarray(b.pessimistic)


def test_default_delta_excess_is_within_1e7_of_the_truth():
    """The default δ exceeds the truth by ≤ 1e-7 at the audit point (the fixed default grid exceeded it by
    7.1e-6 there); it stays certified (≥ the fine bracket's lower end)."""
    lo, hi = _fine_bracket(*AUDIT, EPS)
    d = SubsampledGaussian(*AUDIT).delta(EPS)
    assert np.all(d >= lo)  # certified: never below a certified lower bound of the truth
    assert np.all(d - lo <= 1e-7), d - lo


def test_default_delta_excess_at_most_twice_dp_accounting_default():
    dpa = pytest.importorskip("dp_accounting", reason="dp-accounting's default PLD accountant is the yardstick")
    from dp_accounting.pld import pld_privacy_accountant

    lo, hi = _fine_bracket(*AUDIT, EPS)
    sigma, p, n = AUDIT
    acc = pld_privacy_accountant.PLDAccountant()  # its default value_discretization_interval (1e-4)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n))
    peer = np.array([acc.get_delta(float(e)) for e in EPS])
    ours = SubsampledGaussian(*AUDIT).delta(EPS)
    # both excesses measured against the same certified lower end of the truth (each an upper bound of the excess)
    assert np.all(ours - lo <= 2.0 * (peer - lo)), (ours - lo, peer - lo)


def test_delta_bounds_report_the_accuracy_achieved():
    m = SubsampledGaussian(*AUDIT)
    b = m.delta_bounds(EPS)
    lo, hi = _fine_bracket(*AUDIT, EPS)
    assert np.all(b.lower <= hi) and np.all(lo <= b.upper)  # certified brackets of one truth intersect
    assert m.accuracy(EPS) <= DELTA_ABS_DEFAULT
    assert np.all(m.delta(EPS) >= b.lower)


@pytest.mark.parametrize("args, eps, rel", [((1.0, 0.01, 300), [0.5, 1.0], 1e-3), ((2.0, 0.02, 1000), [0.05, 0.3, 1.0], 3e-4)])
def test_delta_to_accuracy_meets_the_relative_tolerance(args, eps, rel):
    e = np.array(eps)
    a = delta_to_accuracy(*args, e, rel_tol=rel)
    assert a.rel_accuracy <= rel
    assert np.all(a.lower <= a.delta)
    lo, hi = _fine_bracket(*args, e, divisor=4)
    assert np.all(a.lower <= hi) and np.all(lo <= a.delta)


def test_absolute_tolerance_refines_the_grid():
    e = np.array([1.5])
    coarse = delta_to_accuracy(*AUDIT, e, rel_tol=0.5)
    fine = delta_to_accuracy(*AUDIT, e, rel_tol=0.5, abs_tol=1.5e-7)
    assert coarse.attempts == 1 and fine.discretization < coarse.discretization
    assert fine.abs_accuracy <= 1.5e-7 < coarse.abs_accuracy
    # the upper end alone chooses its grid from the Richardson estimate of its excess (no width measured): it
    # refines too, and its excess over a certified lower end of the truth meets the width asked for
    upper = delta_to_accuracy(*AUDIT, e, rel_tol=0.5, abs_tol=1.5e-7, upper_only=True)
    lo, _ = _fine_bracket(*AUDIT, e)
    assert upper.discretization < coarse.discretization
    assert lo[0] <= upper.delta[0] <= lo[0] + 1.5e-7, (upper.delta - lo)


def test_explicit_discretization_keeps_its_meaning():
    h = default_discretization(*AUDIT)
    m = SubsampledGaussian(*AUDIT, discretization=h)
    hi = profile_bracket(compose_subsampled_gaussian(*AUDIT, h), EPS).pessimistic
    np.testing.assert_allclose(m.delta(EPS), hi, rtol=1e-13, atol=0)


@pytest.mark.parametrize("kwargs, name", [
    (dict(rel_tol=0.0), "rel_tol"), (dict(rel_tol=0.9), "rel_tol"), (dict(abs_tol=0.0), "abs_tol"),
    (dict(abs_tol=2.0), "abs_tol"), (dict(eps=float("nan")), "eps"), (dict(p=1.0), "p"), (dict(steps=0), "steps"),
])
def test_delta_to_accuracy_validation(kwargs, name):
    args = dict(sigma=1.0, p=0.01, steps=100, eps=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        delta_to_accuracy(**args)
