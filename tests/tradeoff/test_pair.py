"""DiscretePair views against brute force on small discrete cases ([BCP] eq 2, 20, 25).

Every reference value here is computed independently of dpcompare from the raw masses (p, q):
- R(π) = Σᵢ min(π pᵢ, (1−π) qᵢ)                    ([BCP] eq 2 with the Neyman–Pearson test)
- δ(ε) = Σᵢ (qᵢ − e^ε pᵢ)₊                          (hockey-stick divergence H_{e^ε}(Q‖P), eq 25)
- f(α) = min over randomised tests φ ∈ [0,1]ⁿ of Σ qᵢ(1−φᵢ) s.t. Σ pᵢφᵢ ≤ α  (a linear program, eq 20)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from scipy.optimize import linprog

import dpcompare as dc
from strategies import mass_pairs

PI = np.linspace(0.0, 1.0, 101)
EPS = np.concatenate([np.linspace(-4, 4, 81), [0.0, 10.0]])
ALPHA = np.linspace(0.0, 1.0, 41)


def brute_R(p, q, pi):
    pi = np.asarray(pi)[..., None]
    return np.minimum(pi * p, (1 - pi) * q).sum(-1)


def brute_delta(p, q, eps):
    eps = np.asarray(eps)[..., None]
    return np.maximum(q - np.exp(eps) * p, 0.0).sum(-1)


def lp_tradeoff(p, q, alpha):
    """min Σ q(1−φ) s.t. Σ pφ ≤ α, 0 ≤ φ ≤ 1 — the most powerful randomised test, by LP (HiGHS)."""
    res = linprog(-q, A_ub=p[None, :], b_ub=[alpha], bounds=[(0, 1)] * len(p), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(1.0 - q @ res.x)


def enumerated_tradeoff(p, q, alpha):
    """Brute force: every deterministic test (rejection set S ⊆ outcomes) gives (P(S), Q(Sᶜ)); randomised
    tests fill the convex hull, so f is the lower convex envelope of these 2ⁿ points."""
    n = len(p)
    pts = set()
    for mask in range(2**n):
        s = np.array([(mask >> i) & 1 for i in range(n)], dtype=bool)
        pts.add((float(p[s].sum()), float(q[~s].sum())))
    hull = []
    for x, y in sorted(pts):
        while len(hull) >= 2 and (hull[-1][0] - hull[-2][0]) * (y - hull[-2][1]) - (hull[-1][1] - hull[-2][1]) * (x - hull[-2][0]) <= 0:
            hull.pop()
        hull.append((x, y))
    hx, hy = np.array(hull).T
    return np.interp(alpha, hx, np.minimum.accumulate(hy))


# Hand-worked example: randomized response ε = log 3, P = (3/4, 1/4), Q = (1/4, 3/4).
# δ(0) = TV = 1/2; R(½) = ½·(¼ + ¼) = 1/4; f(α) = max(1 − 3α, (1−α)/3).
RR_P, RR_Q = np.array([0.75, 0.25]), np.array([0.25, 0.75])


def test_hand_worked_randomized_response():
    pair = dc.DiscretePair.from_masses(RR_P, RR_Q)
    assert float(pair.delta(0.0)) == pytest.approx(0.5, abs=1e-15)
    assert float(pair.bayes_error(0.5)) == pytest.approx(0.25, abs=1e-15)
    for a in (0.0, 0.1, 0.25, 0.5, 0.9, 1.0):
        assert float(pair.tradeoff(a)) == pytest.approx(max(1 - 3 * a, (1 - a) / 3), abs=1e-15)
    # ε at δ = 0.25: solve 3/4 − e^ε/4 = 1/4 → ε = log 2
    assert pair.epsilon(0.25) == pytest.approx(math.log(2), abs=1e-12)


@given(mass_pairs())
def test_bayes_error_matches_brute_force(pq):
    p, q = pq
    pair = dc.DiscretePair.from_masses(p, q)
    np.testing.assert_allclose(pair.bayes_error(PI), brute_R(p, q, PI), atol=1e-14)


@given(mass_pairs())
def test_delta_matches_brute_force(pq):
    p, q = pq
    pair = dc.DiscretePair.from_masses(p, q)
    np.testing.assert_allclose(pair.delta(EPS), brute_delta(p, q, EPS), atol=1e-13, rtol=1e-12)


@given(mass_pairs(max_size=6))
def test_tradeoff_matches_linear_program(pq):
    p, q = pq
    pair = dc.DiscretePair.from_masses(p, q)
    got = pair.tradeoff(ALPHA)
    np.testing.assert_allclose(got, enumerated_tradeoff(p, q, ALPHA), atol=1e-13)
    lp = np.array([lp_tradeoff(p, q, a) for a in ALPHA[::4]])
    np.testing.assert_allclose(got[::4], lp, atol=1e-6)  # LP solver tolerance ~1e-8


@given(mass_pairs(), st.floats(1e-6, 0.99))
def test_epsilon_is_inverse_of_delta(pq, target):
    p, q = pq
    pair = dc.DiscretePair.from_masses(p, q)
    eps = pair.epsilon(target)
    if math.isinf(eps):
        # infinite only when the mass at ℓ = +∞ alone exceeds the target
        assert brute_delta(p, q, 60.0) > target
        return
    assert eps >= 0
    assert brute_delta(p, q, eps) <= target * (1 + 1e-9) + 1e-15
    if eps > 1e-9:  # smallest such ε: slightly smaller violates the target
        assert brute_delta(p, q, eps - 1e-7 * max(1.0, eps)) > target


@given(mass_pairs())
def test_symmetrize_bayes_error_is_pointwise_min(pq):
    p, q = pq
    sym = dc.DiscretePair.from_masses(p, q).symmetrize()
    want = np.minimum(brute_R(p, q, PI), brute_R(p, q, 1 - PI))
    np.testing.assert_allclose(sym.bayes_error(PI), want, atol=1e-12)


@given(mass_pairs())
def test_symmetrize_delta_is_max_of_both_orderings(pq):
    p, q = pq
    sym = dc.DiscretePair.from_masses(p, q).symmetrize()
    eps = np.linspace(0, 5, 51)
    want = np.maximum(brute_delta(p, q, eps), brute_delta(q, p, eps))
    np.testing.assert_allclose(sym.delta(eps), want, atol=1e-12)


@given(mass_pairs())
def test_swap_twice_is_identity_and_swap_exchanges_roles(pq):
    p, q = pq
    pair = dc.DiscretePair.from_masses(p, q)
    back = pair.swap().swap()
    # log q = log p + ℓ and back costs at most an ulp or two
    np.testing.assert_allclose(back.loss, pair.loss, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(back.log_p, pair.log_p, rtol=1e-14, atol=1e-14)
    assert (back.p_neg_inf, back.q_pos_inf) == (pair.p_neg_inf, pair.q_pos_inf)
    # swap is the pair (Q, P): its profile is H_{e^ε}(P‖Q)
    np.testing.assert_allclose(pair.swap().delta(EPS), brute_delta(q, p, EPS), atol=1e-13)


@given(mass_pairs(), mass_pairs())
def test_delta_between_pairs_equals_fine_grid_max(pq1, pq2):
    a = dc.DiscretePair.from_masses(*pq1)
    b = dc.DiscretePair.from_masses(*pq2)
    val, pi = dc.tradeoff.delta_between_pairs(a, b)
    grid = np.concatenate([np.linspace(0, 1, 20001), 1 / (1 + np.exp(-np.concatenate([a.loss, b.loss])))])
    brute = float(np.max(brute_R(*pq1, grid) - brute_R(*pq2, grid)))
    assert val == pytest.approx(max(brute, 0.0), abs=1e-12)
    if val > 0:  # the returned π attains it
        assert float(brute_R(*pq1, pi) - brute_R(*pq2, pi)) == pytest.approx(val, abs=1e-12)


@given(st.lists(mass_pairs(), min_size=1, max_size=4), st.booleans())
def test_bayes_errors_at_breakpoints_match_a_binary_search_per_pair(pqs, shared):
    # independent computation: np.union1d and searchsorted (bayes_error_logit) for each pair; with
    # ``shared`` the pairs are built on overlapping losses, so ties across pairs are exercised
    pairs = [dc.DiscretePair.from_masses(*pq) for pq in pqs]
    masses = list(pqs)
    if shared:  # the same object twice, and its swap (masses exchanged)
        pairs = pairs + [pairs[0], pairs[0].swap()]
        masses = masses + [pqs[0], pqs[0][::-1]]
    lam, rs = dc.tradeoff.bayes_errors_at_breakpoints(*pairs)
    want = np.unique(np.concatenate([pr.loss for pr in pairs]))
    np.testing.assert_array_equal(lam, want)
    pi = 1.0 / (1.0 + np.exp(-want))
    for pr, (p, q), r in zip(pairs, masses, rs):
        np.testing.assert_array_equal(r, pr.bayes_error_logit(want))
        assert np.allclose(r, brute_R(p, q, pi), rtol=1e-12, atol=1e-15)  # R = Σ min(πp, (1−π)q), [BCP] eq 2


def test_tiny_masses_keep_relative_precision_in_delta():
    # q-mass 1e-200 above ε: δ(ε) = 1e-200·(1 − e^{ε−ℓ}) must not round to 0 (log space)
    p = np.array([1 - 1e-250, 1e-250])
    q = np.array([1 - 1e-200, 1e-200])
    pair = dc.DiscretePair.from_masses(p, q)
    ell = math.log(1e-200) - math.log(1e-250)
    want = 1e-200 * (1 - math.exp(5.0 - ell))
    assert float(pair.delta(5.0)) == pytest.approx(want, rel=1e-10)
    assert pair.log_delta(5.0) == pytest.approx(math.log(want), rel=1e-12)


@pytest.mark.parametrize(
    "p, q, name",
    [([0.5, 0.6], [0.5, 0.5], "p"), ([0.5, 0.5], [-0.1, 1.1], "q"), ([np.nan, 1.0], [0.5, 0.5], "p")],
)
def test_from_masses_rejects_bad_masses(p, q, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        dc.DiscretePair.from_masses(p, q)


def test_from_masses_disjoint_supports_with_sum_one_ulp_above_one():
    q = np.array([0.5645152698640078, 0.25, 0.0, 0.25])
    q = q / q.sum()  # sums to 1.0000000000000002 in floating point
    pair = dc.DiscretePair.from_masses([0.0, 0.0, 1.0, 0.0], q)
    assert float(pair.delta(0.0)) == pytest.approx(1.0)  # disjoint supports: blatantly non-private
