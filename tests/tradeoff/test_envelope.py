"""The one lower envelope (tradeoff/envelope.py): min of Bayes errors, valid masses, exact symmetry.

References are brute force on the outcome space: R(π) = Σᵢ min(π·pᵢ, (1−π)·qᵢ) ([BCP] eq 2) for
each component, evaluated directly from the probability vectors (linear space where it is accurate,
log space with ``logsumexp`` in the far tails); the envelope must equal their minimum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.special import logsumexp

from dpcompare.tradeoff import DiscretePair, Rounding, lower_envelope
from dpcompare.tradeoff.envelope import symmetrize
from strategies import mass_pairs

PI = np.concatenate([np.linspace(0.0, 1.0, 201), [1e-9, 1 - 1e-9]])


def brute_R(p: np.ndarray, q: np.ndarray, pi: np.ndarray) -> np.ndarray:
    return np.minimum(np.multiply.outer(pi, p), np.multiply.outer(1 - pi, q)).sum(axis=-1)


def breakpoints(*pairs: DiscretePair) -> np.ndarray:
    """Every component breakpoint π = expit(ℓ), where the envelope's error would show first."""
    lam = np.concatenate([pr.loss for pr in pairs])
    return 1.0 / (1.0 + np.exp(-lam))


@settings(max_examples=60, deadline=None)
@given(st.lists(mass_pairs(), min_size=1, max_size=3), st.booleans())
def test_envelope_is_the_pointwise_minimum(components, with_pp):
    pairs = [DiscretePair.from_masses(p, q) for p, q in components]
    env = lower_envelope(pairs, include_perfectly_private=with_pp)
    pi = np.concatenate([PI, breakpoints(*pairs)])
    want = np.min([brute_R(p, q, pi) for p, q in components], axis=0)
    if with_pp:
        want = np.minimum(want, np.minimum(pi, 1 - pi))
    np.testing.assert_allclose(env.bayes_error(pi), want, atol=1e-13)
    # a pair of probability distributions: the masses telescope to at most 1
    assert env.p.sum() + env.p_neg_inf <= 1 + 1e-12 and env.q.sum() + env.q_pos_inf <= 1 + 1e-12


@settings(max_examples=60, deadline=None)
@given(mass_pairs())
def test_symmetrize_is_exactly_symmetric_and_the_minimum(pq):
    p, q = pq
    pair = DiscretePair.from_masses(p, q, rounding=Rounding.PESSIMISTIC)
    sym = symmetrize(pair)
    assert sym.is_symmetric and sym.rounding is Rounding.PESSIMISTIC
    if pair.is_symmetric:  # symmetric to rounding already (e.g. losses ±log 2 computed as two logs): kept
        assert sym is pair
    else:  # built as the mirror image to the last bit: (ℓ, p, q) ↦ (−ℓ, q, p)
        np.testing.assert_array_equal(sym.loss, -sym.loss[::-1])
        np.testing.assert_array_equal(sym.log_p, sym.log_q[::-1])
    pi = np.concatenate([PI, breakpoints(pair)])
    want = np.minimum(brute_R(p, q, pi), brute_R(p, q, 1 - pi))
    np.testing.assert_allclose(sym.bayes_error(pi), want, atol=1e-13)
    assert sym.p.sum() + sym.p_neg_inf <= 1 + 1e-12


def test_far_tails_in_log_space():
    """Atoms at ℓ = ±5000 (masses e^{−5000}): R underflows in linear space, the envelope must not.
    Brute force in log space: log R(π) = logsumexp over atoms of min(log π + log pᵢ, log(1−π) + log qᵢ)."""
    loss = np.array([-1.0, 4300.0, 5000.0])
    log_q = np.log(np.array([0.36, 0.4, 0.23]))  # q₀ is reset below to p₀·e^{−1} ≈ 0.368
    log_p = log_q - loss
    log_p[0] = np.log1p(-np.exp(log_p[1:]).sum())  # P: essentially all mass at ℓ = −1
    log_q[0] = log_p[0] - 1.0
    pair = DiscretePair(loss, log_p, None, None, exact_log_q=log_q)
    sym = symmetrize(pair)
    assert sym.is_symmetric
    lam = np.array([-4800.0, -4300.5, -10.0, 0.0, 10.0, 4300.5, 4800.0])

    def log_r(lp, lq, lam):
        lpi, l1mpi = -np.logaddexp(0, -lam), -np.logaddexp(0, lam)
        return np.array([logsumexp(np.minimum(a + lp, b + lq)) for a, b in zip(lpi, l1mpi)])

    want = np.minimum(log_r(log_p, log_q, lam), log_r(log_q[::-1], log_p[::-1], lam))
    np.testing.assert_allclose(sym.log_bayes_error_logit(lam), want, rtol=1e-12)
    assert np.exp(logsumexp(sym.log_p)) <= 1 + 1e-12 and np.exp(logsumexp(sym.log_q)) <= 1 + 1e-12


