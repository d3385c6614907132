"""The mechanism interface: a few formulas per mechanism, every other view derived.

A mechanism is characterised by a (tightly) dominating pair (P, Q) whose trade-off function f is
symmetrised as in the paper (seed 000 §1): f_sym = conv(min(f, f⁻¹)). Subclasses provide certified
brackets of three views — Bayes error R(π), privacy profile δ(ε) and trade-off f(α) — and the base
class derives the rest through the exact dualities of DESIGN.md §1:

- R(π) = min_α π·α + (1−π)·f(α)                           (seed 000 eq 2)
- f(α) = max_{0≤π<1} (R(π) − π·α)/(1−π)                  (seed 000 eq 4)
- δ(ε) = 1 + f*(−e^ε) = H_{e^ε}(P‖Q)                      (seed 000 eq 25–26)
- R(π) = π·(1 − δ(log((1−π)/π))) for π ≤ ½, R(π) = R(1−π)  (DESIGN.md §1)
- advantage = TV = δ(0) (eq 29); fixed point α* = f(α*) = R(½) = R* (Lemma 4).

Numerical honesty: the public views return the side of the bracket that errs towards *less*
privacy — δ and ε from above, f and R from below — and the ``*_bounds`` methods return both sides.
Closed forms have brackets of zero width up to floating point.
"""

from __future__ import annotations

import abc
import math
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize

from .._validation import check_in_interval, check_probabilities, check_real

if TYPE_CHECKING:
    from ..tradeoff import DiscretePair


def _as_eps(eps: Any) -> np.ndarray:
    arr = np.asarray(eps, dtype=float)
    if np.any(np.isnan(arr)):
        raise ValueError("eps must be a real number or +inf, got nan")
    return arr


