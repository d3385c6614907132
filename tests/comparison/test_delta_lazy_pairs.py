"""Δ between a numeric mechanism and a closed form symmetrises no optimistic pair: the prior sweep reads the
pessimistic pair's breakpoints only (``Mechanism.pessimistic_pair``). Reference: the same Δ from a mechanism whose
``pairs()`` were built first (the result must not depend on which pairs exist)."""

from __future__ import annotations

import math

import dpcompare as dc
from dpcompare.comparison.delta import delta_divergences


def test_sweep_against_a_closed_form_builds_no_optimistic_symmetric_pair():
    m = dc.SubsampledGaussian(1.0, 0.01, 100)
    g = dc.Gaussian(mu=0.3)
    ab, ba = delta_divergences(m, g, tol=1e-10)
    assert "_pair_bracket" not in m.__dict__
    built = dc.SubsampledGaussian(1.0, 0.01, 100)
    built.pairs()
    ab2, ba2 = delta_divergences(built, g, tol=1e-10)
    assert ab.to_dict() == ab2.to_dict() and ba.to_dict() == ba2.to_dict()
    assert ab.lower <= ab.upper and ba.lower <= ba.upper and ab.certified and ba.certified


def test_two_pair_mechanisms_still_merge_exactly():
    # randomized response: R(π) = min(π, 1 − π, 1/(1 + e^ε)), so Δ(RR(½)‖RR(1)) = 1/(1 + e^½) − 1/(1 + e) at π = ½
    # and Δ(RR(1)‖RR(½)) = 0 (the more informative one is never the less vulnerable)
    a, b = dc.RandomizedResponse(eps=1.0), dc.RandomizedResponse(eps=0.5)
    ab, ba = delta_divergences(a, b)
    assert ab.lower == 0.0 and ab.upper <= 1e-14
    assert ba.lower <= 1 / (1 + math.exp(0.5)) - 1 / (1 + math.e) <= ba.upper
    assert ba.upper - ba.lower <= 1e-14  # attained on the plateau π ∈ [1/(1 + e^½), ½] (and its mirror)
    assert 1 / (1 + math.exp(0.5)) - 1e-12 <= ba.pi <= 0.5
