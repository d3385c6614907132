"""The exact privacy profile δ(ε; ψ) of the Gaussian mechanism and its inverse ε(δ; ψ).

Seed 001, eq 7.1 / Corollary 14 (Balle & Wang 2018, Thm 8), with ψ = Δ/σ the sensitivity index::

    δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ)                                    (eq 7.1)

and ε(δ; ψ) is its inverse (eq 6.7, "privacy-profile based conversion", solved by root finding).

Why a new evaluation: the two Φ terms agree to many digits when ψ is small (ψ = 1e-4: the
difference is 1e-4 of either term) or in the far tail (ε/ψ ≫ ψ), so subtracting them loses up to
all digits. This module never subtracts them when they are close.

Spec of :func:`log_delta` (numbered steps in ``_log_delta``)
-----------------------------------------------------------------
Write z₀ = ε/ψ − ψ/2, z₁ = z₀ + ψ = ε/ψ + ψ/2, φ the standard normal density and
M(t) = Φ(−t)/φ(t) the Mills ratio. Because e^ε·φ(z₁) = φ(z₀) and M′(t) = t·M(t) − 1,

    δ(ε; ψ) = φ(z₀)·(M(z₀) − M(z₁)) = φ(z₀)·∫_{z₀}^{z₁} (1 − t·M(t)) dt,

an integral of a *positive* function: no cancellation.

1. la = log Φ(−z₀) and lb = ε + log Φ(−z₁) (``log_ndtr``, accurate in both tails).
2. Where lb − la ≤ log ½ the two terms differ by at least a factor of 2 and
   log δ = la + log(1 − e^{lb − la}) loses at most one bit.
3. Elsewhere M(z₁) > M(z₀)/2: M changes by less than a factor 2 over [z₀, z₁], so the integrand is
   smooth on the scale of the interval and 16-point Gauss–Legendre is exact to rounding. The
   integrand 1 − t·M(t) is evaluated directly for t < 5 (error ≤ t²·u ≈ 6e-15) and, for t ≥ 5,
   as R(t)·M(t) with R(t) = 1/(t + 2/(t + 3/(t + …))) from Laplace's continued fraction
   M(t) = 1/(t + R(t)) (28 terms for t ≥ 5, fewer further out: full double precision).
4. log δ = log φ(z₀) + log ∫: δ far below 1e-300 is a finite logarithm (tested to 1e-12 relative
   against mpmath at 60 digits for ψ ∈ [1e-4, 100] and δ down to 1e-300 and beyond).

Example: ``delta(1.0, 1.0)`` = Φ(−½) − e·Φ(−3/2) = 0.1269367…

Spec of :func:`epsilon` (vectorised, certified)
-----------------------------------------------
1. ε = 0 where δ(0) = 2Φ(ψ/2) − 1 ≤ δ.
2. Start at ε₀ = ψ²/2 − ψ·Φ⁻¹(δ), where Lemma 1's tail bound (eq 4.4) Φ(ψ/2 − ε/ψ) ≥ δ(ε) equals δ,
   so δ(ε₀) ≤ δ: ε₀ lies at or to the right of the root.
3. log δ(ε) is concave (δ(ε) = e^ε ∫_ε^∞ e^{−s}·Q(L > s) ds with a log-concave integrand, Prékopa),
   so Newton's method on g(ε) = log δ(ε) − log δ, with g′(ε) = −e^ε·Φ(−z₁)/δ(ε), started right of
   the root moves left monotonically and never crosses it: every iterate has δ(ε) ≤ δ.
4. Stop when a step is below 2 ulp; certify: where rounding left g(ε) > 0, step ε up until g ≤ 0.

Example: ``epsilon(1.0, 1e-5)`` = 4.377178… (dp-accounting's ``get_epsilon_gaussian(1, 1e-5)`` agrees).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._numerics import log_ndtr, logsubexp
from ._checks import check_delta, check_eps, check_psi, scalar_or_array

__all__ = ["delta", "epsilon", "log_delta", "loss_tail", "log_loss_tail"]

_LOG_HALF = math.log(0.5)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
#: below this t, 1 − t·M(t) is evaluated directly; above, by the continued fraction
_CF_FROM = 5.0
_CF_TERMS = 28


def _mills(t: np.ndarray) -> np.ndarray:
    """M(t) = Φ(−t)/φ(t) = √(π/2)·erfcx(t/√2) (finite for t ≥ −37)."""
    return _SQRT_HALF_PI * special.erfcx(t * _INV_SQRT2)


def _cf_terms(t_min: float) -> int:
    """Terms of the continued fraction for full double precision at every t ≥ t_min ≥ 5 (measured
    against mpmath: relative error ≤ 2.2e-16 at the start of each tier)."""
    if t_min >= 20.0:
        return 8
    if t_min >= 12.0:
        return 12
    if t_min >= 8.0:
        return 16
    return _CF_TERMS


def _one_minus_t_mills(t: np.ndarray) -> np.ndarray:
    """1 − t·M(t) = −M′(t) > 0, to full relative precision for every t ≥ −37."""
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    small = t < _CF_FROM
    if np.any(small):
        ts = t[small]
        out[small] = 1.0 - ts * _mills(ts)
    if not np.all(small):
        tl = t[~small]
        s = tl.copy()
        for k in range(_cf_terms(float(tl.min())) - 1, 0, -1):  # s_k = t + (k+1)/s_{k+1}, s_K = t
            s = tl + (k + 1) / s
        # R = 1/s, M = 1/(t + R), 1 − tM = R·M
        r = 1.0 / s
        out[~small] = r / (tl + r)
    return out


def _log_delta_parts(psi: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log δ(ε; ψ), lb) with lb = ε + log Φ(−ε/ψ − ψ/2) = log(−dδ/dε), for any real ε (broadcast).

    No validation: ψ > 0 finite and ε ∈ [−∞, ∞] are the caller's business.
    """
    psi, eps = np.broadcast_arrays(np.asarray(psi, dtype=float), np.asarray(eps, dtype=float))
    shape = psi.shape
    psi = psi.ravel()
    eps = eps.ravel()
    out = np.empty_like(eps)
    lb = np.empty_like(eps)
    pos_inf = np.isposinf(eps)
    neg_inf = np.isneginf(eps)
    out[pos_inf], lb[pos_inf] = -np.inf, -np.inf
    out[neg_inf], lb[neg_inf] = 0.0, -np.inf
    fin = ~(pos_inf | neg_inf)
    if np.any(fin):
        p, e = psi[fin], eps[fin]
        z0 = e / p - 0.5 * p
        z1 = e / p + 0.5 * p
        # step 1: the two terms of eq 7.1 in log space
        la = log_ndtr(-z0)
        lbf = e + log_ndtr(-z1)
        ld = np.empty_like(e)
        # step 2: far apart — subtract in log space (la = −∞: δ underflows even in log space)
        with np.errstate(invalid="ignore"):
            far = (lbf - la <= _LOG_HALF) | (z0 < -30.0) | np.isneginf(la)
        if np.any(far):
            ld[far] = logsubexp(la[far], np.minimum(lbf[far], la[far]))
        # step 3: close — φ(z₀)·∫_{z₀}^{z₁} (1 − tM(t)) dt by Gauss–Legendre
        near = ~far
        if np.any(near):
            a = z0[near]
            half = 0.5 * p[near]  # z₁ − z₀ = ψ exactly: never form it as a difference
            mid = e[near] / p[near]  # (z₀ + z₁)/2 = ε/ψ
            t = mid[:, None] + half[:, None] * _GL_X[None, :]
            integral = half * (_one_minus_t_mills(t) @ _GL_W)
            # step 4
            ld[near] = -0.5 * a * a - _HALF_LOG_2PI + np.log(integral)
        out[fin] = ld
        lb[fin] = lbf
    return out.reshape(shape), lb.reshape(shape)


