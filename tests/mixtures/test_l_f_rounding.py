"""The rounding bound of ``l_f`` (``l_f_rounding``) against the F-divergence of the pair's real masses (e^{log p},
e^{log p + ℓ}) in 60-digit mpmath, and ``l_f_bounds``' lower end ≥ 0 (an F-divergence is ≥ 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

mpmath = pytest.importorskip("mpmath", reason="the exact reference sums need mpmath")

import dpcompare as dc  # noqa: E402
from dpcompare.mixtures.f_divergences import KL, TV, hockey_stick, l_f, l_f_bounds, l_f_rounding, power  # noqa: E402
from dpcompare.tradeoff import DiscretePair  # noqa: E402

mp = mpmath.mp


def _exact(pair: DiscretePair, div) -> mpmath.mpf:
    """D_F of the pair's real masses pₖ = e^{log pₖ}, qₖ = e^{log pₖ + ℓₖ} (the stored logs and losses, summed exactly),
    in 60 digits (F(0) of power(a) as the real 1/a)."""
    mp.dps = 60
    lp = [mp.mpf(float(x)) for x in pair.log_p]
    lq = [a + mp.mpf(float(l)) for a, l in zip(lp, pair.loss)]
    p, q = [mp.exp(x) for x in lp], [mp.exp(x) for x in lq]
    fam = div.family.value
    if fam == "tv":
        body = sum(abs(a - b) for a, b in zip(p, q)) / 2
        f0, tau = mp.mpf("0.5"), mp.mpf("0.5")
    elif fam == "kl":
        body = sum(a * (x - y) for a, x, y in zip(p, lp, lq))
        f0, tau = mp.mpf(0), mp.inf
    elif fam == "hockey_stick":
        g = mp.mpf(float(div.param))
        body = sum(max(a - g * b, 0) for a, b in zip(p, q))
        f0, tau = max(-g + 1 - 1, mp.mpf(0)), mp.mpf(1)
    else:
        a = mp.mpf(float(div.param))
        big = sum(mp.exp(a * x + (1 - a) * y) for x, y in zip(lp, lq))
        body = (big - sum(q) - a * (sum(p) - sum(q))) / (a * (a - 1))
        f0, tau = 1 / a, mp.inf
    extra = f0 * mp.mpf(float(pair.q_pos_inf))
    if pair.p_neg_inf > 0:
        extra += tau * mp.mpf(float(pair.p_neg_inf))
    return body + extra


DIVS = [TV, KL, hockey_stick(1.0), hockey_stick(math.e ** 2), power(1.5), power(2.0), power(7.5)]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    spread=st.floats(0.1, 30.0),
    k=st.integers(0, len(DIVS) - 1),
)
def test_the_bound_covers_the_evaluation_rounding(n, seed, spread, k):
    rng = np.random.default_rng(seed)
    lp = rng.normal(0.0, spread, n)
    lq = lp + rng.normal(0.0, spread / 3, n)
    lp, lq = lp - np.logaddexp.reduce(lp), lq - np.logaddexp.reduce(lq) + math.log1p(-2e-3)
    # Q's deficit 2e-3 at ℓ = +∞ (every family's F(0)·q₊∞); P's at −∞ only in every other case (τ = ∞ for KL/power)
    p_inf = 0.0 if seed % 2 else 1e-3
    pair = DiscretePair.from_atoms(lq - lp, lp + math.log1p(-p_inf), p_neg_inf=p_inf, q_pos_inf=2e-3)
    div = DIVS[k]
    v, err = l_f(pair, div), l_f_rounding(pair, div)
    exact = _exact(pair, div)
    if mp.isinf(exact):
        assert math.isinf(v)
        return
    assert err is not None and 0.0 < err
    assert abs(mp.mpf(v) - exact) <= err, (v, float(exact), err)
    assert err <= 1e-12 * (1.0 + abs(v)) + 1e-12  # a rounding bound, not a blanket


def test_an_other_family_has_no_bound():
    from dpcompare.mixtures.f_divergences import FDivergence

    sq = FDivergence("chi²", lambda s: (s - 1.0) ** 2, 1.0, math.inf)
    assert l_f_rounding(DiscretePair.from_masses([0.5, 0.5], [0.25, 0.75]), sq) is None


def test_the_lower_end_is_never_below_zero():
    # the deep API fuzz found KL's lower end at −2.0e-15 here: the optimistic pair's masses sum to 1 only up to
    # rounding, and Σ p·log(p/q) of a not-quite-normalised pair can be a rounding below 0; D_F ≥ 0 always
    lo, hi = l_f_bounds(dc.SubsampledGaussian(700.0, 1.659931033300098e-08, 5), KL)
    assert 0.0 <= lo <= hi


def test_the_ends_move_outward_by_the_bound():
    m = dc.SubsampledGaussian(1.0, 0.1, 10)
    lo, hi = l_f_bounds(m, TV)
    from dpcompare.mixtures.algebra import as_pairs

    pess, opt = as_pairs(m)
    assert hi > l_f(pess, TV) and lo < l_f(opt, TV)
    assert hi - l_f(pess, TV) <= 2 * l_f_rounding(pess, TV) + 1e-300
