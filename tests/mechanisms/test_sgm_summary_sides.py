"""The summary's views of ``SubsampledGaussian`` read the pessimistic side alone where that is all they report.

``bayes_error`` (R* and the μ̂ fit's R_M) is the lower end of ``bayes_error_bounds`` without evaluating the optimistic
pair; ``pessimistic_pair`` (the AUC's and a prior grid's pair) is ``pairs()[0]`` without symmetrising the optimistic
pair; ``summary_advantage`` is computed once per object. Independent references: the two-sided bracket
(``bayes_error_bounds``, ``pairs``) these must agree with bit for bit, and the trapezoid AUC of the pessimistic pair's
ROC vertices.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc

_MECHS = [(1.0, 0.01, 100), (0.8, 0.05, 30), (2.0, 0.3, 10)]


@pytest.fixture(scope="module", params=_MECHS, ids=lambda t: f"sgm{t}")
def sgm(request):
    return dc.SubsampledGaussian(*request.param)


def test_bayes_error_is_the_lower_end_of_the_bracket(sgm):
    pi = np.concatenate([[0.0, 1e-300, 1e-12, 0.5, 1.0 - 1e-12, 1.0], np.linspace(0.0, 1.0, 2001)])
    got = sgm.bayes_error(pi)
    assert np.array_equal(got, sgm.bayes_error_bounds(pi)[0])
    assert np.all(got <= np.minimum(pi, 1.0 - pi)) and np.all(got >= 0.0)


@given(st.floats(0.0, 1.0))
def test_bayes_error_scalar_matches_bracket(pi):
    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    assert float(m.bayes_error(pi)) == float(m.bayes_error_bounds(pi)[0])


def test_bayes_error_refuses_bad_prior():
    with pytest.raises(ValueError, match="pi"):
        dc.SubsampledGaussian(1.0, 0.01, 100).bayes_error(1.5)


def test_closed_form_bayes_error_is_the_gaussians():
    m = dc.SubsampledGaussian(1.0, 1.0, 4)  # p = 1: G_μ with μ = 2
    pi = np.linspace(0.0, 1.0, 11)
    assert np.array_equal(m.bayes_error(pi), dc.Gaussian(mu=2.0).bayes_error(pi))


def test_pessimistic_pair_without_the_optimistic_one():
    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    pess = m.pessimistic_pair()
    assert "_pair_bracket" not in m.__dict__  # no optimistic pair symmetrised, no order check run
    auc = m.auc
    assert "_pair_bracket" not in m.__dict__
    a, b = pess.vertices  # the ROC's trapezoid rule on the pessimistic pair's vertices
    assert auc == pytest.approx(1.0 - float(np.sum(0.5 * (b[1:] + b[:-1]) * np.diff(a))), abs=0.0)
    pairs = m.pairs()  # built later, it reuses the same symmetrised object
    assert pairs[0] is pess and pairs[0].is_symmetric and pairs[1].is_symmetric


def test_pessimistic_pair_equals_pairs_of_a_fresh_object(sgm):
    fresh = dc.SubsampledGaussian(sgm.sigma, sgm.sampling_rate, sgm.steps)
    p_fresh, _ = fresh.pairs()
    pess = sgm.pessimistic_pair()
    assert np.array_equal(pess.loss, p_fresh.loss) and np.array_equal(pess.log_p, p_fresh.log_p)
    assert np.array_equal(pess.log_q, p_fresh.log_q)
    assert dc.SubsampledGaussian(sgm.sigma, sgm.sampling_rate, sgm.steps).auc == fresh.auc


def test_summary_advantage_once_per_object():
    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    first = m.summary_advantage()
    assert "_summary_advantage" in m.__dict__
    assert m.summary_advantage() == first
    # the same number from a fresh object whose default δ(ε) was asked first (no dependence on history)
    other = dc.SubsampledGaussian(1.0, 0.01, 100)
    other.delta(0.5)
    assert other.summary_advantage() == first


@pytest.mark.parametrize("args", [(1.0, 0.01, 100), (1.0, 1.0, 4), (1e13, 0.01, 10)], ids=["numeric", "p=1", "negligible"])
def test_exact_without_symmetrising(args):
    m = dc.SubsampledGaussian(*args)
    exact = m.exact
    assert "_pair_bracket" not in m.__dict__
    pess, opt = dc.SubsampledGaussian(*args).pairs()  # PairMechanism's definition: one pair for both sides
    assert exact == (args[1] >= 1.0 or pess is opt)


def test_summary_mechanism_reads_the_summary_composition():
    from dpcompare.composition.sgm_summary import summary_composition

    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    s = m.summary_mechanism()
    assert s is m.summary_mechanism() and s.summary_mechanism() is s and s.spec == m.spec
    assert s.composition is summary_composition(1.0, 0.01, 100)
    # the pessimistic views read the same pair: ε and the advantage bit for bit, the AUC too
    assert float(s.epsilon(1e-5)) == float(m.epsilon(1e-5))
    assert s.summary_advantage() == m.summary_advantage() and s.auc == m.auc
    # R* is the same pair's R less η: it moves by the change of η only (certified either way)
    assert abs(s.minimax_bayes_error - m.minimax_bayes_error) == pytest.approx(
        abs(m.numerical_error - s.numerical_error), abs=1e-15)
    for other in (dc.SubsampledGaussian(1.0, 0.01, 100, discretization=1e-3), dc.SubsampledGaussian(1.0, 1.0, 4),
                  dc.Laplace(b=1.0)):
        assert other.summary_mechanism() is other
