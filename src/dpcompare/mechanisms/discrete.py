"""Exactly discrete mechanisms: randomized response, pure and approximate DP, the extremal mechanisms
of [BCP] §3.4, and a piecewise-linear trade-off curve given by its vertices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import directed_rounding as rnd
from ..directed_rounding import ELEM, TINY, U
from .._validation import NONNEGATIVE, UNIT, Param, check_params, format_number
from ..tradeoff import DiscretePair, PairBracket, Sense
from .base import interval_bracket
from .pair_backed import PairMechanism


def _f_eps_delta(eps: float, delta: float, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) doubles around f_{ε,δ}(α) = max(0, t₁, t₂), t₁ = 1 − δ − e^ε·α, t₂ = e^{−ε}(1 − δ − α)
    (Dong et al. 2022, Prop 2.5; Kairouz et al. 2015), each term bounded on its own (the maximum of lower
    bounds is a lower bound of the maximum):

    - 1 − δ − α by cascaded TwoSum (``sum3``: within u·|s| + γ₂²·(1 + δ + α)), times e^{−ε} (ELEM) and the
      product (u): t₂ within (2u + ELEM) relative + γ₂²·3·e^{−ε} absolute;
    - y = e^ε·α within (ELEM + u)·y (as exp(ε + log α) for ε ≥ 709: ELEM·(1 + |log α|) + u·|ε + log α|), then 1 − δ − y by ``sum3``: t₁ within u relative + (ELEM + u)·y + γ₂²·3.

    Near the kink α* = (1 − δ)/(1 + e^ε) with a large ε the slope e^ε amplifies the error of y; t₂, which
    is accurate there, then carries the lower bound, and the gap is ≤ (ELEM + 2u)·e^ε·α absolute.
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        s, es = rnd.sum3(1.0, -delta, -a)
        w = math.exp(-eps)
        t2 = w * s
        e2 = w * es * (1.0 + 4.0 * U) + 2.0 * TINY
        r2 = 1.01 * (2.0 * U + ELEM)
        if eps < 709.0:
            y = np.exp(eps) * a
            ry = ELEM + U
        else:  # e^ε overflows: y = exp(ε + log α), whose argument carries ELEM·|log α| + u·|ε + log α|
            la = np.log(a)
            y = np.exp(eps + la)
            ry = ELEM + ELEM * np.abs(la) + U * np.abs(eps + la)
        t1, e1s = rnd.sum3(1.0, -delta, -y)
        e1 = e1s + 1.01 * ry * y
        lo = np.maximum(rnd.lower(np.maximum(t1, 0.0), U, e1), rnd.lower(np.maximum(t2, 0.0), r2, e2))
        hi = np.maximum(rnd.upper(np.maximum(t1, 0.0), U, e1), rnd.upper(np.maximum(t2, 0.0), r2, e2))
    hi = np.minimum(np.where(np.isnan(hi), 1.0, hi), 1.0)
    lo = np.where(np.isnan(lo), 0.0, lo)
    exact = a <= 0.0  # f(0) = 1 − δ: the lower end rounded down, the upper end up
    lo = np.where(exact, rnd.one_minus_down(delta), lo)
    hi = np.where(exact, np.minimum(1.0, rnd.upper(1.0 - delta, U)), hi)
    return lo, np.maximum(hi, lo)


def _r_eps_delta(eps: float, delta: float, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) doubles around R(π) = min(π(1 − δ), (1 − π)(1 − δ), (1 − δ)/(1 + e^ε)), the Bayes
    error of f_{ε,δ} ([BCP] eq 2 over its three vertices (0, 1 − δ), (α*, α*), (1 − δ, 0)).

    1 − δ and 1 − π are rounded down (``one_minus_down``), each product adds u; (1 − δ)/(1 + e^ε) is
    (1 − δ)·w/(1 + w), w = e^{−ε} (no overflow): ELEM + (ELEM + u) + 2u relative; subnormal results carry
    2 subnormal units absolute.
    """
    pi = np.asarray(pi, dtype=float)
    c_lo = float(rnd.one_minus_down(delta))
    c_hi = 1.0 - delta
    om_lo = rnd.one_minus_down(np.clip(pi, 0.0, 1.0))
    w = math.exp(-eps)
    mid = w / (1.0 + w)
    r_mid = 1.01 * (2.0 * ELEM + 4.0 * U)
    with np.errstate(under="ignore"):
        lo = np.minimum(np.minimum(rnd.lower(pi * c_lo, U, 2 * TINY), rnd.lower(om_lo * c_lo, U, 2 * TINY)),
                        rnd.lower(c_lo * mid, r_mid, 2 * TINY))
        up = [rnd.upper(pi * c_hi, 2 * U, 2 * TINY), rnd.upper((1.0 - pi) * c_hi, 3 * U, 2 * TINY),
              rnd.upper(c_hi * mid, r_mid + U, 2 * TINY)]
    hi = np.minimum(np.minimum(np.minimum(up[0], up[1]), up[2]), np.minimum(pi, 1.0 - pi))
    return lo, np.maximum(hi, lo)


