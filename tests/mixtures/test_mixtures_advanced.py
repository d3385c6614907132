"""[MIX] Lemma 6.2 / Lemma 6.3 (general form), Prop 6.4 and Prop E.1 against brute force on small
discrete mixtures: the exact trade-off of the mixture is built from its atoms (DiscretePair.from_masses
of the mixed probability vectors) and every bound must lie below it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from dpcompare.mixtures.advanced import lemma62_terms, lemma63_general, lemma63_profile, split_exponents
from dpcompare.mixtures.subsampling import subsampled_pairs, swapped_mixture_bound
from dpcompare.tradeoff import DiscretePair
from domain_reference import exact_tradeoff, rational_mixture
from strategies import mass_vectors

X = np.linspace(0.0, 1.0, 201)
weights = st.floats(0.05, 0.95)
GRID = np.linspace(-8.0, 8.0, 1601)


def _choices(w):
    return [(g, e) for g in (0.0, 0.5 * w, 0.9 * w) for e in (w + 0.1 * (1 - w), w + 0.5 * (1 - w), 1.0)]


@settings(deadline=None, max_examples=60)
@given(
    p0=mass_vectors(4), p1=mass_vectors(4), q0=mass_vectors(4), q1=mass_vectors(4),
    w=weights, g=st.floats(0.0, 0.99), e=st.floats(0.01, 1.0), eps=st.floats(-3.0, 4.0),
)
def test_lemma62_inequality(p0, p1, q0, q1, w, g, e, eps):
    gamma, eta = g * w, w + e * (1 - w)
    assume(gamma < w < eta)
    lhs, rhs = lemma62_terms(w, gamma, eta, eps, (p0, p1), (q0, q1))
    assert lhs <= rhs + 1e-12
    # the same with the roles of γ and η swapped (η < w < γ)
    lhs2, rhs2 = lemma62_terms(w, eta, gamma, eps, (p0, p1), (q0, q1)) if eta <= 1 and gamma >= 0 else (0, 0)
    assert lhs2 <= rhs2 + 1e-12


def test_split_exponents_solve_eqs_9_and_10():
    w, g, e = 0.3, 0.1, 0.8
    ep = np.array([-1.0, 0.0, 0.7, 3.0])
    e0, e1 = split_exponents(w, g, e, ep)
    assert np.allclose((1 - w) * np.exp(e0) + w * np.exp(e1), np.exp(ep), rtol=1e-14)
    assert np.allclose((1 - w) * g * np.exp(e0) + w * e * np.exp(e1), w * np.exp(ep), rtol=1e-14)


@settings(deadline=None, max_examples=25)
@given(p0=mass_vectors(4), p1=mass_vectors(4), q0=mass_vectors(4), q1=mass_vectors(4), w=weights)
def test_lemma63_general_is_below_the_exact_mixture(p0, p1, q0, q1, w):
    P, Q = (1 - w) * p0 + w * p1, (1 - w) * q0 + w * q1
    exact = DiscretePair.from_masses(Q, P)  # T(Q, P): H₀ = Q
    prof = [[DiscretePair.from_masses(q, p) for q in (q0, q1)] for p in (p0, p1)]  # δ = H(Pᵢ‖Qⱼ)
    # the profile bound holds at every real ε′, including ε′ < 0
    for eps in (-2.0, -0.3, 0.0, 0.5, 2.0):
        for g, e in _choices(w):
            assert exact.delta(eps) <= float(lemma63_profile(w, g, e, prof, eps)[0]) + 1e-12
    F = lemma63_general(w, _choices(w), prof, X, eps_grid=GRID)
    assert np.all(F <= exact.tradeoff(X) + 1e-12)
    assert np.all((F >= 0) & (F <= 1 - X + 1e-15))


@settings(deadline=None, max_examples=25)
@given(p0=mass_vectors(4), p1=mass_vectors(4), w=weights)
def test_prop_e1_is_the_subsampling_case(p0, p1, w):
    # Q₀ = P₀ (sub-sampling; P₀ a neighbour of P₁ and of Q₁ = P₀): Prop E.1's C((1−w)Id + w·f)
    # and the general Lemma 6.3 are both below the exact T(P, Q)
    P, Q = (1 - w) * p0 + w * p1, p0
    exact = DiscretePair.from_masses(P, Q)
    f = DiscretePair.from_masses(p1, p0)
    pess, _ = subsampled_pairs(f, w)
    assert np.all(pess.tradeoff(X) <= exact.tradeoff(X) + 1e-12)
    prof = [[DiscretePair.from_masses(q, p) for q in (p0, p0)] for p in (p0, p1)]
    F = lemma63_general(w, _choices(w), prof, X, eps_grid=GRID)
    assert np.all(F <= DiscretePair.from_masses(Q, P).tradeoff(X) + 1e-12)


@settings(deadline=None, max_examples=25)
@given(p=mass_vectors(4), q=mass_vectors(4), w=st.floats(0.0, 0.5))
@example(p=np.array([0.0, 1.0, 0.0, 0.0]), q=np.array([0.5, 0.5, 0.0, 0.0]), w=5e-324)  # w·q rounds to 0 in floats
def test_prop_64_is_the_swapped_case(p, q, w):
    # P = (1−w)P₀ + wQ₀, Q = (1−w)Q₀ + wP₀ (P₁ = Q₀, Q₁ = P₀): C(2w·Id + (1−2w)·T(P₀, Q₀)) ≤ exact;
    # the exact pair in rational arithmetic (in floats w·q can round to 0 and move f(0) from 1 down)
    exact = exact_tradeoff(rational_mixture(p, q, w), rational_mixture(q, p, w), X)
    pess, _ = swapped_mixture_bound(DiscretePair.from_masses(p, q), w)
    assert np.all(pess.tradeoff(X) <= np.array(exact) + 1e-12)


def test_lemma63_general_can_beat_joint_concavity():
    # a case where a (γ, η) choice gives a strictly tighter bound than γ = 0, η = 1 (which is
    # Lemma 3.1's revealed index for the H-profile): components that share their Q's
    p0, p1 = np.array([0.6, 0.3, 0.1]), np.array([0.1, 0.3, 0.6])
    q0, q1 = np.array([0.2, 0.5, 0.3]), np.array([0.3, 0.5, 0.2])
    w = 0.5
    prof = [[DiscretePair.from_masses(q, p) for q in (q0, q1)] for p in (p0, p1)]
    base = lemma63_general(w, [(0.0, 1.0)], prof, X, eps_grid=GRID)
    best = lemma63_general(w, _choices(w), prof, X, eps_grid=GRID)
    exact = DiscretePair.from_masses((1 - w) * q0 + w * q1, (1 - w) * p0 + w * p1).tradeoff(X)
    assert np.all(best >= base - 1e-15) and np.all(best <= exact + 1e-12)
    assert np.max(best - base) > 1e-3


@pytest.mark.parametrize(
    ("w", "g", "e", "message"),
    [(0.5, 0.6, 0.7, "gamma < w < eta"), (0.0, 0.0, 0.5, "w must be in \\(0, 1\\)"), (0.5, -0.1, 0.7, "gamma must be"), (0.5, 0.1, 1.5, "eta must be")],
)
def test_bad_parameters(w, g, e, message):
    with pytest.raises(ValueError, match=message):
        split_exponents(w, g, e, 0.0)
