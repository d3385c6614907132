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

from .. import directed_rounding as rnd
from .._numerics import log_ndtr, logsubexp
from .._search import Scale, Side, solve, solve_each

__all__ = ["delta_bounds", "epsilon", "epsilon_array", "log_delta", "log_delta_error", "log_delta_parts", "log_delta_scalar"]

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
    return _newton_from(mu, log_target, max(e, 0.0), max_iter)


def _newton_from(mu: float, log_target: float, e: float, max_iter: int = 60) -> float:
    """Monotone Newton on log δ(ε) = log_target from a start e right of the root (log δ is concave)."""
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


def _rounding_margin(mu: Any, e: Any, log_target: Any) -> tuple[np.ndarray, np.ndarray]:
    """(m, slope): the log-space margin m by which the directed δ (``delta_bounds``) exceeds exp(log δ) at e
    (1.01·(error bound + ELEM) and the rounding of the ends, ×1.01), and |d log δ/dε| = e^{lb − log δ} there."""
    ld, err = log_delta_error(mu, e)
    lb = log_delta_parts(mu, e)[1]
    with np.errstate(all="ignore"):
        m = 1.0201 * (err + rnd.ELEM) + 32.0 * rnd.U + 4.0 * rnd.U * np.abs(log_target)
        slope = np.exp(lb - ld)
    return m, slope


def _shift_for_rounding(mu: float, log_target: float, e: float) -> float:
    """Step 2's estimate moved to where the *directed* δ meets the target: log δ(ε) = log δ − m, m the rounding
    margin at the estimate. A first step right by m/|g′| lands right of that root (log δ is concave: it falls
    by at least m), and Newton then comes back monotonically; so the fast bracket usually holds the answer."""
    ld, err = log_delta_error_scalar(mu, e)
    lb = log_delta_scalar(mu, e)[1]
    m = 1.0201 * (err + rnd.ELEM) + 32.0 * rnd.U + 4.0 * rnd.U * abs(log_target)
    slope = math.exp(lb - ld) if lb - ld < 700.0 else math.inf
    if not (math.isfinite(m) and slope > 0 and math.isfinite(slope)):
        return e
    moved = _newton_from(mu, log_target - m, e + m / slope)
    return moved if math.isfinite(moved) and moved > 0 else e


def _predicate(mu: float, log_target: float, target: float | None):
    """g(ε) ≤ 0 ⇔ δ(ε) ≤ target, in log space and as the double the views return (``delta_bounds``)."""

    def g(e: float) -> float:
        v = log_delta_scalar(mu, e)[0] - log_target
        if v <= 0.0 and target is not None and _delta_bounds_scalar(mu, e)[1] > target:
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
    if target is not None and math.isfinite(start) and start > 0:
        start = _shift_for_rounding(mu, log_target, start)
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


def _newton(mu: np.ndarray, e: np.ndarray, target: np.ndarray, idx: np.ndarray) -> None:
    """Newton's method on log δ_μ(ε) = target, in place on ``e`` at the indices ``idx`` (at most 60 steps, each
    towards smaller ε and at most halving it; an element stops when its step is within 2 ulps)."""
    for _ in range(60):
        ld, lb = log_delta_parts(mu[idx], e[idx])
        with np.errstate(over="ignore", invalid="ignore"):
            step = (ld - target[idx]) * np.exp(ld - lb)
        step = np.where(np.isfinite(step), step, -0.5 * e[idx])
        new = np.maximum(e[idx] + np.minimum(step, 0.0), 0.5 * e[idx])
        done = np.abs(new - e[idx]) <= 2.0 * np.spacing(np.maximum(e[idx], 1e-300))
        e[idx] = new
        idx = idx[~done]
        if idx.size == 0:
            return


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
    _newton(p, e, t, np.arange(act.size))  # vectorised Newton (step 2)
    # the estimate moved to where the directed δ meets the target (as :func:`_shift_for_rounding`)
    m, slope = _rounding_margin(p, e, t)
    ok = np.isfinite(m) & np.isfinite(slope) & (slope > 0) & (e > 0)
    if np.any(ok):
        t_shift = np.where(ok, t - m, t)
        e = np.where(ok, e + np.where(ok, m, 0.0) / np.where(ok, slope, 1.0), e)
        _newton(p, e, t_shift, np.flatnonzero(ok))

    def g_vec(x: np.ndarray, which: np.ndarray) -> np.ndarray:
        ld = log_delta(p[which], x)
        v = ld - t[which]
        with np.errstate(over="ignore"):
            bad_double = (v <= 0.0) & (delta_bounds(p[which], x)[1] > delta[act][which])
        return np.where(bad_double, 1e-300, v)

    out[act] = solve_each(g_vec, e, rtol=2.2 * _FAST,
                          fallback=lambda i: epsilon(float(p[i]), float(delta[act][i])))
    return out.reshape(shape)