class Mechanism(abc.ABC):
    """Base class of every mechanism (immutable; subclasses are frozen dataclasses).

    Subclasses implement ``_bayes_error_bounds``, ``_delta_bounds`` and ``_tradeoff_bounds`` and a
    ``spec`` string in the CLI spec language; they may override any derived view with a closed form.
    """

    #: whether the views are closed forms (bracket of zero width)
    exact: bool = True

    # ------------------------------------------------------------------ the few formulas
    @abc.abstractmethod
    def _bayes_error_bounds(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R_lo, R_hi) at π ∈ [0, 1] (already validated), R_lo ≤ R_sym ≤ R_hi."""

    @abc.abstractmethod
    def _delta_bounds(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(δ_lo, δ_hi) of the symmetrised profile at ε ∈ ℝ ∪ {+∞}."""

    @abc.abstractmethod
    def _tradeoff_bounds(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(f_lo, f_hi) of f_sym at α ∈ [0, 1]."""

    @property
    @abc.abstractmethod
    def spec(self) -> str:
        """The mechanism in the CLI spec language, e.g. ``gaussian(mu=1)``."""

    def bayes_error_kinks(self) -> np.ndarray:
        """Priors π where R is not differentiable (atoms of the privacy loss); seeds the Δ search."""
        return np.array([])

    def pairs(self) -> tuple["DiscretePair", "DiscretePair"] | None:
        """(pessimistic, optimistic) symmetric discrete pairs when the mechanism is discrete or
        numeric; ``None`` for closed forms with a continuous privacy loss."""
        return None

    # ------------------------------------------------------------------ public views (vectorised)
    def bayes_error(self, pi: Any) -> np.ndarray:
        """Minimum Bayes error R(π) = min_α π·α + (1−π)·f(α) (seed 000 eq 2), lower end of the bracket.

        >>> import dpcompare as dc
        >>> round(float(dc.Gaussian(mu=1).bayes_error(0.5)), 6)
        0.308538
        """
        pi = check_probabilities("pi", pi)
        return self._bayes_error_bounds(pi)[0]

    def bayes_error_bounds(self, pi: Any) -> tuple[np.ndarray, np.ndarray]:
        """Certified (R_lo, R_hi) at π."""
        return self._bayes_error_bounds(check_probabilities("pi", pi))

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """Trade-off f(α) = inf{β_φ : α_φ ≤ α} (seed 000 eq 20), lower end of the bracket (pessimistic)."""
        alpha = check_probabilities("alpha", alpha)
        return self._tradeoff_bounds(alpha)[0]

    def tradeoff_bounds(self, alpha: Any) -> tuple[np.ndarray, np.ndarray]:
        """Certified (f_lo, f_hi) at α."""
        return self._tradeoff_bounds(check_probabilities("alpha", alpha))

    def tpr(self, fpr: Any) -> np.ndarray:
        """Power of the best membership test at false-positive rate α: TPR = 1 − f(α) (upper end)."""
        fpr = check_probabilities("fpr", fpr)
        return 1.0 - self._tradeoff_bounds(fpr)[0]

    def delta(self, eps: Any) -> np.ndarray:
        """Privacy profile δ(ε) = H_{e^ε}(P‖Q) of f_sym (seed 000 eq 25–26), upper end (never understated)."""
        return self._delta_bounds(_as_eps(eps))[1]

    def delta_bounds(self, eps: Any) -> tuple[np.ndarray, np.ndarray]:
        """Certified (δ_lo, δ_hi) at ε."""
        return self._delta_bounds(_as_eps(eps))

    def epsilon(self, delta: Any) -> np.ndarray | float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta, from the upper profile (never understated).

        Returns ``inf`` where no finite ε reaches ``delta`` (e.g. below the mass at ℓ = ∞).
        """
        arr = np.asarray(delta, dtype=float)
        flat = [self._epsilon_scalar(check_in_interval("delta", float(d), 0.0, 1.0)) for d in arr.ravel()]
        out = np.array(flat, dtype=float).reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def _epsilon_scalar(self, delta: float) -> float:
        """Default: bracket and solve log δ_hi(ε) = log delta with Brent's method."""
        if delta >= 1.0:
            return 0.0
        hi_at = lambda e: float(self._delta_bounds(np.asarray(e, dtype=float))[1])  # noqa: E731
        if hi_at(0.0) <= delta:
            return 0.0
        if hi_at(np.inf) > delta:
            return float("inf")
        lo, hi = 0.0, 1.0
        while hi_at(hi) > delta:
            lo, hi = hi, 2.0 * hi
            if hi > 1e6:
                return float("inf")
        if delta == 0.0:
            return float("inf")
        g = lambda e: math.log(max(hi_at(e), 1e-320)) - math.log(delta)  # noqa: E731
        eps = optimize.brentq(g, lo, hi, xtol=1e-13, rtol=1e-15, maxiter=200)
        for _ in range(60):  # certify: never report an ε whose δ exceeds the target
            if hi_at(eps) <= delta:
                return eps
            eps = eps + max(1e-13, 1e-12 * eps)
        return eps

    # ------------------------------------------------------------------ scalar summaries
    @cached_property
    def advantage(self) -> float:
        """MIA advantage = TV(P, Q) = δ(0) (seed 000 eq 29), upper end."""
        return float(self._delta_bounds(np.asarray(0.0))[1])

    @cached_property
    def minimax_bayes_error(self) -> float:
        """R* = max_π R(π) = R(½) for a symmetric f (seed 000 eq 3), lower end."""
        return float(self._bayes_error_bounds(np.asarray(0.5))[0])

    @cached_property
    def fixed_point(self) -> float:
        """α* with f(α*) = α*; equals R* (seed 000 Lemma 4), lower end."""
        return self.minimax_bayes_error

    @cached_property
    def auc(self) -> float:
        """Area under the ROC curve TPR = 1 − f(FPR): AUC = 1 − ∫₀¹ f(α) dα, from the lower f (upper AUC)."""
        return 1.0 - self._tradeoff_integral()

    def _tradeoff_integral(self) -> float:
        from scipy import integrate

        val, _ = integrate.quad(
            lambda a: float(self._tradeoff_bounds(np.asarray(a))[0]), 0.0, 1.0, epsabs=1e-13, epsrel=1e-11, limit=400
        )
        return float(val)

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        """The scalar views as a dict (the keys of ``dpcompare describe --json``)."""
        check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
        return {
            "mechanism": self.spec,
            "delta": delta,
            "epsilon": _finite_or_none(self.epsilon(delta)),
            "advantage": self.advantage,
            "fixed_point": self.fixed_point,
            "minimax_bayes_error": self.minimax_bayes_error,
            "auc": self.auc,
            "gdp_mu": self.gdp_mu,
            "exact": self.exact,
            "numerical_error": self.numerical_error,
        }

    @property
    def numerical_error(self) -> float:
        """A priori bound on floating-point error in R (uniform in π) not already inside the
        brackets (the FFT rounding of numeric compositions); 0 for closed forms and exact pairs.
        Δ brackets include it; δ and ε views do not (they are reported with it)."""
        return 0.0

    @property
    def gdp_mu(self) -> float | None:
        """μ of the tightest μ-GDP bound f ≥ G_μ (Dong et al. 2022, Def 2.6), or None.

        None means no finite μ is known: none exists (f(0) < 1, e.g. approxdp with δ > 0, or a
        numeric pair whose certified side puts its truncated tail at ℓ = +∞), or this mechanism kind
        has no closed form for it. Closed forms: Gaussian μ, Laplace, ε-DP and randomized response
        (mechanisms/gdp.py), the subsampled Gaussian √N/σ, perfectly private 0.
        """
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def _repr_html_(self) -> str:
        """Jupyter: the describe table and the ROC curve (rendered by io/notebook.py, loaded lazily)."""
        from ..io.notebook import mechanism_html

        return mechanism_html(self)


def _finite_or_none(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def check_eps_real(eps: Any) -> float:
    return check_real("eps", eps)
