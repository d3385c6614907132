"""The exact privacy profile δ(ε; ψ) of the Gaussian mechanism and its inverse ε(δ; ψ).

[SI], eq 7.1 / Corollary 14 (Balle & Wang 2018, Thm 8), with ψ = Δ/σ the sensitivity index::

    δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ)                                    (eq 7.1)

and ε(δ; ψ) is its inverse (eq 6.7, "privacy-profile based conversion", solved by root finding).

The numerics (evaluation without cancellation, certified inverse) live in
:mod:`dpcompare.mechanisms.gaussian_profile`, shared with the core's ``dpcompare.Gaussian``; this
module is the validated ψ-view of them.

Example: ``delta(1.0, 1.0)`` = Φ(−½) − e·Φ(−3/2) = 0.1269367…;
``epsilon(1.0, 1e-5)`` = 4.377178… (dp-accounting's ``get_epsilon_gaussian(1, 1e-5)`` agrees).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numerics import log_ndtr
from ..mechanisms import gaussian_profile as _gp
from ._psi_checks import check_delta, check_eps, check_psi, scalar_or_array

__all__ = ["delta", "epsilon", "log_delta", "loss_tail", "log_loss_tail"]

#: log δ(ε; ψ) without validation (kept for the modules of this package that import it)
_log_delta = _gp.log_delta


def log_delta(psi: Any, eps: Any) -> float | np.ndarray:
    """log δ(ε; ψ) of the Gaussian mechanism, stable to δ far below 1e-300 ([SI] eq 7.1, Cor 14).

    δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ), evaluated without cancellation
    (:mod:`dpcompare.mechanisms.gaussian_profile`). ψ > 0 finite, ε ∈ [0, ∞]; arrays broadcast.

    >>> round(log_delta(1.0, 40.0), 6)   # δ ≈ 3.9e-343: below the smallest double
    -788.423413
    """
    p = check_psi(psi)
    e = check_eps(eps)
    if p.ndim == 0 and e.ndim == 0:
        return _gp.log_delta_scalar(float(p), float(e))[0]
    return scalar_or_array(_gp.log_delta(p, e))


def delta(psi: Any, eps: Any) -> float | np.ndarray:
    """Privacy profile δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ) ([SI] eq 7.1 / Cor 14).

    The Gaussian mechanism with sensitivity index ψ is (ε, δ(ε; ψ))-DP for every ε ≥ 0, and no
    smaller δ holds (the profile is exact). Rounded outwards by a proved bound of the evaluation error
    (never below the real δ; :func:`dpcompare.mechanisms.gaussian_profile.delta_bounds`): where δ < 5e-324
    the answer is 5e-324; use :func:`log_delta` there.

    >>> round(delta(1.0, 1.0), 6)
    0.126937
    """
    p, e = check_psi(psi), check_eps(eps)
    return scalar_or_array(_gp.delta_bounds(p, e)[1])


def log_loss_tail(psi: Any, eps: Any) -> float | np.ndarray:
    """log P(ℓ ≥ ε) = log Φ(ψ/2 − ε/ψ), ℓ ~ N(ψ²/2, ψ²) the privacy loss ([SI] eq 4.3, Lemma 1).

    >>> round(log_loss_tail(1.0, 40.0), 4)   # log Φ(−39.5)
    -784.7209
    """
    p = check_psi(psi)
    e = check_eps(eps)
    return scalar_or_array(log_ndtr(0.5 * p - e / p))


def loss_tail(psi: Any, eps: Any) -> float | np.ndarray:
    """Lemma 1 ([SI] eq 4.4): P(ℓ ≥ ε) = Φ(ψ/2 − ε/ψ), an upper bound on δ(ε; ψ).

    It is the first term of eq 7.1 alone; the exact profile subtracts e^ε·Φ(−ψ/2 − ε/ψ).
    Geometrically (Lemma 4) it is the TPR of the point where the ROC curve has slope e^ε.

    >>> round(loss_tail(1.0, 1.0), 6)   # Φ(−½)
    0.308538
    """
    return scalar_or_array(np.exp(np.asarray(log_loss_tail(psi, eps))))


def epsilon(psi: Any, delta: Any) -> float | np.ndarray:
    """ε(δ; ψ): the smallest ε ≥ 0 with δ(ε; ψ) ≤ δ ([SI] eq 6.7, the privacy-profile conversion).

    Lossless: the Gaussian mechanism is (ε(δ), δ)-DP and not (ε′, δ)-DP for any ε′ < ε(δ).
    Monotone Newton in log space certified by the one solver
    (:func:`dpcompare.mechanisms.gaussian_profile.epsilon`); the returned ε always satisfies
    δ(ε; ψ) ≤ δ in floating point, i.e. it is never understated. ψ > 0 finite, δ ∈ (0, 1)
    (δ ≤ 0 and δ ≥ 1 raise, saying why they are no target); arrays broadcast.

    >>> round(epsilon(1.0, 1e-5), 6)
    4.377178
    >>> epsilon(0.01, 0.5)   # δ(0) = 2Φ(0.005) − 1 ≈ 0.004 ≤ 0.5
    0.0
    """
    p = check_psi(psi)
    d = check_delta(delta)
    if p.ndim == 0 and d.ndim == 0:
        return _gp.epsilon(float(p), float(d))
    return scalar_or_array(_gp.epsilon_array(p, d))
