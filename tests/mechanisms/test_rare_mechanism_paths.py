"""Rarely reached mechanism paths: the generic certified ε(δ) solvers and the checks of a tabulated
trade-off curve, each against an independent computation (mpmath, closed forms)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest
import reference_values as rv

import dpcompare as dc
from dpcompare.mechanisms import Mechanism, PrivacyLossMechanism


# ---------------------------------------------------------------------------------------------- mechanisms
class _GenericSolverGaussian(dc.Gaussian):
    """G_μ with the generic certified ε(δ) of PrivacyLossMechanism (the one solver on its log δ)
    instead of Gaussian's own Newton start."""

    _epsilon_scalar = PrivacyLossMechanism._epsilon_scalar


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
def test_generic_privacy_loss_epsilon_against_mpmath(mu):
    m = _GenericSolverGaussian(mu=mu)
    for delta in (1e-3, 1e-5, 1e-12, 1e-300):
        e = m.epsilon(delta)
        with mp.workdps(40):
            assert e == pytest.approx(float(rv.gauss_epsilon(delta, mu)), rel=1e-9)
            assert rv.gauss_delta(e, mu) <= mp.mpf(delta) * (1 + mp.mpf(1e-12))  # certified: δ(ε) ≤ δ at the answer


@dataclass(frozen=True, repr=False)
class _RRFromProfile(Mechanism):
    """Randomized response with ε₀ given only by its closed forms (no ε(δ) of its own): the default
    Mechanism._epsilon_scalar must invert δ(ε) = max(0, (e^ε₀ − e^ε)/(1 + e^ε₀)) (Kairouz et al.)."""

    eps0: float

    def _delta_bounds(self, eps):
        e = np.exp(np.minimum(eps, 2 * self.eps0))  # δ = 0 from ε₀ on; no overflow at ε near the largest double
        d = np.maximum(0.0, (math.exp(self.eps0) - e) / (1.0 + math.exp(self.eps0)))
        return d, d

    def _tradeoff_bounds(self, alpha):
        e = math.exp(self.eps0)
        f = np.maximum.reduce([np.zeros_like(alpha), 1 - e * alpha, (1 - alpha) / e])
        return f, f

    def _bayes_error_bounds(self, pi):
        # min over the vertices (0, 1), (1 − p, 1 − p), (1, 0) of π·α + (1 − π)·f(α), p = e^ε₀/(1 + e^ε₀)
        r = np.minimum(np.minimum(pi, 1 - pi), 1 / (1 + math.exp(self.eps0)))
        return r, r

    @property
    def spec(self) -> str:
        return f"rr(eps={self.eps0:g})"


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_default_epsilon_solver_inverts_the_profile(eps0):
    m = _RRFromProfile(eps0)
    for delta in (0.0, 1e-6, 0.1, 0.99):
        # closed-form inverse: e^ε = e^ε₀ − δ(1 + e^ε₀), clipped at ε = 0
        rest = math.exp(eps0) - delta * (1 + math.exp(eps0))
        want = math.log(rest) if rest > 1 else 0.0
        assert m.epsilon(delta) == pytest.approx(want, rel=1e-12, abs=1e-300)
    assert m.epsilon(1.0) == 0.0
    assert repr(m) == f"<_RRFromProfile rr(eps={eps0:g})>"
    assert repr(dc.Gaussian(mu=2.0)) == "<Gaussian gaussian(mu=2)>"


# ---------------------------------------------------------------------------------------------- input checks
@pytest.mark.parametrize("alpha, beta, words", [
    ((0.0,), (1.0,), "same length"),
    ((0.0, 1.0), (1.0, 0.0, 0.0), "same length"),
    ((0.0, 1.5), (1.0, 0.0), "alpha must be in [0, 1]"),
    ((0.0, 1.0), (1.0, float("nan")), "beta must be in [0, 1]"),
    ((0.1, 1.0), (0.9, 0.0), "first point must have alpha = 0"),
    ((0.0, 0.5, 0.5, 1.0), (1.0, 0.5, 0.4, 0.0), "strictly increasing"),
    ((0.0, 0.5, 1.0), (0.5, 0.6, 0.0), "non-increasing"),
    ((0.0, 0.5, 1.0), (1.0, 0.6, 0.0), "f(α) ≤ 1 − α"),
    ((0.0, 0.2, 0.6, 1.0), (1.0, 0.5, 0.3, 0.0), "convex"),  # slopes −2.5, −0.5, −0.75
])
def test_tradeoff_curve_rejects_what_is_not_a_tradeoff_function(alpha, beta, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        dc.TradeoffCurve(alpha=alpha, beta=beta)
