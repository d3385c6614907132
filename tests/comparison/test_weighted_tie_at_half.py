"""A weighted maximum at the fold is reported at π = ½ when the weighted lower bounds tie there within rounding.

With a weight Ψ the sweep maximises Ψ(π)·(R_A − R_B)(π); the rounding of R is multiplied by Ψ, so "equal to the
best within rounding" scales FP_SLACK by the weight. Gaussian(1) against Laplace(1) under Beta(1e6, 1e6)
(Ψ(½) ≈ 1128): Δ^Ψ(A‖B) is attained at ½ by symmetry (R_A − R_B is largest at ½ and Ψ is symmetric about it).
With the Gaussian R bracket summed in linear space, the last bits of R put the weighted lower bound of a point
1.9e-9 from ½ 1.3e-13 above ½'s, and an unscaled slack reported a point 9e-13 from ½ (ε = 3.6e-12).
"""

from __future__ import annotations

import dpcompare as dc


def test_weighted_maximum_at_the_fold_is_reported_at_one_half():
    c = dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0), hyperprior=dc.BetaPrior(1e6, 1e6))
    d = c.weighted.delta_ab
    assert d.pi == 0.5 and d.eps == 0.0
    assert abs(d.value - 5.94905) < 5e-6  # docs/compare.md's example (6 digits)
    assert d.lower <= d.value <= d.upper
