"""Mechanisms with a continuous (closed-form) privacy-loss distribution: Gaussian and Laplace.

Each implements the distribution of the privacy loss L = log(q/p) under P and under Q in log space;
the views follow ([BCP] App. A):

- R(π) = π·P(L > λ) + (1−π)·Q(L ≤ λ),  λ = log(π/(1−π))           (eq 2 with the NP test)
- δ(ε) = Q(L > ε) − e^ε·P(L > ε)                                     (eq 25), in log space per
  mechanism without the cancellation of the difference (``log_delta``)
- f(α) = F_Y(F_X⁻¹(1−α))                                             (eq 24), closed form per mechanism.

Both mechanisms are symmetric (f = f⁻¹), so no symmetrisation is needed.
"""

from __future__ import annotations

import abc
import enum
import functools
import math
from dataclasses import dataclass

import numpy as np

from .._numerics import LOG_HALF, divide_up, expit, log_ndtr, logit, ndtr, ndtri
from .. import directed_rounding as rnd
from ..directed_rounding import ELEM, TINY, U
from .._validation import POSITIVE, Param, check_params, format_number
from . import gaussian_profile
from ..tradeoff import Bracket, Sense
from .base import _ROUNDING_ABS, Mechanism, _ordered, epsilon_by_search, interval_bracket


#: 1/√2 (Φ(z) = ½·erfc(−z/√2))
_SQRT_HALF = math.sqrt(0.5)


def _twice(x: np.ndarray) -> np.ndarray:
    """[x, x] for a 1-d x (``np.tile(x, 2)`` without its Python overhead)."""
    return np.concatenate((x, x))


@functools.lru_cache(maxsize=None)
def _raw_is_directed(cls: type) -> bool:
    """Whether ``cls._bayes_error_directed_raw`` is ``cls._bayes_error_directed`` without its errstate: the class that
    defines the first also defines the second (a subclass that overrides ``_bayes_error_directed`` alone keeps its
    own, through the errstate it enters), or it is the default's (which calls ``_bayes_error_directed``)."""
    owner = next(c for c in cls.__mro__ if "_bayes_error_directed" in c.__dict__)
    raw_owner = next(c for c in cls.__mro__ if "_bayes_error_directed_raw" in c.__dict__)
    return owner is raw_owner or raw_owner is PrivacyLossMechanism


class Under(str, enum.Enum):
    """The distribution under which a privacy-loss tail is taken (a str Enum: "P" and "Q" compare equal)."""

    P = "P"
    Q = "Q"


