"""DP-GD with random initialisation ([MIX] Thm 5.1, App. D.1, Examples D.1–D.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import dpcompare as dc
from dpcompare.mixtures import Loss, RandomInit, Sensitivity, theorem51_points
from dpcompare.tradeoff import Rounding

PROFILES = [
    Sensitivity(Loss.LEAST_SQUARES, a=0.5, sigma=2.0),  # Example D.1 (unbounded μ_I)
    Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=0.5, clip=1.0),  # Example D.2
    Sensitivity(Loss.LOGISTIC, bound=2.0),  # Example D.3
]


@pytest.mark.parametrize("sens", PROFILES, ids=lambda s: s.loss.value)
def test_quadrature_of_appendix_d1_lies_inside_the_certified_bracket(sens):
    m = RandomInit(sens, bins=200, grid=1024)
    pess, opt = m.pairs()
    assert pess.rounding is Rounding.PESSIMISTIC and opt.rounding is Rounding.OPTIMISTIC
    lam = np.linspace(-2.5, 2.5, 11)
    a, b = theorem51_points(sens, lam)
    assert np.all(pess.tradeoff(a) <= b + 1e-10) and np.all(b <= opt.tradeoff(a) + 1e-10)
    assert np.max(opt.tradeoff(a) - pess.tradeoff(a)) < 0.03


def test_bracket_narrows_with_more_bins():
    sens = PROFILES[1]
    x = np.linspace(0, 1, 401)
    widths = []
    for bins in (50, 400):
        pess, opt = RandomInit(sens, bins=bins, grid=1024).pairs()
        widths.append(np.max(opt.tradeoff(x) - pess.tradeoff(x)))
    assert widths[1] < widths[0] / 4


def test_constant_sensitivity_is_the_gaussian_mechanism():
    # clipped least squares with a ≫ c: μ_I = c for every I but a negligible tail, so T = G_c
    sens = Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=100.0, clip=1.25)
    g = dc.Gaussian(mu=1.25)
    lo, hi = RandomInit(sens, bins=64, grid=2048).delta_bounds(np.array([0.0, 0.5, 1.5]))
    true = g.delta(np.array([0.0, 0.5, 1.5]))
    assert np.all(lo <= true + 1e-9) and np.all(true <= hi + 1e-9)
    assert np.max(hi - lo) < 1e-3


def test_composition_of_constant_sensitivity_is_g_mu_sqrt_t():
    # G_μ^{⊗T} = G_{μ√T}: T = 4 steps of μ = 1.25 give μ = 2.5 (grid convolution, both sides certified)
    sens = Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=100.0, clip=1.25)
    m = RandomInit(sens, steps=4, bins=64, grid=2048, heuristic=True)
    eps = np.array([0.0, 1.0, 2.0, 4.0])
    lo, hi = m.delta_bounds(eps)
    true = dc.Gaussian(mu=2.5).delta(eps)
    assert np.all(lo <= true + 1e-9) and np.all(true <= hi + 1e-9)
    assert np.max(hi - lo) < 5e-3
    assert m.pairs()[0].is_symmetric and m.pairs()[1].is_symmetric


def test_more_steps_less_privacy():
    sens = PROFILES[1]
    e1 = RandomInit(sens, bins=100, grid=512).epsilon(1e-5)
    e3 = RandomInit(sens, steps=3, bins=100, grid=512, heuristic=True).epsilon(1e-5)
    assert e3 > e1 > 0


def test_unbounded_sensitivity_keeps_its_tail_pessimistically():
    # Example D.1: |a − I| is unbounded, so the I-tails are charged as perfectly distinguishable
    m = RandomInit(PROFILES[0], bins=100, grid=512, tail=1e-12)
    pess, _ = m.pairs()
    assert pess.q_pos_inf >= 1e-12 and math.isinf(m.epsilon(1e-13))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"loss": "hinge"}, "loss must be one of"),
        ({"loss": Loss.LEAST_SQUARES, "sigma": 0.0}, "sigma must be > 0"),
        ({"loss": Loss.CLIPPED_LEAST_SQUARES, "clip": 0.0}, "clip must be a finite number > 0"),
        ({"loss": Loss.CLIPPED_LEAST_SQUARES}, "clip must be a finite number > 0"),
        ({"loss": Loss.LOGISTIC, "bound": -1.0}, "bound must be > 0"),
        ({"loss": Loss.LEAST_SQUARES, "a": float("nan")}, "a must be finite"),
    ],
)
def test_bad_sensitivity(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Sensitivity(**kwargs)


def test_bad_mechanism_parameters():
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        RandomInit(PROFILES[1], steps=0)
    with pytest.raises(ValueError, match="sensitivity must be a Sensitivity"):
        RandomInit("least_squares")


def test_t_step_composition_of_randomized_response_brackets_the_binomial_closed_form():
    # RR with e^ε₀ = 3 composed T times is exact in closed form: k of T outcomes at +log 3 give loss
    # (2k − T)·log 3 with P-mass C(T,k)·¼ᵏ·¾^{T−k} (Dong, Roth & Su, "Gaussian differential privacy", §3).
    # compose_on_grid moves the pair onto the grid (tradeoff/grid.py) and composes it by FFT (tradeoff/compose.py).
    from dpcompare.mixtures.random_init import compose_on_grid

    rr = dc.DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    T = 6
    k = np.arange(T + 1)
    p = np.array([math.comb(T, i) * 0.25**i * 0.75 ** (T - i) for i in k])
    q = np.array([math.comb(T, i) * 0.75**i * 0.25 ** (T - i) for i in k])
    eps = np.array([0.0, 0.7, 1.5, 3.0, 5.0])
    exact = np.maximum(q[None, :] - np.exp(eps)[:, None] * p[None, :], 0.0).sum(axis=1)
    h, K = math.log(3.0) * T / 256, 256
    pess, eta_p = compose_on_grid(rr, T, h, K, Rounding.PESSIMISTIC)
    opt, eta_o = compose_on_grid(rr, T, h, K, Rounding.OPTIMISTIC)
    assert 0.0 < eta_p < 1e-9 and 0.0 < eta_o < 1e-9
    assert np.all(pess.delta(eps) >= exact - eta_p) and np.all(opt.delta(eps) <= exact + eta_o)
    assert np.max(pess.delta(eps) - opt.delta(eps)) < 0.02
    assert pess.is_symmetric and opt.is_symmetric


def test_numerical_error_is_zero_for_one_step_and_the_fft_bound_for_t_steps():
    sens = PROFILES[1]
    assert RandomInit(sens, bins=50, grid=256).numerical_error == 0.0
    m = RandomInit(sens, steps=3, bins=50, grid=256, heuristic=True)
    assert 0.0 < m.numerical_error < 1e-9
    assert m.describe()["numerical_error"] == m.numerical_error


def test_one_step_pairs_are_the_lemma_31_mixture_of_gaussian_components():
    # independent path: each bin's G_μ (sup μ / inf μ) bracketed alone by the mechanism's own closed
    # form, mixed as the revealed-index pair ([MIX] Lemma 3.1); its δ must lie inside the bracket
    sens = Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=0.0, clip=1.0)
    m = RandomInit(sens, bins=8, grid=1024, tail=1e-6)
    pess, opt = m.pairs()
    U = float(-special.ndtri(1e-6))
    edges = np.concatenate([[-np.inf], np.linspace(-U, U, 9), [np.inf]])
    w = np.diff(special.ndtr(edges))
    eps = np.linspace(0.0, 3.0, 13)
    hi = sum(wi * dc.Gaussian(mu=sens.range(a, b)[1]).delta(eps) for wi, a, b in zip(w, edges[:-1], edges[1:]))
    lo = sum(wi * (dc.Gaussian(mu=mu).delta(eps) if mu > 0 else 0.0 * eps)
             for wi, mu in ((wi, sens.range(a, b)[0]) for wi, a, b in zip(w, edges[:-1], edges[1:])))
    assert np.all(pess.delta(eps) >= hi - 1e-12)
    assert np.all(opt.delta(eps) <= lo + 1e-12)
    assert np.max(pess.delta(eps) - hi) < 1e-4 and np.max(lo - opt.delta(eps)) < 1e-4  # the grid's part is small