def test_near_symmetric_pair_on_a_fine_grid_keeps_its_mass_balance():
    """A pair whose two directions differ by 1e-15 in R near π = ½ but by 1e-3 in mass on each side
    (the grid of a subsampled Gaussian at p = 1e-12 is shifted by half a step): deciding the active
    branch on each side of ½ separately unbalanced the halves (P-mass 1.0027)."""
    h = 1e-12
    grid = (np.arange(-400, 401) + 0.3) * h
    w = np.exp(-0.5 * (np.arange(-400, 401) / 100.0) ** 2)
    log_p = np.log(w / w.sum())
    pair = DiscretePair.from_atoms(grid, log_p)
    sym = symmetrize(pair)
    assert sym.is_symmetric
    assert sym.p.sum() + sym.p_neg_inf <= 1 + 1e-12 and sym.q.sum() + sym.q_pos_inf <= 1 + 1e-12


def test_certified_tail_mass_at_infinity_is_kept():
    """A pessimistic pair keeps Q-mass 1e-17 at ℓ = +∞ (a certified tail) and P-mass 1e-55 at −∞: both
    ends of 1 − mass are 1.0 as doubles, and choosing the end by the active branch dropped the 1e-17
    (δ at large ε would have fallen to 0). f_sym = conv(min(f, f⁻¹)) keeps the larger: Bayes error near
    π = 0 and π = 1 is governed by the larger end mass (R_c(π) ≈ π·(1 − p₋∞,c) as π → 0)."""
    pair = DiscretePair(np.log([2 / 3, 3 / 2]), np.log([0.6, 0.4]), 1e-55, 1e-17, Rounding.PESSIMISTIC)
    sym = symmetrize(pair)
    assert sym.q_pos_inf == sym.p_neg_inf == 1e-17
    assert float(sym.delta(50.0)) >= 1e-17
    env = lower_envelope([pair, DiscretePair.from_masses([1.0], [1.0])])
    assert env.q_pos_inf == 1e-17 and env.p_neg_inf == 1e-55


def test_the_ends_are_decided_by_A_and_B_not_by_a_rounded_log_R():
    """A pair with Q-mass a = 1e-6 at +∞ and atoms at λ = ±5e7. At λ → −∞ the branches' Bayes errors are
    π·1 and π·(1 − a): log R ≈ −5e7 + log A, where a relative tie tolerance of 1e-13 on log R (5e-6)
    swallowed the difference, the branch with A = 1 stayed active, and the envelope's P-mass came to
    1 + a ("masses at ±∞ plus the finite atoms exceed 1"). Reference: min(R(π), R(1−π)) of the pair itself,
    and total masses of exactly 1."""
    a = 1e-6
    pair = DiscretePair.from_atoms(np.array([-5e7, 5e7]), np.array([0.0, math.log1p(-a) - 5e7]), p_neg_inf=0.0,
                                   q_pos_inf=a, log_q=np.array([-5e7, math.log1p(-a)]))
    pi = np.array([1e-300, 1e-30, 0.3, 0.5, 0.7, 1 - 1e-12])
    for env in (pair.symmetrize(), lower_envelope([pair, pair.swap()])):
        assert env.p_neg_inf == env.q_pos_inf == a
        assert math.fsum(env.p) + a == pytest.approx(1.0, abs=1e-15)
        assert math.fsum(env.q) + a == pytest.approx(1.0, abs=1e-15)
        np.testing.assert_allclose(env.bayes_error(pi), np.minimum(pair.bayes_error(pi), pair.bayes_error(1 - pi)),
                                   rtol=1e-12, atol=0.0)
