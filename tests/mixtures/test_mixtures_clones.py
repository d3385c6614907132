"""The Feldman–McMillan–Talwar baseline (dpcompare.mixtures.clones) against brute force and their published value."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpcompare.mixtures import FMTBound, HidingAmongClones, ShuffleAnalysis, Shuffled, fmt_delta, fmt_epsilon
from dpcompare.mixtures.clones import conditional_delta
from dpcompare.tradeoff import DiscretePair


def _conditional_brute(c: int, eps: float, eps0: float, swap: bool = False) -> float:
    """H_{e^ε}(P|c ‖ Q|c) from the definition: P|c = (1−w)(A+1) + w·A, Q|c = (1−w)·A + w·(A+1)."""
    w = 1 / (math.exp(eps0) + 1)
    a = np.arange(c + 2)
    b_prev = binom.pmf(a - 1, c, 0.5)
    b_here = binom.pmf(a, c, 0.5)
    p = (1 - w) * b_prev + w * b_here
    q = (1 - w) * b_here + w * b_prev
    if swap:
        p, q = q, p
    return float(np.maximum(p - math.exp(eps) * q, 0).sum())


def _fmt_pair_brute(n: int, eps0: float) -> DiscretePair:
    """FMT Thm 3.2 pair from its definition: (A + Δ, C − A + 1 − Δ) vs (A + 1 − Δ, C − A + Δ)."""
    w = 1 / (math.exp(eps0) + 1)
    P: dict = {}
    Q: dict = {}
    for c in range(n):
        wc = binom.pmf(c, n - 1, math.exp(-eps0))
        for a in range(c + 1):
            m = wc * binom.pmf(a, c, 0.5)
            for delta, pd in ((1, 1 - w), (0, w)):
                kp = (a + delta, c - a + 1 - delta)
                kq = (a + 1 - delta, c - a + delta)
                P[kp] = P.get(kp, 0.0) + m * pd
                Q[kq] = Q.get(kq, 0.0) + m * pd
    keys = sorted(set(P) | set(Q))
    p = np.array([P.get(k, 0.0) for k in keys])
    q = np.array([Q.get(k, 0.0) for k in keys])
    return DiscretePair.from_masses(p / p.sum(), q / q.sum())


@pytest.mark.parametrize("eps0", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.05, 0.4, 1.1])
def test_conditional_divergence_matches_the_definition(eps0, eps):
    cs = np.arange(0, 51)
    got = conditional_delta(cs, eps, eps0)
    brute = np.array([_conditional_brute(int(c), eps, eps0) for c in cs])
    assert np.max(np.abs(got - brute)) <= 1e-13
    brute_swapped = np.array([_conditional_brute(int(c), eps, eps0, swap=True) for c in cs])
    assert np.max(np.abs(brute - brute_swapped)) <= 1e-14  # both orderings agree (a ↦ c + 1 − a)


def test_more_clones_are_more_private():
    b = conditional_delta(np.arange(0, 200), 0.2, 1.0)
    assert np.all(np.diff(b) <= 1e-16)


@pytest.mark.parametrize(("n", "eps0"), [(2, 1.0), (10, 0.5), (30, 2.0)])
def test_mechanism_equals_the_brute_force_pair_and_the_numerical_method(n, eps0):
    brute = _fmt_pair_brute(n, eps0)
    mech = HidingAmongClones(eps0, n)
    x = np.linspace(0, 1, 2001)
    assert np.max(np.abs(mech.tradeoff(x) - brute.tradeoff(x))) <= 1e-12
    eps = np.linspace(0, eps0, 21)
    fmt = np.array([fmt_delta(float(e), eps0, n) for e in eps])
    assert np.max(np.abs(fmt - brute.delta(eps))) <= 1e-12


def test_numerical_method_equals_the_pair_for_moderate_n():
    m, b = HidingAmongClones(1.0, 1500), FMTBound(1.0, 1500)
    for e in (0.0, 0.05, 0.1, 0.3):
        assert b.delta(e) == pytest.approx(float(m.delta(e)), abs=1e-13)


def test_published_value_n1e5_eps4():
    # apple/ml-shuffling-amplification README: ε ∈ [0.1675, 0.1728] for n = 1e5, ε₀ = 4, δ = 1e-6
    eps = fmt_epsilon(1e-6, 4.0, 10**5)
    assert 0.1675385583317841 <= eps <= 0.172790550755978
    assert fmt_delta(eps, 4.0, 10**5) <= 1e-6  # never understated


def test_coarser_steps_only_loosen_the_bound():
    b1, b100 = FMTBound(4.0, 10**5), FMTBound(4.0, 10**5, step=100)
    for e in (0.1, 0.15, 0.2):
        assert b100.delta(e) >= b1.delta(e)
    assert b100.epsilon(1e-6) >= b1.epsilon(1e-6)


@pytest.mark.parametrize(("n", "eps0"), [(50, 0.5), (200, 1.0), (1000, 3.0)])
def test_stronger_clone_pair_is_a_post_processing_of_the_fmt_pair(n, eps0):
    # 2/(e^ε₀+1) ≥ e^−ε₀ clones: [MIX]'s pair is Blackwell-dominated by FMT's
    eps = np.linspace(0, eps0, 31)
    strong = Shuffled(eps0, n, ShuffleAnalysis.CLONE_PAIR).delta(eps)
    fmt = HidingAmongClones(eps0, n).delta(eps)
    assert np.all(strong <= fmt + 1e-14)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eps0": 0.0, "n": 10}, "eps0 must be > 0"),
        ({"eps0": 1.0, "n": 1}, "must be an integer >= 2"),
        ({"eps0": 1.0, "n": 10, "step": 0}, "step must be an integer >= 1"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FMTBound(**kwargs)


def test_bad_delta_and_eps():
    b = FMTBound(1.0, 100)
    with pytest.raises(ValueError, match="delta must be in"):
        b.epsilon(0.0)
    with pytest.raises(ValueError, match="eps must be in"):
        b.delta(-0.1)
