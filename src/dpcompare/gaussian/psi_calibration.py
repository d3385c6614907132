"""Calibration: the classical bound ([SI] eq 3.5) and the inverse problems ψ(ε, δ), σ(ε, δ, Δ).

- Classical Gaussian mechanism (Dwork & Roth 2014, Thm A.1; [SI] eq 3.5)::

      ε = ψ·√(2·log(1.25/δ))

  proven only for ε < 1. For ε ≥ 1 it can be *false*: ψ = 2, δ = 1e-5 gives ε = 9.69 while the
  exact profile there is δ(9.69; 2) ≈ 1.9e-5 > 1e-5, and ψ = 10 gives ε = 48.4 with δ ≈ 0.52. :func:`classical_epsilon` therefore returns the
  number together with ``valid`` (ε < 1) and never hides the flag.

- Analytic Gaussian mechanism (Balle & Wang 2018, Alg. 1; [SI] Cor 14): the largest ψ with
  δ(ε; ψ) ≤ δ, ψ* = :func:`psi_for` (ε, δ), and the smallest noise σ* = Δ/ψ* (:func:`sigma_for`).
  δ(ε; ψ) increases strictly in ψ (∂δ/∂ψ = φ(ψ/2 − ε/ψ) > 0), from 0 at ψ → 0 to 1 at ψ → ∞, so
  ψ* exists and is unique for every ε ≥ 0 and δ ∈ (0, 1).

  Steps: (1) start at the Lemma 1 root ψ₀ = c + √(c² + 2ε), c = Φ⁻¹(δ), where
  Φ(ψ/2 − ε/ψ) = δ ≥ δ(ε; ψ₀) (so ψ* ≥ ψ₀); (2) the one certified solver
  (:func:`dpcompare._search.solve`, log scale, feasible below ψ*) from there to 1e-15 relative: the
  returned ψ is a point where δ(ε; ψ) ≤ δ was evaluated, in log space and as a double; (3) σ* is
  solved the same way in σ (feasible above σ*), started at Δ/ψ*, so the division Δ/ψ* cannot round
  the noise down — the calibrated noise is never too small.

Example: ``sigma_for(1.0, 1e-5)`` = 3.730632… (dp-accounting's ``get_sigma_gaussian(1, 1e-5)`` agrees).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._search import Scale, Side, solve
from ._psi_checks import PSI_MAX, check_delta, check_eps, check_psi, scalar_or_array
from ..mechanisms.gaussian_profile import log_delta as _log_delta

__all__ = ["ClassicalEpsilon", "classical_epsilon", "psi_for", "sigma_for"]


@dataclass(frozen=True)
class ClassicalEpsilon:
    """ε of the classical bound ([SI] eq 3.5) and whether the bound is proven there (ε < 1)."""

    epsilon: float | np.ndarray
    valid: bool | np.ndarray

    def __iter__(self):  # allows ``eps, valid = classical_epsilon(...)``
        return iter((self.epsilon, self.valid))


def classical_epsilon(psi: Any, delta: Any) -> ClassicalEpsilon:
    """Classical bound ε = ψ·√(2·log(1.25/δ)) ([SI] eq 3.5), flagged ``valid`` only where ε < 1.

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


def _g(psi: float, eps: float, delta: float, lt: float) -> float:
    """The solver's predicate: ≤ 0 exactly where δ(ε; ψ) ≤ δ holds both in log space and as the double
    the user sees (log δ − log δ_target otherwise)."""
    ld = float(_log_delta(psi, eps))
    if ld <= lt and math.exp(ld) > delta:
        return 1e-300
    return ld - lt


#: smallest ψ searched (δ(ε; ψ) ≤ δ holds there for every target δ > 1e-290)
_PSI_MIN = 1e-300


def _psi_for_scalar(eps: float, delta: float) -> float:
    lt = math.log(delta)
    c = float(special.ndtri(delta))  # step 1
    psi0 = c + math.sqrt(c * c + 2.0 * eps)
    start = psi0 if _PSI_MIN < psi0 < PSI_MAX else None
    res = solve(lambda p: _g(p, eps, delta, lt), _PSI_MIN, PSI_MAX, side=Side.BELOW, scale=Scale.LOG,  # step 2
                start=start, rtol=1e-15)
    return float(res.feasible)


def psi_for(epsilon: Any, delta: Any) -> float | np.ndarray:
    """The largest sensitivity index ψ whose Gaussian mechanism is (ε, δ)-DP ([SI] Cor 14).

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

    The analytic Gaussian mechanism of Balle & Wang (2018, Alg. 1), [SI] Cor 14. Certified:
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
    sigma = np.array(np.broadcast_to(sens, e.shape) / np.broadcast_to(psi, e.shape), dtype=float)
    flat_s, flat_sens = sigma.ravel(), np.broadcast_to(sens, e.shape).ravel()
    for i, (ei, di) in enumerate(zip(e.ravel(), d.ravel())):  # step 3: solve in σ, started at Δ/ψ*
        lt, s0, dd = math.log(di), float(flat_s[i]), float(flat_sens[i])
        res = solve(lambda s_: _g(dd / s_, float(ei), float(di), lt), max(dd / PSI_MAX, 5e-324), min(dd / _PSI_MIN, 1.7976931348623157e308),
                    side=Side.ABOVE, scale=Scale.LOG, start=s0, step=1e-15, rtol=1e-15)
        flat_s[i] = res.feasible
    return scalar_or_array(flat_s.reshape(e.shape))
