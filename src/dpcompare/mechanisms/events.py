"""Mechanisms from dp-accounting objects: any ``DpEvent`` (:class:`FromDpEvent`) and any PLD (:class:`FromPLD`).

:class:`FromDpEvent` follows the route that accounting/event_plan.py picks for the event and delegates every
view to the mechanism it builds, stating how good the answer is in :attr:`FromDpEvent.guarantee`:

- ``EXACT``: NoOp → perfectly private; NonPrivate (or a zero noise parameter) → blatantly non-private;
  Gaussians (any composition) → ``Gaussian(mu=√Σ count/σ²)``; Laplace → ``Laplace(b)``; discrete Laplace
  and k-ary randomized response, one step → their exact discrete pairs (:func:`discrete_laplace_pair`,
  :func:`randomized_response_pair`).
- ``CERTIFIED``: randomized response N times → the exact multinomial pair of composition/randomized_response.py
  up to its rounding bound η (beyond 2000 times with more than 2 buckets, its lattice pair composed by the
  certified FFT); Poisson-sampled Gaussian, N times → :class:`SubsampledGaussian` (certified bracket);
  Gaussian sampled without replacement (fixed-size batches, replace-one), N times →
  :class:`~dpcompare.mechanisms.fixed_batch.FixedBatchGaussian` (certified bracket around the truth:
  composition/wor.py); a mixture of Gaussians or a truncated Poisson-sampled Gaussian, N times →
  :class:`~dpcompare.mechanisms.gaussian_mixture.ComposedGaussianMixture` (certified composition of its
  monotone-loss Gaussian-mixture pair: composition/gaussian_mixture.py).
- ``PLD``: other compositions of events with a dp-accounting PLD (Laplace or discrete Laplace N times,
  Poisson-sampled Laplace, heterogeneous compositions): dp-accounting's pessimistic (connect-the-dots) PLD is the pessimistic pair and its
  optimistic PLD the optimistic pair (perfect privacy where dp-accounting has none). Sound up to the
  floating-point error of dp-accounting's FFT composition, which is not bounded here.
- ``BOUND``: Gaussian sampled *with* replacement, N times →
  :class:`~dpcompare.mechanisms.fixed_batch.WithReplacementGaussian` (composition/wor.py: a certified upper
  bound that reveals the record's multiplicity; optimistic side perfect privacy). Sampling without
  replacement composed with other events, repeat-and-select, tree aggregation, zCDP → dp-accounting's RDP
  bound converted to a privacy-profile bound and then to a pair (composition/profile_bound.py): a certified
  *upper bound* on what the attacker can do, not the mechanism's exact trade-off; the optimistic side is
  perfect privacy.
- dpcompare's extension events (accounting/extension_events.py; not dp-accounting classes, top level only):
  ``RandomAllocationDpEvent`` → :class:`~dpcompare.mechanisms.allocation.BallsInBinsGaussian` (``CERTIFIED``);
  ``ShuffledBatchesDpEvent`` → :class:`~dpcompare.mechanisms.allocation.ShuffledGaussian`
  (``OPEN_BRACKET``: [realised worst-case dataset, G_{2√E/σ}], both ends certified, the width open).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import DISCRETIZATION, check_positive
from ..tradeoff import DiscretePair
from .base import Mechanism
from .continuous import Gaussian, Laplace
from .discrete import BlatantlyNonPrivate, FromPair, PerfectlyPrivate
from .pair_backed import PairMechanism
from .sgm import SubsampledGaussian

#: dp-accounting's default privacy-loss discretisation for the PLD route
DEFAULT_PLD_DISCRETIZATION = 1e-4
#: the largest discrete-Laplace sensitivity whose exact pair we build (one atom per integer in between)
MAX_DISCRETE_LAPLACE_ATOMS = 10**6


def _routed(name: str) -> Any:
    """A read-only view of :class:`FromDpEvent` answered by the mechanism its event is routed to."""
    return property(lambda self: getattr(self.mechanism, name), doc=f"``{name}`` of the routed mechanism.")


class Guarantee(enum.Enum):
    """How a :class:`FromDpEvent` answer relates to the truth (module docstring)."""

    EXACT = "exact"
    CERTIFIED = "certified"
    PLD = "dp-accounting PLD"
    BOUND = "certified bound"
    #: both sides certified, the truth between them, the width an open question (shuffled batches)
    OPEN_BRACKET = "certified bracket (open width)"


def discrete_laplace_pair(a: float, sensitivity: int) -> DiscretePair:
    """Exact pair of the discrete Laplace mechanism: P = DLap(a) at 0, Q = DLap(a) at Δ = ``sensitivity``,
    pmf tanh(a/2)·e^{−a|x|} (dp-accounting's ``DiscreteLaplaceDpEvent``).

    ℓ(x) = log q(x)/p(x) = a(|x| − |x − Δ|): −aΔ for x ≤ 0 (P-mass 1/(1+e^{−a})), +aΔ for x ≥ Δ (P-mass
    e^{−aΔ}/(1+e^{−a})), a(2x − Δ) with P-mass tanh(a/2)e^{−ax} for 0 < x < Δ (geometric sums).

    >>> pair = discrete_laplace_pair(1.0, 1)
    >>> round(float(pair.delta(1.0)), 12)   # ε = aΔ: pure DP, δ = 0
    0.0
    """
    a = check_positive("noise_parameter", a)
    if not 1 <= sensitivity <= MAX_DISCRETE_LAPLACE_ATOMS:
        raise ValueError(f"sensitivity must be in [1, {MAX_DISCRETE_LAPLACE_ATOMS}], got {sensitivity}")
    log_tanh = math.log(-math.expm1(-a)) - math.log1p(math.exp(-a))
    x = np.arange(1, sensitivity, dtype=float)
    loss = np.concatenate([[-a * sensitivity], a * (2 * x - sensitivity), [a * sensitivity]])
    log_p = np.concatenate([[-math.log1p(math.exp(-a))], log_tanh - a * x,
                            [-a * sensitivity - math.log1p(math.exp(-a))]])
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=0.0, q_pos_inf=0.0)


def randomized_response_pair(noise_parameter: float, num_buckets: int) -> DiscretePair:
    """Exact replace-one pair of k-ary randomized response with noise p (dp-accounting's
    ``RandomizedResponseDpEvent``): output the input with probability 1 − p + p/k, each other bucket p/k.

    Inputs a ≠ b: ℓ = ∓log((1 − p + p/k)/(p/k)) at outputs a, b and 0 at the k − 2 others.

    >>> pair = randomized_response_pair(0.5, 2)    # binary, ε = log 3
    >>> round(float(pair.epsilon(0.0)), 12) == round(math.log(3), 12)
    True
    """
    p, k = float(noise_parameter), int(num_buckets)
    if not 0 < p <= 1 or k < 2:
        raise ValueError(f"randomized response needs noise_parameter in (0, 1] and num_buckets >= 2, got {p}, {k}")
    # 1 − p + p/k: for p ≥ ½ as (1 − p) + p/k (1 − p exact, Sterbenz; two positive terms): log1p(−p + p/k)
    # cancels there (1 + x ≈ 1/k), its log off by u/(1 − p + p/k): 2.3e5 u at p = 1 − 1e-6, k = 1e6
    log_keep = math.log((1.0 - p) + p / k) if p >= 0.5 else math.log1p(-p + p / k)
    log_other = math.log(p / k)
    lo = log_other - log_keep
    atoms = [(lo, log_keep), (-lo, log_other)]
    if k > 2:
        atoms.append((0.0, math.log((k - 2) * p / k)))
    loss, log_p = (np.array(v) for v in zip(*atoms))
    return DiscretePair.from_atoms(loss, log_p, p_neg_inf=0.0, q_pos_inf=0.0)


def closed_form_view(mechanism: Any) -> Any:
    """The closed-form mechanism a :class:`FromDpEvent` stands for, where it has one (a Gaussian or Laplace
    event: ``dc.Gaussian``/``dc.Laplace``, with their closed-form Rényi, KL and moments); otherwise the
    argument itself. Closed-form lookups (f-divergences, PLRV moments) call this first.

    >>> import dpcompare as dc
    >>> from dp_accounting import dp_event as e
    >>> closed_form_view(dc.FromDpEvent(e.GaussianDpEvent(2.0))).spec
    'gaussian(mu=0.5)'
    """
    if isinstance(mechanism, FromDpEvent) and isinstance(mechanism.mechanism, (Gaussian, Laplace)):
        return mechanism.mechanism
    return mechanism


@dataclass(frozen=True, repr=False)
class FromDpEvent(Mechanism):
    """The mechanism described by a dp-accounting ``DpEvent`` (or its plain JSON form, a dict).

    ``guarantee`` says whether the answer is exact, certified, dp-accounting's PLD or a certified bound;
    ``adjacency`` the neighbouring relation it is for. ``discretization`` is the privacy-loss grid of the
    certified/PLD routes (default: automatic / dp-accounting's 1e-4).

    >>> import dpcompare as dc
    >>> from dp_accounting import dp_event as e
    >>> m = dc.FromDpEvent(e.SelfComposedDpEvent(e.GaussianDpEvent(2.0), 4))
    >>> m.guarantee.value, m.spec
    ('exact', 'gaussian(mu=1)')
    >>> dc.FromDpEvent(e.NonPrivateDpEvent()).advantage
    1.0
    """

    event: Any
    discretization: float | None = field(default=None, kw_only=True)
    name: str = field(default="dpevent", kw_only=True, compare=False)

    def __post_init__(self) -> None:
        from ..accounting.dp_accounting import event_to_dict, is_event
        from ..accounting.event_plan import check_event_dict

        if not (is_event(self.event) or isinstance(self.event, dict)):
            raise ValueError(f"event must be a dp_accounting DpEvent or its plain (JSON) form, got {type(self.event).__name__}")
        if self.discretization is not None:
            object.__setattr__(self, "discretization", DISCRETIZATION.check_spec(self.discretization))
        plain = event_to_dict(self.event) if is_event(self.event) else check_event_dict(self.event)
        object.__setattr__(self, "_plain", plain)
        _ = self.plan  # unsupported events fail at construction, naming the type

    # ------------------------------------------------------------------ route
    @cached_property
    def plan(self):
        """The route (accounting/event_plan.py ``EventPlan``)."""
        from ..accounting.event_plan import plan

        return plan(self._plain)

    @property
    def adjacency(self):
        """Neighbouring relation of the answer (``Adjacency``; None for NoOp/NonPrivate, true for all)."""
        return self.plan.adjacency

    @cached_property
    def guarantee(self) -> Guarantee:
        from ..accounting.event_plan import Route

        r = self.plan.route
        if r in (Route.SUBSAMPLED_GAUSSIAN, Route.FIXED_BATCH_GAUSSIAN, Route.MIXTURE_OF_GAUSSIANS,
                 Route.TRUNCATED_SUBSAMPLED_GAUSSIAN, Route.RANDOMIZED_RESPONSE_COMPOSED):
            return Guarantee.CERTIFIED
        if r is Route.PLD:
            return Guarantee.PLD
        if r in (Route.RDP_BOUND, Route.WITH_REPLACEMENT_GAUSSIAN):
            return Guarantee.BOUND
        if r is Route.RANDOM_ALLOCATION:
            return Guarantee.CERTIFIED
        if r is Route.SHUFFLED_BATCHES:
            return Guarantee.OPEN_BRACKET
        from .composed_rr import ComposedRandomizedResponse

        if isinstance(self.mechanism, ComposedRandomizedResponse):  # the exact pair up to its bound η (rounding)
            return Guarantee.CERTIFIED
        return Guarantee.EXACT

    @property
    def certified(self) -> bool:
        """True when the bracket is exact or certified (not relying on dp-accounting's FFT rounding)."""
        return self.guarantee is not Guarantee.PLD

    @cached_property
    def mechanism(self) -> Mechanism:
        """The mechanism every view is delegated to."""
        from ..accounting.event_plan import Route

        p = self.plan
        r = p.route
        if r is Route.NOOP:
            return PerfectlyPrivate()
        if r is Route.NONPRIVATE:
            return BlatantlyNonPrivate()
        if r is Route.GAUSSIAN:
            return Gaussian(mu=p.param("mu"))
        if r is Route.LAPLACE:
            return Laplace(b=p.param("b"))
        if r is Route.DISCRETE_LAPLACE:
            return FromPair(discrete_laplace_pair(p.param("a"), int(p.param("sensitivity"))), name=self.name)
        if r is Route.RANDOMIZED_RESPONSE:
            count = int(p.param("count"))
            if count == 1:
                pair = randomized_response_pair(p.param("noise_parameter"), int(p.param("num_buckets")))
                return FromPair(pair, name=self.name)
            from .composed_rr import ComposedRandomizedResponse  # the exact pair with its rounding bound η

            return ComposedRandomizedResponse.of(p.param("noise_parameter"), int(p.param("num_buckets")), count, name=self.name)
        if r is Route.RANDOMIZED_RESPONSE_COMPOSED:
            from ..composition.randomized_response import randomized_response_lattice
            from .gaussian_mixture import ComposedGaussianMixture

            lattice = randomized_response_lattice(p.param("noise_parameter"), int(p.param("num_buckets")))
            return ComposedGaussianMixture(lattice, int(p.param("count")), name=self.name)
        if r in (Route.MIXTURE_OF_GAUSSIANS, Route.TRUNCATED_SUBSAMPLED_GAUSSIAN):
            from ..composition.gaussian_mixture import mixture_of_gaussians_pair, truncated_subsampled_gaussian_pair
            from .gaussian_mixture import ComposedGaussianMixture

            leaf = p.leaves[0][0]
            if r is Route.MIXTURE_OF_GAUSSIANS:
                pair = mixture_of_gaussians_pair(leaf["standard_deviation"], leaf["sensitivities"], leaf["sampling_probs"])
            else:
                pair = truncated_subsampled_gaussian_pair(leaf["dataset_size"], leaf["sampling_probability"],
                                                          leaf["truncated_batch_size"], leaf["noise_multiplier"])
            return ComposedGaussianMixture(pair, int(p.param("steps")), discretization=self.discretization, name=self.name)
        if r is Route.SUBSAMPLED_GAUSSIAN:
            return SubsampledGaussian(p.param("sigma"), p.param("p"), int(p.param("steps")),
                                      discretization=self.discretization)
        if r is Route.FIXED_BATCH_GAUSSIAN:
            from .fixed_batch import FixedBatchGaussian

            return FixedBatchGaussian(p.param("sigma"), dataset_size=int(p.param("dataset_size")),
                                      batch_size=int(p.param("batch_size")), steps=int(p.param("steps")),
                                      discretization=self.discretization)
        if r is Route.WITH_REPLACEMENT_GAUSSIAN:
            from .fixed_batch import WithReplacementGaussian

            return WithReplacementGaussian(p.param("sigma"), dataset_size=int(p.param("dataset_size")),
                                           batch_size=int(p.param("batch_size")), steps=int(p.param("steps")),
                                           discretization=self.discretization)
        if r in (Route.RANDOM_ALLOCATION, Route.SHUFFLED_BATCHES):
            from .allocation import BallsInBinsGaussian, ShuffledGaussian

            k, epochs = int(p.param("num_steps_per_epoch")), int(p.param("num_epochs"))
            params = dict(p.params)
            # without a dataset size (random allocation only) n = k, b = 1 has the same k and the same analysis
            n, b = int(params.get("dataset_size", k)), int(params.get("batch_size", 1))
            cls = BallsInBinsGaussian if r is Route.RANDOM_ALLOCATION else ShuffledGaussian
            return cls(p.param("noise_multiplier"), dataset_size=n, batch_size=b, epochs=epochs,
                       discretization=self.discretization)
        perfectly_private = PerfectlyPrivate().pairs()[0]
        if r is Route.PLD:
            from ..accounting.dp_accounting import leaves_pld, pld_pair

            h = self.discretization or DEFAULT_PLD_DISCRETIZATION
            pess = pld_pair(leaves_pld(p.leaves, p.adjacency, discretization=h, pessimistic=True))
            opt_pld = leaves_pld(p.leaves, p.adjacency, discretization=h, pessimistic=False)
            opt = perfectly_private if opt_pld is None else pld_pair(opt_pld)
            return FromPair(pess, opt, name=self.name)
        from ..accounting.dp_accounting import rdp_bound_pair

        return FromPair(rdp_bound_pair(self._plain, p.adjacency), perfectly_private, name=self.name)

    # ------------------------------------------------------------------ delegated views
    def _bayes_error_bounds(self, pi):
        return self.mechanism._bayes_error_bounds(pi)

    def _delta_bounds(self, eps):
        return self.mechanism._delta_bounds(eps)

    def _tradeoff_bounds(self, alpha):
        return self.mechanism._tradeoff_bounds(alpha)

    def _epsilon_scalar(self, delta: float) -> float:
        return self.mechanism._epsilon_scalar(delta)

    def _tradeoff_integral(self) -> float:
        return self.mechanism._tradeoff_integral()

    def bayes_error_kinks(self) -> np.ndarray:
        return self.mechanism.bayes_error_kinks()

    def pairs(self):
        return self.mechanism.pairs()

    @property
    def exact(self) -> bool:  # type: ignore[override]
        return bool(self.mechanism.exact)

    @property
    def gdp_mu(self) -> float | None:
        return self.mechanism.gdp_mu if self.guarantee is not Guarantee.PLD else None

    numerical_error = _routed("numerical_error")
    advantage = _routed("advantage")
    minimax_bayes_error = _routed("minimax_bayes_error")
    fixed_point = _routed("fixed_point")
    auc = _routed("auc")

    @property
    def spec(self) -> str:
        from ..accounting.event_plan import event_summary

        if self.name != "dpevent":
            return self.name
        from .gaussian_mixture import ComposedGaussianMixture

        if (self.guarantee in (Guarantee.EXACT, Guarantee.CERTIFIED, Guarantee.OPEN_BRACKET)
                and not isinstance(self.mechanism, (FromPair, ComposedGaussianMixture))):
            return self.mechanism.spec
        return f"dpevent({event_summary(self._plain)})"

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        """The scalar views plus ``guarantee`` (exact | certified | dp-accounting PLD | certified bound) and
        ``adjacency`` (the neighbouring relation; None when the answer holds for every relation)."""
        out = super().describe(delta)
        out["guarantee"] = self.guarantee.value
        out["adjacency"] = None if self.adjacency is None else self.adjacency.value
        if hasattr(self.mechanism, "epsilon_lower"):  # shuffled batches: the bracket's certified lower end
            out["epsilon_lower"] = self.mechanism.epsilon_lower(delta)
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """The event as a DpEvent JSON file (accounting/dp_accounting.py ``event_to_json``)."""
        from ..accounting.dp_accounting import event_to_json

        return event_to_json(self._plain, indent=indent)


@dataclass(frozen=True, repr=False, eq=False)
class FromPLD(PairMechanism):
    """The mechanism whose dominating pair is a dp-accounting ``PrivacyLossDistribution``.

    With one PLD the mechanism *is* that discrete pair (both add and remove pmfs, f = conv(min(f_rem,
    f_add)), symmetrised), so its bracket has zero width. Pass ``optimistic=`` a second PLD of the same
    mechanism built with ``pessimistic_estimate=False`` to get a bracket [optimistic, pessimistic]
    around an underlying continuous mechanism instead. Masses are corrected explicitly, never
    renormalised (accounting/dp_accounting.py).
    """

    pld: Any
    optimistic: Any = None
    name: str = field(default="pld", kw_only=True)

    def __post_init__(self) -> None:
        from ..accounting.dp_accounting import PrivacyLossDistribution

        for label, v in (("pld", self.pld), ("optimistic", self.optimistic)):
            if v is not None and not isinstance(v, PrivacyLossDistribution):
                raise ValueError(f"{label} must be a dp_accounting PrivacyLossDistribution, got {type(v).__name__}")
        if self.pld is None:
            raise ValueError("pld must be a dp_accounting PrivacyLossDistribution, got None")

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        from ..accounting.dp_accounting import pld_pair

        pess = pld_pair(self.pld)
        return pess, (pess if self.optimistic is None else pld_pair(self.optimistic))

    @property
    def spec(self) -> str:
        return f"{self.name}()"
