"""Privacy profile δ(ε; ψ) and ε(δ; ψ) of the Gaussian mechanism ([SI] eq 7.1 / Cor 14, eq 6.7).

Independent references: mpmath at 60 digits (eq 7.1 as printed), numerical integration of
∫ (q − e^ε p)₊ over the outputs, dp-accounting (``GaussianPrivacyLoss``, the analytic
``get_epsilon_gaussian`` and the discretised Gaussian PLD) and autodp's analytic Gaussian.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

import dpcompare as dc
import dpcompare.gaussian as dg

PSI_RANGE = [1e-4, 3e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0]


def mp_log_delta(psi: float, eps: float, dps: int = 60) -> float:
    """log δ(ε; ψ) = log[Φ(ψ/2 − ε/ψ) − e^ε Φ(−ψ/2 − ε/ψ)] at ``dps`` digits (eq 7.1 as printed)."""
    with mp.workdps(dps):
        p, e = mp.mpf(psi), mp.mpf(eps)
        return float(mp.log(mp.ncdf(p / 2 - e / p) - mp.exp(e) * mp.ncdf(-p / 2 - e / p)))


# ---------------------------------------------------------------------------------------------- δ(ε; ψ)
def _grid():
    """(ψ, ε) over ψ ∈ [1e-4, 100] with z₀ = ε/ψ − ψ/2 from −3 (δ near 1) to 45 (δ ≈ 1e-440)."""
    out = []
    for psi in PSI_RANGE:
        for z in (-3, -1, -0.3, 0, 0.2, 1, 2, 4, 8, 15, 25, 37, 45):
            eps = psi * (z + psi / 2)
            if eps >= 0:
                out.append((psi, eps))
    return out


def test_log_delta_matches_mpmath_on_the_whole_range():
    """ψ ∈ [1e-4, 100], δ from ~1 down to ~1e-440: relative error of δ below 1e-12."""
    pts = _grid()
    got = dg.log_delta(np.array([p for p, _ in pts]), np.array([e for _, e in pts]))
    want = np.array([mp_log_delta(p, e) for p, e in pts])
    assert np.all(np.isfinite(got))
    assert np.min(want) < math.log(1e-300)  # the grid reaches below 1e-300
    # |Δ log δ| is the relative error of δ: below 1e-12 everywhere
    assert np.max(np.abs(got - want)) < 1e-12


@pytest.mark.parametrize("psi,eps", [(1e-4, 0.0), (1e-4, 1e-6), (1e-4, 3.7e-3), (40.0, 790.0), (100.0, 5000.0),
                                     (1.0, 500.0), (0.5, 0.0)])
def test_log_delta_cancellation_cases(psi, eps):
    # the two Φ terms of eq 7.1 agree to 4–12 digits here; a naive subtraction loses them
    assert float(dg.log_delta(psi, eps)) == pytest.approx(mp_log_delta(psi, eps), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("psi", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 6.0])
def test_delta_vs_numerical_integration(psi, eps):
    # δ(ε) = ∫ (q − e^ε p)₊ dx with P = N(0, 1), Q = N(ψ, 1); positive for x > ε/ψ + ψ/2
    x0 = eps / psi + psi / 2
    f = lambda x: stats.norm.pdf(x, psi) - math.exp(eps) * stats.norm.pdf(x)  # noqa: E731
    want, _ = integrate.quad(f, x0, np.inf, epsabs=1e-15, epsrel=1e-12)
    assert float(dg.delta(psi, eps)) == pytest.approx(want, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("psi", [0.1, 1.0, 4.0])
def test_delta_vs_dp_accounting_privacy_loss(psi):
    from dp_accounting.pld import privacy_loss_mechanism as plm

    loss = plm.GaussianPrivacyLoss(1.0 / psi, sensitivity=1.0)
    for eps in (0.0, 0.1, 1.0, 3.0):
        assert float(dg.delta(psi, eps)) == pytest.approx(loss.get_delta_for_epsilon(eps), rel=1e-9, abs=1e-15)


def test_delta_is_the_core_gaussian_profile():
    # the ψ-views and the core mechanism are one object (the Gaussian mechanism IS a dpcompare mechanism)
    eps = np.array([0.0, 0.3, 1.0, 5.0, 50.0])
    for psi in (0.01, 0.7, 3.0):
        g = dg.mechanism(psi)
        assert isinstance(g, dc.Gaussian) and g.psi == psi
        np.testing.assert_allclose(g.delta(eps), dg.delta(psi, eps), rtol=1e-15, atol=0)
        assert g.epsilon(1e-6) == dg.epsilon(psi, 1e-6)


def test_loss_tail_is_lemma_1_and_bounds_delta():
    # Lemma 1 (eq 4.4): P(ℓ ≥ ε) = Φ(ψ/2 − ε/ψ) with ℓ ~ N(ψ²/2, ψ²) (eq 4.3) — an upper bound on δ(ε)
    for psi in (0.2, 1.0, 4.0):
        for eps in (0.0, 1.0, 10.0):
            tail = float(dg.loss_tail(psi, eps))
            assert tail == pytest.approx(stats.norm.sf(eps, loc=psi**2 / 2, scale=psi), rel=1e-12)
            # δ is rounded outwards (≤ 1e-12 relative, and never below 5e-324 at a finite ε)
            assert float(dg.delta(psi, eps)) <= max(tail * (1 + 2e-12), 5e-324)


def test_delta_broadcasts_and_handles_infinity():
    out = dg.delta(np.array([[0.5], [1.0]]), np.array([0.0, 1.0, np.inf]))
    assert out.shape == (2, 3)
    assert np.all(out[:, 2] == 0.0)
    assert dg.log_delta(1.0, np.inf) == -np.inf
    assert isinstance(dg.delta(1.0, 1.0), float)


def test_delta_underflow_is_reported_in_log_space():
    assert dg.delta(1.0, 60.0) == 5e-324  # δ ≈ 1e-770: below the smallest double, rounded up (never a silent 0)
    ld = dg.log_delta(1.0, 60.0)
    assert math.isfinite(ld) and ld == pytest.approx(mp_log_delta(1.0, 60.0), rel=1e-13)


@given(psi=st.floats(1e-4, 100.0), e1=st.floats(0.0, 60.0), e2=st.floats(0.0, 60.0), grow=st.floats(1.0, 3.0))
def test_profile_laws(psi, e1, e2, grow):
    lo, hi = sorted((e1, e2))
    assert float(dg.log_delta(psi, hi)) <= float(dg.log_delta(psi, lo))  # decreasing in ε
    assert float(dg.log_delta(min(psi * grow, 100.0), lo)) >= float(dg.log_delta(psi, lo)) - 1e-12  # increasing in ψ
    assert float(dg.log_delta(psi, lo)) <= float(dg.log_loss_tail(psi, lo)) + 1e-12  # Lemma 1
    assert float(dg.log_delta(psi, lo)) <= 0.0


@pytest.mark.parametrize("psi", [1e-3, 0.1, 1.0, 10.0])
def test_log_delta_is_concave_in_eps(psi):
    # the property the certified Newton iteration of ε(δ) relies on (profile.py, step 3)
    eps = np.linspace(0.0, psi * (30 + psi / 2), 4001)
    ld = dg.log_delta(psi, eps)
    second = ld[2:] - 2 * ld[1:-1] + ld[:-2]
    assert np.all(second <= 1e-9 * np.maximum(1.0, np.abs(ld[1:-1])))


# ---------------------------------------------------------------------------------------------- ε(δ; ψ)
@pytest.fixture(scope="module")
def dp_accounting_pld_eps():
    """dp-accounting's Gaussian PLD (pessimistic, default discretisation 1e-4, connect-the-dots)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = {}
    for psi in (0.1, 0.5, 1.0, 2.0, 5.0):
        p = pld.from_gaussian_mechanism(1.0 / psi, sensitivity=1.0)
        for d in (1e-3, 1e-5, 1e-10):
            out[psi, d] = p.get_epsilon_for_delta(d)
    return out


