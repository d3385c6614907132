"""F-divergences from trade-off functions ([MIX] Lemma B.4, Prop 3.3, Cor B.5, Cor B.6, Prop B.7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.mixtures import f_divergences as fd
from dpcompare.tradeoff import DiscretePair
from strategies import discrete_pairs, mass_vectors

finite = dict(allow_nan=False, allow_infinity=False)


@given(
    st.one_of(
        st.floats(0.1, 4.0, **finite).map(lambda m: dc.Gaussian(mu=m)),
        st.floats(0.25, 5.0, **finite).map(lambda b: dc.Laplace(b=b)),
        st.floats(0.0, 5.0, **finite).map(lambda e: dc.RandomizedResponse(eps=e)),
    ),
    st.floats(0.0, 5.0, **finite),
)
def test_hockey_stick_from_lf_equals_the_core_profile(mech, eps):
    # Lemma B.4 with F(s) = (s − e^ε)₊, integrated from the trade-off function's slope
    assert fd.l_f_quad(mech, fd.hockey_stick(math.exp(eps))) == pytest.approx(float(mech.delta(eps)), abs=1e-9)


@given(discrete_pairs, st.floats(0.0, 6.0, **finite))
def test_hockey_stick_from_lf_on_pairs_is_exact(pair, eps):
    # l_F(T(P, Q)) = H_{e^ε}(P‖Q); the core's delta is H_{e^ε}(Q‖P) = l_F(T(Q, P))
    assert fd.l_f(pair.swap(), fd.hockey_stick(math.exp(eps))) == pytest.approx(float(pair.delta(eps)), abs=1e-12)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_kl_renyi_tv(mu):
    g = dc.Gaussian(mu=mu)
    assert fd.l_f_quad(g, fd.KL) == pytest.approx(mu * mu / 2, abs=1e-9)
    assert fd.l_f_quad(g, fd.TV) == pytest.approx(float(g.delta(0.0)), abs=1e-10)
    for a in (1.5, 2.0, 4.0):  # Cor B.6: R_a(G_μ) = a μ²/2
        assert fd.renyi_from_power(fd.l_f_quad(g, fd.power(a)), a) == pytest.approx(a * mu * mu / 2, rel=1e-10)
    lo, hi = fd.l_f_bounds(g, fd.hockey_stick(math.e))  # certified bracket from the pairs
    assert lo * (1 - 1e-12) <= float(g.delta(1.0)) <= hi * (1 + 1e-12)  # ε = 1 is a grid point: equal to rounding


@pytest.mark.parametrize("b", [0.5, 1.0, 3.0])
def test_laplace_kl(b):
    m = 1.0 / b  # KL(Lap(0, b) ‖ Lap(1, b)) = m − 1 + e^{−m}
    assert fd.l_f_quad(dc.Laplace(b=b), fd.KL) == pytest.approx(m - 1 + math.exp(-m), abs=1e-10)


def test_randomized_response_closed_forms():
    eps = 1.3
    rr = dc.RandomizedResponse(eps=eps)
    p = math.exp(eps) / (1 + math.exp(eps))
    q = 1 - p
    lo, hi = fd.l_f_bounds(rr, fd.KL)
    # one exact pair: the two ends differ only by the rounding bound (l_f_rounding: the sum's and the masses')
    assert lo <= hi and hi - lo < 1e-14
    assert lo == pytest.approx((p - q) * eps, abs=1e-14) and hi == pytest.approx((p - q) * eps, abs=1e-14)
    for a in (2.0, 3.0):
        r_lo, r_hi = fd.renyi_bounds(rr, a)
        assert r_lo == pytest.approx(math.log(p**a * q ** (1 - a) + q**a * p ** (1 - a)) / (a - 1), abs=1e-12)
    # Prop B.7: the graph runs (0, 1) → (q, q) → (1, 0)
    assert fd.curve_length(rr.pairs()[0]) == pytest.approx(2 * math.hypot(q, 1 - q), abs=1e-14)
    assert fd.l_f_quad(rr, fd.LENGTH) == pytest.approx(2 * math.hypot(q, 1 - q), abs=1e-10)


def test_curve_length_extremes():
    assert fd.curve_length(DiscretePair(np.array([0.0]), np.array([0.0]), 0.0, 0.0)) == pytest.approx(math.sqrt(2))
    bnp = DiscretePair(np.array([]), np.array([]), 1.0, 1.0)
    assert fd.curve_length(bnp) == pytest.approx(2.0)  # the drop at 0 (F(0) = 1) and the flat part (τ = 1)


@st.composite
def mixtures(draw):
    k = draw(st.integers(2, 3))
    raw = np.array(draw(st.lists(st.integers(1, 100), min_size=k, max_size=k)), dtype=float)
    return raw / raw.sum(), [draw(mass_vectors(4)) for _ in range(k)], [draw(mass_vectors(4)) for _ in range(k)]


@given(mixtures(), st.sampled_from(["hs0", "hs1", "kl", "tv", "pow2", "len"]))
def test_joint_convexity(m, which):
    # Prop 3.3 (and Cor B.5 for H_γ, Cor B.6 for the power divergence): D_F(P_w‖Q_w) ≤ Σ wᵢ D_F(Pᵢ‖Qᵢ)
    div = {
        "hs0": fd.hockey_stick(1.0),
        "hs1": fd.hockey_stick(math.e),
        "kl": fd.KL,
        "tv": fd.TV,
        "pow2": fd.power(2.0),
        "len": fd.LENGTH,
    }[which]
    lhs, rhs = fd.joint_convexity_terms(*m, div)
    assert lhs <= rhs * (1 + 1e-12) + 1e-12


def test_simplified_form_requires_f0_one_and_symmetry():
    g = dc.Gaussian(mu=1.0)
    lo, hi = fd.l_f_symmetric(g, fd.KL)
    assert lo <= 0.5 + 1e-9
    with pytest.raises(ValueError, match=r"f\(0\) = 1 is required"):
        fd.l_f_symmetric(dc.ApproxDP(eps=1.0, delta=0.1), fd.KL)
    with pytest.raises(ValueError, match="symmetric"):
        fd.l_f_symmetric(DiscretePair.from_masses([0.5, 0.5], [0.2, 0.8]), fd.KL)


def test_bad_divergence_parameters():
    with pytest.raises(ValueError, match="gamma must be > 0"):
        fd.hockey_stick(0.0)
    with pytest.raises(ValueError, match="order must be > 1"):
        fd.power(0.5)
    with pytest.raises(ValueError, match="no closed-form slope"):
        fd.l_f_quad(lambda a: 1 - a, fd.KL)
