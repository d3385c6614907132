"""Joint concavity ([MIX] Lemma 3.1, Prop B.1, Prop B.2, Prop 6.1, Examples F.1, F.2, F.4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.mixtures import joint_concavity as jc
from dpcompare.mixtures.algebra import identity_pair
from dpcompare.tradeoff import DiscretePair, delta_between_pairs
from strategies import mass_vectors

X = np.linspace(0.0, 1.0, 2001)


@st.composite
def mixtures(draw, size: int = 4, components: int = 2):
    """(weights, P list, Q list) of distributions on a common outcome space."""
    k = draw(st.integers(2, components + 1))
    raw = np.array(draw(st.lists(st.integers(1, 100), min_size=k, max_size=k)), dtype=float)
    w = raw / raw.sum()
    P = [draw(mass_vectors(size)) for _ in range(k)]
    Q = [draw(mass_vectors(size)) for _ in range(k)]
    return w, P, Q


@given(mixtures())
def test_lemma31_bound_is_below_the_exact_mixture(m):
    # the law of joint concavity: T(P_w, Q_w) ≥ T((X|I, I), (Y|I, I))
    w, P, Q = m
    exact = jc.exact_mixture_pair(w, P, Q)
    bound = jc.mixture_pair(w, [DiscretePair.from_masses(p, q) for p, q in zip(P, Q)])
    assert np.all(bound.tradeoff(X) <= exact.tradeoff(X) + 1e-12)
    assert delta_between_pairs(bound, exact)[0] <= 1e-12  # R_bound ≤ R_exact everywhere
    assert jc.equality_gap(w, P, Q) >= 0.0


@given(mixtures(size=3))
def test_disjoint_supports_give_equality(m):
    # components on disjoint blocks of outcomes: revealing I loses nothing (Prop 6.1, Example F.2)
    w, P, Q = m
    k, s = len(P), P[0].size
    Pd = [np.concatenate([np.zeros(i * s), p, np.zeros((k - 1 - i) * s)]) for i, p in enumerate(P)]
    Qd = [np.concatenate([np.zeros(i * s), q, np.zeros((k - 1 - i) * s)]) for i, q in enumerate(Q)]
    assert jc.ratio_condition(w, Pd, Qd)
    assert jc.equality_gap(w, Pd, Qd) <= 1e-15


@given(mixtures())
def test_ratio_condition_implies_equality(m):
    w, P, Q = m
    if jc.ratio_condition(w, P, Q):
        assert jc.equality_gap(w, P, Q) <= 1e-14


def test_examples_f1_f2():
    w, P, Q = jc.example_f1()
    assert jc.ratio_condition(w, P, Q) and jc.equality_gap(w, P, Q) == 0.0
    w, P, Q = jc.example_f2([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.6, 0.4], [0.1, 0.9], w1=0.3)
    assert jc.ratio_condition(w, P, Q) and jc.equality_gap(w, P, Q) <= 1e-16


def test_example_f4_lemma31_is_loose():
    # (½P + ½Q) vs (½Q + ½P) is Id; Lemma 3.1 with components (P, Q) and (Q, P) is not
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6])
    w, P, Q = [0.5, 0.5], [p, q], [q, p]
    exact = jc.exact_mixture_pair(w, P, Q)
    assert np.allclose(exact.tradeoff(X), 1 - X, atol=1e-15)
    assert not jc.ratio_condition(w, P, Q)
    assert jc.equality_gap(w, P, Q) > 0.1


def test_mixture_with_identity_matches_prop_b2_points():
    rr = dc.RandomizedResponse(eps=np.log(3.0))
    lam = np.array([-2.0, -0.5, 0.3, 0.9, 2.0])
    a, b = jc.mixture_points([0.5, 0.5], [rr, identity_pair()], lam)
    pair = jc.mixture_pair([0.5, 0.5], [rr.pairs()[0], identity_pair()])
    assert np.allclose(pair.tradeoff(a), b, atol=1e-15)


@pytest.mark.parametrize(
    "comps",
    [
        (dc.Gaussian(mu=0.5), dc.Gaussian(mu=2.0)),
        (dc.Gaussian(mu=1.0), dc.Gaussian(mu=1.0), dc.Gaussian(mu=3.0)),
        (dc.Laplace(b=1.0), dc.Gaussian(mu=1.0)),
        (dc.Laplace(b=0.5), dc.RandomizedResponse(eps=1.0)),
    ],
    ids=["g-g", "g-g-g", "lap-g", "lap-rr"],
)
def test_continuous_mixture_points_inside_the_certified_bracket(comps):
    # Prop B.2 eq (7) with (f′)⁻¹(−t) = Φ(−(log t + μ²/2)/μ) for G_μ and the Laplace loss tails,
    # against the discretised Lemma 3.1 pair
    w = np.full(len(comps), 1 / len(comps))
    mech = jc.JointConcavity(tuple(w), tuple(comps))
    pess, opt = jc.mixture_pairs(w, comps)
    lam = np.linspace(-4, 4, 17)
    a, b = jc.mixture_points(w, comps, lam)
    assert np.all(pess.tradeoff(a) <= b + 1e-12) and np.all(b <= opt.tradeoff(a) + 1e-12)
    assert np.max(opt.tradeoff(a) - pess.tradeoff(a)) < 1e-4
    assert not mech.exact and mech.pairs()[0].is_symmetric


def test_single_component_is_the_component():
    g = dc.Gaussian(mu=1.0)
    a, b = jc.mixture_points([1.0], [g], np.linspace(-3, 3, 13))
    assert np.allclose(b, g.tradeoff(a), atol=1e-14)


@given(mixtures(components=1), st.integers(1, 99))
def test_prop_b1_unequal_weights_bound(m, k):
    w, P, Q = m
    wp = np.array([k / 100.0, 1 - k / 100.0])
    exact = DiscretePair.from_masses(w[0] * P[0] + w[1] * P[1], wp[0] * Q[0] + wp[1] * Q[1])
    bound = jc.unequal_weights_pair(w, wp, P, Q)
    assert np.all(bound.tradeoff(X) <= exact.tradeoff(X) + 1e-12)


def test_prop_b1_coupling_weights_are_the_seeds():
    for w1, w1p in [(0.7, 0.4), (0.2, 0.9), (0.5, 0.5)]:
        m = jc.index_coupling([w1, 1 - w1], [w1p, 1 - w1p])
        assert m[0, 0] == pytest.approx(min(w1, w1p)) and m[1, 1] == pytest.approx(min(1 - w1, 1 - w1p))
        assert m[0, 1] == pytest.approx((1 - w1p) - min(1 - w1, 1 - w1p))  # (P₁, Q₂)
        assert m[1, 0] == pytest.approx(w1p - min(w1, w1p))  # (P₂, Q₁)
    m = jc.index_coupling([0.5, 0.3, 0.2], [0.2, 0.2, 0.6])
    assert np.allclose(m.sum(axis=1), [0.5, 0.3, 0.2]) and np.allclose(m.sum(axis=0), [0.2, 0.2, 0.6])


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([0.5, 0.6], "must sum to 1"),
        ([1.5, -0.5], "must be non-negative"),
        ([0.5], "one entry per component"),
        ([float("nan"), 1.0], "must be finite"),
        ("ab", "sequence of numbers"),
    ],
)
def test_bad_weights(weights, message):
    rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    with pytest.raises(ValueError, match=message):
        jc.mixture_pair(weights, [rr, rr])


def test_bad_components():
    with pytest.raises(ValueError, match="not a valid trade-off function"):
        jc.JointConcavity((0.5, 0.5), (dc.Gaussian(mu=1.0), lambda a: np.asarray(a) ** 0.5))
    with pytest.raises(ValueError, match="must sum to 1"):
        jc.exact_mixture_pair([0.5, 0.5], [[0.5, 0.6], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]])
