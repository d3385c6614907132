"""Property tests for the laws of [BCP] §2–3 (hypothesis).

- Δ ≥ 0 and Δ(M‖M) = 0 (Def 1); triangle inequality Δ(1‖3) ≤ Δ(1‖2) + Δ(2‖3) (Cor 1: a sup of
  differences); Δ↔ is a metric (Cor 2): symmetric, triangle inequality.
- R concave with R ≤ min(π, 1−π), R(0) = R(1) = 0 ([BCP] §2).
- Lemma 5: Δ(PP‖M) + Δ(M‖BNP) = ½.
- Exact merge: Δ between two discrete mechanisms equals the max of R_A − R_B over a fine π grid
  (and exactly so once the breakpoints are added).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import dpcompare as dc
from strategies import discrete_mechanisms, mechanisms

PI = np.linspace(0.0, 1.0, 2001)


@given(mechanisms, mechanisms)
def test_delta_nonnegative_and_bracketed(a, b):
    r = dc.delta_divergence(a, b)
    assert 0.0 <= r.lower <= r.value <= r.upper
    same_laplace = isinstance(a, dc.Laplace) and a == b  # loose bracket: test_laplace_self_comparison_is_equal
    if not same_laplace:
        assert r.upper - r.lower <= 1e-9
    # never below any single witness π (the grid value of R_A − R_B)
    assert r.upper >= float(np.max(a.bayes_error(PI) - b.bayes_error(PI))) - 1e-12


@given(mechanisms)
def test_delta_to_itself_is_zero(m):
    r = dc.delta_divergence(m, m)
    assert r.value == 0.0 and r.lower == 0.0
    assert r.upper <= 1e-9  # verdict "equal" at compare's default tol


@given(mechanisms)
def test_sweep_self_comparison_converges(m):
    """There is no a == b shortcut: the sweep itself certifies Δ(M‖M) ≈ 0 (kinks seeded)."""
    from dpcompare.comparison.prior_sweep import MaxTarget, sweep

    _, outs = sweep(m, m, [MaxTarget(False), MaxTarget(True)], tol=1e-12)
    for r in outs:
        assert r.lower == 0.0 and r.upper <= 1e-9


@given(mechanisms, mechanisms, mechanisms)
def test_triangle_inequality(m1, m2, m3):
    d13 = dc.delta_divergence(m1, m3)
    d12 = dc.delta_divergence(m1, m2)
    d23 = dc.delta_divergence(m2, m3)
    assert d13.lower <= d12.upper + d23.upper + 1e-12


@settings(max_examples=12)
@given(mechanisms, mechanisms, mechanisms)
def test_symmetric_delta_is_a_metric(m1, m2, m3):
    c12 = dc.compare(m1, m2, crossings=False)
    c21 = dc.compare(m2, m1, crossings=False)
    assert c12.symmetric == pytest.approx(c21.symmetric, abs=1e-12)  # symmetry
    # Δ↔ = ‖R₁ − R₂‖_∞ (eq 6): at least the grid sup-norm
    assert c12.symmetric_bounds[1] >= float(np.max(np.abs(m1.bayes_error(PI) - m2.bayes_error(PI)))) - 1e-12
    c13 = dc.compare(m1, m3, crossings=False)
    c23 = dc.compare(m2, m3, crossings=False)
    assert c13.symmetric_bounds[0] <= c12.symmetric_bounds[1] + c23.symmetric_bounds[1] + 1e-12
    assert c12.symmetric >= 0.0


@given(mechanisms)
def test_bayes_error_concave_and_bounded(m):
    r = m.bayes_error(PI)
    assert r[0] == 0.0 and r[-1] == pytest.approx(0.0, abs=1e-15)
    assert np.all(r <= np.minimum(PI, 1 - PI) + 1e-15)
    assert np.all(r >= 0.0)
    second = r[:-2] - 2 * r[1:-1] + r[2:]
    assert np.all(second <= 1e-12)  # concave
    np.testing.assert_allclose(r, r[::-1], atol=1e-12)  # symmetric f ⇒ R(π) = R(1−π)


@given(mechanisms)
def test_lemma_5_sum_is_half(m):
    s = dc.delta_from_perfect_privacy(m).value + dc.delta_to_blatant_non_privacy(m).value
    assert s == pytest.approx(0.5, abs=1e-12)


@given(discrete_mechanisms, discrete_mechanisms)
def test_exact_merge_matches_fine_grid(a, b):
    r = dc.delta_divergence(a, b)
    # exact discrete: zero-width bracket, rounded outward by the floating-point slack only
    assert r.lower <= r.value <= r.upper and r.upper - r.lower <= 2.5e-15
    grid = np.linspace(0, 1, 100001)
    g = max(0.0, float(np.max(a.bayes_error(grid) - b.bayes_error(grid))))
    assert g <= r.value + 1e-12
    assert r.value - g <= 2 * 1e-5 + 1e-12  # |slope of R_A − R_B| ≤ 2, grid step 1e-5
    kinks = np.concatenate([1 / (1 + np.exp(-m.pairs()[0].loss)) for m in (a, b)])
    full = np.concatenate([grid, kinks])
    assert max(0.0, float(np.max(a.bayes_error(full) - b.bayes_error(full)))) == pytest.approx(r.value, abs=1e-13)


@pytest.mark.parametrize("b", [0.2, 0.5, 1.0])
def test_laplace_self_comparison_is_equal(b):
    lap = dc.Laplace(b=b)
    r = dc.delta_divergence(lap, lap)
    assert r.lower == 0.0 and r.upper - r.lower <= 1e-11  # branch-and-bound tolerance 1e-12 + rounding
    assert dc.compare(lap, dc.Laplace(b=b), crossings=False).verdict == "equal"