def _log_delta_scalar(psi: float, eps: float) -> tuple[float, float]:
    """Scalar twin of :func:`_log_delta_parts` (same steps, Python floats: ~20× less overhead per call).

    The tests check that both agree to rounding on random inputs.
    """
    if eps == math.inf:
        return -math.inf, -math.inf
    if eps == -math.inf:
        return 0.0, -math.inf
    z0 = eps / psi - 0.5 * psi
    la = float(log_ndtr(-z0))
    lb = eps + float(log_ndtr(-(eps / psi + 0.5 * psi)))
    if la == -math.inf:
        return -math.inf, lb
    if lb - la <= _LOG_HALF or z0 < -30.0:  # step 2
        d = min(lb - la, 0.0)
        return la + (math.log(-math.expm1(d)) if d > -0.6931471805599453 else math.log1p(-math.exp(d))), lb
    t = eps / psi + 0.5 * psi * _GL_X  # step 3
    integral = 0.5 * psi * float(_one_minus_t_mills(t) @ _GL_W)
    return -0.5 * z0 * z0 - _HALF_LOG_2PI + math.log(integral), lb  # step 4


def _epsilon_scalar(psi: float, log_target: float, target: float, max_iter: int = 100) -> float:
    """Scalar twin of :func:`_epsilon_certified` (same steps and stopping rule)."""
    if _log_delta_scalar(psi, 0.0)[0] <= log_target:  # step 1
        return 0.0
    e = max(0.5 * psi * psi - psi * float(special.ndtri_exp(log_target)), 0.0)  # step 2
    for _ in range(max_iter):  # step 3
        ld, lb = _log_delta_scalar(psi, e)
        try:
            step = (ld - log_target) * math.exp(ld - lb)
        except OverflowError:
            step = -math.inf
        if not math.isfinite(step):
            step = -0.5 * e
        new = max(e + min(step, 0.0), 0.5 * e)
        converged = abs(new - e) <= 2.0 * math.ulp(max(e, 1e-300))
        e = new
        if converged:
            break
    for _ in range(200):  # step 4
        ld = _log_delta_scalar(psi, e)[0]
        if ld <= log_target and math.exp(ld) <= target:
            break
        e += max(4.0 * math.ulp(e), 1e-300)
    return e