# ---------------------------------------------------------------------------------------------- error bound
#: relative error of scipy's ``erfcx`` (Faddeeva package: "near machine precision"; measured against mpmath at
#: 40 digits ≤ 8.1u for y ≥ 0 and ≤ 9.4·(1 + y²)·u for y < 0, where erfcx(y) = 2e^{y²} − erfcx(−y) carries the
#: rounding of y²): taken as 32·(1 + y²·[y < 0])·u
def _erfcx_rel(y: np.ndarray) -> np.ndarray:
    return 32.0 * (1.0 + np.where(y < 0.0, y * y, 0.0)) * rnd.U


#: relative error of numpy's 16-point Gauss–Legendre weights (measured 27u against mpmath at 40 digits;
#: tests/mechanisms/test_gaussian_delta_bound.py re-checks the table) and absolute error of its nodes (0.32u)
_GL_WREL = 64.0 * rnd.U
_GL_XABS = 2.0 * rnd.U
#: log of the Gauss–Legendre remainder constant c₁₆ = (16!)⁴/(33·((32)!)³) (Abramowitz & Stegun 25.4.30:
#: ∫_{−h/2}^{h/2} g = (h/2)·Σwᵢg(xᵢh/2) + c₁₆·h³³·g⁽³²⁾(ξ))
_LOG_GL_C = 4 * math.lgamma(17) - math.log(33) - 3 * math.lgamma(33)
#: log E|Z|³³ = log(2^{33/2}·Γ(17)/√π), Z standard normal
_LOG_ABS_MOM_33 = 16.5 * _LOG_2 + math.lgamma(17) - 0.5 * math.log(math.pi)


def _log_moment_bound(t: np.ndarray) -> np.ndarray:
    """log of a bound of I₃₃(t) = ∫₀^∞ s³³e^{−ts − s²/2} ds = −M⁽³³⁾(t) (M(t) = ∫₀^∞ e^{−ts − s²/2} ds, so
    (−1)ᵏM⁽ᵏ⁾ = Iₖ > 0 and Iₖ decreases in t).

    t ≥ 0: Iₖ ≤ min(k!/t^{k+1}, ∫s^k e^{−s²/2} = 2^{(k−1)/2}Γ((k+1)/2)); t = −a < 0:
    Iₖ = e^{a²/2}∫₀^∞ s^k e^{−(s−a)²/2} ds ≤ e^{a²/2}√(2π)·E(|Z| + a)^k ≤ e^{a²/2}√(2π)·2^{k−1}(a^k + E|Z|^k)."""
    with np.errstate(divide="ignore"):
        pos = np.minimum(math.lgamma(34) - 34.0 * np.log(np.maximum(t, 0.0)), 16.0 * _LOG_2 + math.lgamma(17))
    a = np.maximum(-t, 0.0)
    with np.errstate(divide="ignore"):
        neg = 0.5 * a * a + _HALF_LOG_2PI + 32.0 * _LOG_2 + np.logaddexp(33.0 * np.log(a), _LOG_ABS_MOM_33)
    return np.where(t >= 0.0, pos, neg)


def _log_moment_bound_scalar(t: float) -> float:
    """:func:`_log_moment_bound` for one float."""
    if t >= 0.0:
        pos = 16.0 * _LOG_2 + math.lgamma(17)
        return min(math.lgamma(34) - 34.0 * math.log(t), pos) if t > 0.0 else pos
    a = -t
    m = 33.0 * math.log(a)
    hi, lo = max(m, _LOG_ABS_MOM_33), min(m, _LOG_ABS_MOM_33)
    return 0.5 * a * a + _HALF_LOG_2PI + 32.0 * _LOG_2 + hi + math.log1p(math.exp(lo - hi))


