"""Classical bound ([SI] eq 3.5) and the inverse problems ψ*(ε, δ), σ*(ε, δ, Δ) (Cor 14, Balle & Wang 2018).

References: the closed form of eq 3.5 typed out here; the exact profile in mpmath; dp-accounting's
``get_sigma_gaussian`` and autodp's ``ana_gaussian_mech`` (both the analytic Gaussian mechanism).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpcompare.gaussian as dg


def mp_delta(psi, eps):
    with mp.workdps(50):
        p, e = mp.mpf(psi), mp.mpf(eps)
        return mp.ncdf(p / 2 - e / p) - mp.exp(e) * mp.ncdf(-p / 2 - e / p)


# ---------------------------------------------------------------------------------------------- eq 3.5
def test_classical_formula_and_flag():
    r = dg.classical_epsilon(0.1, 1e-5)
    assert r.epsilon == pytest.approx(0.1 * math.sqrt(2 * math.log(1.25 / 1e-5)), rel=1e-15)
    assert r.valid is True
    eps, valid = dg.classical_epsilon(1.0, 1e-5)
    assert eps == pytest.approx(math.sqrt(2 * math.log(1.25e5)), rel=1e-14) and valid is False  # eq 3.5, σ = 1
    vec = dg.classical_epsilon(np.array([0.1, 1.0]), 1e-5)
    assert list(vec.valid) == [True, False]


@pytest.mark.parametrize("delta", [1e-2, 1e-5, 1e-10])
def test_classical_bound_holds_where_it_is_valid(delta):
    # Dwork & Roth Thm A.1: for ε < 1 the classical calibration is (ε, δ)-DP — check on the exact profile
    for psi in np.linspace(0.01, 1.0, 40):
        r = dg.classical_epsilon(psi, delta)
        if r.valid:
            assert mp_delta(psi, r.epsilon) <= delta


def test_classical_bound_fails_outside_its_range():
    # why the flag matters: at ψ = 2, δ = 1e-5 eq 3.5 gives ε = 9.69, but δ(9.69; 2) = 1.9e-5 > 1e-5
    r = dg.classical_epsilon(2.0, 1e-5)
    assert not r.valid
    assert mp_delta(2.0, r.epsilon) > 1e-5
    assert dg.epsilon(2.0, 1e-5) > r.epsilon
    r10 = dg.classical_epsilon(10.0, 1e-5)
    # eq 3.5 at ψ = 10: ε = 10·√(2 ln 1.25e5) = 48.45, where the exact δ (mpmath, mp_delta) is 0.522, not 1e-5
    assert r10.epsilon == pytest.approx(10 * math.sqrt(2 * math.log(1.25e5)), rel=1e-14)
    assert float(mp_delta(10.0, r10.epsilon)) == pytest.approx(0.522, abs=1e-3)


# ---------------------------------------------------------------------------------------------- inverse problems
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_sigma_matches_dp_accounting_and_autodp(eps, delta):
    pytest.importorskip("autodp.rdp_acct")  # also breaks autodp.privacy_calibrator's circular import
    from autodp.privacy_calibrator import ana_gaussian_mech
    from dp_accounting import gaussian_mechanism

    sigma = dg.sigma_for(eps, delta)
    assert sigma == pytest.approx(gaussian_mechanism.get_sigma_gaussian(eps, delta), rel=1e-9)
    theirs = ana_gaussian_mech(eps, delta)["sigma"]
    # autodp stops its bisection at |δ(σ) − δ| ≤ 1e-12 (absolute): close in σ where δ ≫ 1e-12 …
    if delta >= 1e-5:
        assert sigma == pytest.approx(theirs, rel=1e-8)
    # … and always within its own stopping rule on the exact profile
    assert abs(float(mp_delta(1.0 / theirs, eps)) - delta) <= 1.0001e-12


@given(
    log10_eps=st.floats(-3.0, 2.0),
    log10_delta=st.floats(-250.0, -0.5),
    sens=st.floats(1e-3, 1e3),
)
def test_sigma_calibration_round_trips(log10_eps, log10_delta, sens):
    """Issue 3: σ calibration round-trips to 1e-9 relative: ε(δ; Δ/σ*(ε, δ, Δ)) = ε."""
    eps, delta = 10.0**log10_eps, 10.0**log10_delta
    sigma = dg.sigma_for(eps, delta, sensitivity=sens)
    psi = sens / sigma
    back = dg.epsilon(psi, delta)
    assert back == pytest.approx(eps, rel=1e-9)
    assert float(dg.log_delta(psi, eps)) <= math.log(delta)  # certified: the noise is never too small
    assert dg.psi_for(eps, delta) == pytest.approx(psi, rel=1e-12)


def test_psi_for_is_the_largest_index():
    for eps, delta in [(0.0, 1e-5), (0.0, 0.3), (1.0, 1e-5), (20.0, 1e-300)]:
        psi = dg.psi_for(eps, delta)
        assert float(dg.log_delta(psi, eps)) <= math.log(delta)
        assert float(dg.log_delta(psi * (1 + 1e-9), eps)) > math.log(delta)
    # ε = 0: δ(0; ψ) = 2Φ(ψ/2) − 1 = δ in closed form
    with mp.workdps(40):
        want = float(2 * mp.sqrt(2) * mp.erfinv(mp.mpf(0.3)))  # 2Φ⁻¹((1 + δ)/2)
    assert dg.psi_for(0.0, 0.3) == pytest.approx(want, rel=1e-12)


def test_psi_for_and_sigma_for_broadcast():
    out = dg.psi_for(np.array([0.5, 1.0]), 1e-5)
    assert out.shape == (2,) and out[0] < out[1]
    s = dg.sigma_for(1.0, 1e-5, sensitivity=np.array([1.0, 2.0]))
    assert s[1] == pytest.approx(2 * s[0], rel=1e-14)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dg.psi_for(-1.0, 1e-5), "epsilon"),
        (lambda: dg.psi_for(np.inf, 1e-5), "epsilon"),
        (lambda: dg.psi_for(1.0, 0.0), "delta"),
        (lambda: dg.psi_for(1.0, 1.0), "delta"),
        (lambda: dg.sigma_for(1.0, 1e-5, sensitivity=0.0), "sensitivity"),
        (lambda: dg.sigma_for(1.0, 1e-5, sensitivity=-2.0), "sensitivity"),
        (lambda: dg.classical_epsilon(0.0, 1e-5), "psi"),
        (lambda: dg.classical_epsilon(1.0, 2.0), "delta"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()
