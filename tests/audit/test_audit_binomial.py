"""Exact Clopper–Pearson against scipy's binomtest interval, and its coverage computed exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta, binom, binomtest

from dpcompare.audit.binomial import (clopper_pearson, clopper_pearson_lower, clopper_pearson_upper,
                                      order_statistic_bounds)


@given(n=st.integers(1, 400), frac=st.floats(0, 1), conf=st.floats(0.55, 0.999))
def test_clopper_pearson_equals_scipy_binomtest_exact_interval(n, frac, conf):
    # scipy's two-sided exact interval at level L has each end one-sided at (1 + L)/2
    k = int(round(frac * n))
    ci = binomtest(k, n).proportion_ci(confidence_level=2 * conf - 1, method="exact")
    lo, hi = clopper_pearson(k, n, conf)
    assert float(lo) == pytest.approx(ci.low, abs=1e-10)
    assert float(hi) == pytest.approx(ci.high, abs=1e-10)


@pytest.mark.parametrize("n", [1, 7, 50])
@pytest.mark.parametrize("conf", [0.8, 0.95])
def test_one_sided_coverage_is_exact_sum(n, conf):
    # P_p(p ≤ hi(K)) and P_p(p ≥ lo(K)) summed exactly over K ~ Bin(n, p), on a grid of true p
    ks = np.arange(n + 1)
    hi, lo = clopper_pearson_upper(ks, n, conf), clopper_pearson_lower(ks, n, conf)
    for p in np.linspace(0.001, 0.999, 211):
        pmf = binom.pmf(ks, n, p)
        assert pmf[p <= hi].sum() >= conf - 1e-12
        assert pmf[p >= lo].sum() >= conf - 1e-12


def test_clopper_pearson_edges():
    assert float(clopper_pearson_lower(0, 10, 0.9)) == 0.0
    assert float(clopper_pearson_upper(10, 10, 0.9)) == 1.0
    # k = 0: hi = 1 − (1 − c)^{1/n} in closed form
    assert float(clopper_pearson_upper(0, 20, 0.95)) == pytest.approx(1 - 0.05 ** (1 / 20), rel=1e-12)


def test_order_statistic_bounds_are_beta_quantiles_and_cover():
    n, k = 500, 7
    lo, hi = order_statistic_bounds(k, n, 0.9)
    assert float(hi) == pytest.approx(beta.ppf(0.9, k, n - k + 1), rel=1e-10)
    assert float(lo) == pytest.approx(beta.ppf(0.1, k, n - k + 1), rel=1e-10)
    # Monte Carlo: the k-th smallest of n uniforms lies below hi with probability 0.9 (±4 sd)
    rng = np.random.default_rng(1)
    u = np.sort(rng.random((4000, n)), axis=1)[:, k - 1]
    rate = float(np.mean(u <= hi))
    assert abs(rate - 0.9) < 4 * np.sqrt(0.9 * 0.1 / 4000)