class _ClosedFormViews:
    """f and R of f_{ε,δ} in closed form, rounded outwards (instead of the pair's interpolation, whose
    last digit could land on either side of the truth)."""

    def _eps_delta(self) -> tuple[float, float]:
        raise NotImplementedError

    def _tradeoff_bounds(self, alpha):
        eps, delta = self._eps_delta()
        return interval_bracket(*_f_eps_delta(eps, delta, alpha), Sense.LOWER)

    def _bayes_error_bounds(self, pi):
        eps, delta = self._eps_delta()
        return interval_bracket(*_r_eps_delta(eps, delta, pi), Sense.LOWER)


def _rr_pair(eps: float, delta: float = 0.0) -> DiscretePair:
    """Pair of f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong et al. 2022, Prop 2.5;
    Kairouz et al. 2015): P = (δ at −∞, (1−δ)e^ε/(1+e^ε) at ℓ = −ε, (1−δ)/(1+e^ε) at ℓ = +ε)."""
    if eps == 0.0:
        loss = np.array([0.0])
        log_p = np.array([math.log1p(-delta)]) if delta < 1 else np.array([-np.inf])
    else:
        # log((1−δ) e^ε/(1+e^ε)) and log((1−δ)/(1+e^ε)), stable for large ε
        # (log q exactly too: log_p + loss would lose log(1 − δ) to rounding at ε = 1e15)
        base = math.log1p(-delta) if delta < 1 else -math.inf
        log_hi = base - math.log1p(math.exp(-eps))
        log_lo = base - eps - math.log1p(math.exp(-eps))
        loss = np.array([-eps, eps])
        log_p = np.array([log_hi, log_lo])
        return DiscretePair.from_atoms(loss, log_p, p_neg_inf=delta, q_pos_inf=delta, log_q=log_p[::-1].copy())
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=delta, q_pos_inf=delta)


@dataclass(frozen=True, repr=False)
class RandomizedResponse(_ClosedFormViews, PairMechanism):
    """Binary randomized response with ε: P = (e^ε, 1)/(1+e^ε), Q = (1, e^ε)/(1+e^ε).

    Trade-off f(α) = max(1 − e^ε α, e^{−ε}(1 − α)); with ε = log(0.6/0.4) the curve runs from 1.0 at
    α = 0 to 0.55 at α = 0.3 (riskcal errs here).

    >>> import dpcompare as dc
    >>> round(float(dc.RandomizedResponse(eps=math.log(1.5)).tradeoff(0.3)), 12)
    0.55
    """

    eps: float

    #: parameter domains (checked once, at construction)
    PARAMS = (Param("eps", NONNEGATIVE),)

    def __post_init__(self) -> None:
        check_params(self.PARAMS, self)

    def _build_pairs(self):
        p = _rr_pair(self.eps)
        return p, p

    def _eps_delta(self) -> tuple[float, float]:
        return float(self.eps), 0.0

    @property
    def spec(self) -> str:
        return f"rr(eps={format_number(self.eps)})"

    @property
    def gdp_mu(self) -> float:
        """μ* = −2Φ⁻¹(1/(1+e^ε)), attained at the fixed point (mechanisms/gdp.py)."""
        from .gdp import pure_dp_gdp_mu

        return pure_dp_gdp_mu(self.eps)


