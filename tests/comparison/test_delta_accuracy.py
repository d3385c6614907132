"""Δ between numeric mechanisms on grids chosen from Δ (``comparison/delta_accuracy.py``): the bracket is
certified (it contains Δ computed independently) and as narrow as asked.

Δ(A‖B) = max_π (R_A(π) − R_B(π)) ([BCP] Def 1, Cor 1) = sup_ε (δ_B(ε) − δ_A(ε))/(1 + e^ε) (Thm 2).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

import dpcompare as dc
from dpcompare.comparison import delta_bracket
from dpcompare.comparison.delta_accuracy import ABS_DEFAULT, REL_DEFAULT, delta_accuracy, regrid_spacing
from dpcompare.composition.sgm_grid import default_discretization
from dpcompare.mechanisms.sgm import SubsampledGaussian

A, B = (1.0, 0.1, 50), (1.5, 0.3, 50)  # Δ(A‖B) ≈ 0.1069 at π = ½; Δ(B‖A) = 0 (B is less private everywhere)


def _fine(params, divisor: float) -> SubsampledGaussian:
    return SubsampledGaussian(*params, discretization=default_discretization(*params) / divisor)


@pytest.fixture(scope="module")
def chosen():
    return delta_accuracy(SubsampledGaussian(*A), SubsampledGaussian(*B))


def test_the_bracket_contains_delta_of_a_grid_16_times_finer(chosen):
    """The same certified code on a grid 8× finer than the default (≥ 16× finer than the grids chosen here):
    its bracket is ~1e-7 wide, and must overlap ours (both contain Δ); its midpoint lies in ours."""
    assert all(f is not None and f >= 2.0 for f in chosen.factors)  # the chosen grids are ≥ 2× the default
    fa, fb = _fine(A, 8), _fine(B, 8)
    for ours, fine in ((chosen.ab, delta_bracket(fa, fb)), (chosen.ba, delta_bracket(fb, fa))):
        assert fine.width < 1e-6
        assert ours.lower <= fine.upper and fine.lower <= ours.upper
        assert ours.lower - fine.width <= fine.value <= ours.upper + fine.width
    assert chosen.ab.lower > 0.1 and chosen.ba.upper < 1e-9


@pytest.mark.parametrize("pa, pb", [((1.0, 0.1, 40), (0.6, 0.04, 40)),  # they cross: Δ(A‖B) attained at π ≈ 0.22
                                     ((1.0, 0.2, 30), (3.0, 0.9, 30))])  # Δ(B‖A) ≈ 2e-10: within the rounding
def test_both_brackets_overlap_a_grid_4_times_finer_than_the_default(pa, pb):
    r = delta_accuracy(SubsampledGaussian(*pa), SubsampledGaussian(*pb))
    fa, fb = _fine(pa, 4), _fine(pb, 4)
    for ours, fine in ((r.ab, delta_bracket(fa, fb)), (r.ba, delta_bracket(fb, fa))):
        assert ours.lower <= fine.upper and fine.lower <= ours.upper  # both certified: Δ lies in both
        assert ours.width <= max(REL_DEFAULT * ours.upper, ABS_DEFAULT)


def test_the_bracket_contains_delta_from_dp_accountings_pld(chosen):
    """Independent: dp-accounting's PLD δ(0) (value_discretization_interval 1e-4) gives Δ at π = ½ as
    (δ_B(0) − δ_A(0))/2 (Thm 2 at ε = 0). Δ is attained there (π = ½ is reported), so the PLD value is within
    the PLD's discretisation error (≈ 4e-9 measured against a grid 8× finer than our default; 1e-6 allowed)
    of our bracket."""
    pytest.importorskip("dp_accounting", reason="the independent PLD computation needs dp-accounting")
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    d0 = []
    for sigma, p, n in (A, B):
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        event = dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma))
        acc.compose(dp_accounting.SelfComposedDpEvent(event, n))
        d0.append(acc.get_delta(0.0))
    pld = 0.5 * (d0[1] - d0[0])
    assert chosen.ab.pi == 0.5
    assert chosen.ab.lower - 1e-6 <= pld <= chosen.ab.upper + 1e-6


def test_the_default_width_meets_its_target_without_a_grid_finer_than_the_default(chosen):
    ab, ba = chosen.ab, chosen.ba
    assert chosen.target[0] == pytest.approx(max(REL_DEFAULT * ab.upper, ABS_DEFAULT), rel=1e-12)
    assert chosen.met and ab.width <= REL_DEFAULT * ab.upper and ba.width <= ABS_DEFAULT
    assert min(chosen.factors) >= 1.0 and chosen.attempts <= 3


def test_an_explicit_accuracy_refines_below_the_default_grid():
    r = delta_accuracy(SubsampledGaussian(*A), SubsampledGaussian(*B), accuracy=1e-7)
    assert r.ab.width <= 1e-7 and r.target == (1e-7, 1e-7)
    assert min(r.factors) < 1.0  # the default grid's width (≈ 4e-7 here) is not enough
    fine = delta_bracket(_fine(A, 8), _fine(B, 8))
    assert r.ab.lower <= fine.upper and fine.lower <= r.ab.upper


def test_delta_divergence_and_compare_report_the_chosen_brackets(chosen):
    a, b = SubsampledGaussian(*A), SubsampledGaussian(*B)
    ab, ba = dc.delta_divergences(a, b)
    assert (ab.lower, ab.upper, ba.lower, ba.upper) == (chosen.ab.lower, chosen.ab.upper, chosen.ba.lower, chosen.ba.upper)
    assert dc.delta_divergence(a, b).upper == chosen.ab.upper
    c = dc.compare(a, b)
    assert (c.delta_ab.lower, c.delta_ab.upper) == (ab.lower, ab.upper)
    assert c.verdict == "b>=a" and c.verdict_certified  # Δ(B‖A) = 0: A is at least as private as B
    assert c.a is a and c.b is b  # the result names the mechanisms asked about
    tight = dc.delta_divergence(a, b, accuracy=1e-7)
    assert tight.width <= 1e-7 and tight.lower <= ab.upper and ab.lower <= tight.upper


def test_one_numeric_mechanism_against_exact_pairs_regrids_that_one_only():
    """SGM against randomized response (exact pairs): only the SGM's grid is chosen; the bracket contains
    the bracket of an 8× finer SGM grid's midpoint (certified both)."""
    a, b = SubsampledGaussian(*A), dc.RandomizedResponse(0.3)
    r = delta_accuracy(a, b)
    assert r.factors[1] is None and r.factors[0] is not None
    for ours, fine in ((r.ab, delta_bracket(_fine(A, 8), b)), (r.ba, delta_bracket(b, _fine(A, 8)))):
        assert ours.lower - fine.width <= fine.value <= ours.upper + fine.width
        assert ours.width <= max(REL_DEFAULT * ours.upper, ABS_DEFAULT)