class PrivacyLossMechanism(Mechanism):
    """A symmetric mechanism with closed-form privacy-loss tails; views are closed forms rounded outwards
    (brackets a few ulp wide around the real value, from each view's error analysis).

    A subclass supplies that analysis by overriding ``_bayes_error_directed``, ``_tradeoff_directed`` and
    ``_delta_bounds`` (the Gaussian and Laplace do); the defaults return the plain closed-form value as
    both ends, i.e. no outward rounding, so a subclass without its own analysis is exact only to the last
    few ulps of its formulas."""

    exact = True

    @abc.abstractmethod
    def _log_sf(self, t: np.ndarray, under: Under) -> np.ndarray:
        """log Pr(L > t) under P or Q."""

    @abc.abstractmethod
    def _log_cdf(self, t: np.ndarray, under: Under) -> np.ndarray:
        """log Pr(L ≤ t) under P or Q."""

    @abc.abstractmethod
    def _tradeoff_exact(self, alpha: np.ndarray) -> np.ndarray:
        """Closed-form f(α)."""

    # -- the tails, public for the engines that build on them (mixtures/: tails, joint concavity)
    def log_sf(self, t: np.ndarray, under: Under | str) -> np.ndarray:
        """log Pr(L > t) of the privacy loss L under P or Q (``under``: ``Under.P``/``"P"`` or ``Under.Q``/``"Q"``)."""
        return self._log_sf(t, under)

    def log_cdf(self, t: np.ndarray, under: Under | str) -> np.ndarray:
        """log Pr(L ≤ t) of the privacy loss L under P or Q."""
        return self._log_cdf(t, under)

    @property
    def loss_scale(self) -> float:
        """Width over which the privacy-loss tails change (scales discretisations of the loss)."""
        return self._loss_scale

    # -- derived views
    def _bayes_error_exact(self, pi: np.ndarray) -> np.ndarray:
        lam = logit(pi)
        with np.errstate(divide="ignore"):
            a = np.log(pi) + self._log_sf(lam, Under.P)
            b = np.log1p(-pi) + self._log_cdf(lam, Under.Q)
        return np.exp(np.logaddexp(a, b))

    def _bayes_error_bounds(self, pi: np.ndarray) -> Bracket:
        """R(π) rounded outwards by the mechanism's error analysis (``_bayes_error_directed``)."""
        lo, hi = self._bayes_error_directed(np.asarray(pi, dtype=float))
        return interval_bracket(lo, hi, Sense.LOWER)

    def bayes_error_interval(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``Mechanism.bayes_error_interval`` without building the intermediate Bracket of ``_bayes_error_bounds``
        when the directed ends are already ordered (then that Bracket's checks cannot fail and it holds the
        same doubles); anything else, or an overridden ``_bayes_error_bounds``, takes the general path."""
        if type(self)._bayes_error_bounds is PrivacyLossMechanism._bayes_error_bounds:
            lo, hi = self._bayes_error_directed(np.asarray(pi, dtype=float))
            if self._directed_r_in_range and np.asarray(lo - hi <= 0.0).all():
                # 0 ≤ lo ≤ hi ≤ min(π, 1 − π) with no NaN: the clip, the checks and the min/max below are the
                # identity (see ``_directed_r_in_range``); a 0-d result is returned as the scalar they returned
                return (lo[()], hi[()]) if lo.ndim == 0 else (lo, hi)
            if np.asarray(lo - hi <= 0.0).all():  # ordered, no NaN: interval_bracket's min/max, then the clip and checks
                return _ordered((np.minimum(lo, hi), np.maximum(lo, hi)), 0.0, np.minimum(pi, 1.0 - pi),
                                absolute=_ROUNDING_ABS + float(self.numerical_error))
        return super().bayes_error_interval(pi)

    def bayes_error_interval_unchecked(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``_bayes_error_directed``'s pair where ``bayes_error_interval`` returns it as it is whenever lo ≤ hi holds
        everywhere (its first branch: the default ``_bayes_error_bounds`` and a proved ``_directed_r_in_range``);
        None otherwise. The caller checks lo − hi ≤ 0 itself (e.g. on the rows of two mechanisms at once), and calls
        it under ``errstate(all="ignore")`` (``_bayes_error_directed_raw``: one errstate for several mechanisms)."""
        if type(self)._bayes_error_bounds is PrivacyLossMechanism._bayes_error_bounds and self._directed_r_in_range:
            return self._bayes_error_directed_raw(pi) if _raw_is_directed(type(self)) else self._bayes_error_directed(pi)
        return None

    #: whether ``_bayes_error_directed`` returns lo ≥ 0 and hi ≤ min(π, 1 − π) (with min computed as
    #: ``np.minimum(π, 1.0 − π)``) at every π ∈ [0, 1] where it returns no NaN; then lo ≤ hi alone makes its
    #: pair the bracket ``bayes_error_interval`` would clip and check (a subclass proves it in its docstring)
    #: (the one difference: at π = −0.0 the skipped clip at min(π, 1 − π) = −0.0 no longer turns a 0 into −0.0)
    _directed_r_in_range = False

    def _bayes_error_directed(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) doubles around the real R(π); the default has no error analysis and is the plain
        value, so every closed-form mechanism overrides it."""
        v = self._bayes_error_exact(pi)
        return v, v

    def _bayes_error_directed_raw(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``_bayes_error_directed`` under the caller's ``errstate(all="ignore")`` (a subclass whose own
        ``_bayes_error_directed`` is that errstate around this method overrides it: one errstate fewer)."""
        return self._bayes_error_directed(pi)

    def _tradeoff_directed(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) doubles around the real f(α) (see ``_bayes_error_directed``)."""
        v = self._tradeoff_exact(alpha)
        return v, v

    @abc.abstractmethod
    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε) in closed form, stable to δ far below 1e-300 (each mechanism writes its own: the
        difference Q(L > ε) − e^ε·P(L > ε) cancels in the far tail)."""

    @property
    @abc.abstractmethod
    def _loss_scale(self) -> float:
        """Width over which the privacy-loss tails change (used to scale discretisations)."""

    def _delta_bounds(self, eps: np.ndarray) -> Bracket:
        return Bracket.exact(np.exp(self.log_delta(eps)), Sense.UPPER)

    def _epsilon_scalar(self, delta: float) -> float:
        """The certified solver on log δ(ε) (works for δ ≪ 1e-300): ``base.epsilon_by_search``."""
        return epsilon_by_search(lambda e: float(np.exp(self.log_delta(np.asarray(e)))), delta,
                                 log_delta_at=lambda e: float(self.log_delta(np.asarray(e))))

    def _tradeoff_bounds(self, alpha: np.ndarray) -> Bracket:
        """f(α) rounded outwards by the mechanism's error analysis (``_tradeoff_directed``)."""
        lo, hi = self._tradeoff_directed(np.asarray(alpha, dtype=float))
        return interval_bracket(lo, hi, Sense.LOWER)


@dataclass(frozen=True, repr=False, init=False)
class Gaussian(PrivacyLossMechanism):
    """Gaussian mechanism G_μ, μ = sensitivity/σ: P = N(0, 1), Q = N(μ, 1).

    f(α) = Φ(Φ⁻¹(1−α) − μ) (Dong et al. 2022 eq 5); L ~ N(∓μ²/2, μ²) under P/Q;
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8); AUC = Φ(μ/√2) ([SI] eq 4.9).

    >>> import dpcompare as dc
    >>> g = dc.Gaussian(mu=1.0)
    >>> round(float(g.delta(0.0)), 6), round(g.auc, 6)
    (0.382925, 0.76025)
    """

    mu: float
    sigma: float | None
    sensitivity: float

    #: parameter domains (checked once, at construction)
    PARAMS = (Param("mu", POSITIVE, optional=True), Param("sigma", POSITIVE, optional=True), Param("sensitivity", POSITIVE))
    #: the R bracket is in range: ``_bayes_error_directed`` floors lo at 0 and caps hi at np.minimum(π, 1.0 − π)
    #: as its last steps (π ∈ {0, 1}: both ends 0, where that cap is 0)
    _directed_r_in_range = True

    def __init__(self, mu: float | None = None, *, sigma: float | None = None, sensitivity: float = 1.0) -> None:
        if mu is not None and sigma is not None:
            raise ValueError("give either mu or sigma (with sensitivity), not both")
        if mu is None and sigma is None:
            raise ValueError("give mu, or sigma (with sensitivity)")
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "sensitivity", 1.0 if mu is not None else sensitivity)
        check_params(self.PARAMS, self)
        if sigma is not None:
            m = divide_up(self.sensitivity, self.sigma)  # rounded up: never a smaller μ than given
            if not math.isfinite(m) or m <= 0:
                raise ValueError(f"sensitivity/sigma must be a positive finite number, got {m!r}")
            object.__setattr__(self, "mu", m)

    @property
    def spec(self) -> str:
        if self.sigma is not None:
            return f"gaussian(sigma={format_number(self.sigma)}, sensitivity={format_number(self.sensitivity)})"
        return f"gaussian(mu={format_number(self.mu)})"

    def _log_sf(self, t, under):
        # L ~ N(∓μ²/2, μ²): Pr(L > t) = Φ((c − t)/μ) with c/μ = ∓μ/2 (never forms μ², which overflows)
        m = self.mu
        h = -0.5 * m if under == Under.P else 0.5 * m
        with np.errstate(over="ignore"):  # t/μ = ±∞ for a subnormal μ: log Φ(∓∞) is exact
            return log_ndtr(h - np.asarray(t, dtype=float) / m)

    def _log_cdf(self, t, under):
        m = self.mu
        h = -0.5 * m if under == Under.P else 0.5 * m
        with np.errstate(over="ignore"):
            return log_ndtr(np.asarray(t, dtype=float) / m - h)

    def _tradeoff_exact(self, alpha):
        with np.errstate(divide="ignore"):
            return ndtr(-ndtri(alpha) - self.mu)

    def _tradeoff_directed(self, alpha):
        """f(α) = Φ(z), z = −Φ⁻¹(α) − μ, rounded outwards by a first-order error analysis:

        x̂ = ndtri(α) has relative error ≤ ``NDTRI_REL``, ẑ = fl(−x̂ − μ) adds u·|z|, so |ẑ − z| ≤ d =
        |x̂|·NDTRI_REL + |ẑ|·u (×1.01 for second order); log Φ moves by ≤ m·d with m = ``mills_bound``(ẑ − d)
        (d log Φ/dz = φ/Φ, decreasing); Φ(ẑ) itself has relative error ≤ ``ndtr_rel``(ẑ). Hence
        Φ(z) ∈ v·[e^{−r}, e^{r}], r = ndtr_rel + m·d. Below z = −37 scipy's ndtr underflows to 0 (erfc's
        exp(−z²/2) limit) while Φ(z) ≥ 1e-308 is a positive double, so there f = exp(log_ndtr(z)) (same
        bound: log_ndtr's absolute error, plus ELEM). Results in the subnormal range carry an absolute
        rounding of ≤ 2 subnormal units. α = 0 and α = 1 are exact (f = 1, 0).
        """
        a = np.asarray(alpha, dtype=float)
        mu = self.mu
        with np.errstate(all="ignore"):
            x = ndtri(a)
            z = -x - mu
            v = np.where(z > -37.0, ndtr(z), np.exp(log_ndtr(z)))
            d = 1.01 * (np.abs(x) * rnd.NDTRI_REL + np.abs(z) * U)
            r = 1.01 * (rnd.ndtr_rel(z) + rnd.mills_bound(z - d) * d)  # ×1.01: the second-order products
            r = np.where(np.isfinite(z), r, 0.0)  # α ∈ {0, 1}: Φ(±∞) exact
            lo = rnd.lower(v, r, 2.0 * TINY)
            hi = rnd.upper(v, np.expm1(r), 2.0 * TINY, ceil=1.0)
        exact = ~np.isfinite(z)
        return np.where(exact, v, lo), np.where(exact, v, hi)

    def _bayes_error_directed(self, pi):
        """``_bayes_error_directed_raw`` under ``errstate(all="ignore")``."""
        with np.errstate(all="ignore"):
            return self._bayes_error_directed_raw(pi)

    def _bayes_error_directed_raw(self, pi):
        """R(π) = A + B, A = π·Φ(z_a), B = (1 − π)·Φ(z_b), z_a = −λ/μ − μ/2, z_b = λ/μ − μ/2, λ = log π − log1p(−π)
        ([BCP] eq 2 with the NP test), summed in linear space from the log terms a = log π + log Φ(z_a),
        b = log(1 − π) + log Φ(z_b), and rounded outwards by a first-order error analysis:

        |λ̂ − λ| ≤ dλ = ELEM·(|log π| + |log(1 − π)|) + u·|λ| (for |π − ½| ≤ ¼, λ = log1p((2π − 1)/(1 − π)) and
        dλ = (ELEM + 5u)·|λ|, relative, so tiny μ keep a tight bound near π = ½); |ẑ − z| ≤ d = dλ/μ + u·(|λ/μ| + |z|)
        (×1.01); each log term is off by ≤ e = ELEM·|log π| (resp. |log(1 − π)|) + ν(z) + m(z − d)·d + u·|term|,
        with ν = ``ndtr_rel_coarse_raw`` ≥ ``ndtr_rel`` (log_ndtr's absolute error) and m = ``mills_bound_coarse``
        ≥ ``mills_bound`` ≥ d log Φ/dz on [z − d, z + d]. Each term T = e^t is taken as T̂ = fl(exp(t̂)) =
        e^{t̂}(1 + θ), |θ| ≤ ELEM in the normal range (≤ 4 subnormal units below it), so
        |T − T̂| ≤ e^{t̂}·expm1(e) + ELEM·e^{t̂} ≤ T̂·(expm1(e) + ELEM)(1 + 2ELEM) (+ 8 subnormal units); and
        v = fl(Â + B̂) adds ≤ u·v. Hence |R − v| ≤ 1.01·(Â·expm1(eₐ) + B̂·expm1(e_b) + (ELEM + 2u)·v) + 16 subnormal
        units, each term weighted by its own size (the shares of the log-space sum without computing them); the
        ×1.01 covers the (1 + 2ELEM) and the rounding of the bound's own few operations. A term whose T̂ is 0 (its
        t̂ below the subnormal range, or −∞ at π ∈ {0, 1}) has T ≤ e^{t̂ + e}, far below a subnormal unit (e grows
        like 8u·z², t̂ falls like −z²/2), and enters only through the absolute units. The ends are v ∓ that bound
        (×(1 + 8u)) moved one ulp outwards (``directed_rounding.outward_raw``'s operations; its proof).
        Under the caller's ``errstate(all="ignore")`` (``_bayes_error_directed`` is this method under it).
        """
        pi = np.asarray(pi, dtype=float)
        shape, n = pi.shape, pi.size
        pi = pi.ravel()
        mu = self.mu
        # The two terms run side by side as the rows of (2, n) arrays (z = [zₐ; z_b], ...), and the lower and
        # upper ends as the rows of one (2, n) array: one numpy call per operation on these small arrays, in place
        # where the operands commute (a + b and b + a, a·b and b·a are the same double), and a ``where=`` ufunc
        # argument for the branch near ½ (tests/mechanisms/test_r_bracket_layout.py compares this layout with the
        # term-by-term formulas bit for bit)
        logw = np.empty((2, n))  # [log π; log(1 − π)]
        lp, lq = logw[0], logw[1]
        np.log(pi, out=lp)
        np.log1p(-pi, out=lq)
        q = 1.0 - pi
        # near π = ½, λ = log1p((2π − 1)/(1 − π)): 2π − 1 is exact (Sterbenz) and the quotient within 2u(1 + u),
        # which log1p turns into ≤ 4u relative to λ (|q/((1 + q)·log1p(q))| ≤ 2 on q ∈ [−⅔, 2]), plus its ELEM;
        # the difference log π − log(1 − π) would carry ELEM·1.4 absolute, i.e. 1e-7 relative to z at μ = 1e-8
        mid = np.abs(pi - 0.5) <= 0.25
        lam = lp - lq
        arg = 2.0 * pi
        arg -= 1.0
        arg /= q
        np.log1p(arg, out=lam, where=mid)  # (np.where(mid, log1p(arg), lp − lq))
        ratio = lam / mu
        z = np.empty((2, n))  # [zₐ; z_b]
        np.subtract(-0.5 * mu, ratio, out=z[0])
        np.subtract(ratio, 0.5 * mu, out=z[1])
        terms = log_ndtr(z)
        terms += logw  # [a; b]
        lin = np.exp(terms)  # [Â; B̂]
        v = lin[0] + lin[1]
        # (the absolute values, the division by μ and the products by ELEM and u in place where the operand is not read
        # again: x·c is c·x, the same doubles without temporaries)
        alam = np.abs(lam, out=lam)
        alogw = np.abs(logw, out=logw)
        dlam = alogw[0] + alogw[1]  # ELEM·(|log π| + |log(1 − π)|) + u·|λ|, or (ELEM + 5u)·|λ| near ½
        dlam *= ELEM
        dlam += U * alam
        np.multiply(ELEM + 5.0 * U, alam, out=dlam, where=mid)
        aratio = np.abs(ratio, out=ratio)
        d = np.abs(z)  # 1.01·(dλ/μ + u·(|λ/μ| + |z|))
        d += aratio
        d *= U
        dlam /= mu
        d += dlam
        d *= 1.01
        alogw *= ELEM
        elog = alogw
        eterm = np.abs(terms, out=terms)
        eterm *= U
        # ``ndtr_rel_coarse_raw``(z) and ``mills_bound_coarse_raw``(z − d) with their operations in place on this call's
        # own arrays (x·x squared in place, 0.5·y as y·0.5, c + y as y + c: the same doubles, fewer temporaries)
        e = np.minimum(z, 0.0)  # 8u·min(z, 0)² + (26u + ELEM)
        e *= e
        e *= 8.0 * U
        e += 26.0 * U + ELEM
        e += elog
        mb = z - d  # t = z − d; max(1 − t, 0.8/(1 + 0.5·t²))
        tt = mb * mb
        tt *= 0.5
        tt += 1.0
        np.divide(0.8, tt, out=tt)
        np.subtract(1.0, mb, out=mb)
        np.maximum(mb, tt, out=mb)
        mb *= d
        e += mb
        e += eterm
        # z = +∞ (λ/μ overflowed: the real z exceeds 1e308) has Φ = 1 to far below rounding; z = +∞ needs
        # |λ/μ| = ∞ (μ is finite), so the where is skipped when no |λ/μ| is (max is NaN only for a NaN π)
        if n and not np.maximum.reduce(aratio) < np.inf:  # (``aratio.max()`` without its Python wrapper)
            np.copyto(e, elog + eterm, where=z == np.inf)  # (np.where(z == ∞, elog + eterm, e), in place)
        # a term whose T̂ is 0 has no relative error term: np.where(lin > 0, expm1(e), 0)·lin, with the 0 set in place
        # where lin ≤ 0 (lin = e^t ≥ 0, so that is lin = 0; a NaN lin gives a NaN product either way)
        err = np.expm1(e, out=e)
        np.copyto(err, 0.0, where=lin <= 0.0)
        err *= lin
        bound = err[0] + err[1]
        bound += (ELEM + 2.0 * U) * v
        bound *= 1.01
        bound += 16.0 * TINY
        bound *= 1.0 + 8.0 * U
        bound += 2.0 * TINY
        lohi = rnd.outward_margin(v, bound)  # [lower; upper]
        lo, hi = lohi[0], lohi[1]
        np.maximum(lo, 0.0, out=lo)  # lower's floor 0 (np.maximum returns a NaN operand as it is)
        cap = np.minimum(pi, q)
        np.minimum(hi, cap, out=hi)
        # π ∈ {0, 1} (and outside [0, 1]) is exactly cap ≤ 0: min(π, 1 − π) ≤ 0 iff π ≤ 0 or 1 − π ≤ 0, and fl(1 − π)
        # is 0 only at π = 1 (a NaN π is neither)
        np.copyto(lohi, 0.0, where=cap <= 0.0)  # both ends at once (the (n,) mask broadcast over the rows [lo; hi])
        return lo.reshape(shape), hi.reshape(shape)

    # -- uncertified estimates: they only place points (the prior sweep's crossing seeds), never a reported number
    def bayes_error_estimate(self, pi: np.ndarray) -> np.ndarray:
        """R(π) = π·Φ(z_a) + (1 − π)·Φ(z_b), z_a = −λ/μ − μ/2, z_b = λ/μ − μ/2, λ = log(π/(1 − π)) ([BCP] eq 2
        with the NP test), plainly in floating point (no error bound: a location, never a reported value).

        >>> round(float(Gaussian(mu=1.0).bayes_error_estimate(np.array(0.5))), 6)  # Φ(−½)
        0.308538
        """
        pi = np.asarray(pi, dtype=float)
        mu = self.mu
        with np.errstate(all="ignore"):
            r = (np.log(pi) - np.log1p(-pi)) / mu
            z = np.empty((2,) + r.shape)  # [z_a; z_b], one ndtr call (−½μ − r is the double −r − ½μ)
            np.subtract(-0.5 * mu, r, out=z[0, ...])
            np.subtract(r, 0.5 * mu, out=z[1, ...])
            phi = ndtr(z)
            return pi * phi[0] + (1.0 - pi) * phi[1]

    def bayes_error_and_slope(self, pi: float) -> tuple[float, float]:
        """(R(π), R′(π)) for a float π ∈ (0, 1) with ``math`` only (a location for a root search, no error bound).

        R′(π) = Φ(z_a) − Φ(z_b) = P(L > λ) − Q(L ≤ λ): R is the minimum over tests of π·α + (1 − π)·β, so its
        derivative is the optimal test's α − β (envelope theorem; R is concave, [BCP] §2).

        >>> r, s = Gaussian(mu=1.0).bayes_error_and_slope(0.5)
        >>> round(r, 6), s
        (0.308538, 0.0)
        """
        mu = self.mu
        ratio = (math.log(pi) - math.log1p(-pi)) / mu
        pa = 0.5 * math.erfc((ratio + 0.5 * mu) * _SQRT_HALF)  # Φ(z_a) = ½erfc(−z_a/√2)
        pb = 0.5 * math.erfc((0.5 * mu - ratio) * _SQRT_HALF)
        return pi * pa + (1.0 - pi) * pb, pa - pb

    @property
    def auc(self) -> float:  # type: ignore[override]
        """AUC = Φ(μ/√2) ([SI] eq 4.9), rounded up (a larger AUC is less private): z = μ/√2 carries 2u·z
        (√2 and the quotient), which moves log Φ by ≤ ``mills_bound``·2u·z, plus Φ's own ``ndtr_rel``."""
        z = self.mu / math.sqrt(2.0)
        with np.errstate(all="ignore"):
            d = 2.02 * U * z
            r = float(rnd.ndtr_rel(z) + rnd.mills_bound(z - d) * d)
            return float(min(rnd.upper(ndtr(z), math.expm1(r)), 1.0))

    @property
    def minimax_bayes_error(self) -> float:  # type: ignore[override]
        """R* = R(½) = Φ(−μ/2), the directed lower end of the Bayes error view."""
        return float(self.bayes_error(0.5))

    @property
    def fixed_point(self) -> float:  # type: ignore[override]
        return self.minimax_bayes_error

    @property
    def gdp_mu(self) -> float:
        return self.mu

    @property
    def psi(self) -> float:
        """Sensitivity index ψ = sensitivity/σ ([SI] Def 6); equal to μ (Lemma 6). See ``dpcompare.gaussian``."""
        return self.mu

    @property
    def _loss_scale(self) -> float:
        return self.mu

    def log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε) of [SI] eq 7.1 without cancellation between the two Φ terms, for any real ε.

        δ = φ(z₀)·∫_{z₀}^{z₁}(1 − t·M(t)) dt where the terms are close (M the Mills ratio); see
        :mod:`dpcompare.mechanisms.gaussian_profile` (its error bound: ``gaussian_profile.log_delta_error``).
        """
        eps = np.asarray(eps, dtype=float)
        if eps.ndim == 0:
            return np.asarray(gaussian_profile.log_delta_scalar(self.mu, float(eps))[0])
        return gaussian_profile.log_delta(self.mu, eps)

    def _delta_bounds(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε) rounded outwards by a proved first-order bound of its evaluation error
        (``gaussian_profile.delta_bounds``: from the stated accuracy of log_ndtr, erfcx and each floating-point
        step; ≤ 1e-11 relative over μ ∈ [1e-300, 40], ε ∈ [0, 1e4] where δ is a normal double); δ > 0 at every
        finite ε (the loss is unbounded), so an underflow is reported as the smallest positive double, never as 0."""
        return gaussian_profile.delta_bounds(self.mu, np.asarray(eps, dtype=float))

    def _epsilon_scalar(self, delta: float) -> float:
        """Monotone Newton in log space certified by the one solver ([SI] eq 6.7;
        :func:`dpcompare.mechanisms.gaussian_profile.epsilon`)."""
        return gaussian_profile.epsilon(self.mu, delta)


