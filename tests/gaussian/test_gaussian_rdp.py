"""RDP of the Gaussian mechanism ([SI] Lemma 7) and the RDP → (ε, δ) conversions (Cor 11–13, Figure 6).

References: Rényi divergences by numerical integration (mpmath quad); autodp's ``rdp_to_approxdp``
(standard and BBGHS = Balle et al. 2020 conversions, its own α search); and, for Corollary 12's case
conditions (garbled in the seed's eq 6.4–6.5), the *optimal* RDP → (ε, δ) conversion derived from the
RDP definition: any pair with D_α(P‖Q) ≤ ρ has, for every event, a binary pair (p, q) with
p^α q^{1−α} + (1−p)^α (1−q)^{1−α} ≤ e^{(α−1)ρ} (data processing), so the best δ at ε is
δ*(ε) = sup{p − e^ε q over that set}, which ``optimal_delta`` below solves by brute force.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize

import dpcompare.gaussian as dg
from dpcompare.gaussian import Conversion

DELTA = 1e-5
FIG6_PSI = np.linspace(0.1, 6.0, 591)  # the grid of examples/figure6_seed001.py


# ---------------------------------------------------------------------------------------------- Lemma 7
@pytest.mark.parametrize("psi", [0.3, 1.0, 2.0])
@pytest.mark.parametrize("alpha", [1.5, 2.0, 5.0, 10.0])
def test_rdp_is_the_renyi_divergence_by_quadrature(psi, alpha):
    """D_α(N(0,1)‖N(ψ,1)) = (1/(α−1))·log ∫ p^α q^{1−α} = αψ²/2, both directions (Lemma 7, Cor 10)."""
    with mp.workdps(30):
        a, m = mp.mpf(alpha), mp.mpf(psi)
        for mp_, mq in ((0, m), (m, 0)):
            integrand = lambda x: mp.npdf(x, mp_) ** a * mp.npdf(x, mq) ** (1 - a)  # noqa: E731
            val = mp.log(mp.quad(integrand, [-mp.inf, 0, m, mp.inf])) / (a - 1)
            assert float(val) == pytest.approx(dg.rdp(psi, alpha), rel=1e-12)


def test_rdp_vectorised():
    np.testing.assert_allclose(dg.rdp(2.0, np.array([2.0, 4.0])), [4.0, 8.0])


# ---------------------------------------------------------------------------------------------- Cor 11, 13 vs autodp
@pytest.mark.parametrize("psi", [0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_standard_and_balle_match_autodp(psi, delta):
    rdp_bank = pytest.importorskip("autodp.rdp_bank")
    from autodp.converter import rdp_to_approxdp

    rdp = lambda a: rdp_bank.RDP_gaussian({"sigma": 1.0 / psi}, a)  # noqa: E731
    with warnings.catch_warnings():  # autodp's unbounded Brent search probes α ≤ 1 (0/0 warnings)
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs_std = rdp_to_approxdp(rdp, BBGHS_conversion=False)(delta)
        theirs_balle = rdp_to_approxdp(rdp, BBGHS_conversion=True)(delta)
    std = dg.rdp_epsilon(psi, delta, Conversion.STANDARD, alpha_max=1e6)
    assert std.epsilon == pytest.approx(theirs_std, rel=1e-9)
    balle = dg.rdp_epsilon(psi, delta, Conversion.BALLE, alpha_max=1e6)
    assert balle.epsilon == pytest.approx(theirs_balle, rel=1e-8)


def test_standard_closed_form_optimum():
    # min over α of αψ²/2 + L/(α−1), L = log(1/δ): α* = 1 + √(2L)/ψ, ε* = ψ²/2 + ψ√(2L)
    for psi in (0.3, 1.0, 4.0):
        L = math.log(1 / DELTA)
        r = dg.rdp_epsilon(psi, DELTA, "standard")
        assert r.alpha == pytest.approx(1 + math.sqrt(2 * L) / psi, rel=1e-14)
        assert r.epsilon == pytest.approx(psi**2 / 2 + psi * math.sqrt(2 * L), rel=1e-14)
        assert r.rho == pytest.approx(r.alpha * psi**2 / 2, rel=1e-15)
    # clipped to α_max when the optimum lies beyond it (ψ = 0.05: α* = 97)
    assert dg.rdp_epsilon(0.05, DELTA, "standard").alpha == 64.0


@pytest.mark.parametrize("conv", list(Conversion))
@pytest.mark.parametrize("psi", [0.02, 0.1, 0.7, 3.0, 6.0])
def test_optimised_alpha_is_the_brute_force_minimum(conv, psi):
    alphas = 1 + np.geomspace(1e-6, 63, 200_001)
    brute = np.min(dg.conversion_epsilon(conv, alphas, dg.rdp(psi, alphas), DELTA))
    r = dg.rdp_epsilon(psi, DELTA, conv)
    assert r.epsilon <= brute + 1e-12
    assert r.epsilon == pytest.approx(brute, rel=1e-9)
    assert 1 < r.alpha <= 64
    assert float(dg.conversion_epsilon(conv, r.alpha, r.rho, DELTA)) == pytest.approx(r.epsilon, rel=1e-15)


def test_user_grid_and_single_order():
    r = dg.rdp_epsilon(1.0, DELTA, Conversion.ASOODEH, alpha=[2, 4, 8])
    vals = [float(dg.asoodeh_epsilon(a, a / 2, DELTA)) for a in (2, 4, 8)]
    assert r.alpha == 4.0 and r.epsilon == min(vals)
    one = dg.rdp_epsilon(1.0, DELTA, "balle", alpha=6.0)
    assert one.alpha == 6.0 and one.epsilon == float(dg.balle_epsilon(6.0, 3.0, DELTA))
    assert one.to_dict()["conversion"] == "balle"


# ---------------------------------------------------------------------------------------------- Cor 12: the cases
def _q_min(p: np.ndarray, alpha: float, rho: float) -> np.ndarray:
    """Smallest q ∈ (0, p] with p^α q^{1−α} + (1−p)^α (1−q)^{1−α} ≤ e^{(α−1)ρ} (bisection in log q)."""
    target = (alpha - 1) * rho
    lp = np.log(p)
    with np.errstate(divide="ignore"):
        l1p = np.log1p(-p)

    def g(lq):
        return np.logaddexp(alpha * lp + (1 - alpha) * lq, alpha * l1p + (1 - alpha) * np.log1p(-np.exp(lq))) - target

    lo = np.full_like(p, -745.0)  # g(lo) > 0 (q tiny), g(log p) = −target ≤ 0
    hi = lp.copy()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        bad = g(mid) > 0
        lo = np.where(bad, mid, lo)
        hi = np.where(bad, hi, mid)
    return np.exp(hi)


def optimal_delta(eps: float, alpha: float, rho: float) -> float:
    """δ*(ε) = sup{p − e^ε q : binary (p, q) with D_α ≤ ρ} — the optimal conversion, by brute force."""
    p = np.unique(np.concatenate([np.geomspace(1e-12, 1, 3000), 1 - np.geomspace(1e-14, 0.5, 3000), [1.0]]))
    vals = p - math.exp(eps) * _q_min(p, alpha, rho)
    k = int(np.argmax(vals))
    best = float(vals[k])
    if 0 < k < p.size - 1:
        f = lambda x: -(x - math.exp(eps) * float(_q_min(np.array([x]), alpha, rho)[0]))  # noqa: E731
        res = optimize.minimize_scalar(f, bounds=(p[k - 1], p[k + 1]), method="bounded", options={"xatol": 1e-15})
        best = max(best, -float(res.fun))
    return max(best, 0.0)


# (α, ρ, δ) with α·δ ≥ 1
BIG = [(4.0, 1.0, 0.3), (3.0, 2.0, 0.5), (2.0, 3.0, 0.6), (8.0, 0.3, 0.2), (1.5, 2.0, 0.7)]
# (α, ρ, δ) with α·δ < 1
SMALL = [(2.0, 0.5, 1e-5), (2.0, 0.5, 0.1), (4.0, 1.0, 0.01), (10.0, 0.05, 0.05), (64.0, 0.01, 1e-5),
         (6.0, 0.03, 1e-5), (3.4, 0.00158, 1.12e-5), (28.9, 0.0148, 1.53e-7)]


@pytest.mark.parametrize("alpha,rho,delta", BIG)
def test_cor12_large_alpha_delta_is_the_optimal_conversion(alpha, rho, delta):
    """For α·δ ≥ 1, eq 6.2/6.4 ε = ρ + log(1 − δ) is exactly the optimal conversion."""
    eps = dg.asoodeh_epsilon(alpha, rho, delta)
    assert eps == pytest.approx(rho + math.log1p(-delta), rel=1e-15)
    assert optimal_delta(eps, alpha, rho) == pytest.approx(delta, rel=1e-7)  # valid and tight …
    assert optimal_delta(eps - 1e-3, alpha, rho) > delta  # … no smaller ε is valid
    # the seed's garbled reading (eq 6.5's min also for α·δ ≥ 1) would be valid but looser
    first = float(dg.balle_epsilon(alpha, rho, delta))
    second = math.log1p(math.expm1((alpha - 1) * rho) / (alpha * delta)) / (alpha - 1)
    assert min(first, second) >= eps


@pytest.mark.parametrize("alpha,rho,delta", SMALL)
def test_cor12_small_alpha_delta_case_is_valid_and_the_other_case_is_not(alpha, rho, delta):
    """For α·δ < 1, eq 6.3/6.5 is valid (≥ the optimum) while eq 6.2 would understate ε."""
    eps = float(dg.asoodeh_epsilon(alpha, rho, delta))
    assert optimal_delta(eps, alpha, rho) <= delta * (1 + 1e-7)
    assert optimal_delta(rho + math.log1p(-delta), alpha, rho) > delta * 1.01
    # the formula, typed out: (1/(α−1))·min{(α−1)ρ − log(δ/ζ_α), log(1 + (e^{(α−1)ρ} − 1)/(αδ))}
    zeta = (1 / alpha) * (1 - 1 / alpha) ** (alpha - 1)
    want = min((alpha - 1) * rho - math.log(delta / zeta), math.log1p(math.expm1((alpha - 1) * rho) / (alpha * delta)))
    assert eps == pytest.approx(max(want / (alpha - 1), 0.0), rel=1e-12)


def test_cor12_first_entry_is_cor13():
    # (α−1)ρ − log(δ/ζ_α) = (α−1)·ε_B: conversion A is never worse than B
    a = np.geomspace(1.01, 64, 50)
    for rho in (1e-3, 0.1, 2.0):
        for delta in (1e-10, 1e-5, 1e-2):
            zeta = (1 / a) * (1 - 1 / a) ** (a - 1)
            first = ((a - 1) * rho - np.log(delta / zeta)) / (a - 1)
            np.testing.assert_allclose(np.maximum(first, 0.0), dg.balle_epsilon(a, rho, delta), rtol=1e-12, atol=1e-14)


def test_continuity_at_alpha_delta_one():
    # both cases agree at α·δ = 1: ρ + log(1 − 1/α)
    for alpha in (2.0, 5.0):
        delta = 1 / alpha
        assert float(dg.asoodeh_epsilon(alpha, 3.0, delta)) == pytest.approx(3.0 + math.log1p(-1 / alpha), rel=1e-14)
        assert float(dg.asoodeh_epsilon(alpha, 3.0, delta * (1 - 1e-12))) == pytest.approx(3.0 + math.log1p(-1 / alpha),
                                                                                          rel=1e-9)


# ---------------------------------------------------------------------------------------------- Figure 6
@pytest.fixture(scope="module")
def figure6():
    prof = np.asarray(dg.epsilon(FIG6_PSI, DELTA))
    best = {c: [dg.rdp_epsilon(p, DELTA, c) for p in FIG6_PSI] for c in Conversion}
    return prof, {c: np.array([r.epsilon for r in rs]) for c, rs in best.items()}


def test_figure6_ordering_with_optimised_alpha(figure6):
    """[SI] §6 on ψ ∈ [0.1, 6], δ = 1e-5, α ∈ (1, 64]: profile ≤ improved A, B ≤ standard."""
    prof, best = figure6
    a, b, s = best[Conversion.ASOODEH], best[Conversion.BALLE], best[Conversion.STANDARD]
    assert np.all(prof < a) and np.all(prof < b)
    assert np.all(a <= b) and np.all(b < s)


def test_figure6_ordering_at_every_order():
    alphas = np.concatenate([1 + np.geomspace(1e-3, 63, 60), [2.0, 6.0]])
    psi, alpha = np.meshgrid(FIG6_PSI, alphas, indexing="ij")
    rho = alpha * psi**2 / 2
    prof = np.asarray(dg.epsilon(FIG6_PSI, DELTA))[:, None]
    a = dg.asoodeh_epsilon(alpha, rho, DELTA)
    b = dg.balle_epsilon(alpha, rho, DELTA)
    s = dg.standard_epsilon(alpha, rho, DELTA)
    assert np.all(prof <= a) and np.all(a <= b) and np.all(b < s)


def test_figure6_improved_a_beats_b_at_low_psi():
    """[SI] §6: A outperforms B for low ψ — at the figure's panel order α = 6 and at α = 2 …"""
    for alpha, upto in ((6.0, 0.18), (2.0, 0.83)):
        rho = alpha * FIG6_PSI**2 / 2
        a = dg.asoodeh_epsilon(alpha, rho, DELTA)
        b = dg.balle_epsilon(alpha, rho, DELTA)
        low = FIG6_PSI <= upto + 1e-9
        assert np.all(a[low] < b[low]) and np.all(a[~low] == b[~low])
        assert np.all(np.diff((b - a)[low]) < 0)  # the gain shrinks as ψ grows
    # … and with α optimised over (1, 64] below the figure's grid, where the best order hits α = 64
    for psi in (0.005, 0.01):
        ra = dg.rdp_epsilon(psi, DELTA, Conversion.ASOODEH)
        rb = dg.rdp_epsilon(psi, DELTA, Conversion.BALLE)
        assert ra.epsilon < rb.epsilon and ra.alpha == rb.alpha == 64.0


