"""The Gaussian privacy-loss numerics: δ(ε; μ) without cancellation and its certified inverse ε(δ; μ).

Home of the one Gaussian profile evaluation (``dpcompare.Gaussian`` and the ψ-views of
``dpcompare.gaussian`` both use it; the views import it from here, never the reverse).
[SI], eq 7.1 / Corollary 14 (Balle & Wang 2018, Thm 8), μ = Δ/σ (= ψ, the sensitivity index)::

    δ(ε; μ) = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ)                                    (eq 7.1)

Spec of :func:`log_delta_parts` (numbered steps in the code)
-------------------------------------------------------------
Write z₀ = ε/μ − μ/2, z₁ = z₀ + μ = ε/μ + μ/2, φ the standard normal density and
M(t) = Φ(−t)/φ(t) the Mills ratio. Because e^ε·φ(z₁) = φ(z₀) (ε − z₁²/2 = −z₀²/2 exactly),

    e^ε·Φ(−z₁) = φ(z₀)·M(z₁),   δ(ε; μ) = φ(z₀)·(M(z₀) − M(z₁)) = φ(z₀)·∫_{z₀}^{z₁} (1 − t·M(t)) dt,

an integral of a *positive* function: no cancellation.

1. la = log Φ(−z₀) (``log_ndtr``) and lb = log(e^ε·Φ(−z₁)), formed from whichever pair of terms is
   smaller: −z₀²/2 − log√(2π) + log M(z₁) where z₀²/2 < |ε| — there ε + log Φ(−z₁) would cancel two
   huge terms (μ = 1e10: both ≈ 5e19, so the sum lost every digit and ε(1e-5) came out as 4e-11
   instead of 5e19) — and ε + log Φ(−z₁) elsewhere (e.g. ε < 0, where z₀²/2 is the large one and
   M(z₁) may overflow).
2. Where lb − la ≤ log ½ the two terms differ by at least a factor of 2 and
   log δ = la + log(1 − e^{lb − la}) loses at most one bit.
3. Elsewhere M(z₁) > M(z₀)/2: M changes by less than a factor 2 over [z₀, z₁], so the integrand is
   smooth on the scale of the interval and 16-point Gauss–Legendre is exact to rounding. The
   integrand 1 − t·M(t) is evaluated directly for t < 5 (error ≤ t²·u ≈ 6e-15) and, for t ≥ 5,
   as R(t)·M(t) with R(t) = 1/(t + 2/(t + 3/(t + …))) from Laplace's continued fraction
   M(t) = 1/(t + R(t)) (28 terms for t ≥ 5, fewer further out: full double precision).
4. log δ = log φ(z₀) + log ∫: δ far below 1e-300 is a finite logarithm (tested to 1e-12 relative
   against mpmath at 60 digits for μ ∈ [1e-4, 100] and δ down to 1e-300 and beyond).

Spec of :func:`epsilon` (certified)
-----------------------------------
1. ε = 0 where δ(0) = 2Φ(μ/2) − 1 ≤ δ.
2. Estimate (Newton to steps of 2 ulp): start at ε₀ = μ²/2 − μ·Φ⁻¹(δ), where Lemma 1's tail bound (eq 4.4) Φ(μ/2 − ε/μ) ≥ δ(ε)
   equals δ, so ε₀ lies right of the root; log δ(ε) is concave (δ(ε) = e^ε ∫_ε^∞ e^{−s}·Q(L > s) ds
   with a log-concave integrand, Prékopa), so Newton on g(ε) = log δ(ε) − log δ, with
   g′(ε) = −e^{lb − log δ(ε)}, moves left monotonically towards the root.
3. Certify with :func:`dpcompare._search.solve`: first on the estimate's own bracket
   [ε̂(1 − 4·10⁻¹⁵), ε̂(1 + 4·10⁻¹⁵)] (two evaluations when the estimate is right, the usual case),
   else on [0, largest double] started at the estimate (relative width 1e-13). Either way it returns
   a point where δ(ε) ≤ δ was evaluated (as log δ and as the double ``exp(log δ)``), with an
   infeasible point just below it. ε = ∞ only where no double ε reaches δ
   (μ ≳ 1e154, where ε ≈ μ²/2 exceeds the largest double).

>>> round(float(log_delta(1.0, 40.0)), 6)   # δ ≈ 3.9e-343: below the smallest double
-788.423413
>>> round(epsilon(1.0, 1e-5), 6)             # dp-accounting's get_epsilon_gaussian(1, 1e-5) agrees
4.377178
>>> f"{epsilon(1e10, 1e-5):.6e}"            # ε ≈ μ²/2 + 4.26·μ
'5.000000e+19'
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from scipy import special

from .._numerics import log_ndtr, logsubexp
from .._search import Scale, Side, solve, solve_each

__all__ = ["epsilon", "epsilon_array", "log_delta", "log_delta_parts", "log_delta_scalar"]

_LOG_HALF = math.log(0.5)
_LOG_2 = math.log(2.0)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
#: below this t, 1 − t·M(t) is evaluated directly; above, by the continued fraction
_CF_FROM = 5.0
_CF_TERMS = 28
#: below this z₁ the Mills ratio M(z₁) overflows; lb is then formed as ε + log Φ(−z₁)
_MILLS_FROM = -30.0
_DBL_MAX = sys.float_info.max
#: relative width of the certified ε bracket of the full search
_RTOL = 1e-13
#: half-width of the fast path's bracket around the Newton estimate (converged to ~2 ulp; a
#: ±4e-15 bracket held on 1999 of 2000 random (μ, δ), μ ∈ [1e-4, 100], δ ∈ [1e-300, 0.5])
_FAST = 4e-15


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


def _continued_fraction(t: np.ndarray, terms: int) -> np.ndarray:
    """1 − t·M(t) = R·M with R(t) = 1/(t + 2/(t + 3/(t + …))), M = 1/(t + R), for t ≥ 5."""
    s = t.copy()
    for k in range(terms - 1, 0, -1):  # s_k = t + (k+1)/s_{k+1}, s_K = t
        s = t + (k + 1) / s
    r = 1.0 / s
    return r / (t + r)


def _one_minus_t_mills(t: np.ndarray) -> np.ndarray:
    """1 − t·M(t) = −M′(t) > 0, to full relative precision for every t ≥ −37."""
    t = np.asarray(t, dtype=float)
    t_min = float(t.min())
    if t_min >= _CF_FROM:
        return _continued_fraction(t, _cf_terms(t_min))
    if float(t.max()) < _CF_FROM:
        return 1.0 - t * _mills(t)
    small = t < _CF_FROM
    return np.where(small, 1.0 - t * _mills(t), _continued_fraction(np.maximum(t, _CF_FROM), _CF_TERMS))


def log_delta_parts(mu: Any, eps: Any) -> tuple[np.ndarray, np.ndarray]:
    """(log δ(ε; μ), lb) with lb = log(e^ε·Φ(−ε/μ − μ/2)) = log(−dδ/dε), for any real ε (broadcast).

    No validation: μ > 0 finite and ε ∈ [−∞, ∞] are the caller's business.
    """
    mu, eps = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(eps, dtype=float))
    shape = mu.shape
    mu = mu.ravel()
    eps = eps.ravel()
    out = np.empty_like(eps)
    lb = np.empty_like(eps)
    pos_inf = np.isposinf(eps)
    neg_inf = np.isneginf(eps)
    out[pos_inf], lb[pos_inf] = -np.inf, -np.inf
    out[neg_inf], lb[neg_inf] = 0.0, -np.inf
    fin = ~(pos_inf | neg_inf)
    if np.any(fin):
        p, e = mu[fin], eps[fin]
        with np.errstate(over="ignore"):  # ε/μ = ∞ for a subnormal μ: δ(ε > 0) = 0 then, exactly as computed
            ratio = e / p
        z0 = ratio - 0.5 * p
        z1 = ratio + 0.5 * p
        # step 1: the two terms of eq 7.1 in log space
        la = log_ndtr(-z0)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            log_phi0 = -0.5 * z0 * z0 - _HALF_LOG_2PI
            use_mills = (z1 >= _MILLS_FROM) & (0.5 * z0 * z0 < np.abs(e))
            lbf = np.where(use_mills, log_phi0 + np.log(_mills(np.maximum(z1, _MILLS_FROM))),
                           e + log_ndtr(-z1))
        ld = np.empty_like(e)
        # step 2: far apart — subtract in log space (la = −∞: δ underflows even in log space)
        with np.errstate(invalid="ignore"):
            far = (lbf - la <= _LOG_HALF) | (z0 < -30.0) | np.isneginf(la) | np.isneginf(lbf)
        if np.any(far):
            ld[far] = logsubexp(la[far], np.minimum(lbf[far], la[far]))
        # step 3: close — φ(z₀)·∫_{z₀}^{z₁} (1 − tM(t)) dt by Gauss–Legendre
        near = ~far
        if np.any(near):
            half = 0.5 * p[near]  # z₁ − z₀ = μ exactly: never form it as a difference
            t = ratio[near][:, None] + half[:, None] * _GL_X[None, :]
            s = _one_minus_t_mills(t) @ _GL_W
            integral = half * s
            # where μ/2·Σ underflows (μ ≲ 1e-300) its log is log(μ/2) + log Σ
            with np.errstate(divide="ignore"):
                log_integral = np.where(integral > 1e-290, np.log(integral), np.log(half) + np.log(s))
            ld[near] = log_phi0[near] + log_integral  # step 4
        out[fin] = ld
        lb[fin] = lbf
    return out.reshape(shape), lb.reshape(shape)


def log_delta(mu: Any, eps: Any) -> np.ndarray:
    """log δ(ε; μ) without validation (any real ε, ±∞ included; arrays broadcast)."""
    return log_delta_parts(mu, eps)[0]


def log_delta_scalar(mu: float, eps: float) -> tuple[float, float]:
    """Scalar twin of :func:`log_delta_parts` (same steps, Python floats: ~20× less overhead per call).

    The tests check that both agree to rounding on random inputs.
    """
    if eps == math.inf:
        return -math.inf, -math.inf
    if eps == -math.inf:
        return 0.0, -math.inf
    ratio = eps / mu
    z0 = ratio - 0.5 * mu
    z1 = ratio + 0.5 * mu
    la = float(log_ndtr(-z0))
    try:
        log_phi0 = -0.5 * z0 * z0 - _HALF_LOG_2PI
    except OverflowError:  # pragma: no cover - float ** never raises, kept for clarity
        log_phi0 = -math.inf
    if z1 >= _MILLS_FROM and 0.5 * z0 * z0 < abs(eps):  # step 1
        m1 = float(_mills(z1))
        lb = log_phi0 + math.log(m1) if m1 > 0 else -math.inf
    else:
        lb = eps + float(log_ndtr(-z1))
    if la == -math.inf:
        return -math.inf, lb
    if lb == -math.inf or lb - la <= _LOG_HALF or z0 < -30.0:  # step 2
        d = min(lb - la, 0.0)
        return la + (math.log(-math.expm1(d)) if d > -0.6931471805599453 else math.log1p(-math.exp(d))), lb
    t = ratio + 0.5 * mu * _GL_X  # step 3
    s = float(_one_minus_t_mills(t) @ _GL_W)
    integral = 0.5 * mu * s
    if integral > 1e-290:
        return log_phi0 + math.log(integral), lb  # step 4
    # μ/2·s underflows (μ ≲ 1e-300): its log is log(μ/2) + log s
    return (log_phi0 + (math.log(mu) - _LOG_2) + math.log(s) if s > 0 else -math.inf), lb  # μ/2 is 0 at μ = 5e-324


def _newton_estimate(mu: float, log_target: float, max_iter: int = 60) -> float:
    """Step 2 of :func:`epsilon`: monotone Newton from the Lemma 1 start (an estimate, not certified)."""
    e = 0.5 * mu * mu - mu * float(special.ndtri_exp(log_target))
    if not math.isfinite(e):
        return math.nan
    e = max(e, 0.0)
    for _ in range(max_iter):
        ld, lb = log_delta_scalar(mu, e)
        try:
            step = (ld - log_target) * math.exp(ld - lb)
        except OverflowError:
            step = -math.inf
        if not math.isfinite(step):
            step = -0.5 * e
        new = max(e + min(step, 0.0), 0.5 * e)
        if abs(new - e) <= 2.0 * math.ulp(max(e, 1e-300)):
            return new
        e = new
    return e


def _predicate(mu: float, log_target: float, target: float | None):
    """g(ε) ≤ 0 ⇔ δ(ε) ≤ target, in log space and as the double the views return (``directed_delta``)."""

    def g(e: float) -> float:
        v = log_delta_scalar(mu, e)[0] - log_target
        if v <= 0.0 and target is not None and float(directed_delta(v + log_target, e)) > target:
            return 1e-300
        return v

    return g


def epsilon(mu: float, delta: float, log_target: float | None = None) -> float:
    """Certified ε(δ; μ) = min{ε ≥ 0 : δ(ε; μ) ≤ δ} ([SI] eq 6.7); steps in the module docstring.

    No validation (μ > 0 finite, δ ∈ [0, 1]). ``log_target`` replaces log δ where δ itself
    underflows (then ``delta`` is ignored). ``inf`` for δ = 0 (no finite ε reaches it) and where
    ε exceeds the largest double.
    """
    if log_target is None:
        if delta >= 1.0:
            return 0.0
        if delta <= 0.0:
            return math.inf
        log_target, target = math.log(delta), delta
    else:
        target = None
    g = _predicate(mu, log_target, target)
    g0 = g(0.0)
    if g0 <= 0.0:  # step 1
        return 0.0
    start = _newton_estimate(mu, log_target)  # step 2
    if math.isfinite(start) and start > 0:  # step 3, fast path: the estimate's own tight bracket
        try:
            res = solve(g, start * (1.0 - _FAST), start * (1.0 + _FAST), side=Side.ABOVE, scale=Scale.LOG,
                        rtol=2.5 * _FAST)
            if res.infeasible is not None:
                return float(res.feasible)
        except ValueError:  # the estimate itself was infeasible: search the whole domain
            pass
    try:  # step 3 (g(0) is known: the solver need not evaluate it again)
        res = solve(lambda e: g0 if e == 0.0 else g(e), 0.0, _DBL_MAX, side=Side.ABOVE, scale=Scale.LOG,
                    start=start if math.isfinite(start) and start > 0 else None, step=0.9 * _RTOL, rtol=_RTOL)
    except ValueError:  # Unreachable: δ(ε) > δ at the largest double
        return math.inf
    return float(res.feasible)


def epsilon_array(mu: Any, delta: Any) -> np.ndarray:
    """Vectorised :func:`epsilon` (broadcast): vectorised Newton estimates, certified by
    :func:`dpcompare._search.solve_each` (one vectorised check of each estimate's bracket; a scalar
    :func:`epsilon` only where that check fails)."""
    mu, delta = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(delta, dtype=float))
    shape = mu.shape
    mu, delta = mu.ravel(), delta.ravel()
    with np.errstate(divide="ignore"):
        lt = np.log(delta)
    out = np.zeros_like(mu)
    act = np.flatnonzero(log_delta(mu, np.zeros_like(mu)) > lt)
    if act.size == 0:
        return out.reshape(shape)
    p, t = mu[act], lt[act]
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.maximum(0.5 * p * p - p * special.ndtri_exp(t), 0.0)
    e = np.where(np.isfinite(e), e, 0.0)
    idx = np.arange(act.size)
    for _ in range(60):  # vectorised Newton (step 2)
        ld, lb = log_delta_parts(p[idx], e[idx])
        with np.errstate(over="ignore", invalid="ignore"):
            step = (ld - t[idx]) * np.exp(ld - lb)
        step = np.where(np.isfinite(step), step, -0.5 * e[idx])
        new = np.maximum(e[idx] + np.minimum(step, 0.0), 0.5 * e[idx])
        done = np.abs(new - e[idx]) <= 2.0 * np.spacing(np.maximum(e[idx], 1e-300))
        e[idx] = new
        idx = idx[~done]
        if idx.size == 0:
            break

    def g_vec(x: np.ndarray, which: np.ndarray) -> np.ndarray:
        ld = log_delta(p[which], x)
        v = ld - t[which]
        with np.errstate(over="ignore"):
            bad_double = (v <= 0.0) & (directed_delta(ld, x) > delta[act][which])
        return np.where(bad_double, 1e-300, v)

    out[act] = solve_each(g_vec, e, rtol=2.2 * _FAST,
                          fallback=lambda i: epsilon(float(p[i]), float(delta[act][i])))
    return out.reshape(shape)


#: relative error bound of δ = exp(log δ) from :func:`log_delta` (≲ 1e-12 by construction; measured 2.4e-13
#: against mpmath over μ ∈ [1e-3, 316], δ ≥ 1e-300: tests/package/test_edge_regressions.py)
DELTA_RTOL = 1e-12


def directed_delta(log_d, eps, *, down: bool = False) -> np.ndarray:
    """δ = exp(log δ) rounded outwards: widened by DELTA_RTOL and one ulp, so never below the real δ; and
    δ > 0 at every finite ε (the Gaussian loss is unbounded), so an underflow is the smallest positive double.

    >>> float(directed_delta(np.log(0.5), 1.0)) > 0.5, float(directed_delta(-1e4, 1e6))
    (True, 5e-324)
    """
    eps = np.asarray(eps, dtype=float)
    d = np.exp(np.asarray(log_d, dtype=float))
    if down:  # the lower end of the bracket (the optimistic side): rounded the other way
        return np.maximum(np.nextafter(d * (1.0 - DELTA_RTOL), -np.inf), 0.0)
    up = np.where(d > 0, np.minimum(np.nextafter(d * (1.0 + DELTA_RTOL), np.inf), 1.0), 0.0)
    return np.where(np.isfinite(eps), np.maximum(up, 5e-324), up)
