"""mixtures/f_divergences.py ``renyi_bounds``: both ends are ≥ 0 (R_a ≥ 0). Found by the deep API fuzz (seed
20261137): ``renyi_bounds(PureDP(eps=1e-300), 10.0)`` was (−1.2e-17, −1.2e-17)."""

from __future__ import annotations

import dpcompare as dc
from dpcompare import mixtures


def test_renyi_bounds_of_a_nearly_perfect_mechanism_are_not_negative():
    lo, hi = mixtures.renyi_bounds(dc.PureDP(eps=1e-300), 10.0)
    # R_10 of ε-DP with ε = 1e-300 is ≈ 10·ε²/2, far below 1e-15; the upper end carries the rounding bound of
    # the power sum's cancellation (l_f_rounding: a few u of Σ e + Σq + a(Σp + Σq), over a(a − 1), times a)
    assert 0.0 <= lo <= hi < 1e-14


def test_renyi_bounds_still_bracket_a_closed_form():
    # randomized response with ε: R_a = log((e^{aε} + e^{(1−a)ε})/(1 + e^ε))/(a − 1) (two-point distributions)
    import math

    eps, a = 1.0, 3.0
    truth = math.log((math.exp(a * eps) + math.exp((1 - a) * eps)) / (1 + math.exp(eps))) / (a - 1)
    lo, hi = mixtures.renyi_bounds(dc.RandomizedResponse(eps=eps), a)
    assert lo - 1e-12 <= truth <= hi + 1e-12
