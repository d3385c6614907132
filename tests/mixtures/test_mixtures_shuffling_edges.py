"""Shuffle model at the edges of its domain (regressions).

- ``shuffle(eps0=1, n=10)`` reported ε = ∞: n shuffled ε₀-DP reports are ε₀-DP (post-processing of
  the differing user's report), so the reported curve must never be below f_{ε₀,0};
- n = 10⁸ ended in MemoryError and n = 10⁹ was killed at 24 GB (O(n) arrays of the law of C):
  now the law of C is evaluated on its Chernoff bulk only;
- sizes that cannot fit in 1 GiB are refused before any work with the estimate and the limit.

References are independent: brute-force enumeration of App. C's outcomes (test_mixtures_shuffling's
``brute_force``), the pointwise maximum of two curves on a fine grid, and scipy's binomial cdf.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import dpcompare as dc
from dpcompare.mixtures import ShuffleAnalysis, Shuffled
from dpcompare.mixtures.clone_pairs import bulk_range, clone_count_pairs, estimate_memory
from dpcompare.mixtures.algebra import local_dp_floor
from dpcompare.tradeoff import DiscretePair, Rounding

from strategies import mass_vectors
from test_mixtures_shuffling import brute_force

X = np.linspace(0.0, 1.0, 2001)


def f_eps0(eps0: float, x: np.ndarray) -> np.ndarray:
    """The (ε₀, 0)-DP trade-off function (Dong, Roth & Su eq 6), written out."""
    return np.maximum.reduce([np.zeros_like(x), 1 - math.exp(eps0) * x, math.exp(-eps0) * (1 - x)])


def test_n10_is_finite_and_at_most_eps0():
    # regression: ε was ∞ for every δ below Thm 4.2's +∞ atom (1−2w)(1−w)^{n−1} ≈ 0.03
    m = dc.parse("shuffle(eps0=1, n=10)")
    for delta in (1e-3, 1e-6, 1e-12, 1e-300):
        eps = float(m.epsilon(delta))
        assert math.isfinite(eps) and eps <= 1.0
    assert float(m.delta(1.0)) == 0.0


@pytest.mark.parametrize(("n", "eps0"), [(2, 1.0), (5, 1.0), (10, 1.0), (13, 0.5), (30, 2.0), (60, 4.0)])
def test_floored_curve_is_valid_against_brute_force(n, eps0):
    # the floored Thm 4.2 curve stays below the exact trade-off of App. C's pair (brute force) and
    # above f_{ε₀,0}; the exact pair is itself ε₀-DP (the reason the floor is valid)
    _, _, _, p, q = brute_force(n, eps0)
    exact = DiscretePair.from_masses(p, q).tradeoff(X)
    assert np.all(exact >= f_eps0(eps0, X) - 1e-12)
    got = Shuffled(eps0, n).tradeoff(X)
    assert np.all(got <= exact + 1e-12)
    assert np.all(got >= f_eps0(eps0, X) - 1e-12)


@settings(deadline=None, max_examples=25)
@given(eps0=st.floats(0.05, 8.0), n=st.integers(2, 60), delta=st.floats(1e-300, 0.999))
def test_never_worse_than_eps0_dp(eps0, n, delta):
    # the law: n shuffled ε₀-DP reports are ε₀-DP, whatever the analysis
    for analysis in ShuffleAnalysis:
        m = Shuffled(eps0, n, analysis)
        assert float(m.epsilon(delta)) <= eps0 * (1 + 1e-12)
        assert float(m.delta_bounds(eps0)[1]) <= 1e-15
        assert np.all(m.tradeoff(X) >= f_eps0(eps0, X) - 1e-12)


@settings(deadline=None, max_examples=40)
@given(p=mass_vectors(5), q=mass_vectors(5), eps0=st.floats(0.05, 4.0))
def test_local_dp_floor_is_the_pointwise_maximum(p, q, eps0):
    pair = DiscretePair.from_masses(p, q, rounding=Rounding.PESSIMISTIC)
    out = local_dp_floor(pair, eps0)
    want = np.maximum(pair.tradeoff(X), f_eps0(eps0, X))  # the definition, on a fine grid
    assert np.max(np.abs(out.tradeoff(X) - want)) <= 1e-9
    assert out.rounding is Rounding.PESSIMISTIC
    assert float(out.delta(eps0)) <= 1e-12


def test_local_dp_floor_rejects_bad_eps0():
    pair = DiscretePair.from_masses([0.5, 0.5], [0.25, 0.75])
    for bad in (0.0, -1.0, math.inf, math.nan, True):
        with pytest.raises(ValueError, match="eps0 must be a finite number > 0"):
            local_dp_floor(pair, bad)


@pytest.mark.parametrize(("n", "p"), [(1000, 0.54), (10**5, 0.54), (10**5, 0.01), (10**6, 0.9)])
def test_bulk_tails_are_certified(n, p):
    # t_lo, t_hi bound the true tails (scipy's binomial cdf), and each is ≤ the requested tail
    c_lo, c_hi, t_lo, t_hi = bulk_range(n, p, 1e-20)
    assert binom.cdf(c_lo - 1, n - 1, p) <= t_lo <= 1e-20
    assert binom.sf(c_hi, n - 1, p) <= t_hi <= 1e-20
    assert c_lo <= (n - 1) * p <= c_hi


def test_bracket_from_the_bulk_contains_the_exact_pair():
    # the bulk construction (Chernoff tails to ±∞ / ℓ = 0) against the exact pair of every clone count
    n, w2 = 1200, 2 / (math.e + 1)
    exact, _, _ = clone_count_pairs(n, w2)
    pess, opt, plan = clone_count_pairs(n, w2, max_atoms=5000, exact_atoms=0)
    assert not plan.exact and plan.c_lo > 0 and plan.c_hi < n - 1
    eps = np.linspace(0.0, 2.0, 41)
    assert np.all(opt.delta(eps) <= exact.delta(eps) + 1e-15)
    assert np.all(exact.delta(eps) <= pess.delta(eps) + 1e-15)
    # 1e-12: the exact pair's vertex sums over 437 785 atoms carry ~2e-14 of rounding at α = 0
    assert np.all(pess.tradeoff(X) <= exact.tradeoff(X) + 1e-12)
    assert np.all(exact.tradeoff(X) <= opt.tradeoff(X) + 1e-12)


def test_billion_users_in_bounded_memory():
    # regression: n = 10⁹ was killed at 24 GB; the bulk has ~3·10⁵ clone counts
    m = Shuffled(1.0, 10**9, max_atoms=20_000)
    assert estimate_memory(10**9, 2 * m.w, max_atoms=20_000) < 2**30
    eps = float(m.epsilon(1e-6))
    lo, hi = (float(v) for v in m.delta_bounds(eps))
    assert 0 < lo <= hi <= 1e-6
    # amplification ~ 1/√n: between 10⁻⁵ and 10⁻³ at ε₀ = 1 (Thm 4.2's CLT regime; n = 10⁶ gives 3.5e-3)
    assert 1e-5 < eps < 1e-3
    assert m.plan.c_hi - m.plan.c_lo < 400_000


@pytest.mark.parametrize("n", [10**12, 10**15])
def test_too_large_is_refused_before_work(n):
    with pytest.raises(ValueError, match=r"needs an estimated .* GiB .*limit 1 GiB"):
        Shuffled(1.0, n).pairs()


def test_cli_refusal_is_one_line(capsys):
    from dpcompare.io import cli

    assert cli.main(["describe", "shuffle(eps0=1, n=1e13)"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and "GiB" in err and err.count("\n") == 1


def test_clones_baseline_refuses_sizes_beyond_memory():
    from dpcompare.mixtures import FMTBound

    with pytest.raises(ValueError, match=r"needs an estimated .* GiB .*limit 1 GiB"):
        FMTBound(1.0, 10**15)
