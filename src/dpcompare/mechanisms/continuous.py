"""Mechanisms with a continuous (closed-form) privacy-loss distribution: Gaussian and Laplace.

Each implements the distribution of the privacy loss L = log(q/p) under P and under Q in log space;
the views follow (seed 000 App. A):

- R(π) = π·P(L > λ) + (1−π)·Q(L ≤ λ),  λ = log(π/(1−π))           (eq 2 with the NP test)
- δ(ε) = Q(L > ε) − e^ε·P(L > ε)                                     (eq 25)
       = ∫_ε^∞ e^{ε−s} Q(L > s) ds   (used where the difference cancels)
- f(α) = F_Y(F_X⁻¹(1−α))                                             (eq 24), closed form per mechanism.

Both mechanisms are symmetric (f = f⁻¹), so no symmetrisation is needed.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize
from scipy.special import logsumexp

from .._numerics import LOG_HALF, expit, log_ndtr, logit, logsubexp, ndtr, ndtri
from .._validation import format_number, check_positive
from .base import Mechanism


class PrivacyLossMechanism(Mechanism):
    """A symmetric mechanism with closed-form privacy-loss tails; views are exact (zero-width brackets)."""

    exact = True

    @abc.abstractmethod
    def _log_sf(self, t: np.ndarray, under: str) -> np.ndarray:
        """log Pr(L > t) under 'P' or 'Q'."""

    @abc.abstractmethod
    def _log_cdf(self, t: np.ndarray, under: str) -> np.ndarray:
        """log Pr(L ≤ t) under 'P' or 'Q'."""

    @abc.abstractmethod
    def _tradeoff_exact(self, alpha: np.ndarray) -> np.ndarray:
        """Closed-form f(α)."""

    # -- derived views
    def _bayes_error_exact(self, pi: np.ndarray) -> np.ndarray:
        lam = logit(pi)
        with np.errstate(divide="ignore"):
            a = np.log(pi) + self._log_sf(lam, "P")
            b = np.log1p(-pi) + self._log_cdf(lam, "Q")
        return np.exp(np.logaddexp(a, b))

    def _bayes_error_bounds(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = self._bayes_error_exact(pi)
        return r, r

    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε), stable to δ far below 1e-300."""
        eps = np.asarray(eps, dtype=float)
        a = self._log_sf(eps, "Q")
        with np.errstate(invalid="ignore"):
            b = np.where(np.isposinf(eps), -np.inf, eps + self._log_sf(eps, "P"))
        out = logsubexp(a, np.minimum(b, a))
        # where the two terms agree to ~6 digits the difference loses precision: integrate instead
        with np.errstate(invalid="ignore"):
            close = np.isfinite(a) & (b - a > -1e-6)
        if np.any(close):
            idx = np.flatnonzero(np.atleast_1d(close))
            flat_out = np.atleast_1d(out).astype(float).copy()
            flat_eps = np.atleast_1d(eps)
            for i in idx:
                flat_out[i] = self._log_delta_integral(float(flat_eps[i]))
            out = flat_out.reshape(out.shape) if out.ndim else flat_out[0]
        return out

    @property
    @abc.abstractmethod
    def _loss_scale(self) -> float:
        """Width over which the privacy-loss tails change (used to scale quadrature)."""

    def _log_delta_integral(self, eps: float) -> float:
        """log ∫_ε^∞ e^{ε−s} Q(L > s) ds (all terms positive: no cancellation).

        Substituting s = ε + w·u with w the loss scale, the integrand exp(−w·u + log Q(L > ε+wu) − m)
        is smooth on the scale of u, so adaptive quadrature resolves it for any w.
        """
        m = float(self._log_sf(np.asarray(eps), "Q"))
        if not np.isfinite(m):
            return -np.inf
        w = min(self._loss_scale, 1.0)
        f = lambda u: math.exp(-w * u + float(self._log_sf(np.asarray(eps + w * u), "Q")) - m)  # noqa: E731
        val, _ = integrate.quad(f, 0.0, np.inf, epsabs=0.0, epsrel=1e-12, limit=400)
        return m + math.log(w * val) if val > 0 else -np.inf

    def _delta_bounds(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = np.exp(self.log_delta(eps))
        return d, d

    def _epsilon_scalar(self, delta: float) -> float:
        """Solve log δ(ε) = log delta by Brent's method in log space (works for δ ≪ 1e-300)."""
        if delta >= 1.0:
            return 0.0
        if delta <= 0.0:
            return float("inf")
        target = math.log(delta)
        g = lambda e: float(self.log_delta(np.asarray(e))) - target  # noqa: E731
        if g(0.0) <= 0:
            return 0.0
        hi = 1.0
        while g(hi) > 0:
            hi *= 2.0
            if hi > 1e8:
                return float("inf")
        eps = optimize.brentq(g, hi / 2 if hi > 1 else 0.0, hi, xtol=1e-14, rtol=1e-15, maxiter=300)
        for _ in range(60):  # certify: δ(ε) ≤ delta at the reported ε
            if g(eps) <= 0:
                return eps
            eps += max(1e-14, 1e-13 * eps)
        return eps

    def _tradeoff_bounds(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = self._tradeoff_exact(alpha)
        return f, f


@dataclass(frozen=True, repr=False, init=False)
class Gaussian(PrivacyLossMechanism):
    """Gaussian mechanism G_μ, μ = sensitivity/σ: P = N(0, 1), Q = N(μ, 1).

    f(α) = Φ(Φ⁻¹(1−α) − μ) (Dong et al. 2022 eq 5); L ~ N(∓μ²/2, μ²) under P/Q;
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8); AUC = Φ(μ/√2) (seed 001 eq 4.9).

    >>> import dpcompare as dc
    >>> g = dc.Gaussian(mu=1.0)
    >>> round(float(g.delta(0.0)), 6), round(g.auc, 6)
    (0.382925, 0.760250)
    """

    mu: float
    sigma: float | None
    sensitivity: float

    def __init__(self, mu: float | None = None, *, sigma: float | None = None, sensitivity: float = 1.0) -> None:
        if mu is not None and sigma is not None:
            raise ValueError("give either mu or sigma (with sensitivity), not both")
        if mu is None and sigma is None:
            raise ValueError("give mu, or sigma (with sensitivity)")
        if mu is not None:
            mu = check_positive("mu", mu)
            sens = 1.0
        else:
            sigma = check_positive("sigma", sigma)
            sens = check_positive("sensitivity", sensitivity)
            mu = sens / sigma
            if not math.isfinite(mu) or mu <= 0:
                raise ValueError(f"sensitivity/sigma must be a positive finite number, got {mu!r}")
        object.__setattr__(self, "mu", float(mu))
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "sensitivity", sens)

    @property
    def spec(self) -> str:
        if self.sigma is not None:
            return f"gaussian(sigma={format_number(self.sigma)}, sensitivity={format_number(self.sensitivity)})"
        return f"gaussian(mu={format_number(self.mu)})"

    def _log_sf(self, t, under):
        m = self.mu
        c = -m * m / 2 if under == "P" else m * m / 2
        return log_ndtr((c - np.asarray(t, dtype=float)) / m)

    def _log_cdf(self, t, under):
        m = self.mu
        c = -m * m / 2 if under == "P" else m * m / 2
        return log_ndtr((np.asarray(t, dtype=float) - c) / m)

    def _tradeoff_exact(self, alpha):
        with np.errstate(divide="ignore"):
            return ndtr(-ndtri(alpha) - self.mu)

    @property
    def auc(self) -> float:  # type: ignore[override]
        return float(ndtr(self.mu / math.sqrt(2.0)))

    @property
    def minimax_bayes_error(self) -> float:  # type: ignore[override]
        return float(ndtr(-self.mu / 2.0))

    @property
    def fixed_point(self) -> float:  # type: ignore[override]
        return self.minimax_bayes_error

    @property
    def gdp_mu(self) -> float:
        return self.mu

    @property
    def psi(self) -> float:
        """Sensitivity index ψ = sensitivity/σ (seed 001 Def 6); equal to μ (Lemma 6). See ``dpcompare.gaussian``."""
        return self.mu

    @property
    def _loss_scale(self) -> float:
        return self.mu

    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε) of seed 001 eq 7.1 without cancellation between the two Φ terms, for any real ε.

        δ = φ(z₀)·∫_{z₀}^{z₁}(1 − t·M(t)) dt where the terms are close (M the Mills ratio); see
        ``dpcompare.gaussian.profile`` (relative error ≲ 1e-12 for δ down to 1e-300 and below).
        """
        from ..gaussian.profile import _log_delta

        return _log_delta(self.mu, np.asarray(eps, dtype=float))

    def _epsilon_scalar(self, delta: float) -> float:
        """Certified monotone Newton in log space (``dpcompare.gaussian.profile``, seed 001 eq 6.7)."""
        if delta >= 1.0:
            return 0.0
        if delta <= 0.0:
            return float("inf")
        from ..gaussian.profile import _epsilon_scalar

        return _epsilon_scalar(self.mu, math.log(delta), delta)


@dataclass(frozen=True, repr=False)
class Laplace(PrivacyLossMechanism):
    """Laplace mechanism: P = Lap(0, b), Q = Lap(Δ, b); m = Δ/b is its pure-DP ε.

    The privacy loss L = (|x| − |x−Δ|)/b has atoms at ±m and a uniform-exponential middle:
    Pr_P(L > t) = ½e^{−(t+m)/2}, Pr_Q(L > t) = 1 − ½e^{−(m−t)/2} for t ∈ [−m, m).
    δ(ε) = 1 − e^{(ε−m)/2} for 0 ≤ ε < m (DESIGN.md §1); f as in Dong et al. 2022 (App. A):
    f(α) = 1 − e^m α (α < e^{−m}/2), e^{−m}/(4α) (α ≤ ½), e^{−m}(1 − α) (α > ½).
    AUC = 1 − e^{−m}(½ + m/4) (∫ of f).

    >>> import dpcompare as dc
    >>> round(float(dc.Laplace(b=1).delta(0.0)), 6)
    0.393469
    """

    b: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "b", check_positive("b", self.b))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        if not math.isfinite(self.m) or self.m <= 0:
            raise ValueError(f"sensitivity/b must be a positive finite number, got {self.m!r}")

    @property
    def m(self) -> float:
        return self.sensitivity / self.b

    @property
    def spec(self) -> str:
        return f"laplace(b={format_number(self.b)}, sensitivity={format_number(self.sensitivity)})" if self.sensitivity != 1.0 else f"laplace(b={format_number(self.b)})"

    def _log_sf(self, t, under):
        t = np.asarray(t, dtype=float)
        m = self.m
        tc = np.clip(t, -m, m)
        with np.errstate(divide="ignore"):
            if under == "P":
                mid = LOG_HALF - (tc + m) / 2
            else:
                mid = np.log1p(-0.5 * np.exp(-(m - tc) / 2))
        return np.where(t < -m, 0.0, np.where(t >= m, -np.inf, mid))

    def _log_cdf(self, t, under):
        t = np.asarray(t, dtype=float)
        m = self.m
        tc = np.clip(t, -m, m)
        with np.errstate(divide="ignore"):
            if under == "P":
                mid = np.log1p(-0.5 * np.exp(-(tc + m) / 2))
            else:
                mid = LOG_HALF - (m - tc) / 2
        return np.where(t < -m, -np.inf, np.where(t >= m, 0.0, mid))

    def _tradeoff_exact(self, alpha):
        a = np.asarray(alpha, dtype=float)
        m = self.m
        em = math.exp(-m)
        with np.errstate(divide="ignore", over="ignore"):
            out = np.where(a < em / 2, 1.0 - a / em, np.where(a <= 0.5, em / (4.0 * a), em * (1.0 - a)))
        return np.clip(out, 0.0, 1.0)

    @property
    def auc(self) -> float:  # type: ignore[override]
        return 1.0 - math.exp(-self.m) * (0.5 + self.m / 4.0)

    @property
    def _loss_scale(self) -> float:
        return self.m

    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε) in closed form: δ = 1 − e^{(ε−m)/2} on [−m, m), 1 − e^ε below −m, 0 from m on.

        (From δ = Q(L > ε) − e^ε P(L > ε) with the tails above; computed with expm1, so δ keeps its
        relative precision as ε → m, where the difference form and its quadrature fallback cannot
        resolve the atom of L at m.)
        """
        eps = np.asarray(eps, dtype=float)
        m = self.m
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = np.log(-np.expm1((np.minimum(eps, m) - m) / 2.0))
            below = np.log(-np.expm1(np.minimum(eps, 0.0)))
        return np.where(eps >= m, -np.inf, np.where(eps < -m, below, inner))

    def bayes_error_kinks(self) -> np.ndarray:
        """The atoms of L at ±m put kinks in R at π = 1/(1+e^{∓m})."""
        return expit(np.array([-self.m, self.m]))

    @property
    def gdp_mu(self) -> float:
        """μ* = −2Φ⁻¹(e^{−m/2}/2), attained at the fixed point (mechanisms/gdp.py)."""
        from .gdp import laplace_gdp_mu

        return laplace_gdp_mu(self.m)