@dataclass(frozen=True, repr=False)
class PureDP(RandomizedResponse):
    """The worst case ε-DP mechanism: trade-off f_{ε,0} (Dong et al. 2022, Prop 2.5) = randomized response."""

    @property
    def spec(self) -> str:
        return f"puredp(eps={format_number(self.eps)})"


@dataclass(frozen=True, repr=False, init=False)
class ApproxDP(_ClosedFormViews, PairMechanism):
    """The worst case (ε, δ)-DP mechanism, trade-off f_{ε,δ}(α) = max(0, 1−δ−e^ε α, e^{−ε}(1−δ−α))
    (Dong et al. 2022, Prop 2.5). The δ parameter is stored as ``dp_delta`` so that it does not
    shadow the profile method ``delta(eps)``.

    >>> import dpcompare as dc
    >>> round(float(dc.ApproxDP(eps=1.0, delta=0.1).delta(1.0)), 12)   # rounded up by a few ulp
    0.1
    """

    eps: float
    dp_delta: float

    #: parameter domains (checked once, at construction)
    PARAMS = (Param("eps", NONNEGATIVE), Param("delta", UNIT, attr="dp_delta"))

    def __init__(self, eps: float, delta: float) -> None:
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "dp_delta", delta)
        check_params(self.PARAMS, self)

    def _build_pairs(self):
        p = _rr_pair(self.eps, self.dp_delta)
        return p, p

    def _eps_delta(self) -> tuple[float, float]:
        return float(self.eps), float(self.dp_delta)

    @property
    def spec(self) -> str:
        return f"approxdp(eps={format_number(self.eps)}, delta={format_number(self.dp_delta)})"

    @property
    def gdp_mu(self) -> float | None:
        """None when δ > 0 (f(0) = 1 − δ < 1: no finite μ), else the ε-DP value of mechanisms/gdp.py."""
        if self.dp_delta > 0:
            return None
        from .gdp import pure_dp_gdp_mu

        return pure_dp_gdp_mu(self.eps)


@dataclass(frozen=True, repr=False)
class PerfectlyPrivate(PairMechanism):
    """M_PP: f(α) = 1 − α, R(π) = min(π, 1−π), δ ≡ 0 ([BCP] §3.4)."""

    def _build_pairs(self):
        p = DiscretePair(np.array([0.0]), np.array([0.0]), 0.0, 0.0)
        return p, p

    def _tradeoff_bounds(self, alpha):
        """f(α) = 1 − α, the lower end rounded down (``one_minus_down``)."""
        a = np.asarray(alpha, dtype=float)
        return interval_bracket(rnd.one_minus_down(a), np.minimum(rnd.upper(1.0 - a, U), 1.0), Sense.LOWER)

    def _bayes_error_bounds(self, pi):
        """R(π) = min(π, 1 − π), 1 − π rounded down for the lower end."""
        pi = np.asarray(pi, dtype=float)
        return interval_bracket(np.minimum(pi, rnd.one_minus_down(pi)), np.minimum(pi, rnd.upper(1.0 - pi, U)), Sense.LOWER)

    @property
    def spec(self) -> str:
        return "pp()"

    @property
    def gdp_mu(self) -> float:
        return 0.0


@dataclass(frozen=True, repr=False)
class BlatantlyNonPrivate(PairMechanism):
    """M_BNP: f ≡ 0, R ≡ 0, δ ≡ 1 ([BCP] §3.4): P and Q have disjoint supports."""

    def _build_pairs(self):
        p = DiscretePair(np.array([]), np.array([]), 1.0, 1.0)
        return p, p

    @property
    def spec(self) -> str:
        return "bnp()"


