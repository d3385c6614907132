"""DP-SGD in the trainer's vocabulary: noise multiplier, batch size, dataset size, epochs or steps, sampling.

:class:`TrainingConfig` turns what Opacus, JAX-Privacy and TF-Privacy users set into the mechanism we
analyse, its DpEvent, and the neighbouring relation the guarantee is for. ``noise_multiplier`` σ is
always *noise standard deviation / per-example clipping norm C* (Opacus' and TF-Privacy's convention).

- **sampling = poisson** (Opacus' default ``poisson_sampling=True``): every example joins each batch
  independently with probability p = batch_size/dataset_size; steps = ⌈epochs·dataset_size/batch_size⌉
  (rounded *up*: more steps can only cost privacy, so the analysis never covers less training than ran).
  Add-or-remove-one adjacency; the certified :class:`~dpcompare.SubsampledGaussian` (σ, p, steps); event
  ``SelfComposed(PoissonSampled(p, Gaussian(σ)), steps)``, JAX-Privacy's ``dpsgd_event``.
- **sampling = fixed**: a batch of exactly batch_size examples drawn without replacement at every step,
  steps as above. Replace-one adjacency (a fixed batch size reveals the dataset size, so add/remove is not
  meaningful): one replaced example moves the clipped sum by up to 2C, so the event is
  ``SelfComposed(SampledWithoutReplacement(n, b, Gaussian(σ/2)), steps)`` — dp-accounting takes a replace-one
  event's noise multiplier relative to the replace-one sensitivity 2C (its RDP accountant uses the base
  RDP α/(2σ'²)). Certified (:class:`~dpcompare.mechanisms.fixed_batch.FixedBatchGaussian`, composition/wor.py):
  each step is C_q(G_{2/σ})-DP, q = b/n (Balle, Barthe & Gaboardi 2018, Thm 10; Dong, Roth & Su 2022,
  Thm 4.2), the steps compose adaptively (Dong, Roth & Su 2022, Thm 3.2) — the pessimistic side; a fixed
  worst-case dataset realises the Poisson pair at rate q with sensitivity 2C at every step — the optimistic
  side. The bracket contains the truth; it is wider than Poisson's because symmetrising each step before
  composing is all that is proved for replace-one (the realised side may be the truth, or not).
- **sampling = shuffle**: each epoch is a random permutation cut into batches, so every example is in
  exactly one step per epoch; epochs must be whole. Replace-one adjacency. Upper side: per epoch, the one
  step that uses the replaced example moves the clipped sum by at most 2C and every other step has the
  same input, so the epoch is dominated by the Gaussian mechanism with μ = 2/σ, and E adaptive epochs
  by G_{2√E/σ} (Dong, Roth & Su, "Gaussian differential privacy", 2022, Cor 3.3). Lower side: a realised
  worst-case dataset (:class:`~dpcompare.mechanisms.allocation.ShuffledGaussian`), certified. The width
  between them is an open research question; the Poisson number that trainers often report for shuffled
  batches is *not* a valid bound for them (Chua et al., "How private are DP-SGD implementations?", ICML
  2024). Event: ``SelfComposed(Gaussian(σ/2), epochs)`` (the upper side).
- **sampling = balls_in_bins**: each epoch has k = ⌈dataset_size/batch_size⌉ steps and every example is
  placed in one uniformly random step (Chua et al., "Balls-and-Bins Sampling for DP-SGD", 2025); epochs
  must be whole. Add-or-remove-one adjacency. Certified two-sided bracket
  (:mod:`dpcompare.composition.random_allocation`). No dp-accounting event exists for it.

>>> c = TrainingConfig(noise_multiplier=1.0, batch_size=256, dataset_size=60000, epochs=10)
>>> c.steps, round(c.sampling_rate, 6), c.adjacency.value
(2344, 0.004267, 'add_remove')
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from .._summary import summarized
from .._validation import POSITIVE, Interval, Param, declared

__all__ = ["Sampling", "TrainingConfig", "dpsgd_mechanism"]


class Sampling(enum.Enum):
    POISSON = "poisson"
    SHUFFLE = "shuffle"
    FIXED = "fixed"
    BALLS_IN_BINS = "balls_in_bins"


#: the modes that use every example once per epoch (whole epochs only)
_PER_EPOCH = (Sampling.SHUFFLE, Sampling.BALLS_IN_BINS)


def _adjacency_for(sampling: Sampling):
    from ..accounting.event_plan import Adjacency

    return Adjacency.ADD_REMOVE if sampling in (Sampling.POISSON, Sampling.BALLS_IN_BINS) else Adjacency.REPLACE_ONE


def _enum(name: str, value: Any, cls: type[enum.Enum]) -> Any:
    if isinstance(value, cls):
        return value
    allowed = "|".join(m.value for m in cls)
    if not isinstance(value, str) or value.lower() not in {m.value for m in cls}:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return cls(value.lower())


#: the one declaration of a training configuration's numeric domains (the spec language's ``sgm`` keys
#: derive from it; σ, p and N are the subsampled Gaussian's own, ``SubsampledGaussian.PARAMS``)
_COUNT = Interval(1.0, math.inf)
PARAMS = (
    *(Param(n, POSITIVE) for n in ("noise_multiplier", "epochs")),
    *(Param(n, _COUNT, integer=True) for n in ("batch_size", "dataset_size", "steps")),
    Param("sampling_rate", Interval(0.0, 1.0, low_open=True)),
)


def _check(name: str, value: Any, label: str | None = None) -> Any:
    return declared(PARAMS, name).check_spec(value, label or name)


def _real_epochs(value: Any) -> Fraction:
    v = _check("epochs", value)
    return Fraction(v)


@summarized("DP training configuration", "sampling_rate", "steps")
@dataclass(frozen=True)
class TrainingConfig:
    """A DP-SGD run as the trainer states it (module docstring for the three sampling modes).

    Give the noise multiplier, the sampling rate (``sampling_rate``/``p``, or ``batch_size`` and
    ``dataset_size``), and the length (``steps``, or ``epochs`` with ``dataset_size``/``batch_size`` or with
    the rate: steps = ⌈epochs/p⌉). ``adjacency`` may be given to check it fits the sampling mode.
    """

    noise_multiplier: float
    batch_size: int | None = None
    dataset_size: int | None = None
    epochs: float | None = None
    steps_given: int | None = field(default=None, repr=False)
    sampling: Sampling = Sampling.POISSON
    rate_given: float | None = field(default=None, repr=False)
    discretization: float | None = field(default=None, repr=False)

    def __init__(self, noise_multiplier: float, *, batch_size: int | None = None, dataset_size: int | None = None,
                 epochs: float | None = None, steps: int | None = None, sampling: Sampling | str = "poisson",
                 sampling_rate: float | None = None, p: float | None = None, adjacency: Any = None,
                 discretization: float | None = None) -> None:
        s = object.__setattr__
        s(self, "noise_multiplier", _check("noise_multiplier", noise_multiplier))
        s(self, "sampling", _enum("sampling", sampling, Sampling))
        s(self, "discretization", discretization)
        if p is not None and sampling_rate is not None:
            raise ValueError("give the sampling rate once: p or sampling_rate, not both")
        rate = p if p is not None else sampling_rate
        s(self, "batch_size", None if batch_size is None else _check("batch_size", batch_size))
        s(self, "dataset_size", None if dataset_size is None else _check("dataset_size", dataset_size))
        if (self.batch_size is None) != (self.dataset_size is None):
            raise ValueError("batch_size and dataset_size go together (p = batch_size/dataset_size)")
        if self.batch_size is not None:
            if rate is not None:
                raise ValueError("give either p/sampling_rate or batch_size with dataset_size, not both")
            if self.batch_size > self.dataset_size:
                raise ValueError(f"batch_size ({self.batch_size}) must be <= dataset_size ({self.dataset_size})")
        elif rate is None:
            raise ValueError("the sampling rate is missing: give p (or sampling_rate) or batch_size with dataset_size")
        else:
            rate = _check("sampling_rate", rate, "p" if p is not None else "sampling_rate")
            if self.sampling is not Sampling.POISSON:
                raise ValueError(f"sampling={self.sampling.value} needs batch_size and dataset_size (a fixed batch "
                                 "of a known dataset), not a sampling rate")
        s(self, "rate_given", rate)
        if (epochs is None) == (steps is None):
            raise ValueError("give exactly one of epochs and steps")
        s(self, "epochs", None if epochs is None else float(_real_epochs(epochs)))
        s(self, "steps_given", None if steps is None else _check("steps", steps))
        if self.sampling in _PER_EPOCH:
            per, mode = self.batches_per_epoch, self.sampling.value
            if self.epochs is not None and not float(self.epochs).is_integer():
                raise ValueError(f"epochs must be a whole number for sampling={mode} (each example is used once "
                                 f"per epoch), got {self.epochs:g}")
            if self.steps_given is not None and self.steps_given % per:
                raise ValueError(f"steps must be a whole number of epochs for sampling={mode}: a multiple of "
                                 f"{per} (= ceil(dataset_size/batch_size)), got {self.steps_given}")
        if adjacency is not None:
            from ..accounting.event_plan import Adjacency

            adj = _enum("adjacency", adjacency, Adjacency)
            if adj is not self.adjacency:
                raise ValueError(f"adjacency={adj.value} does not fit sampling={self.sampling.value}: allowed "
                                 f"adjacency={self.adjacency.value} (poisson, balls_in_bins: add_remove; fixed, "
                                 "shuffle: replace_one)")

    # ------------------------------------------------------------------ derived
    @property
    def sampling_rate(self) -> float:
        """p = batch_size/dataset_size (or the rate given)."""
        if self.rate_given is not None:
            return self.rate_given
        return self.batch_size / self.dataset_size

    @property
    def batches_per_epoch(self) -> int:
        """⌈dataset_size/batch_size⌉ (shuffle/fixed: the last batch of an epoch may be smaller)."""
        return -(-self.dataset_size // self.batch_size)

    @property
    def steps(self) -> int:
        """steps as given, else ⌈epochs·dataset_size/batch_size⌉ (⌈epochs/p⌉ from a rate), rounded up exactly
        (rational arithmetic, no floating-point rounding); shuffle: epochs·⌈dataset_size/batch_size⌉."""
        if self.steps_given is not None:
            return self.steps_given
        e = Fraction(self.epochs)
        if self.sampling in _PER_EPOCH:
            return int(e) * self.batches_per_epoch
        if self.batch_size is not None:
            return math.ceil(e * self.dataset_size / self.batch_size)
        return math.ceil(e / Fraction(self.rate_given))

    @property
    def adjacency(self):
        """add_remove for poisson and balls_in_bins, replace_one for fixed and shuffle (``Adjacency``)."""
        return _adjacency_for(self.sampling)

    def event_dict(self) -> dict[str, Any]:
        """The DpEvent in its plain (JSON) form (module docstring)."""
        g = lambda s: {"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent",  # noqa: E731
                       "noise_multiplier": s}
        sc = lambda e, n: {"module_name": "dp_accounting.dp_event", "class_name": "SelfComposedDpEvent",  # noqa: E731
                           "event": e, "count": n}
        sigma = self.noise_multiplier
        if self.sampling is Sampling.POISSON:
            return sc({"module_name": "dp_accounting.dp_event", "class_name": "PoissonSampledDpEvent",
                       "sampling_probability": self.sampling_rate, "event": g(sigma)}, self.steps)
        if self.sampling is Sampling.BALLS_IN_BINS:
            raise ValueError("sampling=balls_in_bins has no dp-accounting DpEvent (dp-accounting has no random-"
                             "allocation event); allowed: sampling=poisson|fixed|shuffle (`dpcompare event` writes "
                             "dpcompare's RandomAllocationDpEvent extension instead)")
        if self.sampling is Sampling.FIXED:
            return sc({"module_name": "dp_accounting.dp_event", "class_name": "SampledWithoutReplacementDpEvent",
                       "source_dataset_size": self.dataset_size, "sample_size": self.batch_size,
                       "event": g(sigma / 2.0)}, self.steps)
        return sc(g(sigma / 2.0), self.steps // self.batches_per_epoch)

    def event(self):
        """The dp-accounting DpEvent (accounting/dp_accounting.py builds it)."""
        from ..accounting.dp_accounting import event_from_dict

        return event_from_dict(self.event_dict())

    @cached_property
    def mechanism(self):
        """The mechanism we analyse: the certified SubsampledGaussian (poisson), the certified random-allocation
        bracket (balls_in_bins), the bracket [realised worst-case dataset, G_{2√E/σ}] (shuffle) or the
        certified fixed-batch bracket (fixed)."""
        from ..mechanisms import SubsampledGaussian
        from ..mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
        from ..mechanisms.fixed_batch import FixedBatchGaussian

        if self.sampling is Sampling.POISSON:
            return SubsampledGaussian(self.noise_multiplier, self.sampling_rate, self.steps,
                                      discretization=self.discretization)
        if self.sampling in _PER_EPOCH:
            cls = ShuffledGaussian if self.sampling is Sampling.SHUFFLE else BallsInBinsGaussian
            return cls(self.noise_multiplier, dataset_size=self.dataset_size, batch_size=self.batch_size,
                       epochs=self.steps // self.batches_per_epoch)
        return FixedBatchGaussian(self.noise_multiplier / 2.0, dataset_size=self.dataset_size,
                                  batch_size=self.batch_size, steps=self.steps, discretization=self.discretization)

    @property
    def spec(self) -> str:
        """The configuration in the spec language."""
        from .._validation import format_number

        parts = [f"noise_multiplier={format_number(self.noise_multiplier)}"]
        if self.batch_size is not None:
            parts += [f"batch_size={self.batch_size}", f"dataset_size={self.dataset_size}"]
        else:
            parts.append(f"p={format_number(self.sampling_rate)}")
        parts.append(f"steps={self.steps}")
        parts.append(f"sampling={self.sampling.value}")
        return f"sgm({', '.join(parts)})"


def dpsgd_mechanism(noise_multiplier: float | None = None, **kwargs: Any):
    """The mechanism of a DP-SGD run in the trainer's vocabulary (:class:`TrainingConfig`'s arguments;
    ``sigma=`` is accepted for ``noise_multiplier``).

    >>> import dpcompare as dc
    >>> m = dc.dpsgd_mechanism(noise_multiplier=2.0, batch_size=100, dataset_size=100, steps=4)
    >>> round(float(m.gdp_mu), 12)      # p = 1: the Gaussian with μ = √steps/σ
    1.0
    """
    sigma = kwargs.pop("sigma", None)
    if sigma is not None and noise_multiplier is not None:
        raise ValueError("give the noise multiplier once: noise_multiplier or sigma, not both")
    nm = noise_multiplier if noise_multiplier is not None else sigma
    if nm is None:
        raise ValueError("noise_multiplier (or sigma) is missing")
    return TrainingConfig(nm, **kwargs).mechanism
