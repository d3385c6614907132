"""DP-SGD with fixed-size batches sampled without replacement, replace-one adjacency, with a certified bracket.

:class:`FixedBatchGaussian` is dp-accounting's ``SelfComposed(SampledWithoutReplacement(n, b, Gaussian(σ)), N)``:
N steps, each a uniformly random batch of exactly b of the n records (without replacement), and a sum of
replace-one sensitivity 1 released with N(0, σ²) noise. For clipped gradients of norm ≤ C the replace-one
sensitivity is 2C, so Opacus' noise multiplier σ_C (noise std / C) is σ = σ_C/2 here.

The analysis (composition/wor.py, which cites the theorems): one step is f_S-DP with f_S the symmetrised
Poisson pair at rate q = b/n (Balle, Barthe & Gaboardi 2018, Thm 10; Dong, Roth & Su 2022, Thm 4.2), and
N adaptive steps are f_S^{⊗N}-DP (Dong, Roth & Su 2022, Thm 3.2) — the certified *pessimistic* side. A
fixed worst-case instance realises the Poisson remove/add pairs at every step, so the certified Poisson
composition at rate q is a valid *optimistic* side: the bracket contains the true trade-off. Extra
certified upper bounds, taken where smaller: the Gaussian G_μ with μ = √N/σ (C_q(f) ≥ f, [MIX]
Prop E.1).

:class:`WithReplacementGaussian` is dp-accounting's ``SampledWithReplacement(n, b, Gaussian(σ))`` N times: a
certified *upper bound* (the multiplicity of the record in the batch is revealed to the attacker; optimistic
side: perfect privacy); composition/wor.py ``compose_with_replacement`` gives the argument.

>>> m = FixedBatchGaussian(1.0, dataset_size=1000, batch_size=10, steps=100)
>>> lo, hi = m.delta_bounds(1.0)
>>> bool(0 < lo <= hi < 1e-2)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import DISCRETIZATION, Interval, Param, check_positive, declared, format_number
from ..tradeoff import DiscretePair, Sense
from .base import _ROUNDING_ABS, interval_bracket
from .pair_backed import PairMechanism

__all__ = ["FixedBatchGaussian", "WithReplacementGaussian"]

#: the one declaration of the batch mechanisms' counts (fixed-size batches with or without replacement here,
#: balls-in-bins and shuffled batches in :mod:`.allocation`): n, b and N are integers ≥ 1
PARAMS = tuple(Param(n, Interval(1.0, math.inf), integer=True) for n in ("dataset_size", "batch_size", "steps"))


def check_batches(m: Any, *, fit: str | None = "") -> None:
    """Check and store ``m.dataset_size`` and ``m.batch_size`` of a frozen batch mechanism as declared in
    :data:`PARAMS`, and b ≤ n unless ``fit`` is None (``fit`` ends that message: the scheme that needs it)."""
    for name in ("dataset_size", "batch_size"):
        object.__setattr__(m, name, declared(PARAMS, name).check_spec(getattr(m, name)))
    if fit is not None and m.batch_size > m.dataset_size:
        raise ValueError(f"batch_size ({m.batch_size}) must be <= dataset_size ({m.dataset_size}){fit}")


@dataclass(frozen=True, repr=False)
class _SymmetrisedSteps(PairMechanism):
    """Views of a mechanism given by a ``CertifiedComposition`` whose pessimistic pair is symmetric (N steps,
    noise σ, n records, batch b); subclasses give ``composition`` and say when the Gaussian G_{√N/σ} is exact."""

    sigma: float
    dataset_size: int = field(kw_only=True)
    batch_size: int = field(kw_only=True)
    steps: int = field(kw_only=True)
    discretization: float | None = field(default=None, kw_only=True)

    def _check(self, *, without_replacement: bool) -> None:
        s = object.__setattr__
        s(self, "sigma", check_positive("sigma", self.sigma))  # finite and > 0
        if 1.0 / self.sigma > 1e6:
            raise ValueError(f"sigma must be >= 1e-6 (the privacy loss of a smaller noise multiplier does not fit in "
                             f"double precision), got {self.sigma:g}")
        check_batches(self, fit=" for sampling without replacement" if without_replacement else None)
        s(self, "steps", declared(PARAMS, "steps").check_spec(self.steps))
        if self.discretization is not None:
            s(self, "discretization", DISCRETIZATION.check_spec(self.discretization))

    @property
    def composition(self):  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    @property
    def _closed_form(self) -> bool:
        return False

    @cached_property
    def _gaussian(self):
        """G_μ, μ = √N/σ (sampling without replacement: exact at b = n, an upper bound for every b)."""
        from .continuous import Gaussian

        return Gaussian(mu=math.sqrt(self.steps) / self.sigma)

    @property
    def _gaussian_bounds(self) -> bool:
        """Whether G_{√N/σ} is a certified upper bound (true without replacement; not with: a record can repeat)."""
        return True

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        c = self.composition
        return c.pessimistic, c.optimistic

    @property
    def numerical_error(self) -> float:
        return 0.0 if self._closed_form else float(self.composition.numerical_error)

    @property
    def exact(self) -> bool:  # type: ignore[override]
        return self._closed_form

    def _delta_bounds(self, eps):
        if self._closed_form:
            return self._gaussian._delta_bounds(eps)
        from ..composition.sgm_certified import profile_bracket

        eps = np.asarray(eps, dtype=float)
        b = profile_bracket(self.composition, eps)
        hi = b.pessimistic
        if self._gaussian_bounds:
            hi = np.minimum(hi, self._gaussian._delta_bounds(eps)[1])
        hi = np.where(np.isfinite(eps), np.maximum(hi, np.nextafter(0.0, 1.0)), hi)  # δ(ε) > 0 at every finite ε
        lo = np.minimum(b.optimistic, hi)
        return interval_bracket(lo, hi, Sense.UPPER, 0.0, 1.0)

    def _epsilon_scalar(self, delta: float) -> float:
        if self._closed_form:
            return float(self._gaussian._epsilon_scalar(delta))
        if delta >= 1.0:
            return 0.0
        from ..composition.sgm_certified import composition_epsilon

        e = composition_epsilon(self.composition, delta)[1]  # with the far-tail passes where δ needs them
        return min(e, float(self._gaussian._epsilon_scalar(delta))) if self._gaussian_bounds else e

    def _bayes_error_bounds(self, pi):
        if self._closed_form:
            return self._gaussian._bayes_error_bounds(pi)
        c = self.composition
        pi = np.asarray(pi, dtype=float)
        lo = np.minimum(c.pessimistic.bayes_error_bounds(pi)[0], c.pessimistic.bayes_error_bounds(1.0 - pi)[0]) - c.pessimistic_error
        hi = np.minimum(c.optimistic.bayes_error_bounds(pi)[1], c.optimistic.bayes_error_bounds(1.0 - pi)[1]) + c.optimistic_error
        cap = np.minimum(pi, 1.0 - pi)
        return interval_bracket(lo, hi, Sense.LOWER, 0.0, cap,
                                absolute=_ROUNDING_ABS + c.pessimistic_error + c.optimistic_error)

    def _tradeoff_bounds(self, alpha):
        if self._closed_form:
            return self._gaussian._tradeoff_bounds(alpha)
        lo, hi = super()._tradeoff_bounds(alpha)
        cap = 1.0 - np.asarray(alpha, dtype=float)
        return interval_bracket(lo, hi, Sense.LOWER, 0.0, cap, absolute=_ROUNDING_ABS + float(self.numerical_error))

    def _tradeoff_integral(self) -> float:
        return self._gaussian._tradeoff_integral() if self._closed_form else super()._tradeoff_integral()

    #: how the answer relates to the truth (``Guarantee`` of mechanisms/events.py, by value)
    _guarantee = "certified"

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        """The scalar views plus ``guarantee`` (``certified``: a bracket around the truth; ``certified bound``: an
        upper bound only) and ``adjacency`` (always ``replace_one``), as for a DpEvent."""
        out = super().describe(delta)
        out["guarantee"] = "exact" if self._closed_form else self._guarantee
        out["adjacency"] = "replace_one"
        return out


@dataclass(frozen=True, repr=False)
class FixedBatchGaussian(_SymmetrisedSteps):
    """N steps of the Gaussian on fixed-size batches drawn without replacement (module docstring).

    Parameters
    ----------
    sigma : noise std / replace-one sensitivity (dp-accounting's inner ``GaussianDpEvent.noise_multiplier``).
    dataset_size, batch_size : n ≥ 1 and 1 ≤ b ≤ n (keyword only); q = b/n.
    steps : N ≥ 1 (keyword only).
    discretization : privacy-loss grid spacing h (keyword only; default as for the Poisson mechanism).
    """

    def __post_init__(self) -> None:
        self._check(without_replacement=True)

    @property
    def sampling_rate(self) -> float:
        """q = batch_size/dataset_size: the probability that a given record is in a given batch."""
        return self.batch_size / self.dataset_size

    @property
    def _closed_form(self) -> bool:
        return self.batch_size == self.dataset_size

    @cached_property
    def composition(self):
        """The certified pessimistic/optimistic pairs (composition/wor.py ``compose_without_replacement``)."""
        from ..composition.wor import compose_without_replacement

        return compose_without_replacement(self.sigma, self.sampling_rate, self.steps, self.discretization)

    @property
    def gdp_mu(self) -> float:
        """μ = √N/σ: an upper bound (C_q(f) ≥ f per step) and, as for Poisson sampling, attained in the extreme
        tail by the realised instance (every step samples the record: probability q^N)."""
        return math.sqrt(self.steps) / self.sigma

    @property
    def spec(self) -> str:
        """The configuration in the training vocabulary (noise multiplier relative to C = half the sensitivity)."""
        return (f"sgm(noise_multiplier={format_number(2.0 * self.sigma)}, batch_size={self.batch_size}, "
                f"dataset_size={self.dataset_size}, steps={self.steps}, sampling=fixed)")


@dataclass(frozen=True, repr=False)
class WithReplacementGaussian(_SymmetrisedSteps):
    """N steps of the Gaussian on batches of b records drawn independently *with* replacement from n (b > n is
    allowed): a certified upper bound (composition/wor.py ``compose_with_replacement``), labelled as such.

    >>> m = WithReplacementGaussian(2.0, dataset_size=100, batch_size=1, steps=10)
    >>> n = FixedBatchGaussian(2.0, dataset_size=100, batch_size=1, steps=10)    # one draw: the same mechanism
    >>> abs(m.epsilon(1e-5) - n.epsilon(1e-5)) < 1e-3
    True
    """

    _guarantee = "certified bound"

    def __post_init__(self) -> None:
        self._check(without_replacement=False)

    @property
    def _gaussian_bounds(self) -> bool:
        return False

    @cached_property
    def composition(self):
        from ..composition.wor import compose_with_replacement

        return compose_with_replacement(self.sigma, self.dataset_size, self.batch_size, self.steps, self.discretization)

    @property
    def gdp_mu(self) -> float:
        """μ = b√N/σ: every step is dominated by the Gaussian with shift b (all b draws the record)."""
        return self.batch_size * math.sqrt(self.steps) / self.sigma

    @property
    def spec(self) -> str:
        return (f"dpevent(SelfComposed(SampledWithReplacement({self.dataset_size}, {self.batch_size}, "
                f"Gaussian({format_number(self.sigma)})), {self.steps}))")
