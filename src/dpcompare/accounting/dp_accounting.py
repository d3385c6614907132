"""The ONLY module that imports dp_accounting (pinned to >=0.5,<0.7; tested with 0.6.0): DpEvent and PLD
in and out. Sections: PLD construction; DpEvent → PLD; PLD → pairs; DpEvent analysis (:func:`plan_event`,
which route a DpEvent takes to a certified pair); RDP bounds; DpEvent JSON files; DpEvent builders for
the training vocabulary.

Conventions, checked against dp-accounting's source (``pld/pld_pmf.py``, ``pld/privacy_loss_mechanism.py``):
a ``PLDPmf`` stores the distribution of the privacy loss ℓ = log(μ_upper/μ_lower) *under μ_upper*:
``_probs[i]`` is the μ_upper-mass of the loss (``_lower_loss`` + i)·``_discretization``, and
``_infinity_mass`` the μ_upper-mass at ℓ = +∞; δ(ε) = H_{e^ε}(μ_upper‖μ_lower). In our notation
(P = null, ℓ = log(q/p)) this is Q = μ_upper, P = μ_lower: qᵢ = ``_probs[i]``, pᵢ = qᵢ·e^{−ℓᵢ},
q₊∞ = ``_infinity_mass``. A ``PrivacyLossDistribution`` holds a REMOVE and an ADD pmf (one if
symmetric); its δ is the max of the two, i.e. the mechanism's trade-off is f = conv(min(f_rem, f_add)).
For the subsampled Gaussian, REMOVE is μ_upper = (1−p)N(0,σ²) + pN(−1,σ²), μ_lower = N(0,σ²)
and ADD is μ_upper = N(0,σ²), μ_lower = (1−p)N(0,σ²) + pN(1,σ²) (``AdditiveNoisePrivacyLoss``).

Masses after FFT composition: dp-accounting's dense ``self_compose`` leaves tiny
negative entries, and its connect-the-dots pmfs can carry a total μ_upper-mass above 1 (second
differences of δ in floating point; ≈ 4e-8 per step for the ADD direction of σ = 2, p = 9e-4 at
h = 1e-5, i.e. several percent after 10⁶ steps). :func:`pmf_to_pair` never renormalises: negative
entries are set to 0 and any excess mass is *removed* from the lowest losses and sent to ℓ = ±∞ — which
can only lower the Bayes error (for a pessimistic pmf, the safe side) — and every amount moved is
reported in :class:`PairConversion`.

Optimistic pmfs (``pessimistic_estimate=False``) round every loss down keeping μ_upper: then
Σ qᵢe^{−ℓᵢ} can exceed 1, so they are not pairs. Their Bayes error R' = Σ min(π·pᵢ, (1−π)·qᵢ) is still
≥ the true one (pᵢ only grew), so the valid pair with Bayes error min(R', min(π, 1−π)) — concave,
0 at both ends, below the perfectly private one — is a certified optimistic pair (:func:`~dpcompare.tradeoff.lower_envelope`).
Over 10⁶ compositions its rounding bias is tens of nats: certified but loose; the
subsampled Gaussian has its own tight lower version in :mod:`.sgm`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import attr
import numpy as np
from dp_accounting import dp_event, privacy_accountant
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib
from scipy.special import logsumexp

from ..tradeoff import DiscretePair, Rounding, lower_envelope
from ..composition.profile_bound import profile_bound_pair
from .event_plan import Adjacency, Route, check_event_dict, plan

PrivacyLossDistribution = pld_lib.PrivacyLossDistribution

#: dp-accounting's default discretisation of the privacy loss
DEFAULT_DISCRETIZATION = 1e-4


# ---------------------------------------------------------------------------------------------- construction
def _dense(pld: PrivacyLossDistribution) -> PrivacyLossDistribution:
    """The same PLD with dense pmfs (sparse self-composition is ~200× slower)."""
    rem = pld._pmf_remove.to_dense_pmf()  # noqa: SLF001 - the adapter is allowed internals
    if pld._symmetric:  # noqa: SLF001
        return PrivacyLossDistribution(rem)
    return PrivacyLossDistribution(rem, pld._pmf_add.to_dense_pmf())  # noqa: SLF001


def subsampled_gaussian_pld(
    sigma: float,
    sampling_rate: float,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    pessimistic: bool = True,
) -> PrivacyLossDistribution:
    """One step of the Poisson-subsampled Gaussian (sensitivity 1) with both the REMOVE and the ADD pmf
    (only one when sampling_rate = 1, where they coincide), dense.

    Pessimistic: connect-the-dots (Doroshenko et al. 2022); optimistic: privacy buckets rounded down.
    """
    pld = pld_lib.from_gaussian_mechanism(
        standard_deviation=float(sigma),
        sensitivity=1.0,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=float(discretization),
        sampling_prob=float(sampling_rate),
        use_connect_dots=pessimistic,
    )
    return _dense(pld)


def compose(pld: PrivacyLossDistribution, steps: int, *, tail_mass_truncation: float = 1e-15) -> PrivacyLossDistribution:
    """N-fold self-composition, dense (FFT), both adjacency directions."""
    if steps == 1:
        return _dense(pld)
    return _dense(pld).self_compose(int(steps), tail_mass_truncation=tail_mass_truncation)


def subsampled_gaussian_composed(
    sigma: float,
    sampling_rate: float,
    steps: int,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    pessimistic: bool = True,
) -> PrivacyLossDistribution:
    """dp-accounting's PLD of ``steps`` subsampled-Gaussian steps (the baseline we cross-check against)."""
    one = subsampled_gaussian_pld(sigma, sampling_rate, discretization=discretization, pessimistic=pessimistic)
    return compose(one, steps)


