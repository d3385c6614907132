"""DP-SGD on balls-in-bins and on shuffled batches, with certified brackets
(:mod:`dpcompare.composition.random_allocation` is the engine and holds the proofs).

:class:`BallsInBinsGaussian` — each epoch has k = ⌈n/b⌉ steps and every example sits in one uniformly
random step (add/remove adjacency). Certified two-sided: the engine's pessimistic and optimistic pairs,
composed over E epochs; the Gaussian G_{√E/σ} is an extra upper bound (knowing the step of the example is
the Gaussian mechanism once per epoch; forgetting it is a post-processing).

:class:`ShuffledGaussian` — each epoch is a random permutation cut into consecutive batches of b (the last
one has n − (k−1)·b examples), replace-one adjacency. Upper side: G_{2√E/σ} (one step per epoch moves by at
most 2; Dong, Roth & Su 2022, Cor 3.3). Lower side, a realised worst-case dataset: every other example's
clipped gradient is −e (unit vector e), the differing example's is +e in D and −e in D'. In D' every step's
sum is −(batch size)·e whatever the permutation: the pair's null is P = N(0, σ²I) after subtracting
that known sum; in D the one full batch J that holds the example is shifted by 2e, J uniform over the
k₀ = ⌊n/b⌋ full batches with probability b/n each, and the partial batch (probability r/n, r = n − k₀b)
also by 2e. Dropping the partial batch's output (a post-processing) leaves, along e,

    P = N(0, σ²I_{k₀}),   Q = (r/n)·P + (1 − r/n)·(1/k₀)·Σᵢ N(2eᵢ, σ²I_{k₀}),

whose likelihood ratio is r/n + (1 − r/n)·L with L the random-allocation ratio at noise σ/2. Its E-fold
product is one dataset's exact privacy profile, so its certified *optimistic* side is a certified lower
bound on the truth; replace-one is symmetric, so both directions count. The width of the bracket is an open
research question: no tight certified accountant for shuffling is known (Chua et al., "How private are
DP-SGD implementations?", ICML 2024; "Scalable DP-SGD: shuffling vs. Poisson subsampling", NeurIPS 2024).

>>> m = BallsInBinsGaussian(2.0, dataset_size=100, batch_size=10, epochs=2)
>>> lo, hi = m.delta_bounds(1.0)
>>> bool(0 < lo <= hi < 0.05)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import check_integer, check_positive, format_number
from .fixed_batch import _SymmetrisedSteps, check_batches

__all__ = ["BallsInBinsGaussian", "ShuffledGaussian"]


def _check_common(m: Any) -> None:
    s = object.__setattr__
    s(m, "sigma", check_positive("noise_multiplier", m.sigma))
    if not 0.05 <= m.sigma <= 1000.0:
        raise ValueError(f"noise_multiplier must be in [0.05, 1000] for this batching scheme, got {m.sigma:g}")
    check_batches(m)
    s(m, "epochs", check_integer("epochs", m.epochs, minimum=1))
    k = -(-m.dataset_size // m.batch_size)
    if k > 10**6:
        raise ValueError(f"dataset_size/batch_size gives {k} steps per epoch; at most 1000000 are supported")
    if m.epochs > 10**4:
        raise ValueError(f"epochs must be <= 10000, got {m.epochs}")


@dataclass(frozen=True, repr=False)
class _EpochBatches(_SymmetrisedSteps):
    """E epochs of k = ⌈n/b⌉ batches of b examples: the fields, the spec and the adjacency that both
    batching schemes share (``_sampling``: the spec's ``sampling=``; ``_adjacency``: the one ``describe`` states)."""

    sigma: float
    dataset_size: int = field(kw_only=True)
    batch_size: int = field(kw_only=True)
    epochs: int = field(kw_only=True, default=1)
    steps: int = field(init=False, default=0)
    discretization: float | None = field(default=None, kw_only=True)

    _sampling = ""
    _adjacency = ""

    @property
    def spec(self) -> str:
        return (f"sgm(noise_multiplier={format_number(self.sigma)}, batch_size={self.batch_size}, "
                f"dataset_size={self.dataset_size}, epochs={self.epochs}, sampling={self._sampling})")

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        out = super().describe(delta)
        out["adjacency"] = self._adjacency
        return out


@dataclass(frozen=True, repr=False)
class BallsInBinsGaussian(_EpochBatches):
    """E epochs of balls-in-bins batching: k = ⌈n/b⌉ steps per epoch, each example in one uniformly random step,
    Gaussian noise σ·C on the clipped sum (σ = noise multiplier). Add/remove adjacency; certified bracket.

    >>> import dpcompare as dc
    >>> m = dc.BallsInBinsGaussian(2.0, dataset_size=95, batch_size=10, epochs=2)
    >>> m
    <BallsInBinsGaussian sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=2, sampling=balls_in_bins)>
    >>> m.steps_per_epoch, m.steps, m.gdp_mu == 2 ** 0.5 / 2   # k = ⌈95/10⌉; μ = √E/σ is an upper bound
    (10, 20, True)
    """

    _sampling = "balls_in_bins"
    _adjacency = "add_remove"

    def __post_init__(self) -> None:
        _check_common(self)
        object.__setattr__(self, "steps", self.steps_per_epoch * self.epochs)

    @property
    def steps_per_epoch(self) -> int:
        return -(-self.dataset_size // self.batch_size)

    @cached_property
    def composition(self):
        from ..composition.random_allocation import compose_random_allocation

        return compose_random_allocation(self.sigma, self.steps_per_epoch, self.epochs)

    @cached_property
    def _gaussian(self):
        from .continuous import Gaussian

        return Gaussian(mu=math.sqrt(self.epochs) / self.sigma)

    @property
    def _closed_form(self) -> bool:
        return self.steps_per_epoch == 1  # one step per epoch: the Gaussian exactly

    @property
    def gdp_mu(self) -> float:
        """μ = √E/σ: an upper bound (the example's step revealed), attained in the extreme tail."""
        return math.sqrt(self.epochs) / self.sigma



@dataclass(frozen=True, repr=False)
class ShuffledGaussian(_EpochBatches):
    """E epochs of shuffled batches (replace-one): the bracket [realised worst-case dataset, G_{2√E/σ}]
    (module docstring). ``sigma`` is the noise multiplier (noise std / clipping norm).

    >>> import dpcompare as dc
    >>> m = dc.ShuffledGaussian(2.0, dataset_size=95, batch_size=10, epochs=2)
    >>> m
    <ShuffledGaussian sgm(noise_multiplier=2, batch_size=10, dataset_size=95, epochs=2, sampling=shuffle)>
    >>> lo, hi = m.epsilon_lower(1e-5), m.epsilon(1e-5)   # the certified bracket of ε; its width is open
    >>> bool(0 < lo < hi), hi == dc.Gaussian(mu=2 * 2 ** 0.5 / 2).epsilon(1e-5)
    (True, True)
    """

    _guarantee = "certified bracket (open width)"
    _sampling = "shuffle"
    _adjacency = "replace_one"

    def __post_init__(self) -> None:
        _check_common(self)
        if self.sigma < 0.1:  # the lower side is a random allocation at σ/2, whose engine needs σ/2 ≥ 0.05
            raise ValueError(f"noise_multiplier must be in [0.1, 1000] for sampling=shuffle (its lower side is the "
                             f"random allocation at noise_multiplier/2), got {self.sigma:g}")
        object.__setattr__(self, "steps", -(-self.dataset_size // self.batch_size) * self.epochs)

    @property
    def full_batches(self) -> int:
        return self.dataset_size // self.batch_size

    @property
    def null_weight(self) -> float:
        """r/n: the probability that the example falls in the partial last batch (dropped by the instance)."""
        return (self.dataset_size - self.full_batches * self.batch_size) / self.dataset_size

    @cached_property
    def composition(self):
        """The realised instance's certified pairs (only the optimistic side is used: a lower bound)."""
        from ..composition.random_allocation import compose_random_allocation

        return compose_random_allocation(self.sigma / 2.0, self.full_batches, self.epochs,
                                         null_weight=self.null_weight)

    @cached_property
    def _gaussian(self):
        from .continuous import Gaussian

        return Gaussian(mu=2.0 * math.sqrt(self.epochs) / self.sigma)

    @property
    def _closed_form(self) -> bool:
        return False

    def pairs(self):
        """None: the upper side is a closed form (G_{2√E/σ}), not a discrete pair."""
        return None

    @property
    def exact(self) -> bool:  # type: ignore[override]
        return False

    @cached_property
    def _optimistic_symmetric(self):
        return self.composition.optimistic.symmetrize()

    @property
    def numerical_error(self) -> float:
        return float(self.composition.optimistic_error)

    def _delta_bounds(self, eps):
        from ..composition.sgm_certified import optimistic_profile

        eps = np.asarray(eps, dtype=float)
        hi = np.asarray(self._gaussian._delta_bounds(eps)[1], dtype=float)
        lo = np.minimum(optimistic_profile(self.composition, eps), hi)  # the pessimistic side is not read
        return np.asarray(lo, dtype=float)[()], hi[()]

    def epsilon_lower(self, delta: float) -> float:
        """Certified lower bound of ε(δ): the realised instance's optimistic side (smallest ε where its
        δ − η ≤ δ; below it the instance, hence the truth, has a larger δ)."""
        from ..composition.sgm_certified import pair_epsilon

        c = self.composition
        e = pair_epsilon(c.optimistic, -c.optimistic_error, delta)
        return max(0.0, e * (1.0 - 1e-12)) if math.isfinite(e) else e

    def _epsilon_scalar(self, delta: float) -> float:
        if delta >= 1.0:
            return 0.0
        return float(self._gaussian._epsilon_scalar(delta))

    def _bayes_error_bounds(self, pi):
        c = self.composition
        pi = np.asarray(pi, dtype=float)
        lo = np.asarray(self._gaussian._bayes_error_bounds(pi)[0], dtype=float)
        hi = np.minimum(c.optimistic.bayes_error_bounds(pi)[1], c.optimistic.bayes_error_bounds(1.0 - pi)[1]) + c.optimistic_error
        cap = np.minimum(pi, 1.0 - pi)
        return np.clip(lo, 0.0, cap), np.clip(np.maximum(hi, lo), 0.0, cap)

    def _tradeoff_bounds(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        lo = np.asarray(self._gaussian._tradeoff_bounds(alpha)[0], dtype=float)
        hi = np.asarray(self._optimistic_symmetric.tradeoff_bounds(alpha)[1], dtype=float) + self.numerical_error
        cap = 1.0 - alpha
        return np.clip(lo, 0.0, cap), np.clip(np.maximum(hi, lo), 0.0, cap)

    def _tradeoff_integral(self) -> float:
        return self._gaussian._tradeoff_integral()

    @property
    def gdp_mu(self) -> float:
        return 2.0 * math.sqrt(self.epochs) / self.sigma

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        out = super().describe(delta)
        out["epsilon_lower"] = self.epsilon_lower(delta)
        return out