@dataclass(frozen=True, repr=False)
class TradeoffCurve(PairMechanism):
    """A piecewise-linear trade-off curve through the given vertices (α ascending).

    Every piecewise-linear convex trade-off curve is a discrete pair: segment k gives an atom with
    pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(−slopeₖ). A drop at α = 0 (f(0) < 1) is Q-mass at
    ℓ = +∞; a flat piece f = 0 up to α = 1 is P-mass at ℓ = −∞. The curve is symmetrised like every
    other mechanism.

    >>> import dpcompare as dc
    >>> c = dc.TradeoffCurve(alpha=[0, 0.1, 1], beta=[1, 0.5, 0])
    >>> float(c.pairs()[0].delta(0.0)) > 0
    True
    """

    alpha: tuple[float, ...]
    beta: tuple[float, ...]
    name: str = field(default="curve", compare=False)

    def __post_init__(self) -> None:
        a = np.asarray(self.alpha, dtype=float).ravel()
        b = np.asarray(self.beta, dtype=float).ravel()
        if a.size != b.size or a.size < 2:
            raise ValueError("alpha and beta must have the same length (at least 2 points)")
        for name, v in (("alpha", a), ("beta", b)):
            if np.any(~np.isfinite(v)) or np.any(v < 0) or np.any(v > 1):
                raise ValueError(f"{name} must be in [0, 1]")
        if a[0] != 0.0:
            raise ValueError(f"the first point must have alpha = 0, got {a[0]:g}")
        if np.any(np.diff(a) <= 0):
            raise ValueError("alpha must be strictly increasing")
        if np.any(np.diff(b) > 0):
            raise ValueError("beta must be non-increasing (a trade-off function decreases)")
        if np.any(b > 1 - a + 1e-12):
            raise ValueError("a trade-off function satisfies f(α) ≤ 1 − α")
        slopes = np.diff(b) / np.diff(a)
        if np.any(np.diff(slopes) < -1e-9 * np.maximum(1.0, np.abs(slopes[1:]))):
            raise ValueError("the curve must be convex (slopes non-decreasing)")
        if b[-1] > 0 and a[-1] < 1:
            a = np.append(a, 1.0)
            b = np.append(b, 0.0)
        if b[-1] > 0:
            raise ValueError("the curve must reach beta = 0 by alpha = 1")
        object.__setattr__(self, "alpha", tuple(a.tolist()))
        object.__setattr__(self, "beta", tuple(b.tolist()))

    def _build_pairs(self):
        pair = DiscretePair.from_vertices(np.asarray(self.alpha), np.asarray(self.beta))
        return pair, pair

    @property
    def spec(self) -> str:
        return f"{self.name}({len(self.alpha)} points)"


@dataclass(frozen=True, repr=False)
class FromPair(PairMechanism):
    """A mechanism given directly by discrete pairs (pessimistic, and optionally optimistic).

    The two are checked at construction (:class:`~dpcompare.tradeoff.PairBracket`): the pessimistic
    pair must be at least as informative as the optimistic one (R_pess ≤ R_opt everywhere, after
    symmetrisation), and their Rounding labels must not say the opposite; an inverted pair raises.

    >>> import dpcompare as dc
    >>> from dpcompare.tradeoff import DiscretePair
    >>> rr = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
    >>> pp = DiscretePair.from_masses([1.0], [1.0])
    >>> round(float(dc.FromPair(pessimistic=rr, optimistic=pp).delta(0.0)), 6)
    0.5
    >>> dc.FromPair(pessimistic=pp, optimistic=rr)
    Traceback (most recent call last):
    ...
    ValueError: inverted pair bracket: the pessimistic pair must be at least as informative as the optimistic one, but its Bayes error exceeds the optimistic one's by 0.25 at pi = 0.5
    """

    pessimistic: DiscretePair
    optimistic: DiscretePair | None = None
    name: str = "pair"

    def __post_init__(self) -> None:
        for label, v in (("pessimistic", self.pessimistic), ("optimistic", self.optimistic)):
            if v is not None and not isinstance(v, DiscretePair):
                raise TypeError(f"{label} must be a DiscretePair, got {type(v).__name__}")
        if self.pessimistic is None:
            raise TypeError("pessimistic must be a DiscretePair, got None")
        self._pairs  # noqa: B018 - build and check the bracket now, not at the first view

    def _build_pairs(self):
        return PairBracket(self.pessimistic, self.optimistic if self.optimistic is not None else self.pessimistic)

    @property
    def spec(self) -> str:
        return f"{self.name}()"