# ---------------------------------------------------------------------------------------------- DpEvent ↔ plain form
NeighboringRelation = privacy_accountant.NeighboringRelation
_RELATION = {
    Adjacency.ADD_REMOVE: NeighboringRelation.ADD_OR_REMOVE_ONE,
    Adjacency.REPLACE_ONE: NeighboringRelation.REPLACE_ONE,
    Adjacency.REPLACE_SPECIAL: NeighboringRelation.REPLACE_SPECIAL,
}


def is_event(obj: Any) -> bool:
    return isinstance(obj, dp_event.DpEvent)


def event_to_dict(event: dp_event.DpEvent) -> dict[str, Any]:
    """The plain form of a DpEvent: dp-accounting's ``to_named_tuple`` structure as nested dicts/lists."""
    if not isinstance(event, dp_event.DpEvent):
        raise ValueError(f"event must be a dp_accounting DpEvent, got {type(event).__name__}")

    def plain(v: Any) -> Any:
        if hasattr(v, "_fields"):  # a named tuple of a nested event
            return {f: plain(getattr(v, f)) for f in v._fields}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, (np.integer,)):
            return int(v)
        if isinstance(v, (np.floating,)):
            return float(v)
        return v

    return check_event_dict(plain(event.to_named_tuple()))


def event_from_dict(node: Mapping[str, Any]) -> dp_event.DpEvent:
    """The DpEvent of a plain form (validated first; only classes of ``dp_accounting.dp_event``)."""
    node = check_event_dict(node)
    if node["module_name"] != "dp_accounting.dp_event":  # a dpcompare extension (accounting/extension_events.py)
        raise ValueError(f"{node['class_name']} is a dpcompare extension event with no dp-accounting class; for "
                         "dp-accounting use its dp_accounting_upper_bound field (a valid, looser upper bound)")

    def build(n: Mapping[str, Any]) -> dp_event.DpEvent:
        cls = getattr(dp_event, n["class_name"])
        kwargs = {}
        for f in attr.fields(cls):
            v = n[f.name]
            if isinstance(v, Mapping):
                v = build(v)
            elif isinstance(v, list):
                v = [build(x) if isinstance(x, Mapping) else x for x in v]
            kwargs[f.name] = v
        return cls(**kwargs)

    return build(node)


def event_to_json(event: dp_event.DpEvent | Mapping[str, Any], *, indent: int | None = 2) -> str:
    """JSON text of a DpEvent (the plain form); :func:`event_from_dict` of ``json.loads`` of it round-trips."""
    node = event_to_dict(event) if isinstance(event, dp_event.DpEvent) else check_event_dict(event)
    return json.dumps(node, indent=indent, allow_nan=False)