def _log_delta(psi: Any, eps: Any) -> np.ndarray:
    """log δ(ε; ψ) without validation (any real ε, ±∞ included); used by ``Gaussian.log_delta``."""
    return _log_delta_parts(psi, eps)[0]


def log_delta(psi: Any, eps: Any) -> float | np.ndarray:
    """log δ(ε; ψ) of the Gaussian mechanism, stable to δ far below 1e-300 (seed 001 eq 7.1, Cor 14).

    δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ), evaluated without cancellation (module docstring).
    ψ > 0 finite, ε ∈ [0, ∞]; arrays broadcast.

    >>> round(log_delta(1.0, 40.0), 6)   # δ ≈ 3.9e-343: below the smallest double
    -788.423413
    """
    p = check_psi(psi)
    e = check_eps(eps)
    if p.ndim == 0 and e.ndim == 0:
        return _log_delta_scalar(float(p), float(e))[0]
    return scalar_or_array(_log_delta(p, e))


def delta(psi: Any, eps: Any) -> float | np.ndarray:
    """Privacy profile δ(ε; ψ) = Φ(ψ/2 − ε/ψ) − e^ε·Φ(−ψ/2 − ε/ψ) (seed 001 eq 7.1 / Cor 14).

    The Gaussian mechanism with sensitivity index ψ is (ε, δ(ε; ψ))-DP for every ε ≥ 0, and no
    smaller δ holds (the profile is exact). Underflows to 0 only where δ < 5e-324; use
    :func:`log_delta` there.

    >>> round(delta(1.0, 1.0), 6)
    0.126937
    """
    return scalar_or_array(np.exp(np.asarray(log_delta(psi, eps))))


def log_loss_tail(psi: Any, eps: Any) -> float | np.ndarray:
    """log P(ℓ ≥ ε) = log Φ(ψ/2 − ε/ψ), ℓ ~ N(ψ²/2, ψ²) the privacy loss (seed 001 eq 4.3, Lemma 1).

    >>> round(log_loss_tail(1.0, 40.0), 4)   # log Φ(−39.5)
    -784.7209
    """
    p = check_psi(psi)
    e = check_eps(eps)
    return scalar_or_array(log_ndtr(0.5 * p - e / p))


