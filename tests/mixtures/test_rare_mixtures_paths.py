"""Rarely reached mixture paths: the F-divergence views against closed forms ([MIX] Lemma B.4) and the spec of
hiding among clones."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
import reference_values as rv

import dpcompare as dc


# ---------------------------------------------------------------------------------------------- f-divergences
def test_f_divergence_views_against_closed_forms():
    from dpcompare.mixtures import f_divergences as fd

    lo, hi = fd.profile_from_lf(dc.Gaussian(mu=1.0), 1.0)
    with mp.workdps(30):
        truth = float(rv.gauss_delta(1.0, 1.0))
    assert lo - 1e-12 <= truth <= hi + 1e-12 and hi - lo <= 1e-9
    # randomized response ε: L = ±ε with P-masses (p, 1 − p), p = e^ε/(1+e^ε): KL = (2p − 1)·ε
    eps = 1.0
    p = math.exp(eps) / (1 + math.exp(eps))
    rr = dc.RandomizedResponse(eps=eps)
    assert fd.divergence_of(rr, fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-12)
    assert fd.l_f_quad(rr, fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-9)  # through tradeoff_slope
    assert fd.l_f_quad(rr.pairs()[0], fd.KL) == pytest.approx((2 * p - 1) * eps, rel=1e-9)  # of a bare pair
    with pytest.raises(ValueError, match="expected a mechanism"):
        fd.divergence_of(3.0, fd.KL)


def test_hiding_among_clones_spec_names_its_parameters():
    from dpcompare.mixtures.clones import HidingAmongClones

    assert HidingAmongClones(eps0=1.0, n=100).spec == "clones(eps0=1, n=100)"