# ---------------------------------------------------------------------------------------------- leaves → PLD
def _leaf_pld(leaf: Mapping[str, Any], h: float, pessimistic: bool, relation: Any) -> PrivacyLossDistribution | None:
    """One leaf's PLD as dp-accounting's PLDAccountant builds it (None: no optimistic version exists)."""
    cls = leaf["class_name"]
    common = dict(pessimistic_estimate=pessimistic, value_discretization_interval=h)
    if cls == "GaussianDpEvent":
        return subsampled_gaussian_pld(leaf["noise_multiplier"], 1.0, discretization=h, pessimistic=pessimistic)
    if cls == "LaplaceDpEvent":
        return pld_lib.from_laplace_mechanism(leaf["noise_multiplier"], use_connect_dots=pessimistic, **common)
    if cls == "DiscreteLaplaceDpEvent":
        return pld_lib.from_discrete_laplace_mechanism(leaf["noise_parameter"], sensitivity=leaf["sensitivity"], **common)
    if cls == "RandomizedResponseDpEvent":
        return pld_lib.from_randomized_response(leaf["noise_parameter"], leaf["num_buckets"],
                                                neighboring_relation=relation, **common)
    if cls == "MixtureOfGaussiansDpEvent":
        return pld_lib.from_mixture_gaussian_mechanism(
            leaf["standard_deviation"], leaf["sensitivities"], leaf["sampling_probs"], use_connect_dots=pessimistic,
            **common)
    if cls == "PoissonSampledDpEvent":
        inner, q = leaf["event"], leaf["sampling_probability"]
        if inner["class_name"] == "GaussianDpEvent":
            return subsampled_gaussian_pld(inner["noise_multiplier"], q, discretization=h, pessimistic=pessimistic)
        return pld_lib.from_laplace_mechanism(inner["noise_multiplier"], sampling_prob=q,
                                              use_connect_dots=pessimistic, **common)
    if cls == "TruncatedSubsampledGaussianDpEvent":
        if not pessimistic:
            return None
        return pld_lib.from_truncated_subsampled_gaussian_mechanism(
            leaf["dataset_size"], leaf["sampling_probability"], leaf["truncated_batch_size"], leaf["noise_multiplier"],
            value_discretization_interval=h, neighboring_relation=relation)
    raise ValueError(f"{cls} has no privacy loss distribution in dp-accounting")


def leaves_pld(
    leaves: Sequence[tuple[Mapping[str, Any], int]], adjacency: Adjacency, *, discretization: float, pessimistic: bool
) -> PrivacyLossDistribution | None:
    """dp-accounting PLD of the composition Σ countᵢ × leafᵢ, composed dense (None: no optimistic version)."""
    out = None
    for leaf, count in leaves:
        part = _leaf_pld(leaf, float(discretization), pessimistic, _RELATION[adjacency])
        if part is None:
            return None
        part = compose(part, int(count))
        out = part if out is None else _dense(out).compose(part)
    return out


def pld_from_event(
    event: dp_event.DpEvent, *, discretization: float = DEFAULT_DISCRETIZATION, pessimistic: bool = True
) -> PrivacyLossDistribution:
    """dp-accounting PLD of a DpEvent whose route is a PLD (or a special case of one), composed dense.

    Mirrors ``dp_accounting.pld.PLDAccountant`` but also builds the optimistic version
    (``pessimistic=False``), which the accountant does not expose. Non-private events → a PLD with all mass
    at ℓ = +∞; events with no privacy loss → the identity PLD.
    """
    p = plan(event_to_dict(event))
    if p.route is Route.NOOP:
        return pld_lib.identity(value_discretization_interval=float(discretization), pessimistic_estimate=pessimistic)
    if p.route is Route.NONPRIVATE:
        return PrivacyLossDistribution.create_from_rounded_probability(
            {0: 0.0}, 1.0, float(discretization), pessimistic_estimate=pessimistic)
    if p.route is Route.RDP_BOUND:
        raise ValueError("this event has no privacy loss distribution in dp-accounting (only an RDP bound)")
    out = leaves_pld(p.leaves, p.adjacency or Adjacency.ADD_REMOVE, discretization=discretization, pessimistic=pessimistic)
    if out is None:
        raise ValueError("dp-accounting has no optimistic PLD for this event")
    return out