@pytest.mark.parametrize("m", [dc.Gaussian(mu=1.0), SubsampledGaussian(1.0, 1.0, 10), _fine(A, 1),
                               SubsampledGaussian(*A, tolerance=1e-6), dc.RandomizedResponse(1.0)])
def test_only_numeric_mechanisms_without_a_given_grid_are_regridded(m):
    assert regrid_spacing(m) is None
    assert delta_accuracy(m, m) is None  # the existing paths answer (pairs merge or prior sweep)


@pytest.mark.parametrize("bad", [0.0, -1e-3, 1.0, math.nan, math.inf, True, "1e-3"])
def test_bad_accuracy_is_a_value_error_naming_it(bad):
    a, b = SubsampledGaussian(*A), SubsampledGaussian(*B)
    with pytest.raises(ValueError, match="accuracy must be"):
        delta_accuracy(a, b, accuracy=bad)
    with pytest.raises(ValueError, match="accuracy must be"):
        dc.delta_divergence(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0), accuracy=bad)
    with pytest.raises(ValueError, match="accuracy must be"):
        dc.compare(a, b, accuracy=bad)


sgm_params = st.tuples(st.floats(0.7, 2.0), st.floats(0.02, 0.3), st.integers(5, 60))


@settings(max_examples=8, deadline=None)
@given(pa=sgm_params, pb=sgm_params)
def test_law_the_chosen_bracket_overlaps_the_default_grids_and_meets_its_target_unless_capped(pa, pb):
    """Both brackets are certified, so they overlap; the target is met unless the grids reached their cap
    (the default spacing) or the attempts ran out."""
    a, b = SubsampledGaussian(*pa), SubsampledGaussian(*pb)
    r = delta_accuracy(a, b)
    ga, gb = _fine(pa, 1), _fine(pb, 1)
    for ours, dflt in ((r.ab, delta_bracket(ga, gb)), (r.ba, delta_bracket(gb, ga))):
        assert ours.lower <= dflt.upper and dflt.lower <= ours.upper
        assert ours.lower <= ours.value <= ours.upper
    assert r.met or min(r.factors) == 1.0 or r.attempts == 3


def test_a_mechanism_its_default_grid_refuses_is_refused_as_before():
    """σ = 1e-3, p = 0.5, N = 10⁷ is too large to compose at useful accuracy: the default path's clear error,
    not a certified but useless bracket from an explicitly coarse grid."""
    m = SubsampledGaussian(sigma=1e-3, sampling_rate=0.5, steps=10_000_000)
    assert regrid_spacing(m) is None
    with pytest.raises(ValueError, match="too large to compose"):
        dc.delta_divergence(m, SubsampledGaussian(1.0, 0.1, 10))


def test_compare_reads_the_crossings_on_the_chosen_grids():
    """The pair crosses (R_A − R_B changes sign): the certified crossings on the chosen grids agree with those on
    grids 4× finer than the default to the accuracy of the coarser brackets (|R_A − R_B|' ≥ ~0.1 there)."""
    pa, pb = (1.0, 0.1, 40), (0.6, 0.04, 40)
    c = dc.compare(SubsampledGaussian(*pa), SubsampledGaussian(*pb))
    fine = dc.compare(_fine(pa, 4), _fine(pb, 4))
    assert len(c.crossings) == len(fine.crossings) > 0
    for x, y in zip(c.crossings, fine.crossings):
        assert abs(x - y) < 1e-4  # measured 7e-6
    assert c.verdict == fine.verdict == "incomparable"
