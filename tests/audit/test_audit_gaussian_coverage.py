"""Coverage of the audit's confidence region, over many seeded repetitions (not one draw).

A simulated audit of the Gaussian mechanism with known μ: non-member scores N(0, 1), member scores
N(μ, 1). The threshold attack's ROC is exactly G_μ (the likelihood ratio is monotone in the score;
Dong, Roth & Su 2022, eq 2.2), so the true curve is known. At confidence c, each side of the band must
contain it in at least a fraction c of the repetitions (the test allows 3 binomial standard deviations
of Monte Carlo error). A control with unadjusted per-threshold bounds shows that the harness detects a
band that is too narrow.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

import dpcompare as dc
from dpcompare.audit import Counts, EmpiricalMechanism, Scores, clopper_pearson_lower, hull_vertices
from dpcompare.audit.binomial import order_statistic_bounds

MU = 1.5
REPS = 300
N = 800


def _g(alpha):
    return norm.cdf(norm.ppf(1 - np.asarray(alpha)) - MU)


def _covers_above(a_corner, b_corner):
    """True curve below the optimistic hull ⇔ below it at the hull's vertices (G_μ convex)."""
    a, b = hull_vertices(a_corner, b_corner)
    return bool(np.all(_g(a) <= b + 1e-12))


def _covers_below(m: EmpiricalMechanism):
    """True curve above the pessimistic curve ⇔ R_G ≥ R_pess at R_pess's breakpoints (R_G concave,
    R_pess piecewise linear between them)."""
    pess = m.attack_pairs[0]
    pi = np.concatenate([[0.0, 0.5, 1.0], 1 / (1 + np.exp(-pess.loss))])
    return bool(np.all(dc.Gaussian(mu=MU).bayes_error(pi) >= pess.bayes_error(pi) - 1e-12))


def _rate_ok(hits: int, conf: float) -> bool:
    return hits / REPS >= conf - 3 * np.sqrt(conf * (1 - conf) / REPS)


@pytest.mark.parametrize("conf", [0.8, 0.95])
def test_score_band_covers_true_curve(conf):
    above = below = 0
    for seed in range(REPS):
        rng = np.random.default_rng(seed)
        s = Scores(rng.normal(MU, 1, N), rng.normal(0, 1, N))
        m = EmpiricalMechanism.from_scores(s, conf, thresholds=30)
        above += _covers_above(m.fpr_high, 1 - m.tpr_low)
        below += _covers_below(m)
    assert _rate_ok(above, conf), above / REPS
    assert _rate_ok(below, conf), below / REPS


def test_count_region_covers_true_point():
    # one operating point of the threshold test at t: FPR = 1 − Φ(t), TPR = 1 − Φ(t − μ)
    conf, t = 0.9, 1.0
    fpr, tpr = 1 - norm.cdf(t), 1 - norm.cdf(t - MU)
    hits = 0
    rng = np.random.default_rng(7)
    for _ in range(REPS):
        fp, tp = rng.binomial(400, fpr), rng.binomial(300, tpr)
        m = EmpiricalMechanism.from_counts(Counts([tp], [300], [fp], [400]), conf)
        hits += bool(m.fpr_high[0] >= fpr and m.tpr_low[0] <= tpr)
    assert _rate_ok(hits, conf), hits / REPS


def test_harness_detects_an_unadjusted_band():
    # per-threshold bounds at level c each, no Bonferroni: not simultaneous, so coverage falls below c
    conf, hits = 0.8, 0
    ranks = np.unique(np.round(np.geomspace(1, N, 30)).astype(int))
    for seed in range(REPS):
        rng = np.random.default_rng(seed)
        x, y = np.sort(rng.normal(0, 1, N)), np.sort(rng.normal(MU, 1, N))
        t = x[N - ranks]
        tp = N - np.searchsorted(y, t, side="right")
        a_hi = order_statistic_bounds(ranks, N, conf)[1]
        hits += _covers_above(a_hi, 1 - clopper_pearson_lower(tp, N, conf))
    assert not _rate_ok(hits, conf), hits / REPS


def test_score_band_covers_true_curve_with_ties():
    # scores rounded to a grid of 0.5: many ties between and within the two samples. The randomised
    # threshold tests then trace the piecewise-linear ROC through the grid points (exact from Φ), which is
    # concave (rounding keeps the likelihood ratio monotone), so the true curve is that interpolation.
    conf, step = 0.8, 0.5
    edges = np.arange(-8, 10, step) + step / 2  # "score > t" for t on the grid ⇔ raw score > t + step/2
    fpr_true = np.concatenate([[0.0], (1 - norm.cdf(edges))[::-1], [1.0]])
    fnr_true = np.concatenate([[1.0], norm.cdf(edges - MU)[::-1], [0.0]])

    def g_true(a):
        return np.interp(a, fpr_true, fnr_true)

    above = 0
    for seed in range(REPS):
        rng = np.random.default_rng(seed)
        s = Scores(np.round(rng.normal(MU, 1, N) / step) * step, np.round(rng.normal(0, 1, N) / step) * step)
        m = EmpiricalMechanism.from_scores(s, conf, thresholds=30)
        a, b = hull_vertices(m.fpr_high, 1 - m.tpr_low)
        above += bool(np.all(g_true(a) <= b + 1e-12))
    assert _rate_ok(above, conf), above / REPS
