"""One-run audits: the bounds' defining properties, and their coverage on a mechanism with known ε.

Randomized response with ε on each canary's inclusion bit is ε-DP per canary; an auditor who guesses
every canary from the released bit is correct with probability e^ε/(1+e^ε), independently. Steinke et
al.'s ε lower bound must not exceed ε in more than 1 − confidence of the repetitions, and neither test
may reject the true claim more often.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpcompare.audit import OneRun
from dpcompare.audit.one_run import (approx_dp_tradeoff, epsilon_lower_one_run, epsilon_lower_one_run_fdp,
                                     fdp_rejects, steinke_p_value)


def test_p_value_delta_zero_is_the_binomial_tail():
    run = OneRun(500, 100, 80)
    q = 1 / (1 + math.exp(-1.0))
    assert steinke_p_value(run, 1.0, 0.0) == pytest.approx(binom.sf(79, 100, q), rel=1e-12)


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_epsilon_lower_is_the_rejection_boundary(delta):
    run = OneRun(1000, 200, 180)
    e = epsilon_lower_one_run(run, 0.95, delta)
    assert steinke_p_value(run, e, delta) <= 0.05 < steinke_p_value(run, e * (1 + 1e-6), delta)


def test_no_guesses_or_no_correct_prove_nothing():
    assert epsilon_lower_one_run(OneRun(100, 0, 0)) == 0.0
    assert epsilon_lower_one_run(OneRun(100, 50, 0)) == 0.0
    assert epsilon_lower_one_run_fdp(OneRun(100, 0, 0)) == 0.0


def test_fdp_test_is_monotone_in_the_claim():
    run = OneRun(1000, 200, 180)
    e = epsilon_lower_one_run_fdp(run, 0.95, 1e-5)
    assert fdp_rejects(run, approx_dp_tradeoff(e * 0.99, 1e-5))
    assert not fdp_rejects(run, approx_dp_tradeoff(e * 1.01, 1e-5))


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_coverage_on_randomized_response(eps):
    reps, m, conf = 200, 400, 0.9
    rng = np.random.default_rng(11)
    q = 1 / (1 + math.exp(-eps))
    over = rejected = 0
    rr = approx_dp_tradeoff(eps, 0.0)  # the trade-off curve of ε-randomized response (Kairouz et al. 2015)
    for _ in range(reps):
        r = int(rng.binomial(m, q))
        run = OneRun(m, m, r)
        over += epsilon_lower_one_run(run, conf, 0.0) > eps
        rejected += fdp_rejects(run, rr, conf)
    slack = 3 * math.sqrt(conf * (1 - conf) / reps)
    assert over / reps <= 1 - conf + slack
    assert rejected / reps <= 1 - conf + slack
