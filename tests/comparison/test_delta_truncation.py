"""The single step's truncation chosen from Δ's accuracy (``comparison/delta_truncation.py``): the truncated
mechanism is still certified (its Bayes-error and Δ brackets overlap the default truncation's on the same grid),
it loses at most the mass cut (2N·τ per Bayes error), and its step grid is shorter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dpcompare.comparison import delta_bracket
from dpcompare.comparison.delta_accuracy import ABS_DEFAULT, delta_accuracy
from dpcompare.comparison.delta_truncation import (TRUNCATION_SHARE, TruncatedSubsampledGaussian, delta_step_tail,
                                                   truncated)
from dpcompare.composition.sgm_grid import check_grid, default_discretization, step_tail
from dpcompare.composition.sgm_step import grid_range
from dpcompare.mechanisms.sgm import SubsampledGaussian

A, B = (1.0, 0.01, 1000), (1.5, 0.02, 1000)  # the pair of benchmarks/bench_delta_accuracy.py


def _pair(params, factor: float, width: float | None):
    h = default_discretization(*params) * factor
    m = SubsampledGaussian(*params)
    return truncated(m, h, width) if width is not None else SubsampledGaussian(*params, discretization=h)


@pytest.fixture(scope="module")
def both():
    """A and B on 2× the default grid, with the default truncation and with the one a width 1e-6 allows."""
    return ((_pair(A, 2.0, None), _pair(B, 2.0, None)), (_pair(A, 2.0, ABS_DEFAULT), _pair(B, 2.0, ABS_DEFAULT)))


def test_the_truncation_is_a_share_of_the_width_and_never_below_the_default():
    assert delta_step_tail(1000, 1e-6) == pytest.approx(TRUNCATION_SHARE * 1e-6 / 4000, rel=1e-15)
    assert delta_step_tail(1000, 1e-300) == step_tail(1000)
    m = truncated(SubsampledGaussian(*A), 0.05, 1e-300)  # nothing to gain: the plain mechanism on that grid
    assert type(m) is SubsampledGaussian and m.discretization == 0.05


def test_the_step_grid_is_shorter(both):
    (da, _), (ta, _) = both
    assert isinstance(ta, TruncatedSubsampledGaussian) and ta.step_tail > 1e3 * step_tail(A[2])
    # one step's grid range: z = Φ⁻¹(1 − τ) standard deviations each side (sgm_step.grid_range): 9.0 → 6.6 here
    h = da.discretization
    k_def = grid_range(1.0 / A[0], A[1], h, step_tail(A[2]))
    k_cut = grid_range(1.0 / A[0], A[1], h, ta.step_tail)
    assert (k_cut[1] - k_cut[0]) < 0.8 * (k_def[1] - k_def[0])
    assert check_grid(*A, h, ta.step_tail)[1] == ta.step_tail  # the tail the composition is built with
    assert ta.composition.discretization == da.composition.discretization == h


def test_each_bayes_error_moves_at_most_the_mass_cut_and_stays_certified(both):
    """Both brackets contain R (certified): they overlap; the truncated pessimistic end is below the default one by
    at most 2N·τ (each step's two tails, N steps) plus both η."""
    pi = np.linspace(0.01, 0.5, 60)
    for d, t in zip(*both):
        dlo, dhi = d.bayes_error_interval(pi)
        tlo, thi = t.bayes_error_interval(pi)
        assert np.all(tlo <= dhi) and np.all(dlo <= thi)
        slack = 2 * t.steps * t.step_tail + d.numerical_error + t.numerical_error
        assert np.all(tlo >= dlo - slack) and np.all(thi <= dhi + slack)


def test_delta_brackets_overlap_and_move_at_most_the_mass_cut(both):
    (da, db), (ta, tb) = both
    cut = 2 * ta.steps * ta.step_tail + 2 * tb.steps * tb.step_tail
    for (x, y), (u, v) in (((da, db), (ta, tb)), ((db, da), (tb, ta))):
        d, t = delta_bracket(x, y), delta_bracket(u, v)
        assert t.lower <= d.upper and d.lower <= t.upper
        assert abs(t.upper - d.upper) <= cut + d.numerical_error + t.numerical_error
        assert abs(t.lower - d.lower) <= cut + d.numerical_error + t.numerical_error
    assert cut <= TRUNCATION_SHARE * ABS_DEFAULT * (1 + 1e-12)


def test_delta_accuracy_truncates_off_the_default_grid_only():
    r = delta_accuracy(SubsampledGaussian(*A), SubsampledGaussian(*B))
    for m, f in zip(r.mechanisms, r.factors):
        assert (f == 1.0) == (type(m) is SubsampledGaussian)
        if f != 1.0:
            assert m.step_tail == delta_step_tail(m.steps, ABS_DEFAULT)


@pytest.mark.parametrize("bad", [0.0, -1e-12, 1e-2, float("nan")])
def test_a_bad_tail_is_a_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="tail must be in"):
        check_grid(*A, None, bad)


@settings(max_examples=8, deadline=None)
@given(st.floats(0.8, 2.0), st.floats(0.02, 0.3), st.integers(5, 80), st.floats(1e-7, 1e-4))
def test_law_the_truncated_delta_overlaps_the_default_and_moves_at_most_the_cut(sigma, p, n, width):
    """For any SGM pair and width: both Δ brackets are certified (they overlap) and their ends differ by at most
    the mass cut (2N·τ per mechanism) plus both η."""
    a = (sigma, p, n)
    b = (sigma * 1.3, min(0.9, p * 1.5), n)
    h = [default_discretization(*x) * 2.0 for x in (a, b)]
    plain = [SubsampledGaussian(*x, discretization=hx) for x, hx in zip((a, b), h)]
    cut = [truncated(SubsampledGaussian(*x), hx, width) for x, hx in zip((a, b), h)]
    loss = sum(2 * m.steps * getattr(m, "step_tail", 0.0) for m in cut)
    assert loss <= TRUNCATION_SHARE * width * (1 + 1e-12)
    d, t = delta_bracket(*plain), delta_bracket(*cut)
    assert t.lower <= d.upper and d.lower <= t.upper
    slack = loss + d.numerical_error + t.numerical_error
    assert abs(t.upper - d.upper) <= slack and abs(t.lower - d.lower) <= slack


def test_step_tail_capped_at_the_grid_limit():
    """A wide Δ of one step asks for τ = 0.1·0.5/4 = 0.0125, beyond what a grid accepts (1e-3): the cap keeps the
    truncated mechanism usable (it raised at first use before, and Δ fell back to the default grid)."""
    from dpcompare.comparison.delta_truncation import MAX_STEP_TAIL, delta_step_tail, truncated
    from dpcompare.mechanisms.sgm import SubsampledGaussian

    assert delta_step_tail(1, 0.5) == MAX_STEP_TAIL == 1e-3
    m = truncated(SubsampledGaussian(1.0, 0.5, 1), 0.01, 0.5)
    assert m.step_tail == MAX_STEP_TAIL and 0.0 < float(m.delta(0.0)) < 1.0