def _cf_trunc_rel(t_lo: np.ndarray, t_hi: np.ndarray) -> np.ndarray:
    """Relative truncation error bound of the continued fraction R(t) = 1/(t + 2/(t + 3/(t + …))) at every
    t ∈ [t_lo, t_hi], t_lo ≥ 5, for any evaluation with at least K = ``_cf_terms``(t_lo) levels.

    Its elements are positive, so the convergents Rₙ = Aₙ/Bₙ alternate around R and each lies between the two
    before it (Jones & Thron 1980, "Continued fractions", Thm 4.35): |R − R_{K′}| ≤ |R_K − R_{K−1}| =
    K!/(B_K·B_{K−1}) for K′ ≥ K, with Bₙ = t·B_{n−1} + n·B_{n−2} (B₀ = 1, B₋₁ = 0) polynomials in t with
    positive coefficients, so the bound decreases in t and is taken at t_lo; R(t) ≥ R₂ = 1/(t + 2/t) ≥
    1/(t_hi + 0.4). Evaluated as βₙ = Bₙ/t_loⁿ (no overflow), positive terms, ×1.01 for its rounding."""
    a = t_lo
    k = np.select([a >= 20.0, a >= 12.0, a >= 8.0], [8, 12, 16], _CF_TERMS)
    inv2 = 1.0 / (a * a)
    b_prev, b_cur = np.zeros_like(a), np.ones_like(a)  # β₋₁, β₀
    beta_k = np.ones_like(a)
    beta_km = np.ones_like(a)
    for n in range(1, _CF_TERMS + 1):
        b_prev, b_cur = b_cur, b_cur + n * b_prev * inv2
        beta_km = np.where(k == n + 1, b_cur, beta_km)
        beta_k = np.where(k == n, b_cur, beta_k)
    lgam = np.select([k == 8, k == 12, k == 16], [math.lgamma(9), math.lgamma(13), math.lgamma(17)], math.lgamma(_CF_TERMS + 1))
    log_rel = lgam + np.log((t_hi + 0.4) / a) - (2.0 * k - 2.0) * np.log(a) - np.log(beta_k) - np.log(beta_km)
    return 1.01 * np.exp(log_rel)


def _integrand_rel(t_lo: np.ndarray, t_hi: np.ndarray) -> np.ndarray:
    """Relative error bound of ``_one_minus_t_mills`` at every double node t ∈ [t_lo, t_hi] (t_lo ≥ −37),
    excluding the node's own error.

    t < 5: M = √(π/2)·erfcx(t·(1/√2)) carries ``_erfcx_rel`` + 2u (constant and product) and the rounding of
    its argument (2u relative, moving log M by (max(−t, 0) + 1)·2u|t|: d log M/dt = t − 1/M, with
    0 ≤ 1/M − t < (√(t² + 4) − t)/2 ≤ 1 for t ≥ 0 (Birnbaum 1942) and 0 < 1/M = φ/Φ(−t) ≤ 2φ ≤ 0.8 for t < 0);
    t·M adds u, and 1 − tM turns M's error into κ = |t|M/(1 − tM)
    times it, plus u: κ < 1 for t ≤ 0 and κ increases on (0, ∞) (tM does: (tM)′ = (1 + t²)M − t > 0), so it
    is taken at min(t_hi, 5) (×1.01). t ≥ 5: the truncation (``_cf_trunc_rel``) plus the evaluation's
    (2·28 + 4)u (each level t + (k+1)/s rounds twice and carries the level below with a factor
    (k+1)/(s_{k+1}s_k) < 1; then 1/s, t + R and R/(t + R)); 1 − tM = R/(t + R) moves by at most R's relative error."""
    with np.errstate(all="ignore"):
        c = np.minimum(t_hi, _CF_FROM)
        tm = c * _mills(c)
        kappa = np.maximum(1.01 * tm / (1.0 - tm), 1.0)
        tabs = np.maximum(np.abs(t_lo), np.abs(c))
        e_m = _erfcx_rel(t_lo * _INV_SQRT2) + 2.0 * rnd.U + (np.maximum(-t_lo, 0.0) + 1.0) * 2.0 * rnd.U * tabs
        direct = np.where(t_lo < _CF_FROM, kappa * (e_m + rnd.U) + rnd.U, 0.0)
        cf = np.zeros_like(direct)
        has_cf = t_hi >= _CF_FROM
        if np.any(has_cf):
            cf[has_cf] = _cf_trunc_rel(np.maximum(t_lo[has_cf], _CF_FROM), t_hi[has_cf]) + 60.0 * rnd.U
    return np.maximum(direct, cf)


