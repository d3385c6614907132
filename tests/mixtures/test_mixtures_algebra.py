"""Trade-off algebra (dpcompare.mixtures.algebra) against independent computations.

References: brute-force pairs built from masses (``DiscretePair.from_masses``), the trade-off of mixed
masses in rational arithmetic (``domain_reference.exact_tradeoff``), the core's symmetrisation, grid
maximisation for conjugates, bisection for inverses ([MIX] App. A, eq 3).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpcompare as dc
from dpcompare.mixtures import algebra as alg
from dpcompare.tradeoff import DiscretePair, Rounding
from domain_reference import exact_tradeoff, rational_mixture
from strategies import discrete_pairs, mass_pairs

RR = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])  # randomized response, ε = log 3
X = np.linspace(0.0, 1.0, 2001)
weights = st.floats(0.0, 1.0, allow_nan=False)


def _brute_inverse(pair: DiscretePair, x: np.ndarray) -> np.ndarray:
    """f⁻¹(x) = inf{t : f(t) ≤ x} by bisection on the (non-increasing) curve."""
    out = []
    for xi in x:
        lo, hi = 0.0, 1.0
        if float(pair.tradeoff(0.0)) <= xi:
            out.append(0.0)
            continue
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if float(pair.tradeoff(mid)) <= xi else (mid, hi)
        out.append(hi)
    return np.array(out)


def test_identity_is_one_minus_alpha():
    assert np.allclose(alg.identity_pair().tradeoff(X), 1 - X, atol=1e-15)


@given(mass_pairs())
def test_inverse_is_the_generalised_inverse(pq):
    pair = DiscretePair.from_masses(*pq)
    x = np.linspace(0.0, 1.0, 41)
    assert np.allclose(alg.inverse(pair).tradeoff(x), _brute_inverse(pair, x), atol=1e-9)


@given(discrete_pairs)
def test_vertices_round_trip(pair):
    a, b = alg.vertices(pair)
    back = alg.pair_from_vertices(a, b)
    assert np.allclose(back.tradeoff(X), pair.tradeoff(X), atol=1e-12)


@given(discrete_pairs, st.floats(-30.0, 0.0, allow_nan=False))
def test_conjugate_is_the_sup_over_the_curve(pair, y):
    # f*(y) = sup_x (x·y − f(x)): the curve is piecewise linear, so a grid with its vertices is exact
    a, _ = alg.vertices(pair)
    xs = np.union1d(X, a)
    brute = float(np.max(xs * y - pair.tradeoff(xs)))
    assert float(alg.conjugate(pair, y)) == pytest.approx(brute, abs=1e-12)


@given(discrete_pairs, st.floats(0.0, 6.0, allow_nan=False))
def test_lemma_a3_profile_from_the_conjugate(pair, eps):
    # [MIX] Lemma A.3: δ(ε) = 1 + f*(−e^ε) for a symmetric f
    sym = pair.symmetrize()
    assert 1.0 + float(alg.conjugate(sym, -math.exp(eps))) == pytest.approx(float(sym.delta(eps)), abs=1e-12)


def test_convex_envelope_is_the_double_conjugate():
    x = np.array([0.0, 0.2, 0.5, 0.7, 1.0])
    y = np.array([1.0, 0.3, 0.35, 0.1, 0.0])  # not convex at 0.5
    hx, hy = alg.convex_envelope(x, y)
    assert hx.tolist() == [0.0, 0.2, 0.7, 1.0]
    # f**(x) = sup_y (x·y − f*(y)) on a fine grid of slopes agrees with the hull
    slopes = -np.logspace(-3, 3, 4001)
    fstar = np.max(np.multiply.outer(slopes, x) - y, axis=1)
    xs = np.linspace(0, 1, 101)
    fss = np.max(np.multiply.outer(xs, slopes) - fstar, axis=1)
    assert np.allclose(fss, np.interp(xs, hx, hy), atol=2e-3)


@given(mass_pairs(), weights)
def test_mix_with_identity_is_pointwise_and_equals_the_pair_p_wp_plus_q(pq, w):
    p, q = pq
    pair = DiscretePair.from_masses(p, q)
    mixed = alg.mix_with_identity(pair, w)
    assert np.allclose(mixed.tradeoff(X), w * (1 - X) + (1 - w) * pair.tradeoff(X), atol=1e-12)
    brute = DiscretePair.from_masses(p, w * p + (1 - w) * q)
    assert np.allclose(mixed.tradeoff(X), brute.tradeoff(X), atol=1e-12)


@given(mass_pairs(), st.floats(0.0, 0.5, allow_nan=False))
@example(pq=(np.array([0.0, 1.0]), np.array([0.5, 0.5])), w=5e-324)  # found by CI: w·q underflows in floats
def test_swap_mixture_equals_the_brute_force_pair(pq, w):
    p, q = pq
    got = alg.swap_mixture(DiscretePair.from_masses(p, q), w)
    # the reference mixes the masses in rational arithmetic: in floats w·q underflows for w = 5e-324
    # (found by CI), which moves f(0) from 1 to 1 − q and makes the float brute force the wrong one
    exact = exact_tradeoff(rational_mixture(p, q, w), rational_mixture(q, p, w), X)
    assert np.allclose(got.tradeoff(X), exact, atol=1e-12)
    brute = DiscretePair.from_masses((1 - w) * p + w * q, (1 - w) * q + w * p)  # δ is continuous in the masses
    assert np.allclose(got.delta(np.linspace(0, 4, 21)), brute.delta(np.linspace(0, 4, 21)), atol=1e-12)


@given(discrete_pairs, st.floats(0.0, 1.0, allow_nan=False))
def test_eq3_equals_conv_min_for_mixtures_of_symmetric_f_with_identity(pair, w):
    # [MIX] eq 3 = conv(min(g, g⁻¹)) for g = w·Id + (1−w)·f with f symmetric (Thm 4.2, Prop E.1)
    g = alg.mix_with_identity(pair.symmetrize(), w)
    c_eq3 = alg.symmetrize_eq3(g)
    assert c_eq3.is_symmetric
    assert np.allclose(c_eq3.tradeoff(X), g.symmetrize().tradeoff(X), atol=1e-12)
    eps = np.linspace(0, 5, 26)
    assert np.allclose(c_eq3.delta(eps), g.delta(eps), atol=1e-12)  # same profile for ε ≥ 0 (Lemma A.3)


@given(discrete_pairs)
def test_symmetrisation_is_below_f_and_symmetric(pair):
    # the law C(f) ≤ f (and ≤ f⁻¹) for conv(min(f, f⁻¹))
    c = alg.symmetrize_conv_min(pair)
    assert c.is_symmetric
    assert np.all(c.tradeoff(X) <= pair.tradeoff(X) + 1e-12)
    assert np.all(c.tradeoff(X) <= pair.swap().tradeoff(X) + 1e-12)


def test_eq3_middle_piece_is_xbar_plus_f_xbar_minus_x():
    g = alg.mix_with_identity(RR, 0.5)  # x̄ = 1/4, f(x̄) = 1/2
    assert alg.kink_point(g) == pytest.approx((0.25, 0.5), abs=1e-15)
    c = alg.symmetrize_eq3(g)
    x = np.linspace(0.25, 0.5, 11)
    assert np.allclose(c.tradeoff(x), 0.25 + 0.5 - x, atol=1e-15)


def test_symm_max_case_is_max_of_f_and_its_inverse():
    # x̄ = 0.1 > f(x̄) = 0.05: Def F.1 takes max{f, f⁻¹}, which is convex and symmetric
    f = alg.pair_from_vertices([0.0, 0.1, 0.15, 1.0], [1.0, 0.05, 0.0, 0.0])
    x_bar, fx = alg.kink_point(f)
    assert x_bar > fx
    with pytest.raises(ValueError, match="x̄ ≤ f"):
        alg.symmetrize_eq3(f)
    s = alg.symm(f)
    assert s.is_symmetric
    assert np.allclose(s.tradeoff(X), np.maximum(f.tradeoff(X), f.swap().tradeoff(X)), atol=1e-9)


def test_eq3_differs_from_conv_min_for_an_asymmetric_f():
    # g⁻¹ dips below g near 0: conv(min(g, g⁻¹)) is lower than eq 3 (documented in algebra)
    g = alg.mix_with_identity(DiscretePair.from_masses([1 / 3, 1 / 3, 1 / 3], [0.0, 0.25, 0.75]), 0.5)
    assert float(alg.symmetrize_eq3(g).tradeoff(0.1)) > float(g.symmetrize().tradeoff(0.1)) + 0.03


def test_symm_first_case_is_eq3():
    g = alg.mix_with_identity(RR, 0.3)
    assert np.allclose(alg.symm(g).tradeoff(X), alg.symmetrize_eq3(g).tradeoff(X), atol=0)


def test_operations_keep_the_rounding():
    pess = DiscretePair(RR.loss, RR.log_p, 0.0, 0.0, Rounding.PESSIMISTIC)
    for out in (alg.mix_with_identity(pess, 0.2), alg.swap_mixture(pess, 0.2), alg.symmetrize_eq3(alg.mix_with_identity(pess, 0.2))):
        assert out.rounding is Rounding.PESSIMISTIC


@pytest.mark.parametrize(
    ("alpha", "beta", "message"),
    [
        ([0, 0.3, 0.6, 1], [1, 0.6, 0.1, 0], "convex"),
        ([0, 0.5, 1], [0.4, 0.6, 0], "non-increasing"),
        ([0, 0.5, 1], [1, 0.7, 0], "1 − α"),
        ([0, 0.5, 1], [1, 0.2, 0.1], "f\\(1\\) = 0"),
        ([0.1, 0.5, 1], [1, 0.2, 0], "from alpha = 0"),
        ([0, 0.5, 0.5, 1], [1, 0.2, 0.2, 0], "strictly increasing"),
        ([0, float("nan"), 1], [1, 0.2, 0], "finite"),
    ],
)
def test_pair_from_vertices_rejects_non_tradeoff_functions(alpha, beta, message):
    with pytest.raises(ValueError, match=message):
        alg.pair_from_vertices(alpha, beta)


@pytest.mark.parametrize("w", [-0.1, 1.5, float("nan")])
def test_bad_weights_name_w(w):
    with pytest.raises(ValueError, match="w must"):
        alg.mix_with_identity(RR, w)


def test_swap_mixture_weight_at_most_half():
    with pytest.raises(ValueError, match=r"w must be in \[0, 0.5\]"):
        alg.swap_mixture(RR, 0.6)


def test_as_pairs_rejects_invalid_callables_and_objects():
    not_convex = lambda a: np.interp(a, [0, 0.3, 0.6, 1], [1, 0.6, 0.1, 0])  # noqa: E731
    increasing = lambda a: np.interp(a, [0, 0.3, 0.5, 1], [0.5, 0.2, 0.3, 0])  # noqa: E731
    above_id = lambda a: 1 - np.asarray(a) ** 2  # noqa: E731
    with pytest.raises(ValueError, match="not a valid trade-off function.*convex"):
        alg.as_pairs(not_convex)
    with pytest.raises(ValueError, match="not a valid trade-off function.*non-increasing"):
        alg.as_pairs(increasing)
    with pytest.raises(ValueError, match="not a valid trade-off function.*1 − α"):
        alg.as_pairs(above_id)
    with pytest.raises(ValueError, match=r"f\(0\) = 1 is required"):
        alg.as_pairs(lambda a: 0.9 * (1 - np.asarray(a)), require_f0_one=True)
    with pytest.raises(ValueError, match="DiscretePair, a mechanism or a callable"):
        alg.as_pairs("gaussian")


@pytest.mark.parametrize("mech", [dc.Gaussian(mu=0.3), dc.Gaussian(mu=1.0), dc.Gaussian(mu=6.0), dc.Laplace(b=1.0), dc.Laplace(b=0.1)],
                         ids=lambda m: m.spec)
def test_as_pairs_of_a_closed_form_mechanism_brackets_its_closed_forms(mech):
    # the certified discretisation (tradeoff/grid.py via mixtures/_tails.py) against the mechanism's
    # closed-form δ(ε) and f(α) (Gaussian: Dong, Roth & Su Cor 2.13; Laplace: its two-sided tails)
    pess, opt = alg.as_pairs(mech)
    assert pess.rounding is Rounding.PESSIMISTIC and opt.rounding is Rounding.OPTIMISTIC
    eps = np.linspace(0.0, 12.0, 61)
    d = mech.delta(eps)
    assert np.all(opt.delta(eps) <= d * (1 + 1e-9) + 1e-15) and np.all(d <= pess.delta(eps) * (1 + 1e-9) + 1e-15)
    a = np.linspace(0.0, 1.0, 401)
    f = mech.tradeoff(a)
    assert np.all(pess.tradeoff(a) <= f + 1e-12) and np.all(f <= opt.tradeoff(a) + 1e-12)
    assert np.max(opt.tradeoff(a) - pess.tradeoff(a)) < 1e-4


def test_as_pairs_of_laplace_has_no_spurious_infinite_loss():
    # ε(δ) of Laplace is m = Δ/b for every δ > 0 (the loss is bounded by m); the pessimistic pair keeps
    # it down to tiny δ: no rounding excess is charged at ℓ = +∞
    m = dc.Laplace(b=0.1)
    pess, _ = alg.as_pairs(m)
    assert pess.q_pos_inf == 0.0
    assert m.m - 1e-9 <= pess.epsilon(1e-30) <= m.m + 1e-9


@pytest.mark.parametrize("delta", [1e-5, 1e-12, 1e-30])
def test_as_pairs_of_a_gaussian_brackets_epsilon_down_to_tiny_delta(delta):
    # closed form ε(δ) of G_μ (Balle & Wang 2018, analytic Gaussian) inside the bracket; the old
    # discretisation put a rounding excess (~1e-17) at ℓ = +∞ and answered ∞ below it
    g = dc.Gaussian(mu=1.0)
    pess, opt = alg.as_pairs(g)
    assert opt.epsilon(delta) <= g.epsilon(delta) <= pess.epsilon(delta) < g.epsilon(delta) + 1e-3
