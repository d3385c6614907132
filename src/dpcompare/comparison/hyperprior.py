"""Hyper-priors Ψ over the adversary's prior π ([BCP] §5, "Bayesian Mechanism Selection").

The weighted Bayes error is R^Ψ(π) = R(π)·Ψ(π) and the weighted divergence
Δ^Ψ(M‖M̃) = max_π Ψ(π)·(R(π) − R̃(π)). The certified search needs, besides Ψ(π), the range of Ψ on
an interval: ``extremes(l, r) -> (min, max)``. For the Beta family the density is monotone,
unimodal or U-shaped, so its extremes on [l, r] lie at l, r or the one critical point
c = (a−1)/(a+b−2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import special

from .._validation import POSITIVE, Param


class HyperPrior:
    """A density Ψ on [0, 1]."""

    certified: bool = True
    name: str = "hyperprior"

    def density(self, pi: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _critical_points(self) -> np.ndarray:
        return np.array([])

    def reflected(self) -> "HyperPrior":
        """The density π ↦ Ψ(1−π), evaluated without rounding 1−π."""
        return DensityPrior(lambda x: self.density(1.0 - np.asarray(x, dtype=float)), name=f"reflected {self.name}")

    def extremes(self, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(min Ψ, max Ψ) over each interval [left, right] (vectorised)."""
        cands = [self.density(left), self.density(right)]
        for c in self._critical_points():
            inside = (left < c) & (c < right)
            val = np.full(left.shape, float(self.density(np.asarray(c))))
            cands.append(np.where(inside, val, cands[0]))
        stack = np.vstack(cands)
        return stack.min(axis=0), stack.max(axis=0)

    def tail_bound(self, eps: float) -> float:
        """An upper bound of sup_{π ≤ eps} π·Ψ(π) and sup_{π ≥ 1−eps} (1−π)·Ψ(π) (R ≤ min(π, 1−π))."""
        raise NotImplementedError


@dataclass(frozen=True)
class BetaPrior(HyperPrior):
    """Beta(a, b) density Ψ(π) = π^{a−1}(1−π)^{b−1}/B(a, b). Jeffreys is Beta(½, ½) ([BCP] §5)."""

    a: float
    b: float

    #: the one declaration of a and b's domains (the spec language's ``beta(a, b)`` derives from it)
    PARAMS = (Param("a", POSITIVE), Param("b", POSITIVE))

    def __post_init__(self) -> None:
        for p in self.PARAMS:  # checked, not stored: a and b keep the type they were given
            p.check_spec(getattr(self, p.name))

    @property
    def name(self) -> str:  # type: ignore[override]
        return "jeffreys" if (self.a, self.b) == (0.5, 0.5) else f"beta({self.a:g},{self.b:g})"

    def density(self, pi):
        pi = np.asarray(pi, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            logd = special.xlogy(self.a - 1, pi) + special.xlog1py(self.b - 1, -pi) - special.betaln(self.a, self.b)
        return np.exp(logd)

    def reflected(self) -> "BetaPrior":
        return BetaPrior(self.b, self.a)

    def _critical_points(self) -> np.ndarray:
        s = self.a + self.b - 2
        if s == 0:
            return np.array([])
        c = (self.a - 1) / s
        return np.array([c]) if 0 < c < 1 else np.array([])

    def tail_bound(self, eps: float) -> float:
        # π·Ψ(π) = π^a (1−π)^{b−1}/B ≤ eps^a·max(1, (1−eps)^{b−1})/B on (0, eps] (monotone in π^a); same mirrored.
        lb = special.betaln(self.a, self.b)
        left = math.exp(self.a * math.log(eps) - lb) * max(1.0, (1 - eps) ** (self.b - 1))
        right = math.exp(self.b * math.log(eps) - lb) * max(1.0, (1 - eps) ** (self.a - 1))
        return max(left, right)


JEFFREYS = BetaPrior(0.5, 0.5)


@dataclass(frozen=True)
class UQuadratic(HyperPrior):
    """UQuadratic[0, 1]: Ψ(π) = 12(π − ½)² ([BCP] §5, an adversary with strong prior beliefs)."""

    name: str = "uquadratic"

    def density(self, pi):
        pi = np.asarray(pi, dtype=float)
        return 12.0 * (pi - 0.5) ** 2

    def _critical_points(self) -> np.ndarray:
        return np.array([0.5])

    def reflected(self) -> "UQuadratic":
        return self

    def tail_bound(self, eps: float) -> float:
        return 3.0 * eps


@dataclass(frozen=True)
class DensityPrior(HyperPrior):
    """Any density given as a callable. Its extremes on an interval are taken at the end points and
    the midpoint, which is exact only for densities monotone or unimodal on each refined interval:
    brackets computed with it are marked ``certified = False``."""

    func: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    name: str = "density"
    certified = False

    def density(self, pi):
        pi = np.asarray(pi, dtype=float)
        out = np.asarray(self.func(pi), dtype=float)
        if out.shape != pi.shape:
            out = np.broadcast_to(out, pi.shape).astype(float)
        if np.any(~np.isfinite(out[(pi > 0) & (pi < 1)])) or np.any(out < 0):
            raise ValueError("hyperprior density must be finite and non-negative on (0, 1)")
        return out

    def extremes(self, left, right):
        vals = np.vstack([self.density(left), self.density(right), self.density(0.5 * (left + right))])
        return vals.min(axis=0), vals.max(axis=0)

    def tail_bound(self, eps: float) -> float:
        grid = np.concatenate([np.geomspace(1e-300, eps, 50), 1 - np.geomspace(1e-300, eps, 50)])
        vals = self.density(np.clip(grid, 1e-300, 1 - 1e-16)) * np.minimum(grid, 1 - grid)
        return float(np.max(vals))


def as_hyperprior(h: "HyperPrior | Callable | None") -> HyperPrior | None:
    """Accept a HyperPrior, a density callable (wrapped as an uncertified ``DensityPrior``) or None.

    Names such as 'jeffreys' or 'beta(2,3)' are spec text: parse them with
    ``dpcompare.parse_hyperprior`` (the one parser, in ``dpcompare.io``) first.
    """
    if h is None or isinstance(h, HyperPrior):
        return h
    if isinstance(h, str):
        raise TypeError(
            f"hyperprior must be a HyperPrior or a density callable, got the text {h!r}: "
            "parse it with dpcompare.parse_hyperprior (jeffreys | uquadratic | beta(a,b))"
        )
    if callable(h):
        return DensityPrior(h)
    raise TypeError(f"hyperprior must be a HyperPrior, a density callable or None, got {h!r}")
