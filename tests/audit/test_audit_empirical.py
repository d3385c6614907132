"""The empirical mechanism: hull against brute force, the ε bound against its closed form, every view,
and the validation of the inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.audit import Counts, EmpiricalMechanism, OneRun, Scores, hull_pair, hull_vertices


def _brute_hull(a, b, x):
    """Lower convex envelope at x: min over chords between two points (1-d Carathéodory)."""
    pa = np.concatenate([[0.0, 1.0], a])
    pb = np.concatenate([[1.0, 0.0], b])
    best = np.inf
    for i in range(pa.size):
        for j in range(pa.size):
            if pa[i] <= x <= pa[j]:
                w = 0.0 if pa[j] == pa[i] else (x - pa[i]) / (pa[j] - pa[i])
                best = min(best, (1 - w) * pb[i] + w * pb[j] if pa[j] > pa[i] else min(pb[i], pb[j]))
    return best


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=8))
def test_hull_matches_brute_force(points):
    a = np.array([p[0] for p in points])
    b = np.array([p[1] for p in points])
    pair = hull_pair(a, b)
    for x in np.linspace(0, 1, 41):
        assert float(pair.tradeoff(x)) == pytest.approx(min(_brute_hull(a, b, x), 1 - x), abs=1e-9)


def test_single_point_is_the_binary_test_pair():
    # one test with FPR a, FNR b is the pair (Bern(a), Bern(1 − b)): its curve is the hull through (a, b)
    pair = hull_pair([0.1], [0.3])
    exact = dc.DiscretePair.from_masses([0.1, 0.9], [0.7, 0.3])
    alpha = np.linspace(0, 1, 101)
    np.testing.assert_allclose(pair.tradeoff(alpha), exact.tradeoff(alpha), atol=1e-12)
    np.testing.assert_allclose(pair.delta([0.0, 0.5, 1.0]), exact.delta([0.0, 0.5, 1.0]), atol=1e-12)


@pytest.mark.parametrize("delta", [0.0, 1e-5, 1e-2])
def test_epsilon_lower_equals_closed_form(delta):
    c = Counts(tp=[60, 300, 5], positives=[100, 400, 50], fp=[5, 40, 0], negatives=[100, 400, 60])
    m = EmpiricalMechanism.from_counts(c, 0.9)
    assert m.epsilon_lower(delta) == pytest.approx(m.epsilon_lower_points(delta), rel=1e-9, abs=1e-12)
    # by hand at the first point: Bonferroni over 3 points × 2 rates
    from scipy.stats import beta
    each = 1 - 0.1 / 6
    a_hi = beta.ppf(each, 5 + 1, 100 - 5)
    t_lo = beta.ppf(1 - each, 60, 100 - 60 + 1)
    assert m.epsilon_lower(delta) >= math.log((t_lo - delta) / a_hi) - 1e-9


def test_views_and_band_order():
    rng = np.random.default_rng(3)
    m = EmpiricalMechanism.from_scores(Scores(rng.normal(1.0, 1, 3000), rng.normal(0, 1, 3000)), 0.95, thresholds=40)
    alpha = np.linspace(0, 1, 51)
    lo, hi = m.tradeoff_bounds(alpha)
    est = m.estimate.tradeoff(alpha)
    assert np.all(lo <= est + 1e-12) and np.all(est <= hi + 1e-12)
    pi = np.linspace(0, 1, 51)
    r_lo, r_hi = m.bayes_error_bounds(pi)
    assert np.all(r_lo <= r_hi + 1e-12) and np.all(r_hi <= np.minimum(pi, 1 - pi) + 1e-12)
    assert 0 <= m.advantage <= 1
    assert m.epsilon_lower(1e-5) <= m.estimate.epsilon(1e-5) <= m.epsilon(1e-5)
    # the certified TPR lower bound is below the estimate, the claimed maximum of the truth above
    assert np.all(m.tpr_lower([1e-3, 1e-2, 0.1]) <= m.tpr_estimate([1e-3, 1e-2, 0.1]) + 1e-12)


def test_scores_ties_and_rank_tests_are_valid():
    # all scores tied: the attack is powerless; the certified side must say so (ε lower bound ≈ 0)
    m = EmpiricalMechanism.from_scores(Scores(np.zeros(500), np.zeros(500)), 0.95)
    assert m.epsilon_lower(0.0) < 0.35
    # members all far above: a strong certified bound, and still finite
    m2 = EmpiricalMechanism.from_scores(Scores(np.full(500, 10.0), np.zeros(500)), 0.95)
    assert 4.0 < m2.epsilon_lower(1e-5) < math.inf


@pytest.mark.parametrize("kwargs, match", [
    (dict(tp=[5], positives=[4], fp=[0], negatives=[10]), "tp must satisfy 0 <= tp <= positives"),
    (dict(tp=[-1], positives=[4], fp=[0], negatives=[10]), "tp must satisfy"),
    (dict(tp=[1], positives=[4], fp=[11], negatives=[10]), "fp must satisfy 0 <= fp <= negatives"),
    (dict(tp=[1], positives=[0], fp=[0], negatives=[10]), "positives must be >= 1"),
    (dict(tp=[1.5], positives=[4], fp=[0], negatives=[10]), "tp must contain whole numbers"),
    (dict(tp=[1, 2], positives=[4], fp=[0], negatives=[10]), "one entry per operating point"),
    (dict(tp=[], positives=[], fp=[], negatives=[]), "non-empty"),
])
def test_counts_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Counts(**kwargs)


@pytest.mark.parametrize("members, nonmembers, match", [
    ([1.0, float("nan")], [0.0], "members must be finite numbers, got nan at index 1"),
    ([], [0.0], "members must not be empty"),
    ([1.0], [], "nonmembers must not be empty"),
    ([1.0], [[0.0, 1.0]], "nonmembers must be a 1-d array"),
    ([1.0], [float("inf")], "nonmembers must be finite"),
])
def test_scores_validation(members, nonmembers, match):
    with pytest.raises(ValueError, match=match):
        Scores(members, nonmembers)


@pytest.mark.parametrize("args, match", [((0, 0, 0), "m \\(canaries\\) must be >= 1"), ((10, 11, 0), "k \\(guesses\\)"),
                                         ((10, 5, 6), "r \\(correct guesses\\)"), ((10, 5.5, 1), "k must be a whole")])
def test_one_run_validation(args, match):
    with pytest.raises(ValueError, match=match):
        OneRun(*args)


@pytest.mark.parametrize("conf", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_confidence_validation(conf):
    with pytest.raises(ValueError, match="confidence must be in \\(0, 1\\)"):
        EmpiricalMechanism.from_counts(Counts([1], [2], [0], [2]), conf)