def log_delta_error(mu: Any, eps: Any) -> tuple[np.ndarray, np.ndarray]:
    """(log δ(ε; μ) as :func:`log_delta` computes it, a bound e of its absolute error); see
    :func:`_log_delta_error_full` (the real log δ lies in [ld − e, ld + e]).

    >>> ld, e = log_delta_error(1.0, 1.0)
    >>> bool(e < 1e-13), round(float(np.exp(ld)), 6)
    (True, 0.126937)
    """
    ld, err, _ = _log_delta_error_full(mu, eps)
    return ld, err


def _log_delta_error_full(mu: Any, eps: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log δ(ε; μ) as :func:`log_delta` computes it, a bound e of its absolute error): the real log δ lies in
    [ld − e, ld + e]. A first-order error analysis of each step of :func:`log_delta_parts` (×1.01 for the
    second-order products), from the stated accuracy of scipy's ``log_ndtr`` (``ndtr_rel``, Cephes),
    ``erfcx`` (``_erfcx_rel``) and numpy's elementary functions (``ELEM``), u = 2⁻⁵³ per operation:

    - the arguments: ẑ₀, ẑ₁ are within d = u·|ε/μ| + u·|z| (+ one subnormal unit for μ/2) of z₀, z₁;
    - la = log_ndtr(−ẑ₀) is within eₐ = ``ndtr_rel`` + ``mills_bound``(−ẑ₀ − d)·d of log Φ(−z₀);
    - lb: either ε + log_ndtr(−ẑ₁) (the same bound, plus u|lb|), or log φ(ẑ₀) + log M(ẑ₁), whose parts carry
      |z₀|·d₀ + u·z₀²/2 + u·|log φ| and ``_erfcx_rel`` + 2u + (max(−z₁, 0) + 1)·(d₁ + 2u|z₁|) + ELEM·|log M|
      (|d log M/dt| ≤ max(−t, 0) + 1: ``_integrand_rel``);
    - far apart (step 2): log δ = la + log(1 − e^x), x = lb − la, moves by k·(eₐ + e_b + u|x|) with
      k = e^x/(1 − e^x) (≤ 1 where x ≤ log ½) taken at x + its error, plus log1mexp's
      ELEM·(1 + k + |log(1 − e^x)|) and the final addition's u|log δ|;
    - close (step 3): the 16-point Gauss–Legendre sum has positive terms: relative error ≤ 16u (summation)
      + ``_GL_WREL`` (weights) + the integrand's ``_integrand_rel`` over the outermost nodes' range [t₁, t₁₆]
      + ρ·Δt, where Δt = u|ε/μ| + (μ/2)·``_GL_XABS`` + u·μ/2 + u·max|t| bounds a node's error and
      ρ = 2.1 + max(−t₁, 0) ≥ |g′/g| = I₂/I₁ (I₂/I₁ decreases in t (Cauchy–Schwarz: I₂² ≤ I₁I₃),
      I₂(0)/I₁(0) = √(π/2), and for t < 0 it is ≤ E[S] + 1/E[S] for S the normal N(−t, 1) truncated to
      s > 0: Var S ≤ 1); plus the quadrature remainder c₁₆·μ³³·I₃₃(ẑ₀) (``_log_moment_bound``;
      g⁽³²⁾ = I₃₃, decreasing) relative to the integral; then the logarithms
      (ELEM·|log ∫|) and the sum with log φ(z₀).

    Where ld = −∞ (δ below e^{−1e308}) the bound is 0: the caller reports the smallest positive double.
    Where k is unbounded (x within its error of 0: its terms are far below the double range, e.g. μ = 1e-5,
    ε = 900, where u·|log Φ| ≈ 0.4) e = ∞; the third output, la + eₐ ≥ log Φ(−z₀) ≥ log δ, still caps δ there.
    No validation (as :func:`log_delta_parts`).
    """
    mu, eps = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(eps, dtype=float))
    shape = mu.shape
    mu, eps = mu.ravel(), eps.ravel()
    ld, lb = log_delta_parts(mu, eps)
    U = rnd.U
    with np.errstate(all="ignore"):
        ratio = eps / mu
        z0 = ratio - 0.5 * mu
        z1 = ratio + 0.5 * mu
        d0 = 1.01 * (U * np.abs(ratio) + U * np.abs(z0) + rnd.TINY)
        d1 = 1.01 * (U * np.abs(ratio) + U * np.abs(z1) + rnd.TINY)
        la = log_ndtr(-z0)
        ea = rnd.ndtr_rel_raw(-z0) + rnd.mills_bound_raw(-z0 - d0) * d0
        log_phi0 = -0.5 * z0 * z0 - _HALF_LOG_2PI
        e_phi = 1.01 * np.abs(z0) * d0 + U * 0.5 * z0 * z0 + U * (np.abs(log_phi0) + _HALF_LOG_2PI)
        use_mills = (z1 >= _MILLS_FROM) & (0.5 * z0 * z0 < np.abs(eps))
        y1 = np.maximum(z1, _MILLS_FROM) * _INV_SQRT2
        log_m1 = np.log(_mills(np.maximum(z1, _MILLS_FROM)))
        eb_mills = (e_phi + _erfcx_rel(y1) + 2.0 * U + (np.maximum(-z1, 0.0) + 1.0) * (d1 + 2.0 * U * np.abs(z1))
                    + rnd.ELEM * np.abs(log_m1))
        eb_ndtr = rnd.ndtr_rel_raw(-z1) + rnd.mills_bound_raw(-z1 - d1) * d1
        eb = np.where(use_mills, eb_mills, eb_ndtr) + U * np.abs(lb)
        # step 2 (far)
        far = (lb - la <= _LOG_HALF) | (z0 < -30.0) | np.isneginf(la) | np.isneginf(lb)
        x = np.minimum(lb - la, 0.0)
        ex = 1.01 * (ea + eb + U * np.abs(x))
        xe = x + ex
        k = np.where(np.isneginf(lb), 0.0, np.where(xe < 0.0, np.exp(xe) / -np.expm1(xe), np.inf))
        l1 = ld - la
        err_far = ea + k * ex + rnd.ELEM * (1.0 + k + np.abs(l1)) + U * np.abs(ld)
        err = np.where(far, err_far, 0.0)
        near = ~far & np.isfinite(ld)
        if np.any(near):
            p, r, zz0, lp = mu[near], ratio[near], z0[near], log_phi0[near]
            half = 0.5 * p
            t_lo = r + half * _GL_X[0]  # the outermost nodes, as step 3 computes them
            t_hi = r + half * _GL_X[-1]
            dt = U * np.abs(r) + half * _GL_XABS + U * half + U * np.maximum(np.abs(t_lo), np.abs(t_hi))
            rho = 2.1 + np.maximum(-t_lo, 0.0)
            node = _integrand_rel(t_lo, t_hi) + rho * dt
            log_int = ld[near] - lp  # log ∫ (to first order: it only scales error terms)
            log_half = np.log(half)
            quad = np.exp(_LOG_GL_C + 33.0 * np.log(p) + _log_moment_bound(zz0) - log_int)
            rel = 1.01 * (16.0 * U + _GL_WREL + node + quad)
            err[near] = (e_phi[near] + 1.01 * rel + rnd.ELEM * (np.abs(log_half) + np.abs(log_int - log_half))
                         + U * (np.abs(log_int) + np.abs(ld[near])))
        err = np.where(np.isfinite(ld), 1.01 * err, 0.0)
        err = np.where(np.isnan(err), np.inf, err)
        cap = la + 1.01 * ea + 2.0 * U * np.abs(la)
        cap = np.where(np.isnan(cap), np.inf, cap)
    return ld.reshape(shape), err.reshape(shape), cap.reshape(shape)


def _ndtr_rel_scalar(z: float) -> float:
    """``directed_rounding.ndtr_rel`` for a Python float (the same formula)."""
    if z < 0.0:
        return 8.0 * (1.0 + z * z) * rnd.U + rnd.ELEM
    zc = min(z, 1e154)
    return 8.0 * rnd.U + 8.0 * (1.0 + zc * zc) * rnd.U * math.exp(-0.5 * zc * zc) + rnd.ELEM


def _mills_bound_scalar(t: float) -> float:
    """``directed_rounding.mills_bound`` for a Python float."""
    return 1.0 - t if t < 0.0 else 0.8 * math.exp(-0.5 * min(t, 1e154) ** 2)


def log_delta_error_scalar(mu: float, eps: float) -> tuple[float, float]:
    """Scalar twin of :func:`log_delta_error` (the same bound, term by term, for Python floats and the doubles
    of :func:`log_delta_scalar`; ~10× less overhead). The tests check that both agree."""
    ld, err, _ = _log_delta_error_scalar_full(mu, eps)
    return ld, err


def _log_delta_error_scalar_full(mu: float, eps: float) -> tuple[float, float, float]:
    """(ld, e, cap) as :func:`_log_delta_error_full`, for Python floats."""
    U = rnd.U
    ld, lb = log_delta_scalar(mu, eps)
    if not math.isfinite(ld) or not math.isfinite(eps):
        return ld, 0.0, math.inf
    ratio = eps / mu
    if not math.isfinite(ratio):
        return ld, math.inf, math.inf
    z0 = ratio - 0.5 * mu
    z1 = ratio + 0.5 * mu
    d0 = 1.01 * (U * abs(ratio) + U * abs(z0) + rnd.TINY)
    d1 = 1.01 * (U * abs(ratio) + U * abs(z1) + rnd.TINY)
    la = float(log_ndtr(-z0))
    ea = _ndtr_rel_scalar(-z0) + _mills_bound_scalar(-z0 - d0) * d0
    log_phi0 = -0.5 * z0 * z0 - _HALF_LOG_2PI
    e_phi = 1.01 * abs(z0) * d0 + U * 0.5 * z0 * z0 + U * (abs(log_phi0) + _HALF_LOG_2PI)
    if z1 >= _MILLS_FROM and 0.5 * z0 * z0 < abs(eps):
        y1 = z1 * _INV_SQRT2
        m1 = float(_mills(z1))
        log_m1 = math.log(m1) if m1 > 0 else -math.inf
        eb = (e_phi + 32.0 * (1.0 + (y1 * y1 if y1 < 0 else 0.0)) * U + 2.0 * U
              + (max(-z1, 0.0) + 1.0) * (d1 + 2.0 * U * abs(z1)) + rnd.ELEM * abs(log_m1))
    else:
        eb = _ndtr_rel_scalar(-z1) + _mills_bound_scalar(-z1 - d1) * d1
    eb += U * abs(lb)
    if lb == -math.inf or lb - la <= _LOG_HALF or z0 < -30.0 or la == -math.inf:  # step 2 (far)
        x = min(lb - la, 0.0) if lb != -math.inf else -math.inf
        ex = 1.01 * (ea + eb + (U * abs(x) if math.isfinite(x) else 0.0))
        if lb == -math.inf:
            k = 0.0
        else:
            xe = x + ex
            k = math.exp(xe) / -math.expm1(xe) if xe < 0.0 else math.inf
        err = ea + (k * ex if k > 0 else 0.0) + rnd.ELEM * (1.0 + k + abs(ld - la)) + U * abs(ld)
    else:  # step 3 (near)
        half = 0.5 * mu
        t_lo = ratio + half * float(_GL_X[0])
        t_hi = ratio + half * float(_GL_X[-1])
        dt = U * abs(ratio) + half * _GL_XABS + U * half + U * max(abs(t_lo), abs(t_hi))
        rho = 2.1 + max(-t_lo, 0.0)
        if t_lo < _CF_FROM and t_hi < _CF_FROM:
            c = t_hi
            tm = c * float(_mills(c))
            kappa = max(1.01 * tm / (1.0 - tm), 1.0)
            tabs = max(abs(t_lo), abs(c))
            y = t_lo * _INV_SQRT2
            e_m = 32.0 * (1.0 + (y * y if y < 0 else 0.0)) * U + 2.0 * U + (max(-t_lo, 0.0) + 1.0) * 2.0 * U * tabs
            integrand = kappa * (e_m + U) + U
        else:
            integrand = float(_integrand_rel(np.array([t_lo]), np.array([t_hi]))[0])
        node = integrand + rho * dt
        log_int = ld - log_phi0
        log_half = math.log(half) if half > 0 else math.log(mu) - _LOG_2
        lmb = _log_moment_bound_scalar(z0)
        arg = _LOG_GL_C + 33.0 * math.log(mu) + lmb - log_int
        quad = math.exp(arg) if arg < 700.0 else math.inf
        rel = 1.01 * (16.0 * U + _GL_WREL + node + quad)
        err = (e_phi + 1.01 * rel + rnd.ELEM * (abs(log_half) + abs(log_int - log_half))
               + U * (abs(log_int) + abs(ld)))
    err = 1.01 * err
    cap = la + 1.01 * ea + 2.0 * U * abs(la)
    return ld, (math.inf if math.isnan(err) else err), (math.inf if math.isnan(cap) else cap)


def _delta_bounds_scalar(mu: float, eps: float) -> tuple[float, float]:
    """:func:`delta_bounds` for Python floats (from :func:`log_delta_error_scalar`)."""
    if eps == math.inf:
        return 0.0, 0.0
    if eps == -math.inf:
        return 1.0, 1.0
    ld, err, cap = _log_delta_error_scalar_full(mu, eps)
    if ld == -math.inf:
        return 0.0, 5e-324
    r = 1.01 * err + 2.0 * rnd.U * abs(ld)  # and the rounding of ld ± r
    hi_arg, lo_arg = min(ld + r, cap), ld - r  # δ ≤ Φ(−z₀) ≤ e^{cap} as well
    # ``directed_rounding.upper``/``lower`` with rel = 1.01·ELEM, abs = 0, for one float (the same operations)
    rel = 1.01 * rnd.ELEM
    if hi_arg >= 0.0:
        up = 1.0
    else:
        v = math.exp(hi_arg)
        up = min(math.nextafter(v + (rel * v * (1.0 + 8.0 * rnd.U) + 2.0 * rnd.TINY), math.inf), 1.0) if v > 0 else 0.0
    if lo_arg > -746.0:
        v = math.exp(lo_arg)
        down = max(math.nextafter(v - (rel * v * (1.0 + 8.0 * rnd.U) + 2.0 * rnd.TINY), -math.inf), 0.0) if v > 0 else 0.0
    else:
        down = 0.0
    return down, max(up, 5e-324)


def delta_bounds(mu: Any, eps: Any) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) doubles around the real δ(ε; μ), from :func:`log_delta_error`: δ ∈ [e^{ld − e}, e^{ld + e}],
    each end formed as exp(ld ± r), r = 1.01·e + 2u·|ld| (the rounding of ld ± r), and rounded outwards by exp's ELEM
    (:mod:`dpcompare.directed_rounding`). δ > 0 at every finite ε (the Gaussian loss is unbounded), so the upper
    end is at least the smallest positive double; δ ≤ 1 always (the upper end is clipped there).

    >>> lo, hi = delta_bounds(1.0, 1.0)
    >>> bool(0 < hi - lo < 1e-13), float(delta_bounds(1.0, 1e6)[1])
    (True, 5e-324)
    """
    if np.ndim(mu) == 0 and np.ndim(eps) == 0:  # the scalar twin (the same bound, less overhead)
        lo, hi = _delta_bounds_scalar(float(mu), float(eps))
        return np.asarray(lo), np.asarray(hi)
    ld, err, cap = _log_delta_error_full(mu, eps)
    eps = np.broadcast_to(np.asarray(eps, dtype=float), ld.shape)
    exact = ~np.isfinite(eps)  # δ(−∞) = 1, δ(∞) = 0
    with np.errstate(all="ignore"):
        d = np.exp(ld)
        # the real δ is in [e^{ld − e}, e^{ld + e}]: both ends formed in log space (so an ld below the double
        # range with a large e still gives a sound upper end), with the rounding of ld ± r and of exp
        r = np.where(exact | ~np.isfinite(ld), 0.0, 1.01 * err + 2.0 * rnd.U * np.abs(ld))
        # δ ≤ Φ(−z₀) ≤ e^{cap} as well (where the error bound is unbounded, the only cap)
        hi_arg = np.minimum(np.where(np.isfinite(err), ld + r, np.inf), cap)
        up = np.where(hi_arg >= 0.0, 1.0, rnd.upper(np.exp(hi_arg), 1.01 * rnd.ELEM, ceil=1.0))
        down = rnd.lower(np.exp(ld - r), 1.01 * rnd.ELEM)
        bad = ~np.isfinite(err)
        up = np.where(bad & ~(hi_arg < 0.0), 1.0, up)
        down = np.where(bad, 0.0, down)
    up = np.where(exact, d, np.maximum(up, 5e-324))
    down = np.where(exact, d, down)
    return down, up
