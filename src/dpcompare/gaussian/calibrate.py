"""Calibration: the classical bound (seed 001 eq 3.5) and the inverse problems ψ(ε, δ), σ(ε, δ, Δ).

- Classical Gaussian mechanism (Dwork & Roth 2014, Thm A.1; seed 001 eq 3.5)::

      ε = ψ·√(2·log(1.25/δ))

  proven only for ε < 1. For ε ≥ 1 it can be *false*: ψ = 2, δ = 1e-5 gives ε = 9.69 while the
  exact profile there is δ(9.69; 2) ≈ 1.9e-5 > 1e-5, and ψ = 10 gives ε = 48.4 with δ ≈ 0.52. :func:`classical_epsilon` therefore returns the
  number together with ``valid`` (ε < 1) and never hides the flag.

- Analytic Gaussian mechanism (Balle & Wang 2018, Alg. 1; seed 001 Cor 14): the largest ψ with
  δ(ε; ψ) ≤ δ, ψ* = :func:`psi_for` (ε, δ), and the smallest noise σ* = Δ/ψ* (:func:`sigma_for`).
  δ(ε; ψ) increases strictly in ψ (∂δ/∂ψ = φ(ψ/2 − ε/ψ) > 0), from 0 at ψ → 0 to 1 at ψ → ∞, so
  ψ* exists and is unique for every ε ≥ 0 and δ ∈ (0, 1).

  Steps: (1) bracket: start at the Lemma 1 root ψ₀ = c + √(c² + 2ε), c = Φ⁻¹(δ), where
  Φ(ψ/2 − ε/ψ) = δ ≥ δ(ε; ψ₀) (so ψ* ≥ ψ₀); double until δ(ε; ψ) > δ; (2) Brent's method on
  log δ(ε; e^u) − log δ in u = log ψ to 1e-15 relative; (3) certify: step ψ down (σ up) by an ulp
  until δ(ε; ψ) ≤ δ holds in floating point — the calibrated noise is never too small.

Example: ``sigma_for(1.0, 1e-5)`` = 3.730632… (dp-accounting's ``get_sigma_gaussian(1, 1e-5)`` agrees).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special

from ._checks import check_delta, check_eps, check_psi, scalar_or_array
from ..mechanisms.gaussian_profile import log_delta as _log_delta

__all__ = ["ClassicalEpsilon", "classical_epsilon", "psi_for", "sigma_for"]


@dataclass(frozen=True)
class ClassicalEpsilon:
    """ε of the classical bound (seed 001 eq 3.5) and whether the bound is proven there (ε < 1)."""

    epsilon: float | np.ndarray
    valid: bool | np.ndarray

    def __iter__(self):  # allows ``eps, valid = classical_epsilon(...)``
        return iter((self.epsilon, self.valid))


def classical_epsilon(psi: Any, delta: Any) -> ClassicalEpsilon:
    """Classical bound ε = ψ·√(2·log(1.25/δ)) (seed 001 eq 3.5), flagged ``valid`` only where ε < 1.

    Outside ε < 1 the number is *not* a guarantee (module docstring); the exact ε is
    :func:`dpcompare.gaussian.epsilon`.

    >>> r = classical_epsilon(0.1, 1e-5)
    >>> round(r.epsilon, 6), r.valid
    (0.484481, True)
    >>> classical_epsilon(1.0, 1e-5).valid
    False
    """
    p = check_psi(psi)
    d = check_delta(delta)
    eps = p * np.sqrt(2.0 * (math.log(1.25) - np.log(d)))
    valid = eps < 1.0
    return ClassicalEpsilon(scalar_or_array(eps), bool(valid) if np.ndim(valid) == 0 else valid)


def _ok(psi: float, eps: float, delta: float, lt: float) -> bool:
    """δ(ε; ψ) ≤ δ, checked in log space and as the double the user sees."""
    ld = float(_log_delta(psi, eps))
    return ld <= lt and math.exp(ld) <= delta


def _psi_for_scalar(eps: float, delta: float) -> float:
    lt = math.log(delta)

    def g(u: float) -> float:
        return float(_log_delta(math.exp(u), eps)) - lt

    # step 1: bracket in u = log ψ
    c = float(special.ndtri(delta))
    psi0 = c + math.sqrt(c * c + 2.0 * eps)
    lo = math.log(psi0) if psi0 > 0 else math.log(max(delta, 1e-300))
    while g(lo) > 0:  # only when the Lemma 1 root underflowed (ε ≈ 0): walk down
        lo -= 1.0
    hi = lo + math.log(2.0)
    while g(hi) <= 0:
        lo, hi = hi, hi + math.log(2.0)
    # step 2: Brent in log ψ
    u = optimize.brentq(g, lo, hi, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=200)
    psi = math.exp(u)
    # step 3: certify δ(ε; ψ) ≤ δ
    for _ in range(100):
        if _ok(psi, eps, delta, lt):
            return psi
        psi = math.nextafter(psi, 0.0)
    return psi


def psi_for(epsilon: Any, delta: Any) -> float | np.ndarray:
    """The largest sensitivity index ψ whose Gaussian mechanism is (ε, δ)-DP (seed 001 Cor 14).

    Solves δ(ε; ψ) = δ in ψ (module docstring); certified: δ(ε; ψ*) ≤ δ. ε ≥ 0, δ ∈ (0, 1);
    arrays broadcast.

    >>> round(psi_for(1.0, 1e-5), 6)
    0.268051
    """
    e = check_eps(epsilon, "epsilon")
    d = check_delta(delta)
    if np.any(np.isinf(e)):
        raise ValueError("epsilon must be finite: every Gaussian mechanism is (∞, δ)-DP, so ψ is unbounded")
    e, d = np.broadcast_arrays(e, d)
    out = np.array([_psi_for_scalar(float(a), float(b)) for a, b in zip(e.ravel(), d.ravel())], dtype=float)
    return scalar_or_array(out.reshape(e.shape))


def sigma_for(epsilon: Any, delta: Any, sensitivity: Any = 1.0) -> float | np.ndarray:
    """Smallest noise σ for which the Gaussian mechanism is (ε, δ)-DP: σ* = Δ/ψ*(ε, δ).

    The analytic Gaussian mechanism of Balle & Wang (2018, Alg. 1), seed 001 Cor 14. Certified:
    δ(ε; Δ/σ*) ≤ δ in floating point (σ* is rounded up, never down).

    >>> round(sigma_for(1.0, 1e-5), 6)
    3.730632
    >>> round(sigma_for(1.0, 1e-5, sensitivity=2.0), 6)
    7.461263
    """
    sens = np.asarray(sensitivity, dtype=float) if not isinstance(sensitivity, (str, bool)) else None
    if sens is None or not np.all(np.isfinite(sens) & (sens > 0)):
        raise ValueError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    psi = np.asarray(psi_for(epsilon, delta), dtype=float)
    e = np.broadcast_to(check_eps(epsilon, "epsilon"), np.broadcast_shapes(psi.shape, sens.shape))
    d = np.broadcast_to(check_delta(delta), e.shape)
    sigma = np.broadcast_to(sens, e.shape) / np.broadcast_to(psi, e.shape)
    sigma = np.array(sigma, dtype=float)
    flat_s, flat_sens = sigma.ravel(), np.broadcast_to(sens, e.shape).ravel()
    for i, (ei, di) in enumerate(zip(e.ravel(), d.ravel())):
        lt = math.log(di)
        for _ in range(100):  # certify after the division Δ/ψ*
            if _ok(flat_sens[i] / flat_s[i], ei, di, lt):
                break
            flat_s[i] = math.nextafter(flat_s[i], math.inf)
    return scalar_or_array(flat_s.reshape(e.shape))
