"""Laws every mechanism obeys ([BCP] §2), on empirical mechanisms from random counts and scores."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare.audit import Counts, EmpiricalMechanism, Scores
from dpcompare.comparison.delta import delta_divergence

counts = st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n), st.integers(0, n), st.just(n)))


@settings(max_examples=25)
@given(points=st.lists(counts, min_size=1, max_size=4), conf=st.floats(0.5, 0.999))
def test_bayes_error_laws(points, conf):
    tp, p, fp, n = (list(x) for x in zip(*points))
    m = EmpiricalMechanism.from_counts(Counts(tp, p, fp, n), conf)
    pi = np.linspace(0, 1, 401)
    for side in (m.strongest, m.certified, m.estimate):
        r = side.bayes_error(pi)
        assert np.all(r <= np.minimum(pi, 1 - pi) + 1e-12) and np.all(r >= -1e-15)
        assert np.all(np.diff(r, 2) <= 1e-12)  # concave
        np.testing.assert_allclose(r, side.bayes_error(1 - pi), atol=1e-12)  # symmetric
    lo, hi = m.bayes_error_bounds(pi)
    assert np.all(lo <= m.estimate.bayes_error(pi) + 1e-12) and np.all(m.estimate.bayes_error(pi) <= hi + 1e-12)
    assert delta_divergence(m.estimate, m.estimate).value == 0.0
    # the proved ε never exceeds the estimate's, nor the strongest consistent attack's
    assert m.epsilon_lower(1e-5) <= m.estimate.epsilon(1e-5) <= m.epsilon(1e-5)


@settings(max_examples=10)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 400), shift=st.floats(-2, 4))
def test_score_band_laws(seed, n, shift):
    rng = np.random.default_rng(seed)
    m = EmpiricalMechanism.from_scores(Scores(rng.normal(shift, 1, n), rng.normal(0, 1, max(1, n // 2))), 0.9,
                                       thresholds=20)
    alpha = np.linspace(0, 1, 201)
    lo, hi = m.tradeoff_bounds(alpha)
    assert np.all(lo <= hi + 1e-12) and np.all(hi <= 1 - alpha + 1e-12)
    assert 0.0 <= m.epsilon_lower(0.0) <= m.epsilon(0.0)
