"""The mpmath reference of reference_values.py checked against the quoted numbers and a brute force.

Sources: [BCP] §5 (Figure 3) quotes Δ(G‖L) = 0.00527 at π = ½,
Δ(L‖G) = 0.03414 at π = 1/(1+e), crossing at π ≈ 0.4185 (μ = 1, b = 1). The brute force below
uses double precision scipy.special closed forms on a dense π grid, not dpcompare.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from reference_values import gauss_laplace_reference


def _bayes_error(delta, pi):
    p = np.minimum(pi, 1 - pi)
    return p * (1 - delta(np.log((1 - p) / p)))


def _delta_gauss(e):
    return special.ndtr(-e + 0.5) - np.exp(e) * special.ndtr(-e - 0.5)


def _delta_laplace(e):
    return np.maximum(0.0, -np.expm1((e - 1.0) / 2))


def test_quoted_values():
    ref = gauss_laplace_reference()
    assert ref.delta_gl == pytest.approx(0.00527, abs=5e-6)
    assert ref.delta_lg == pytest.approx(0.03414, abs=5e-6)
    assert ref.pi_gl == pytest.approx(0.5, abs=1e-12)
    assert ref.pi_lg == pytest.approx(1 / (1 + math.e), abs=1e-12)
    assert ref.crossings[0] == pytest.approx(0.4185, abs=5e-5)
    assert ref.crossings[0] + ref.crossings[1] == pytest.approx(1.0, abs=1e-15)
    # Δ(G‖L) at π = ½ is (δ_L(0) − δ_G(0))/2 in closed form
    assert ref.delta_gl == pytest.approx((1 - math.exp(-0.5) - (2 * special.ndtr(0.5) - 1)) / 2, abs=1e-15)


def test_brute_force_grid_agrees():
    ref = gauss_laplace_reference()
    # a dense grid plus the kink of R_Lap at π = 1/(1+e) (where Δ(L‖G) sits, [BCP] Fig 3)
    pi = np.sort(np.concatenate([np.linspace(1e-6, 1 - 1e-6, 400_001), [1 / (1 + math.e), math.e / (1 + math.e)]]))
    d = _bayes_error(_delta_gauss, pi) - _bayes_error(_delta_laplace, pi)
    assert d.max() <= ref.delta_gl + 1e-14 and d.max() >= ref.delta_gl - 1e-9
    assert (-d).max() <= ref.delta_lg + 1e-14 and (-d).max() >= ref.delta_lg - 1e-9
    s = np.where(np.abs(d) > 1e-12, np.sign(d), 0.0)  # R_G = R_L up to rounding in the far tails
    nz = np.flatnonzero(s)
    change = nz[:-1][s[nz[:-1]] != s[nz[1:]]]
    assert np.allclose(pi[change], ref.crossings, atol=1e-5)
