"""comparison/dominance.py ``approximate_dominance``: the paths the deep API fuzz found slow or wrong."""

from __future__ import annotations

import dpcompare as dc
from dpcompare.mechanisms.composed import Composed
from dpcompare.tradeoff.pair import DiscretePair


def test_profile_clause_at_level_zero_beyond_exp_overflow():
    """A ≥_0 A for every A ([BCP] Def 2: Δ(A‖A) = 0). RR(800) puts atoms at ε = ±800 on the profile grid,
    where 0·(1 + e^ε) was 0·∞ = NaN and the profile clause came out False."""
    a = dc.RandomizedResponse(eps=800.0)
    r = dc.approximate_dominance(a, a, 0.0, grid=2001)
    assert r.profile_clause and r.tradeoff_clause and r.bayes_clause


def test_dominance_against_a_composed_laplace_evaluates_delta_in_one_pass(monkeypatch):
    """The deep fuzz's 61–164 s call: the ~57 000 profile points each summed the composed pair's atoms
    (``log_delta``); they now go through ``log_delta_many`` (one pass over the atoms)."""
    calls = []
    scalar = DiscretePair.log_delta
    monkeypatch.setattr(DiscretePair, "log_delta", lambda self, e: calls.append(e) or scalar(self, e))
    a = Composed(dc.Laplace(b=0.18689604394541304), steps=1179)
    r = dc.approximate_dominance(a, dc.BlatantlyNonPrivate(), 0.1, grid=2001)
    # Δ(A‖BNP) = R*_A ([BCP] Lemma 4) is below 1e-6 for 1179 steps at m = 5.35: all three clauses hold
    assert r.delta.upper < 1e-6 and r.bayes_clause and r.clauses_agree
    assert len(calls) < 100  # the solver's probes, not one per profile point