@dataclass(frozen=True, repr=False)
class Laplace(PrivacyLossMechanism):
    """Laplace mechanism: P = Lap(0, b), Q = Lap(Δ, b); m = Δ/b is its pure-DP ε.

    The privacy loss L = (|x| − |x−Δ|)/b has atoms at ±m and a uniform-exponential middle:
    Pr_P(L > t) = ½e^{−(t+m)/2}, Pr_Q(L > t) = 1 − ½e^{−(m−t)/2} for t ∈ [−m, m).
    δ(ε) = 1 − e^{(ε−m)/2} for 0 ≤ ε < m; f as in Dong et al. 2022 (App. A):
    f(α) = 1 − e^m α (α < e^{−m}/2), e^{−m}/(4α) (α ≤ ½), e^{−m}(1 − α) (α > ½).
    AUC = 1 − e^{−m}(½ + m/4) (∫ of f).

    >>> import dpcompare as dc
    >>> round(float(dc.Laplace(b=1).delta(0.0)), 6)
    0.393469
    """

    b: float
    sensitivity: float = 1.0

    #: parameter domains (checked once, at construction)
    PARAMS = (Param("b", POSITIVE), Param("sensitivity", POSITIVE))
    #: the R bracket is in range: lo = min(π, 1 − π rounded down, a lower end floored at 0) is ≥ 0 and at most
    #: min(π, fl(1 − π)); hi = max(min(π, fl(1 − π), ·), lo) is then at most min(π, fl(1 − π)) too
    _directed_r_in_range = True

    def __post_init__(self) -> None:
        check_params(self.PARAMS, self)
        object.__setattr__(self, "_m_value", divide_up(self.sensitivity, self.b))
        if not math.isfinite(self.m) or self.m <= 0:
            raise ValueError(f"sensitivity/b must be a positive finite number, got {self.m!r}")

    @property
    def m(self) -> float:
        """m = Δ/b, rounded up (a larger m is less private, so the rounding errs on the safe side)."""
        return self._m_value

    @property
    def spec(self) -> str:
        return f"laplace(b={format_number(self.b)}, sensitivity={format_number(self.sensitivity)})" if self.sensitivity != 1.0 else f"laplace(b={format_number(self.b)})"

    def _log_sf(self, t, under):
        t = np.asarray(t, dtype=float)
        m = self.m
        tc = np.clip(t, -m, m)
        with np.errstate(divide="ignore"):
            if under == Under.P:
                mid = LOG_HALF - (tc + m) / 2
            else:
                mid = np.log1p(-0.5 * np.exp(-(m - tc) / 2))
        return np.where(t < -m, 0.0, np.where(t >= m, -np.inf, mid))

    def _log_cdf(self, t, under):
        t = np.asarray(t, dtype=float)
        m = self.m
        tc = np.clip(t, -m, m)
        with np.errstate(divide="ignore"):
            if under == Under.P:
                mid = np.log1p(-0.5 * np.exp(-(tc + m) / 2))
            else:
                mid = LOG_HALF - (m - tc) / 2
        return np.where(t < -m, -np.inf, np.where(t >= m, 0.0, mid))

    def _tradeoff_exact(self, alpha):
        # in log space: e^{−m} underflows for m > 745 (b ≲ 1.34e-3 at Δ = 1), and a/e^{−m} was 0/0
        a = np.asarray(alpha, dtype=float)
        m = self.m
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            la = np.log(a)
            steep = 1.0 - np.exp(la + m)                          # α < e^{−m}/2
            middle = np.exp(-m - math.log(4.0) - la)              # e^{−m}/2 ≤ α ≤ ½
            flat = np.exp(-m + np.log1p(-np.minimum(a, 1.0)))     # α > ½
            out = np.where(la < -m - math.log(2.0), steep, np.where(a <= 0.5, middle, flat))
        return np.clip(np.where(a <= 0.0, 1.0, out), 0.0, 1.0 - a)

    def _tradeoff_directed(self, alpha):
        """f(α) of ``_tradeoff_exact`` rounded outwards by a first-order error analysis (m the stored
        double, la = fl(log α) within ELEM·|log α|):

        - steep piece 1 − y, y = exp(la + m) ≤ ½: y is within r_y = ELEM·(1 + |la|) + u·|la + m| relative,
          so 1 − y within (r_y·y + u)/(1 − y) ≤ 2r_y·y + 2u relative (1 − y ≥ ½);
        - middle e^{−m}/(4α) = exp(−m − log 4 − la): within ELEM + ELEM·|la| + u·(m + log 4 + 2|la| + |arg|);
        - flat e^{−m}(1 − α) = exp(−m + log1p(−α)): within ELEM + ELEM·|log1p(−α)| + u·(m + 2|log1p(−α)|).

        All three are exact formulas of f on their pieces, and the steep and flat pieces are tangent lines
        of the convex f (so lower bounds everywhere); the middle piece is tangent to both at the piece
        ends (slopes −e^m at α = e^{−m}/2, −e^{−m} at ½), so choosing it on the wrong side of a boundary
        because log α rounded costs O(u²) relative, inside the ×1.01. α = 0 is exact (f = 1).
        """
        a = np.asarray(alpha, dtype=float)
        m = self.m
        v = self._tradeoff_exact(a)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            la = np.log(a)
            y = np.exp(la + m)
            l1 = np.log1p(-np.minimum(a, 1.0))
            r_steep = 2.0 * (ELEM * (1.0 + np.abs(la)) + U * np.abs(la + m)) * np.minimum(y, 1.0) + 2.0 * U
            arg = -m - math.log(4.0) - la
            r_mid = ELEM * (1.0 + np.abs(la)) + U * (m + 2.0 * math.log(4.0) + 2.0 * np.abs(la) + np.abs(arg))
            r_flat = ELEM * (1.0 + np.abs(l1)) + U * (m + 2.0 * np.abs(l1))
            r = np.where(la < -m - math.log(2.0), r_steep, np.where(a <= 0.5, r_mid, r_flat))
            r = 1.01 * r + 2.0 * U  # + the clip/where copies exactly; 2u for the fl of the clip bound 1 − α
        exact = (a <= 0.0) | (a >= 1.0)
        lo = rnd.lower(v, r, 2.0 * TINY)
        lo = np.minimum(lo, rnd.one_minus_down(np.clip(a, 0.0, 1.0)))
        hi = rnd.upper(v, r, 2.0 * TINY, ceil=1.0)
        return np.where(exact, v, lo), np.where(exact, v, hi)

    def _bayes_error_directed(self, pi):
        """``_bayes_error_directed_raw`` under ``errstate(all="ignore")``."""
        with np.errstate(all="ignore"):
            return self._bayes_error_directed_raw(pi)

    def _bayes_error_directed_raw(self, pi):
        """R(π) = min(π, 1 − π, e^{−m/2}·√(π(1 − π))) rounded outwards.

        On [−m, m) the tails give R = π·½e^{−(λ+m)/2} + (1 − π)·½e^{−(m−λ)/2} with e^{λ/2} = √(π/(1 − π)),
        i.e. e^{−m/2}√(π(1 − π)); outside, R = π (λ < −m) or 1 − π (λ ≥ m). g(π) = e^{−m/2}√(π(1 − π)) − π is
        concave with g(0) = 0 = g(1/(1 + e^m)), so the three-way minimum is R everywhere (no branch on a
        rounded λ). π is exact, 1 − π is taken rounded down (``one_minus_down``); the product π·(1 − π)
        (u), sqrt (ELEM), exp(−m/2) (ELEM + u·m/2) and the last product (u) give ≤ 2ELEM + 3u + u·m/2
        relative (×1.01), and the subnormal range ≤ 2 subnormal units absolute. Under the caller's
        ``errstate(all="ignore")`` (``_bayes_error_directed`` is this method under it).
        """
        pi = np.asarray(pi, dtype=float)
        shape, n = pi.shape, pi.size
        pi = pi.ravel()
        m = self.m
        r = 1.01 * (2.0 * ELEM + 4.0 * U + U * 0.5 * m)
        # oq = [(1 − π)↓; fl(1 − π)] (np.clip(π, 0, 1) as two ufuncs: the same doubles, NaN propagated, without
        # clip's Python wrapper); the lower end's e^{−m/2}·√(π·(1 − π)↓) and the upper end's e^{−m/2}·√(π·fl(1 − π))
        # as the rows of one (2, n) array
        oq = np.empty((2, n))
        oq[0] = rnd.one_minus_down(np.minimum(np.maximum(pi, 0.0), 1.0))
        np.subtract(1.0, pi, out=oq[1])
        scale = np.exp(-0.5 * m)  # (one exp for both ends: the same double each time)
        mids = pi * oq
        np.sqrt(mids, out=mids)
        mids *= scale
        # both ends rounded outwards at once: ``outward_raw``'s operations bit for bit, with the two steps that are
        # the identity here left out. mids is ≥ 0, −0.0 or NaN (a square root times e^{−m/2} ≤ 1 of a product in
        # [0, 1]), so rel·|v| + abs = rel·v + abs (abs = 2 subnormal units > 0: rel·(−0.0) + abs = rel·0 + abs), and
        # the margin is > 0 wherever v is finite, so its mask (m > 0) & isfinite(v) selects every finite v; a NaN v
        # gives a NaN either way
        mg = self._r_rel(r) * mids
        mg += 2.0 * TINY
        mg *= 1.0 + 8.0 * U
        mg += 2.0 * TINY
        lohi = rnd.outward_margin(mids, mg)
        np.maximum(lohi[0], 0.0, out=lohi[0])  # the lower end's floor 0
        caps = np.minimum(pi, oq)  # [min(π, (1 − π)↓); min(π, fl(1 − π))]
        np.minimum(caps, lohi, out=caps)
        lo, hi = caps[0], caps[1]
        np.maximum(hi, lo, out=hi)
        return lo.reshape(shape), hi.reshape(shape)

    def bayes_error_estimate(self, pi: np.ndarray) -> np.ndarray:
        """R(π) = min(π, 1 − π, e^{−m/2}·√(π(1 − π))) plainly in floating point (see ``_bayes_error_directed``; no
        error bound: a location for the prior sweep's crossing seeds, never a reported value).

        >>> round(float(Laplace(b=1.0).bayes_error_estimate(np.array(0.5))), 6)  # e^{−½}/2
        0.303265
        """
        pi = np.asarray(pi, dtype=float)
        q = 1.0 - pi
        with np.errstate(all="ignore"):
            return np.minimum(np.minimum(pi, q), math.exp(-0.5 * self.m) * np.sqrt(pi * q))

    def bayes_error_and_slope(self, pi: float) -> tuple[float, float]:
        """(R(π), R′(π)) for a float π ∈ (0, 1) with ``math`` only: the smallest of the three pieces of R and its
        derivative (1, −1, or e^{−m/2}·(1 − 2π)/(2√(π(1 − π)))); a location for a root search, no error bound.

        >>> Laplace(b=1.0).bayes_error_and_slope(0.01)  # below the kink 1/(1 + e): R = π
        (0.01, 1.0)
        """
        q = 1.0 - pi
        root = math.sqrt(pi * q)
        mid = math.exp(-0.5 * self.m) * root
        if pi <= q and pi <= mid:
            return pi, 1.0
        if q <= mid:
            return q, -1.0
        return mid, math.exp(-0.5 * self.m) * (q - pi) / (2.0 * root)

    @staticmethod
    def _r_rel(r: float) -> np.ndarray:
        """The relative error bounds of the two rows of ``_bayes_error_directed``: r (lower end) and r + 2u (upper)."""
        return np.array([[r], [r + 2.0 * U]])

    @property
    def auc(self) -> float:  # type: ignore[override]
        """AUC = 1 − e^{−m}(½ + m/4), rounded up (a larger AUC is less private): x = e^{−m}(½ + m/4) is within
        (ELEM + u·m + 3u)·x (exp of −m, m/4 + ½ and the product), and 1 − x adds u."""
        x = math.exp(-self.m) * (0.5 + self.m / 4.0)
        err = 1.01 * (ELEM + U * self.m + 3.0 * U) * x
        return float(min(rnd.upper(1.0 - x, U, err), 1.0))

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

    def _delta_bounds(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε) rounded outwards: fl(ε − m) has relative error ≤ u and −expm1(x) amplifies it by
        |x·eˣ/(eˣ − 1)| ≤ 1 (x ≤ 0); expm1 and log add a few u, and exp(log δ) adds (1 + |log δ|)·u. δ is
        widened by u·(8 + |log δ|) and moved one ulp up, so it is never below the real δ of the stored m
        (which is Δ/b rounded up). Checked against mpmath in tests/package/test_edge_regressions.py (3000 draws; the
        plain value was below the truth in 15 % of them, by ≤ 7.8e-16 relative)."""
        d = np.exp(self.log_delta(eps))
        with np.errstate(divide="ignore"):
            bound = 2.0**-53 * (8.0 + np.abs(np.where(d > 0, np.log(np.where(d > 0, d, 1.0)), 0.0)))
        up = np.where(d > 0, np.minimum(np.nextafter(d * (1.0 + bound), np.inf), 1.0), 0.0)
        down = np.maximum(np.nextafter(d * (1.0 - bound), -np.inf), 0.0)
        return down, up

    def _epsilon_scalar(self, delta: float) -> float:
        """Closed form ε = m + 2·log(1 − δ) for δ < δ(0) = 1 − e^{−m/2} (inverting ``log_delta``),
        certified by the one solver started there (``base.epsilon_by_search``)."""
        m = self.m
        start = m + 2.0 * math.log1p(-delta) if 0.0 < delta < 1.0 else None
        return epsilon_by_search(lambda e: float(self._delta_bounds(np.asarray(e))[1]), delta,
                                 log_delta_at=lambda e: float(self.log_delta(np.asarray(e))),
                                 hi=m, start=start if start is not None and 0.0 < start < m else None,
                                 step=1e-15, rtol=0.0)

    def bayes_error_kinks(self) -> np.ndarray:
        """The atoms of L at ±m put kinks in R at π = 1/(1+e^{∓m})."""
        return expit(np.array([-self.m, self.m]))

    @property
    def gdp_mu(self) -> float:
        """μ* = −2Φ⁻¹(e^{−m/2}/2), attained at the fixed point (mechanisms/gdp.py)."""
        from .gdp import laplace_gdp_mu

        return laplace_gdp_mu(self.m)
