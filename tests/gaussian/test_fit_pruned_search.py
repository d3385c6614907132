"""The μ̂ search evaluates R_M − R_{G_μ} only at the priors where its extrema can lie (``_candidates``), once an
evaluation on the whole grid is near. The pruning must change nothing: μ̂ and both certified Δ are the same bit for
bit as with every evaluation on the whole grid (``_PRUNE_SHARE = 0``).

Independent references: the Lipschitz bound |∂R_{G_μ}(π)/∂μ| ≤ φ(0) the pruning rests on, checked against central
finite differences of the Gaussian's Bayes error from its privacy profile at 40 digits (mpmath), and brute-force
argmax over the whole array for ``_candidates``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
import dpcompare.gaussian.fit as fit_module
from dpcompare.gaussian.fit import _LIPSCHITZ_MU, _candidates, gdp_fit

mpmath = pytest.importorskip("mpmath", reason="the 40-digit reference Bayes error")


def _r_ref(mu, pi):
    """R_{G_μ}(π) = min over thresholds, [BCP] eq 2 through δ_μ(ε) (Balle & Wang 2018, Thm 8), at 40 digits."""
    p = mpmath.mpf(pi)
    if p > 0.5:
        p = 1 - p
    eps = mpmath.log((1 - p) / p)
    m = mpmath.mpf(mu)
    return p * (1 - (mpmath.ncdf(-eps / m + m / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / m - m / 2)))


@given(st.floats(0.02, 20.0), st.floats(1e-6, 1.0 - 1e-6))
def test_bayes_error_of_g_mu_is_lipschitz_in_mu(mu, pi):
    with mpmath.workdps(40):
        h = mpmath.mpf(mu) * mpmath.mpf("1e-12")
        slope = (_r_ref(mpmath.mpf(mu) + h, pi) - _r_ref(mpmath.mpf(mu) - h, pi)) / (2 * h)
        assert abs(slope) <= 1 / mpmath.sqrt(2 * mpmath.pi) < _LIPSCHITZ_MU


@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=60), st.floats(0.0, 0.5), st.integers(0, 2**32 - 1))
def test_candidates_hold_both_argmaxes(d0, reach, seed):
    d0 = np.array(d0)
    rng = np.random.default_rng(seed)
    d = d0 + rng.uniform(-0.5, 0.5, d0.size) * reach * (1.0 - 1e-9)  # any d within reach/2 of d0, strictly
    idx = _candidates(d0, reach)
    assert idx[np.argmax(d[idx])] == np.argmax(d)
    assert idx[np.argmin(d[idx])] == np.argmin(d)


@pytest.mark.parametrize("mech", [dc.SubsampledGaussian(1.0, 0.01, 300), dc.Laplace(b=1.0),
                                  dc.RandomizedResponse(eps=1.0)], ids=["sgm", "laplace", "rr"])
def test_pruned_search_is_bit_identical(mech, monkeypatch):
    pruned = gdp_fit(mech)
    monkeypatch.setattr(fit_module, "_PRUNE_SHARE", 0.0)  # every evaluation on the whole grid
    full = gdp_fit(mech)
    assert pruned.mu == full.mu
    assert pruned.excess.to_dict() == full.excess.to_dict() and pruned.slack.to_dict() == full.slack.to_dict()
