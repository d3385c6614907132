"""``delta_bracket`` is the bracket of ``delta_divergence`` on pair-backed mechanisms (one Δ computation).

Δ(A‖B) = max_π (R_A(π) − R_B(π)) ([BCP] Def 1, Cor 1). For discrete pairs R_A − R_B is piecewise linear
in π with kinks at the merged breakpoints only, so ``delta_pairs`` reads the maximum off there; both
``delta_bracket`` and ``delta_divergence`` widen that by the same η (``widen``).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.comparison import delta_bracket
from dpcompare.comparison.delta import widening
from dpcompare.composition.sgm_grid import default_discretization
from dpcompare.mechanisms.sgm import SubsampledGaussian
from dpcompare.tradeoff import DiscretePair, delta_between_pairs


def _symmetric(p: list[float]) -> DiscretePair:
    """The pair (P, reversed P): R(π) = R(1 − π), so the prior's side does not matter."""
    return DiscretePair.from_masses(p, p[::-1])


P_A, P_B = [0.7, 0.2, 0.1], [0.5, 0.47, 0.03]  # incomparable: Δ ≈ 0.036 one way, 0.065 the other
A, B = dc.FromPair(pessimistic=_symmetric(P_A)), dc.FromPair(pessimistic=_symmetric(P_B))


#: the default spacing given explicitly: ``delta_divergence`` then uses the mechanism's own grid, as ``delta_bracket``
#: does (without it, Δ chooses the grid from the question: tests/comparison/test_delta_accuracy.py)
SGM_GRID = SubsampledGaussian(1.0, 0.1, 10, discretization=default_discretization(1.0, 0.1, 10))


@pytest.mark.parametrize("a, b", [
    (dc.parse("compose(gaussian(mu=0.3), steps=10)"), SGM_GRID),
    (SGM_GRID, dc.parse("compose(gaussian(mu=0.3), steps=10)")),
    (dc.RandomizedResponse(0.5), dc.RandomizedResponse(1.0)),
    (A, B),
    (B, A),
])
def test_delta_bracket_is_the_bracket_of_delta_divergence(a, b):
    r, d = delta_bracket(a, b), dc.delta_divergence(a, b)
    assert (r.lower, r.upper, r.pi) == (d.lower, d.upper, d.pi)  # one computation, not two that agree
    assert r.numerical_error == widening(a, b)
    assert r.lower <= d.value <= r.upper


def _bayes_error(p: list[float], pi: np.ndarray) -> np.ndarray:
    """R(π) = Σₓ min(π·P(x), (1 − π)·Q(x)) for Q = reversed P: the Bayes error of testing P against Q
    ([BCP] eq 2), by brute force over the outcomes."""
    p_, q_ = np.array(p), np.array(p[::-1])
    return np.minimum(pi[:, None] * p_[None, :], (1.0 - pi[:, None]) * q_[None, :]).sum(axis=1)


@pytest.mark.parametrize("a, b, p_a, p_b", [(A, B, P_A, P_B), (B, A, P_B, P_A)])
def test_delta_bracket_of_exact_pairs_against_a_fine_prior_grid(a, b, p_a, p_b):
    pi = np.linspace(0.0, 1.0, 200_001)
    brute = float((_bayes_error(p_a, pi) - _bayes_error(p_b, pi)).max())
    assert brute > 0.03  # both directions are a real Δ (the pairs are incomparable)
    r = delta_bracket(a, b)
    assert r.upper - r.lower <= 2 * widening(a, b) + 1e-15  # exact pairs: the bracket is the rounding only
    # the grid's maximum is a lower bound; |d(R_A − R_B)/dπ| ≤ 2, so it is below Δ by at most 2 × the spacing
    assert r.lower - 1e-12 <= brute + 2 * (pi[1] - pi[0]) and brute <= r.upper + 1e-12
    if r.upper > 1e-12:  # attained at the reported π
        at = _bayes_error(p_a, np.array([r.pi])) - _bayes_error(p_b, np.array([r.pi]))
        assert abs(float(at[0]) - r.upper) <= 1e-12


def test_delta_between_pairs_is_the_same_maximum():
    (pa, _), (pb, _) = A.pairs(), B.pairs()
    for x, y, px, py in ((A, B, pa, pb), (B, A, pb, pa)):
        gap, _ = delta_between_pairs(px, py)
        r = delta_bracket(x, y)
        assert r.lower == max(0.0, gap - widening(x, y)) and r.upper == gap + widening(x, y)


def test_delta_bracket_needs_discrete_pairs():
    with pytest.raises(ValueError, match="a must be a mechanism with discrete pairs"):
        delta_bracket(dc.Gaussian(mu=1), dc.RandomizedResponse(1.0))
