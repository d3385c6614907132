"""The summary's composition (composition/sgm_summary.py): the default pessimistic side, and an optimistic side whose
single step is cut at τ = 1e-12/(2N).

Independent references: a certified bracket on a grid twice as fine (the truth lies in it), which the summary's
optimistic upper end must not fall below; and the default composition (``compose_subsampled_gaussian``), from whose
optimistic Bayes errors the summary's stay within 1e-12 + 1e-2 of the bracket's width (measured: ≤ 3e-14, and 2.2e-9
= 1.5e-3 of the width at (2, 0.2, 30), where the greedy merge's groups shift with the cut).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare import clear_caches
from dpcompare.composition.sgm_compose import compose_subsampled_gaussian
from dpcompare.composition.sgm_grid import step_tail
from dpcompare.composition.sgm_summary import SUMMARY_TAIL_LOSS, summary_composition, summary_tail

_PI = np.concatenate([np.geomspace(1e-9, 0.5, 400), 1.0 - np.geomspace(1e-9, 0.5, 400)])


def _r_sym(pair, pi, end):
    return np.minimum(pair.bayes_error_bounds(pi)[end], pair.bayes_error_bounds(1.0 - pi)[end])


@pytest.mark.parametrize("args", [(1.0, 0.01, 300), (0.7, 0.05, 100), (2.0, 0.2, 30), (1.5, 0.5, 5)], ids=str)
def test_summary_composition_against_the_default(args):
    # built afresh: a summary or a composition cached by an earlier test may hold a pessimistic side that the pair
    # cache has since dropped (another test's clear_caches, or eviction): an equal side, but not the same object
    clear_caches()
    s, d = summary_composition(*args), compose_subsampled_gaussian(*args)
    assert s.pessimistic is d.pessimistic and s.pessimistic_side is d.pessimistic_side
    assert s.discretization == d.discretization and s.steps == d.steps
    assert s.side_errors[0] == d.side_errors[0] and s.numerical_error == max(s.side_errors)
    assert s.optimistic.rounding.name == "OPTIMISTIC"
    r_s, r_d = _r_sym(s.optimistic, _PI, 1), _r_sym(d.optimistic, _PI, 1)
    width = np.max(r_d - _r_sym(d.pessimistic, _PI, 0))  # the default bracket's own width
    assert np.max(np.abs(r_s - r_d)) <= SUMMARY_TAIL_LOSS + 1e-2 * width
    # still an upper end of the truth: not below a finer grid's certified lower end
    fine = compose_subsampled_gaussian(*args, discretization=d.discretization / 2)
    r_lo_fine = _r_sym(fine.pessimistic, _PI, 0) - fine.numerical_error
    assert np.all(r_s + s.numerical_error >= r_lo_fine)


def test_summary_tail():
    assert summary_tail(1000) == pytest.approx(5e-16, rel=1e-15)
    assert 2 * 1000 * summary_tail(1000) == pytest.approx(SUMMARY_TAIL_LOSS, rel=1e-15)
    for n in (1, 100, 10**5, 10**7, 10**9):  # always coarser than the default min(1e-18, 1e-16/N)
        assert summary_tail(n) > step_tail(n)
    assert summary_tail(1) == pytest.approx(5e-13, rel=1e-15)


@pytest.mark.parametrize("args", [(1.0, 1.0, 10), (1e13, 0.01, 10)], ids=["p=1", "negligible"])
def test_summary_composition_is_the_default_where_nothing_is_cut(args):
    assert summary_composition(*args) is compose_subsampled_gaussian(*args)
