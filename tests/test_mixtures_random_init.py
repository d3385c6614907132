"""DP-GD with random initialisation (seed 002 Thm 5.1, App. D.1, Examples D.1–D.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

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
