"""Rarely reached DP-SGD paths: the PLRV moments of the Gaussian against quadrature ([BCP] eq 8–15) and the
free axis of a sweep grid."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import dpcompare as dc


# ---------------------------------------------------------------------------------------------- moments
def test_moments_of_gaussian_against_quadrature():
    from dpcompare.dpsgd.moments import moments_of, thm3

    mu = 0.8
    m = moments_of(dc.Gaussian(mu=mu))
    with mp.workdps(30):
        mom = lambda k, absolute=False: mp.quad(  # noqa: E731  E[L^k] (or E|L|^k), L = μ²/2 − μZ
            lambda z: (abs(mu**2 / 2 - mu * z) if absolute else (mu**2 / 2 - mu * z)) ** k * mp.npdf(z), [-mp.inf, mu / 2, mp.inf])
        v1, v2, v4 = float(mom(1)), float(mom(2)), float(mom(3, absolute=True))
    assert (m.v1, m.v2, m.v4) == pytest.approx((v1, v2, v4), rel=1e-10)
    r = thm3(m, 100, m, 100).to_dict()
    assert r["mu"] == pytest.approx(2 * (v1 / math.sqrt(v2 - v1 * v1)) * 10, rel=1e-10)  # μ = 2η√N
    assert r["precondition"] is True and r["more_informative"] == "equal"


# ---------------------------------------------------------------------------------------------- sweep
def test_sweep_free_axis_is_the_axis_not_gridded():
    from dpcompare.dpsgd.sweep import parse_grid

    cfg = parse_grid("[target]\nepsilon = 2.0\ndelta = 1e-5\n\n[baseline]\nsampling_rate = 0.05\nsteps = 20\n\n"
                     "[grid]\nsampling_rate = [0.1, 0.3]\nsteps = [20, 40]\n")
    assert cfg.free_axis == "sigma"
