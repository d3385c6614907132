"""ε(δ) of the subsampled Gaussian to a requested relative accuracy (composition/sgm_accuracy.py).

Independent references: the certified engine on its default grid (pessimistic ε from
``certified_epsilon``, optimistic lower bound from the optimistic pair of ``compose_subsampled_gaussian``),
which brackets the same true ε from a different grid; and dp-accounting's PLD accountant at a fine
discretisation (an estimate, not a bound: compared with a stated tolerance).
"""

from __future__ import annotations

import math

import pytest

from dpcompare.composition.sgm_accuracy import epsilon_to_accuracy
from dpcompare.composition.sgm_certified import certified_epsilon, compose_subsampled_gaussian, pair_epsilon

CASES = [(1.0, 0.01, 300, 1e-5, 1e-4), (0.7, 0.05, 100, 1e-6, 1e-3), (2.0, 0.02, 1000, 1e-5, 3e-4)]


@pytest.mark.parametrize("sigma, p, n, delta, tol", CASES)
def test_bracket_meets_tolerance_and_overlaps_default_grid(sigma, p, n, delta, tol):
    a = epsilon_to_accuracy(sigma, p, n, delta, rel_tol=tol)
    assert 0.0 < a.lower <= a.epsilon < math.inf
    assert a.rel_accuracy <= tol
    # the default grid's certified bracket holds the same true ε: the two brackets must intersect
    hi_default = certified_epsilon(sigma, p, n, delta)
    comp = compose_subsampled_gaussian(sigma, p, n)
    lo_default = pair_epsilon(comp.optimistic, -comp.optimistic_error, delta) * (1 - 1e-9)
    assert a.lower <= hi_default * (1 + 1e-12)
    assert lo_default <= a.epsilon * (1 + 1e-12)


def test_lower_bound_is_confirmed_by_the_optimistic_pair():
    # ε_lo must be a point where the optimistic δ (minus its error) still exceeds δ: then the true δ does too
    sigma, p, n, delta = 1.0, 0.01, 300, 1e-5
    # (read off the optimistic side it came from: its own grid and the single-step tail the question allows)
    from dpcompare.composition.sgm_sides import optimistic_side, question_tail

    a = epsilon_to_accuracy(sigma, p, n, delta, rel_tol=1e-3)
    side = optimistic_side(sigma, p, n, a.lower_discretization, tail=question_tail(n, delta, 1e-3))
    opt = side.pair
    d = max(float(opt.delta(a.lower)), float(opt.swap().delta(a.lower))) - side.numerical_error
    assert d > delta


def test_close_to_dp_accounting_fine_grid():
    dpa = pytest.importorskip("dp_accounting", reason="dp-accounting is the independent reference")
    from dp_accounting.pld import pld_privacy_accountant

    sigma, p, n, delta = 1.0, 0.01, 300, 1e-5
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-5)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n))
    ref = acc.get_epsilon(delta)  # dp-accounting's pessimistic estimate: ≥ the truth up to its own grid
    a = epsilon_to_accuracy(sigma, p, n, delta, rel_tol=1e-4)
    assert a.lower <= ref * (1 + 1e-6)
    assert abs(a.epsilon - ref) <= 2e-4 * ref


@pytest.mark.parametrize("kwargs, name", [
    (dict(rel_tol=0.0), "rel_tol"), (dict(rel_tol=0.9), "rel_tol"), (dict(delta=1.0), "delta"),
    (dict(sigma=-1.0), "sigma"), (dict(p=1.0), "p"), (dict(steps=0), "steps"), (dict(steps=2.5), "steps"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    args = dict(sigma=1.0, p=0.01, steps=10, delta=1e-5, rel_tol=1e-3) | kwargs
    with pytest.raises(ValueError, match=name):
        epsilon_to_accuracy(**args)
