"""The audit against JAX-Privacy's auditing functions (``jax_privacy.auditing``, CPU), on the same data.

Where the methods agree (one fixed threshold: Clopper–Pearson on TPR and FPR, each at significance a/2,
ε from the two test inequalities; one-run (ε, δ) and f-DP tests) the numbers must be equal. Where they
differ, the difference is stated and bounded:

- JAX-Privacy's ``Bonferroni()`` strategy searches the thresholds on the Pareto front of the *observed*
  ROC and divides the significance by their number (30–160 on the samples below). That number and the
  thresholds are chosen after seeing the scores, which a union bound over a fixed family does not cover.
  We audit K = 100 thresholds at fixed *ranks* of the non-member scores (chosen from the sample sizes
  only; each rank's FPR bound is the exact Beta law of an order statistic, its TP count binomial given
  the non-members), so our correction is valid by construction. Against JAX-Privacy's own search
  corrected by the number of all possible thresholds (n + m + 1), ours is tighter on every sample
  below; against its search corrected by the data-dependent Pareto count ours is within 10 %
  (measured: 0.5–7 % lower, occasionally higher).
- JAX-Privacy's f-DP one-run bound is the ε of the *Gaussian* mechanism calibrated to (ε, δ): a bound
  valid for Gaussian-shaped mechanisms, not for every (ε, δ)-DP one. We report Steinke et al.'s bound as
  ``epsilon_lower`` (valid for every mechanism) and check the f-DP test itself against JAX-Privacy's with
  the same Gaussian curve.
"""

from __future__ import annotations

import numpy as np
import pytest

jax_privacy = pytest.importorskip("jax_privacy", reason="jax-privacy is not installed (pip install jax-privacy==2.0.0)")
auditing = pytest.importorskip("jax_privacy.auditing", reason="jax_privacy.auditing is missing in this jax-privacy version")
dp_accounting = pytest.importorskip("dp_accounting", reason="dp-accounting is needed for the Gaussian calibration")

import dpcompare as dc  # noqa: E402
from dpcompare.audit import Counts, EmpiricalMechanism, OneRun, Scores  # noqa: E402
from dpcompare.audit.one_run import epsilon_lower_one_run, fdp_rejects  # noqa: E402


def _scores(seed, mu, n):
    rng = np.random.default_rng(seed)
    return rng.normal(mu, 1, n), rng.normal(0, 1, n)


@pytest.mark.parametrize("seed, mu, n, t", [(0, 1.0, 2000, 1.5), (1, 2.0, 5000, 2.5), (2, 3.0, 1000, 3.0)])
@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_single_threshold_clopper_pearson_equal(seed, mu, n, t, delta):
    ins, outs = _scores(seed, mu, n)
    theirs = auditing.CanaryScoreAuditor(ins, outs).epsilon_clopper_pearson(
        0.05, delta, one_sided=False, threshold_strategy=auditing.Explicit(t))
    counts = Counts([int(np.sum(ins >= t))], [n], [int(np.sum(outs >= t))], [n])
    ours = EmpiricalMechanism.from_counts(counts, 0.95).epsilon_lower(delta)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


SAMPLES = [(0, 1.0, 5000), (1, 2.0, 20000), (2, 3.0, 2000), (3, 0.5, 10000), (4, 1.0, 1000)]


@pytest.mark.parametrize("seed, mu, n", SAMPLES)
def test_all_thresholds_ours_tighter_than_the_all_thresholds_correction(seed, mu, n):
    ins, outs = _scores(seed, mu, n)
    auditor = auditing.CanaryScoreAuditor(ins, outs)
    # JAX-Privacy's search over all thresholds with Bonferroni over all n + m + 1 of them
    theirs, _ = auditor._epsilon_clopper_pearson_all_thresholds(0.05 / (2 * n + 1), 1e-5, False)
    ours = EmpiricalMechanism.from_scores(Scores(ins, outs), 0.95).epsilon_lower(1e-5)
    assert ours >= theirs - 1e-9, (ours, theirs)
    # both are lower bounds: neither exceeds the truth (the ε of G_μ at δ)
    assert max(ours, theirs) <= float(dc.Gaussian(mu=mu).epsilon(1e-5))


@pytest.mark.parametrize("seed, mu, n", SAMPLES)
def test_all_thresholds_close_to_the_pareto_front_correction(seed, mu, n):
    ins, outs = _scores(seed, mu, n)
    theirs = auditing.CanaryScoreAuditor(ins, outs).epsilon_clopper_pearson(0.05, 1e-5, one_sided=False)
    ours = EmpiricalMechanism.from_scores(Scores(ins, outs), 0.95).epsilon_lower(1e-5)
    assert ours >= 0.9 * theirs, (ours, theirs)
    assert theirs <= float(dc.Gaussian(mu=mu).epsilon(1e-5))


@pytest.mark.parametrize("m, k, r", [(1000, 200, 180), (10000, 500, 420), (200, 50, 50)])
@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_one_run_steinke_equal(m, k, r, delta):
    theirs = auditing._epsilon_one_run(0, m, k, r, 0.05, delta)  # the function behind epsilon_one_run
    assert epsilon_lower_one_run(OneRun(m, k, r), 0.95, delta) == pytest.approx(theirs, abs=2e-6)


def test_one_run_public_api_equal():
    # the public entry point with one explicit threshold: m = all canaries, guesses = scores ≥ t
    ins, outs = _scores(4, 2.0, 500)
    t = 2.0
    theirs = auditing.CanaryScoreAuditor(ins, outs).epsilon_one_run(0.05, 1e-5, threshold_strategy=auditing.Explicit(t))
    tp, fp = int(np.sum(ins >= t)), int(np.sum(outs >= t))
    ours = epsilon_lower_one_run(OneRun(1000, tp + fp, tp), 0.95, 1e-5)
    assert ours == pytest.approx(theirs, abs=2e-6)


@pytest.mark.parametrize("m, k, r", [(1000, 200, 180), (10000, 500, 420)])
def test_one_run_fdp_test_equal_with_the_gaussian_curve(m, k, r):
    eps = auditing._epsilon_one_run_fdp(0, m, k, r, 0.05, 1e-5)
    assert eps > 0
    for e, rejected in ((eps * (1 - 1e-3), True), (eps * (1 + 1e-3), False)):
        mu = 1.0 / dp_accounting.get_sigma_gaussian(e, 1e-5)
        assert fdp_rejects(OneRun(m, k, r), lambda a, g=dc.Gaussian(mu=mu): float(g.tradeoff(a)), 0.95) is rejected


def test_certified_tpr_below_their_estimate():
    ins, outs = _scores(5, 2.0, 20000)
    theirs = auditing.CanaryScoreAuditor(ins, outs).tpr_at_given_fpr(np.array([1e-3, 1e-2]))
    ours = EmpiricalMechanism.from_scores(Scores(ins, outs), 0.95)
    assert np.all(ours.tpr_lower([1e-3, 1e-2]) <= theirs)
    # the estimates agree to Monte Carlo error (ours interpolates the hull of 100 ranks)
    np.testing.assert_allclose(ours.tpr_estimate([1e-3, 1e-2]), theirs, atol=0.03)