def loss_tail(psi: Any, eps: Any) -> float | np.ndarray:
    """Lemma 1 (seed 001 eq 4.4): P(ℓ ≥ ε) = Φ(ψ/2 − ε/ψ), an upper bound on δ(ε; ψ).

    It is the first term of eq 7.1 alone; the exact profile subtracts e^ε·Φ(−ψ/2 − ε/ψ).
    Geometrically (Lemma 4) it is the TPR of the point where the ROC curve has slope e^ε.

    >>> round(loss_tail(1.0, 1.0), 6)   # Φ(−½)
    0.308538
    """
    return scalar_or_array(np.exp(np.asarray(log_loss_tail(psi, eps))))


def _epsilon(psi: np.ndarray, log_target: np.ndarray, max_iter: int = 100) -> np.ndarray:
    """Certified ε(δ; ψ) for validated, broadcast arrays (steps in the module docstring).

    Certified in both representations: log δ(ε) ≤ log δ and, where δ is a normal double,
    exp(log δ(ε)) ≤ exp(log δ) — so ``delta(psi, epsilon(psi, d)) <= d`` holds for the caller's d
    when d = exp(log_target) round-trips (use :func:`epsilon`, which passes d itself).
    """
    return _epsilon_certified(psi, log_target, None, max_iter)


def _epsilon_certified(psi: Any, log_target: Any, target: Any, max_iter: int = 100) -> np.ndarray:
    psi, log_target = np.broadcast_arrays(np.asarray(psi, dtype=float), np.asarray(log_target, dtype=float))
    shape = psi.shape
    psi = psi.ravel().copy()
    lt = log_target.ravel().copy()
    dt = np.exp(lt) if target is None else np.broadcast_to(np.asarray(target, dtype=float), shape).ravel().copy()
    out = np.zeros_like(psi)
    # step 1: ε = 0 where δ(0) ≤ δ
    ld0 = _log_delta(psi, np.zeros_like(psi))
    act = np.flatnonzero(ld0 > lt)
    if act.size == 0:
        return out.reshape(shape)
    # step 2: Lemma 1 start, right of the root
    p = psi[act]
    e = 0.5 * p * p - p * special.ndtri_exp(lt[act])
    e = np.maximum(e, 0.0)
    idx = act
    # step 3: monotone Newton from the right
    for _ in range(max_iter):
        ld, lb = _log_delta_parts(psi[idx], e)
        g = ld - lt[idx]
        with np.errstate(over="ignore"):
            step = g * np.exp(ld - lb)  # −g/g′ with g′ = −e^{lb − ld}
        step = np.where(np.isfinite(step), step, -0.5 * e)
        new = np.maximum(e + np.minimum(step, 0.0), 0.5 * e)  # never more than halve ε in one step
        done = np.abs(new - e) <= 2.0 * np.spacing(np.maximum(e, 1e-300))
        out[idx[done]] = new[done]
        keep = ~done
        idx, e = idx[keep], new[keep]
        if idx.size == 0:
            break
    out[idx] = e  # not converged in max_iter (not observed): still right of the root
    # step 4: certify δ(ε) ≤ δ against rounding
    for _ in range(200):
        ld = _log_delta(psi[act], out[act])
        bad = act[(ld > lt[act]) | (np.exp(ld) > dt[act])]
        if bad.size == 0:
            break
        out[bad] = out[bad] + np.maximum(4.0 * np.spacing(out[bad]), 1e-300)
    return out.reshape(shape)


def epsilon(psi: Any, delta: Any) -> float | np.ndarray:
    """ε(δ; ψ): the smallest ε ≥ 0 with δ(ε; ψ) ≤ δ (seed 001 eq 6.7, the privacy-profile conversion).

    Lossless: the Gaussian mechanism is (ε(δ), δ)-DP and not (ε′, δ)-DP for any ε′ < ε(δ).
    Vectorised monotone Newton in log space (module docstring); the returned ε always satisfies
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
        return _epsilon_scalar(float(p), math.log(float(d)), float(d))
    return scalar_or_array(_epsilon_certified(p, np.log(d), d))
