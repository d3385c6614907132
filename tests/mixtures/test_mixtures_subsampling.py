"""Sub-sampling and two-point mixtures ([MIX] Prop E.1, Prop 6.4, Lemma 3.1 vs 6.3, Examples F.3, F.4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import ndtr, ndtri

import dpcompare as dc
from dpcompare.mixtures import subsampling as sub
from dpcompare.mixtures.algebra import mix_with_identity, swap_mixture
from dpcompare.mixtures.joint_concavity import mixture_pair
from dpcompare.tradeoff import DiscretePair
from strategies import mass_vectors

X = np.linspace(0.0, 1.0, 2001)


@given(mass_vectors(4), mass_vectors(4), st.floats(0.0, 1.0, allow_nan=False))
def test_prop_e1_is_a_lower_bound_for_subsampling(p0, p1, w):
    # Poisson sub-sampling, add/remove: P = (1−w)P₀ + wP₁, Q = P₀ (= (1−w)P₀ + wQ₁ with Q₁ = P₀),
    # f = T(P₁, P₀); T(P, Q) and T(Q, P) ≥ C((1−w)Id + w·f_sym), brute force on a finite space
    bound, _ = sub.subsampled_pairs(DiscretePair.from_masses(p1, p0), w)
    P, Q = (1 - w) * p0 + w * p1, p0
    for a, b in ((P, Q), (Q, P)):
        exact = DiscretePair.from_masses(a / a.sum(), b / b.sum())
        assert np.all(bound.tradeoff(X) <= exact.tradeoff(X) + 1e-12)
    assert bound.is_symmetric


def test_prop_e1_needs_p0_to_be_a_neighbour():
    # with an arbitrary P₀ (as printed) the bound fails; documented in dpcompare.mixtures.subsampling
    p0, p1, q1, w = np.array([0, 0, 0, 1.0]), np.array([0, 0, 0.2, 0.8]), np.full(4, 0.25), 0.5
    bound, _ = sub.subsampled_pairs(DiscretePair.from_masses(p1, q1), w)
    exact = DiscretePair.from_masses((1 - w) * p0 + w * p1, (1 - w) * p0 + w * q1)
    # by hand (Neyman–Pearson): P = (0, 0, .1, .9), Q = (.125, .125, .125, .625): reject atoms 1, 2 free and
    # all of atom 3 at α = 0.1: β = 1 − .25 − .125 = 0.625. The bound: f = T(p1, q1) at 0.1 rejects atoms
    # 1, 2 and half of atom 3: f = 1 − .5 − .125 = .375; (1 − w)(1 − α) + w·f = .45 + .1875 = 0.6375
    assert float(exact.tradeoff(0.1)) == pytest.approx(0.625) and float(bound.tradeoff(0.1)) == pytest.approx(0.6375)


@given(mass_vectors(4), mass_vectors(4), st.floats(0.0, 0.5, allow_nan=False))
def test_prop_64_is_a_lower_bound_of_the_swapped_mixture(p, q, w):
    pair = DiscretePair.from_masses(p, q)
    bound, _ = sub.swapped_mixture_bound(pair, w)
    exact = swap_mixture(pair, w)
    assert np.all(bound.tradeoff(X) <= exact.tradeoff(X) + 1e-12)


def test_subsampled_mechanism_profile():
    rr = dc.RandomizedResponse(eps=2.0)
    m = sub.Subsampled(rr, 0.1)
    # δ(ε') = w·δ_f(ε) with e^ε' = 1 + w(e^ε − 1) (the amplification-by-subsampling profile)
    eps = np.linspace(0, 2, 9)
    eps_prime = np.log1p(0.1 * np.expm1(eps))
    assert np.allclose(m.delta(eps_prime), 0.1 * rr.delta(eps), atol=1e-14)
    assert m.spec == "subsample(rr(eps=2), w=0.1)"
    with pytest.raises(ValueError, match="component must be a mechanism"):
        sub.Subsampled(lambda a: 1 - a, 0.1)
    with pytest.raises(ValueError, match=r"w \(sampling probability\) must be in"):
        sub.Subsampled(rr, 1.2)


def test_example_f3_lemma31_closed_form_matches_the_joint_concavity_pair():
    mu, w = 1.0, 1 / 3
    pess, opt = sub.lemma31_bound(dc.Gaussian(mu=mu), w)
    closed = sub.example_f3_lemma31(mu, w, X)
    assert np.all(pess.tradeoff(X) <= closed + 1e-12) and np.all(closed <= opt.tradeoff(X) + 1e-12)
    assert np.max(opt.tradeoff(X) - pess.tradeoff(X)) < 1e-4


def test_example_f3_lemma63_is_tighter_and_both_are_valid():
    # Figure 4 (μ = 1, w = 1/3): C(w·Id + (1−w)G_μ) ≥ Lemma 3.1's bound, both ≤ the exact w·Id + (1−w)G_μ
    mu, w = 1.0, 1 / 3
    exact = w * (1 - X) + (1 - w) * ndtr(ndtri(1 - X) - mu)
    l63_pess, _ = sub.lemma63_bound(dc.Gaussian(mu=mu), w)
    l31_pess, l31_opt = sub.lemma31_bound(dc.Gaussian(mu=mu), w)
    assert np.all(l63_pess.tradeoff(X) <= exact + 1e-12)
    assert np.all(sub.example_f3_lemma31(mu, w, X) <= exact + 1e-12)
    gain = l63_pess.tradeoff(X) - l31_opt.tradeoff(X)  # certified: pessimistic 6.3 vs optimistic 3.1
    assert np.all(gain >= -1e-12) and gain.max() > 0.01
    ex_pess, ex_opt = sub.exact_mixture_with_identity(dc.Gaussian(mu=mu), w)
    assert np.all(ex_pess.tradeoff(X) <= exact + 1e-12) and np.all(exact <= ex_opt.tradeoff(X) + 1e-12)


def test_example_f4_prop64_gives_exactly_id():
    pair = DiscretePair.from_masses([0.7, 0.2, 0.1], [0.1, 0.3, 0.6])
    bound, _ = sub.swapped_mixture_bound(pair, 0.5)
    assert np.allclose(bound.tradeoff(X), 1 - X, atol=1e-15)
    assert np.allclose(swap_mixture(pair, 0.5).tradeoff(X), 1 - X, atol=1e-15)
    loose = mixture_pair([0.5, 0.5], [pair, pair.swap()])  # Lemma 3.1
    assert np.max((1 - X) - loose.tradeoff(X)) > 0.1


def test_printed_equal_weight_form_of_lemma63_is_not_a_lower_bound():
    # App. E.1 "T ≥ (1−w)F₁ + wF₂" pointwise, P₀ = Q₀ = Q₁ = Q, P₁ ⟂ Q, w = ½ (documented in subsampling)
    q = np.array([0.5, 0.5, 0.0, 0.0])
    p2 = np.array([0.0, 0.0, 0.5, 0.5])
    exact = DiscretePair.from_masses(0.5 * q + 0.5 * p2, q)
    f1 = DiscretePair.from_masses(q, q)  # Id
    f2 = DiscretePair.from_masses(p2, q)  # 0
    printed = 0.5 * f1.tradeoff(0.4) + 0.5 * f2.tradeoff(0.4)
    assert float(exact.tradeoff(0.4)) == pytest.approx(0.2) and printed == pytest.approx(0.3)


def test_mix_with_identity_at_w_one_is_id():
    assert np.allclose(mix_with_identity(DiscretePair.from_masses([0.9, 0.1], [0.1, 0.9]), 1.0).tradeoff(X), 1 - X)