@pytest.mark.parametrize("psi", [0.1, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_epsilon_matches_dp_accounting_gaussian_pld(psi, delta, dp_accounting_pld_eps):
    """Issue 3: ε(δ) from our profile equals dp-accounting's Gaussian PLD answer to 1e-6."""
    ours = dg.epsilon(psi, delta)
    assert ours == pytest.approx(dp_accounting_pld_eps[psi, delta], abs=1e-6)


@pytest.mark.parametrize("psi", [0.1, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_epsilon_matches_dp_accounting_and_autodp_analytic(psi, delta):
    dp_bank = pytest.importorskip("autodp.dp_bank")
    from dp_accounting import gaussian_mechanism

    ours = dg.epsilon(psi, delta)
    assert ours == pytest.approx(gaussian_mechanism.get_epsilon_gaussian(1.0 / psi, delta), abs=1e-9)
    assert ours == pytest.approx(dp_bank.get_eps_ana_gaussian(1.0 / psi, delta), abs=1e-9)


@pytest.mark.parametrize("psi,delta", [(1e-4, 1e-300), (1e-4, 1e-5), (0.01, 1e-300), (1.0, 1e-300), (100.0, 1e-300),
                                       (100.0, 0.5), (30.0, 1e-12), (2.0, 0.3)])
def test_epsilon_at_the_extremes_matches_mpmath(psi, delta):
    eps = dg.epsilon(psi, delta)
    assert eps > 0
    # the root of log δ(ε) = log δ, checked with the mpmath profile and its slope
    assert mp_log_delta(psi, eps) <= math.log(delta) + 1e-12 * abs(math.log(delta))
    with mp.workdps(60):
        p, e = mp.mpf(psi), mp.mpf(eps)
        d = mp.ncdf(p / 2 - e / p) - mp.exp(e) * mp.ncdf(-p / 2 - e / p)
        slope = -mp.exp(e) * mp.ncdf(-p / 2 - e / p) / d  # d log δ/dε
        newton = float((mp.log(d) - mp.log(delta)) / slope)  # distance to the exact root
    assert abs(newton) <= 1e-12 * max(1.0, eps)


@given(
    psi=st.floats(1e-4, 100.0),
    log10_delta=st.floats(-300.0, -0.31),
)
def test_epsilon_is_certified_and_tight(psi, log10_delta):
    delta = 10.0**log10_delta
    eps = dg.epsilon(psi, delta)
    assert math.isfinite(eps) and eps >= 0
    ld = float(dg.log_delta(psi, eps))
    assert ld <= math.log(delta)  # never understated
    if delta > 1e-300:
        assert float(dg.delta(psi, eps)) <= delta
    if eps > 0:  # tight: a slightly smaller ε no longer meets δ
        lower = eps * (1 - 1e-9) - 1e-300
        assert float(dg.log_delta(psi, max(lower, 0.0))) > math.log(delta)


@given(psi=st.floats(1e-4, 100.0), log10_delta=st.floats(-300.0, -0.31), eps=st.floats(0.0, 2000.0))
def test_scalar_and_vectorised_paths_agree(psi, log10_delta, eps):
    delta = 10.0**log10_delta
    vec_eps = float(dg.epsilon(np.array([psi]), np.array([delta]))[0])
    assert dg.epsilon(psi, delta) == pytest.approx(vec_eps, rel=1e-13, abs=1e-300)
    vec_ld = float(dg.log_delta(np.array([psi]), np.array([eps]))[0])
    assert dg.log_delta(psi, eps) == pytest.approx(vec_ld, rel=1e-13, abs=1e-13)


def test_epsilon_is_zero_when_delta_covers_the_advantage():
    # δ(0) = 2Φ(ψ/2) − 1: at or above it, ε = 0
    psi = 0.01
    adv = 2 * stats.norm.cdf(psi / 2) - 1
    assert dg.epsilon(psi, adv * 1.01) == 0.0
    assert dg.epsilon(psi, adv * 0.99) > 0.0


def test_epsilon_vectorised_equals_scalar_and_is_monotone():
    psi = np.array([0.05, 0.5, 5.0])
    delta = np.array([1e-2, 1e-6, 1e-12])
    vec = dg.epsilon(psi[:, None], delta[None, :])
    assert vec.shape == (3, 3)
    for i, p in enumerate(psi):
        for j, d in enumerate(delta):
            assert vec[i, j] == dg.epsilon(p, d)
    assert np.all(np.diff(vec, axis=0) > 0)  # increasing in ψ
    assert np.all(np.diff(vec, axis=1) > 0)  # decreasing in δ


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dg.delta(0.0, 1.0), "psi"),
        (lambda: dg.delta(-1.0, 1.0), "psi"),
        (lambda: dg.delta(np.inf, 1.0), "psi"),
        (lambda: dg.delta(np.nan, 1.0), "psi"),
        (lambda: dg.delta(1e200, 1.0), "psi"),
        (lambda: dg.delta(1.0, -0.1), "eps"),
        (lambda: dg.delta(1.0, np.nan), "eps"),
        (lambda: dg.delta("1", 1.0), "psi"),
        (lambda: dg.epsilon(1.0, 0.0), "delta"),
        (lambda: dg.epsilon(1.0, 1.0), "delta"),
        (lambda: dg.epsilon(1.0, 1.5), "delta"),
        (lambda: dg.epsilon(1.0, np.nan), "delta"),
        (lambda: dg.epsilon(np.array([1.0, -2.0]), 1e-5), "psi"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def test_unreachable_targets_say_so():
    with pytest.raises(ValueError, match="not \\(ε, 0\\)-DP for any finite ε"):
        dg.epsilon(1.0, 0.0)
    with pytest.raises(ValueError, match="every mechanism is \\(0, 1\\)-DP"):
        dg.epsilon(1.0, 1.0)
