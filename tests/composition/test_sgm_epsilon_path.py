"""ε(δ) of SubsampledGaussian reads only the pessimistic side (mechanisms/sgm.py): the answer must be the
one the full certified composition gives, bit for bit, whichever is built first, and a later
``composition`` must reuse the side ε built (same object from the cache). Independent check: the ε computed
directly from the composition's pessimistic profile pair (its ±∞ atoms at the certified bound,
composition/infinity_atoms.py) and error (composition/sgm_certified.py pair_epsilon)."""

from __future__ import annotations

from dpcompare.composition.sgm_certified import default_discretization, pair_epsilon, pessimistic_side
from dpcompare.mechanisms.sgm import SubsampledGaussian


def test_epsilon_before_and_after_composition_agree_bit_for_bit():
    sigma, p, n = 1.3, 0.0217, 151  # parameters no other test uses: the caches start empty
    a = SubsampledGaussian(sigma, p, n)
    e_first = a.epsilon(1e-5)  # pessimistic side only
    side = pessimistic_side(sigma, p, n, default_discretization(sigma, p, n))  # the side ε built (cached)
    c = a.composition  # now both sides
    assert c.pessimistic is side.pair  # the composition reuses that side instead of building it again
    assert e_first == a.epsilon(1e-5)
    direct = pair_epsilon(c.pessimistic_profile, c.pessimistic_error, 1e-5, None, c.pessimistic_error_at)  # per-ε η (step 7′)
    assert e_first == min(direct, float(a._gaussian._epsilon_scalar(1e-5)))


def test_epsilon_with_given_discretization_uses_that_grid():
    h = 2e-3
    m = SubsampledGaussian(0.9, 0.05, 80, discretization=h)
    e = m.epsilon(1e-6)
    assert m.composition.discretization == h
    assert e == min(pair_epsilon(m.composition.pessimistic_profile, m.composition.pessimistic_error, 1e-6, None,
                                 m.composition.pessimistic_error_at),
                    float(m._gaussian._epsilon_scalar(1e-6)))