def test_figure6_a_and_b_coincide_with_optimised_alpha_on_the_grid(figure6):
    # measured, and documented in the report: with α optimised over (1, 64], A's second entry never wins on [0.1, 6]
    _, best = figure6
    np.testing.assert_array_equal(best[Conversion.ASOODEH], best[Conversion.BALLE])


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dg.rdp(1.0, 1.0), "alpha"),
        (lambda: dg.rdp(1.0, 0.5), "alpha"),
        (lambda: dg.rdp(1.0, np.nan), "alpha"),
        (lambda: dg.rdp(1.0, np.inf), "alpha"),
        (lambda: dg.rdp(0.0, 2.0), "psi"),
        (lambda: dg.standard_epsilon(1.0, 1.0, 1e-5), "alpha"),
        (lambda: dg.balle_epsilon(2.0, -1.0, 1e-5), "rho"),
        (lambda: dg.asoodeh_epsilon(2.0, 1.0, 0.0), "delta"),
        (lambda: dg.rdp_epsilon(1.0, 1e-5, alpha=[2.0, 1.0]), "alpha"),
        (lambda: dg.rdp_epsilon(1.0, 1e-5, alpha=[]), "alpha"),
        (lambda: dg.rdp_epsilon(1.0, 1e-5, alpha_max=1.0), "alpha_max"),
        (lambda: dg.rdp_epsilon(1.0, 1e-5, "mironov"), "conversion"),
        (lambda: dg.rdp_epsilon(np.array([1.0, 2.0]), 1e-5), "psi"),
        (lambda: dg.conversion_epsilon("x", 2.0, 1.0, 1e-5), "conversion"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()
