"""mechanisms/sgm.py ``never_sampled_bound``: δ(ε) ≤ 1 − (1 − p)^N (the example is never sampled otherwise), so
ε(δ) = 0 at once where δ reaches it — at p = 1e-8 that answer took a 7-second grid composition before."""

from __future__ import annotations

import pytest

import dpcompare as dc

mp = pytest.importorskip("mpmath", reason="mpmath is the reference for 1 − (1 − p)^N")


@pytest.mark.parametrize(("p", "n"), [(1e-8, 1000), (1e-3, 10), (0.3, 7), (1e-300, 5), (0.5, 10**6)])
def test_bound_is_never_below_the_exact_value(p, n):
    b = dc.SubsampledGaussian(1.0, p, n).never_sampled_bound
    with mp.workdps(50):
        exact = -mp.expm1(n * mp.log1p(-mp.mpf(p)))  # 1 − (1 − p)^N without 1 − p rounding to 1
        assert mp.mpf(b) >= exact
        assert mp.mpf(b) <= exact * (1 + mp.mpf(1e-14)) + mp.mpf(1e-320)


def test_grid_delta_at_zero_respects_the_bound():
    # independent check of the law δ(0) = TV ≤ 1 − (1 − p)^N on a grid the library certifies
    m = dc.SubsampledGaussian(1.0, 0.01, 10)
    lo, _ = m.delta_bounds(0.0)
    assert float(lo) <= m.never_sampled_bound


def test_tiny_rate_epsilon_is_zero_without_a_grid():
    m = dc.SubsampledGaussian(1.0, 1e-8, 1000)
    assert m.epsilon(1e-5) == 0.0  # 1 − (1 − 1e-8)^1000 = 9.99995e-6 ≤ 1e-5
    assert "composition" not in m.__dict__  # answered before any composition was built
