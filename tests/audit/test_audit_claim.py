"""audit(claim, data): the contradiction, the gap and the TPR rows against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import dpcompare as dc
from dpcompare.audit import Counts, EmpiricalMechanism, audit


def _g(mu, a):
    return norm.cdf(norm.ppf(1 - np.asarray(a, dtype=float)) - mu)


@settings(max_examples=30)
@given(tp=st.integers(0, 200), fp=st.integers(0, 200), mu=st.floats(0.1, 3.0))
def test_contradiction_is_a_corner_below_the_claim(tp, fp, mu):
    # G_μ is convex, so a chord between corners above it stays above it: the audit's certified curve
    # dips below G_μ iff one of its corners (α_hi, 1 − TPR_lo) does (by a margin beyond rounding)
    counts = Counts([tp], [200], [fp], [200])
    r = audit(dc.Gaussian(mu=mu), counts, confidence=0.9)
    m = r.empirical
    margin = float(np.max(_g(mu, m.fpr_high) - (1 - m.tpr_low)))
    if abs(margin) > 1e-9:
        assert r.contradicts is (margin > 0)


def _symmetric_single_point_bayes(a, b, pi):
    # R(π) = min over the vertices of the symmetric hull through (a, b) and (b, a) of π·α + (1 − π)·β
    verts = [(0.0, 1.0), (a, b), (b, a), (1.0, 0.0)]
    return np.min([pi * x + (1 - pi) * y for x, y in verts], axis=0)


@pytest.mark.parametrize("tp, fp", [(300, 20), (150, 60), (600, 5)])
def test_gap_against_a_grid(tp, fp):
    mu = 1.0
    r = audit(dc.Gaussian(mu=mu), Counts([tp], [1000], [fp], [1000]), confidence=0.95)
    pi = np.linspace(0, 1, 200001)
    a, b = fp / 1000, 1 - tp / 1000
    diff = _symmetric_single_point_bayes(a, b, pi) - dc.Gaussian(mu=mu).bayes_error(pi)
    grid_max = max(float(diff.max()), 0.0)
    assert r.gap.value == pytest.approx(grid_max, abs=1e-6)
    assert r.gap.value >= grid_max - 1e-12  # the exact maximum is at least the grid's
    if grid_max > 0:
        assert diff[np.argmax(diff)] == pytest.approx(r.gap.value, abs=1e-6)
        assert r.gap.pi == pytest.approx(pi[np.argmax(diff)], abs=0.02)
    assert r.gap.lower <= r.gap.value <= r.gap.upper


def test_tpr_rows_against_closed_forms():
    r = audit(dc.Gaussian(mu=2.0), Counts([500], [1000], [10], [1000]), confidence=0.95)
    for row in r.tpr_at_fpr:
        assert row["claimed_max"] == pytest.approx(1 - _g(2.0, row["fpr"]), rel=1e-9)
        assert row["attack_lower"] <= row["attack"]
    # the estimate's curve through (0.01, 0.5): at FPR 0.01 the TPR is 0.5, at 0.001 a tenth of it
    assert r.tpr_at_fpr[1]["attack"] == pytest.approx(0.5, abs=1e-12)
    assert r.tpr_at_fpr[0]["attack"] == pytest.approx(0.05, abs=1e-12)


def test_true_claim_rarely_contradicted_and_false_claim_caught():
    # the truth is contradicted only when the confidence region misses it: at most 1 − c of the time
    # (plus 3 binomial standard deviations of Monte Carlo error); a claim well below the truth nearly always
    rng = np.random.default_rng(2)
    t, reps, conf = 1.0, 60, 0.95
    fpr, tpr = 1 - norm.cdf(t), 1 - norm.cdf(t - 1.5)
    truth = wrong = 0
    for _ in range(reps):
        c = Counts([rng.binomial(2000, tpr)], [2000], [rng.binomial(2000, fpr)], [2000])
        m = EmpiricalMechanism.from_counts(c, conf)
        truth += audit(dc.Gaussian(mu=1.5), m, confidence=conf).contradicts
        wrong += audit(dc.Gaussian(mu=0.9), m, confidence=conf).contradicts
    assert truth / reps <= (1 - conf) + 3 * np.sqrt(conf * (1 - conf) / reps)
    assert wrong / reps >= 0.9


def test_confidence_mismatch_and_bad_claim():
    m = EmpiricalMechanism.from_counts(Counts([5], [10], [1], [10]), 0.9)
    with pytest.raises(ValueError, match="differs from the audit's own"):
        audit(dc.Gaussian(mu=1), m, confidence=0.95)
    with pytest.raises(TypeError, match="claim must be a dpcompare Mechanism"):
        audit("gaussian(mu=1)", m, confidence=0.9)


@pytest.mark.parametrize("tp, fp", [(600, 20), (300, 100), (950, 1)])
def test_gdp_mu_lower_is_the_contradiction_boundary(tp, fp):
    c = Counts([tp, tp // 2], [1000, 1000], [fp, fp // 3], [1000, 1000])
    m = EmpiricalMechanism.from_counts(c, 0.95)
    mu = m.gdp_mu_lower()
    assert mu > 0
    assert audit(dc.Gaussian(mu=mu * (1 - 1e-6)), m).contradicts
    assert not audit(dc.Gaussian(mu=mu * (1 + 1e-6)), m).contradicts