# ---------------------------------------------------------------------------------------------- RDP bounds
def rdp_curve(event: dp_event.DpEvent | Mapping[str, Any], adjacency: Adjacency) -> tuple[np.ndarray, np.ndarray]:
    """(orders, RDP ρ(α)) of a DpEvent by dp-accounting's ``RdpAccountant`` under ``adjacency``.

    Raises ValueError naming the event when the RDP accountant does not support it under that relation.
    """
    ev = event if isinstance(event, dp_event.DpEvent) else event_from_dict(event)
    acc = rdp_lib.RdpAccountant(neighboring_relation=_RELATION[adjacency])  # its default orders
    err = acc.supports(ev)
    if not err:
        raise ValueError(f"dp-accounting's RDP accountant does not support this event under {adjacency.value} "
                         "adjacency, so no certified bound is available")
    acc.compose(ev)
    return np.asarray(acc._orders, dtype=float), np.asarray(acc._rdp, dtype=float)  # noqa: SLF001


def rdp_log_delta(orders: np.ndarray, rdp: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """log δ(ε) ≤ min_α min(½·log(1 − e^{−ρ(α)}), (α−1)(ρ(α) − ε + log(1 − 1/α)) − log α) (the second term for
    α > 1.01: Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy", 2020, Prop 12),
    vectorised over ε — the formula of dp-accounting's ``compute_delta``, except that orders with a
    negative or non-finite RDP value (numerical trouble) are *skipped*, where dp-accounting returns δ = 0."""
    a, r = np.asarray(orders, dtype=float), np.asarray(rdp, dtype=float)
    ok = np.isfinite(r) & (r >= 0)
    a, r = a[ok], r[ok]
    e = np.atleast_1d(np.asarray(eps, dtype=float))[:, None]
    if a.size == 0:
        return np.zeros(e.shape[0])
    with np.errstate(divide="ignore"):
        first = np.where(r > 0, 0.5 * np.log1p(-np.exp(-r)), -np.inf)
    big = a > 1.01
    second = np.where(big, (a - 1.0) * (r - e + np.log1p(-1.0 / np.where(big, a, 2.0))) - np.log(a), np.inf)
    out = np.min(np.minimum(first[None, :], second), axis=1)
    return np.minimum(out, 0.0)


def rdp_bound_pair(event: dp_event.DpEvent | Mapping[str, Any], adjacency: Adjacency, *, points: int = 2000) -> DiscretePair:
    """Certified pessimistic pair of an RDP bound: the profile bound δ(εᵢ) ≤ δᵢ of :func:`rdp_log_delta` at
    ``points`` values εᵢ (0 up to where the bound reaches δ = 1e-300, half of them log-spaced) →
    :func:`~dpcompare.composition.profile_bound.profile_bound_pair`. Between grid points the pair takes the
    bound at the grid point below, so the pair is valid whatever the grid (coarser = looser)."""
    orders, rdp = rdp_curve(event, adjacency)
    a, r = orders, rdp
    ok = np.isfinite(r) & (r >= 0) & (a > 1.01)
    if not np.any(ok):
        raise ValueError("the RDP bound of this event is infinite (no finite privacy guarantee)")
    a, r = a[ok], r[ok]
    eps_max = float(np.min(r + np.log1p(-1.0 / a) - (math.log(1e-300) + np.log(a)) / (a - 1.0)))
    eps_max = max(eps_max, 1e-6)
    grid = np.unique(np.concatenate([
        np.linspace(0.0, eps_max, points // 2), eps_max * np.logspace(-6, 0, points // 2)]))
    return profile_bound_pair(grid, np.exp(rdp_log_delta(orders, rdp, grid)))


# ---------------------------------------------------------------------------------------------- PLD → pairs
@dataclass(frozen=True, eq=False)
class PairConversion:
    """A pmf converted to a pair, with every explicit mass correction (μ_upper = Q, μ_lower = P units)."""

    pair: DiscretePair
    negative_mass: float  # Σ of negative entries set to 0
    removed_q: float  # Q-mass above 1 removed from the lowest losses
    removed_p: float  # P-mass above 1 removed from the lowest losses


def _pmf_arrays(pmf: pld_pmf.PLDPmf) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """(losses, μ_upper masses, infinity mass, pessimistic?) of a dp-accounting pmf."""
    dense = pmf.to_dense_pmf()
    h = dense._discretization  # noqa: SLF001
    probs = np.asarray(dense._probs, dtype=float)  # noqa: SLF001
    loss = (dense._lower_loss + np.arange(probs.size)) * h  # noqa: SLF001
    return loss, probs, float(dense._infinity_mass), bool(dense._pessimistic_estimate)  # noqa: SLF001


def pmf_to_pair(pmf: pld_pmf.PLDPmf) -> PairConversion:
    """A dp-accounting pmf as a DiscretePair (Q = μ_upper), masses corrected explicitly (module docstring).

    Pessimistic pmfs give a pessimistic pair; optimistic pmfs (not pairs) give the certified optimistic
    pair of :func:`~dpcompare.tradeoff.lower_envelope` with the perfectly private mechanism.
    """
    loss, q, inf_mass, pessimistic = _pmf_arrays(pmf)
    negative = float(-q[q < 0].sum())
    q = np.where(q > 0, q, 0.0)
    if not pessimistic:
        keep = q > 0
        with np.errstate(divide="ignore"):
            log_p = np.log(q[keep]) - loss[keep]
        pair = lower_envelope([(loss[keep], log_p)], include_perfectly_private=True, rounding=Rounding.OPTIMISTIC)
        return PairConversion(pair, negative, 0.0, 0.0)
    inf_mass = min(max(inf_mass, 0.0), 1.0)
    removed_q = _remove_from_low_end(q, excess=float(q.sum()) + inf_mass - 1.0)
    keep = q > 0
    loss, q = loss[keep], q[keep]
    log_p = np.log(q) - loss
    removed_p = 0.0
    p_excess = float(np.exp(logsumexp(log_p))) - 1.0 if log_p.size else 0.0
    if p_excess > 0:  # P-mass above 1 (amplified noise at low losses): remove it from the lowest losses
        p = np.exp(np.minimum(log_p, 700.0))
        removed_p = _remove_from_low_end(p, excess=p_excess)
        touched = p != np.exp(np.minimum(log_p, 700.0))
        with np.errstate(divide="ignore"):
            log_p = np.where(touched, np.log(p), log_p)
    pair = DiscretePair(loss, log_p, None, None, Rounding.PESSIMISTIC)
    return PairConversion(pair, negative, removed_q, removed_p)


def _remove_from_low_end(mass: np.ndarray, excess: float) -> float:
    """Remove ``excess`` (if > 0) from the lowest-index entries of ``mass`` in place; return what was removed."""
    if not excess > 0:
        return 0.0
    cum = np.cumsum(mass)
    cut = int(np.searchsorted(cum, excess, side="left"))
    mass[:cut] = 0.0
    if cut < mass.size:
        mass[cut] = cum[cut] - excess
    return float(excess)


def pld_to_pairs(pld: PrivacyLossDistribution) -> tuple[PairConversion, PairConversion | None]:
    """(REMOVE, ADD) conversions of a PLD; ADD is None when the PLD is symmetric."""
    rem = pmf_to_pair(pld._pmf_remove)  # noqa: SLF001
    if pld._symmetric:  # noqa: SLF001
        return rem, None
    return rem, pmf_to_pair(pld._pmf_add)  # noqa: SLF001


def pld_pair(pld: PrivacyLossDistribution) -> DiscretePair:
    """One pair for the whole PLD: f = conv(min(f_rem, f_add)) (dp-accounting's δ = max(δ_rem, δ_add))."""
    rem, add = pld_to_pairs(pld)
    if add is None:
        return rem.pair
    return lower_envelope([rem.pair, add.pair], rounding=rem.pair.rounding)


