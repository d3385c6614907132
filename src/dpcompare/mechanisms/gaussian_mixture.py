"""N steps of a Gaussian-mixture pair with a monotone privacy loss, certified (composition/gaussian_mixture.py).

Serves dp-accounting's ``MixtureOfGaussiansDpEvent`` and ``TruncatedSubsampledGaussianDpEvent`` (both
SelfComposed N times): the one-step remove pair is built in closed form on the privacy-loss grid and
composed with the subsampled Gaussian's certified machinery (tradeoff/compose.py), so the answer is a
certified bracket — the pessimistic pair at least as informative as the truth, the optimistic pair at most,
up to ``numerical_error`` — and the add pair is the swap of the remove pair (f_sym = conv(min(f, f⁻¹))).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import DISCRETIZATION, check_integer
from ..directed_rounding import add_up, sub_down
from ..tradeoff import Bracket, DiscretePair
from .pair_backed import PairMechanism


@dataclass(frozen=True, repr=False)
class ComposedGaussianMixture(PairMechanism):
    """N = ``steps`` compositions of a :class:`~dpcompare.composition.gaussian_mixture.GaussianMixturePair`.

    >>> from dpcompare.composition.gaussian_mixture import mixture_of_gaussians_pair
    >>> m = ComposedGaussianMixture(mixture_of_gaussians_pair(1.0, [0, 1], [0.5, 0.5]), 10)
    >>> lo, hi = m.delta_bounds(1.0)    # the same as sgm(sigma=1, p=0.5, steps=10)
    >>> bool(0.37528 < lo <= hi < 0.37531)
    True
    """

    pair: Any
    steps: int
    discretization: float | None = field(default=None, kw_only=True)
    name: str = field(default="mixture", kw_only=True, compare=False)

    def __post_init__(self) -> None:
        from ..composition.gaussian_mixture import GaussianMixturePair
        from ..composition.randomized_response import LatticePair

        if not isinstance(self.pair, (GaussianMixturePair, LatticePair)):
            raise ValueError(f"pair must be a GaussianMixturePair or a LatticePair, got {type(self.pair).__name__}")
        object.__setattr__(self, "steps", check_integer("steps", self.steps, minimum=1))
        if self.discretization is not None:
            object.__setattr__(self, "discretization", DISCRETIZATION.check_spec(self.discretization))

    @cached_property
    def composition(self):
        """The certified composition (pairs, grid spacing, error bound): composition/gaussian_mixture.py."""
        from ..composition.gaussian_mixture import compose_mixture

        return compose_mixture(self.pair, self.steps, self.discretization)

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        c = self.composition
        return c.pessimistic, c.optimistic

    @property
    def numerical_error(self) -> float:
        return self.composition.numerical_error

    def _tail(self):
        from ..composition.gaussian_mixture import mixture_tail_bound

        return mixture_tail_bound(self.pair, self.steps)

    def _delta_bounds(self, eps):
        from ..composition.sgm_certified import TAIL_FACTOR, composition_for_profile, profile_bracket

        eps = np.asarray(eps, dtype=float)
        c = composition_for_profile(self.composition, eps)  # with the far-tail passes where ``eps`` needs them
        b = profile_bracket(c, eps)
        hi = np.asarray(b.pessimistic, dtype=float)
        if self._gaussian is not None:
            hi = np.minimum(hi, self._gaussian._delta_bounds(eps)[1])
        if np.any(hi <= TAIL_FACTOR * c.pessimistic_error):
            hi = np.minimum(hi, self._tail().delta(eps).reshape(hi.shape))
        out = Bracket(hi, np.minimum(b.optimistic, hi))
        return np.asarray(out.optimistic, dtype=float)[()], np.asarray(out.pessimistic, dtype=float)[()]

    def _epsilon_scalar(self, delta: float) -> float:
        from ..composition.sgm_certified import TAIL_FACTOR, composition_epsilon

        if delta >= 1.0:
            return 0.0
        c, eps = composition_epsilon(self.composition, delta)  # with the far-tail passes where δ needs them
        if delta <= TAIL_FACTOR * c.pessimistic_error or not math.isfinite(eps):
            eps = min(eps, self._tail().epsilon(delta))
        return eps if self._gaussian is None else min(eps, float(self._gaussian._epsilon_scalar(delta)))

    @cached_property
    def _gaussian(self):
        """G_μ, μ = √N·``pair.dominating_mu``: dominates the N steps (joint convexity, then composition of
        Gaussians: Dong, Roth & Su 2022, Cor. 3.3), so its δ(ε) and ε(δ) are certified upper bounds at no cost."""
        from .continuous import Gaussian

        mu = math.sqrt(self.steps) * self.pair.dominating_mu
        return Gaussian(mu=mu) if math.isfinite(mu) else None


    def _bayes_error_bounds(self, pi):
        # R_sym(π) = min(R(π), R(1 − π)) of the asymmetric pairs (as mechanisms/sgm.py)
        c = self.composition
        pi = np.asarray(pi, dtype=float)
        lo = np.minimum(c.pessimistic.bayes_error_bounds(pi)[0], c.pessimistic.bayes_error_bounds(1.0 - pi)[0])
        hi = np.minimum(c.optimistic.bayes_error_bounds(pi)[1], c.optimistic.bayes_error_bounds(1.0 - pi)[1])
        eta = self.numerical_error
        cap = np.minimum(pi, 1.0 - pi)
        return np.clip(sub_down(lo, eta), 0.0, cap), np.clip(add_up(hi, eta), 0.0, cap)

    def _tradeoff_bounds(self, alpha):
        lo, hi = super()._tradeoff_bounds(alpha)
        cap = 1.0 - np.asarray(alpha, dtype=float)
        return np.clip(lo, 0.0, cap), np.clip(hi, 0.0, cap)

    @property
    def spec(self) -> str:
        return f"{self.name}(steps={self.steps})"
