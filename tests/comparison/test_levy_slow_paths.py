"""Lévy distance slow path found by the deep API fuzz (comparison/levy.py over tradeoff/pair.py)."""

from __future__ import annotations

import dpcompare as dc
from dpcompare.mechanisms.composed import Composed


def test_nearly_perfectly_private_against_nearly_blatant_is_one_half():
    """levy_distance(shuffle_pair(eps0=1e-6, n=2), Composed(Gaussian(mu=15.11), steps=1000)) took 52 s in the deep
    fuzz (22–34 s of CPU alone): each of the bisection's 56 calls per level rebuilt the pair's O(n) error tables
    (n = 2.5e5 atoms); they are built once now (``DiscretePair._bound_tables``), ~3 s of CPU.

    Reference (closed form): Λ(PerfectlyPrivate, BlatantlyNonPrivate) = ½ (α_PP(s) = (1 − s)/2, α_BNP(0) = 0), and
    Λ here is at most that (f_A ≤ 1 − α, f_B ≥ 0 give α_A ≤ α_PP, α_B ≥ α_BNP) and within 1e-6 of it (A is
    ε₀-DP with ε₀ = 1e-6; B's f is below 2Φ(−μ/2) with μ = 15.11·√1000 ≈ 478)."""
    a = dc.parse("shuffle_pair(eps0=1e-06, n=2)")
    b = Composed(dc.Gaussian(mu=15.11), steps=1000)
    r = dc.levy_distance(a, b, max_points=30000)
    assert 0.5 - 1e-6 <= r.lower <= r.value <= r.upper <= 0.5 + 1e-7
    assert r.upper - r.lower <= 1e-7  # the default tol


def test_tradeoff_bounds_are_the_same_with_the_tables_cached():
    pair = Composed(dc.Gaussian(mu=1.0), steps=4).pairs()[0]
    alpha = [0.0, 1e-12, 0.1, 0.5, 0.9, 1 - 1e-12, 1.0]
    first = pair.tradeoff_bounds(alpha)  # builds the tables
    again = pair.tradeoff_bounds(alpha)
    g = dc.Gaussian(mu=2.0).tradeoff(alpha)  # G_1^⊗4 = G_2 exactly: an independent closed form
    assert (first[0] == again[0]).all() and (first[1] == again[1]).all()
    assert (first[0] <= g + 1e-6).all() and (g <= first[1] + 1e-6).all()
