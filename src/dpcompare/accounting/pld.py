"""The one adapter that touches dp-accounting's internals (pinned to >=0.5,<0.7; tested with 0.6.0).

Conventions, checked against dp-accounting's source (``pld/pld_pmf.py``, ``pld/privacy_loss_mechanism.py``):
a ``PLDPmf`` stores the distribution of the privacy loss ℓ = log(μ_upper/μ_lower) *under μ_upper*:
``_probs[i]`` is the μ_upper-mass of the loss (``_lower_loss`` + i)·``_discretization``, and
``_infinity_mass`` the μ_upper-mass at ℓ = +∞; δ(ε) = H_{e^ε}(μ_upper‖μ_lower). In our notation
(P = null, ℓ = log(q/p)) this is Q = μ_upper, P = μ_lower: qᵢ = ``_probs[i]``, pᵢ = qᵢ·e^{−ℓᵢ},
q₊∞ = ``_infinity_mass``. A ``PrivacyLossDistribution`` holds a REMOVE and an ADD pmf (one if
symmetric); its δ is the max of the two, i.e. the mechanism's trade-off is f = conv(min(f_rem, f_add)).
For the subsampled Gaussian, REMOVE is μ_upper = (1−p)N(0,σ²) + pN(−1,σ²), μ_lower = N(0,σ²)
and ADD is μ_upper = N(0,σ²), μ_lower = (1−p)N(0,σ²) + pN(1,σ²) (``AdditiveNoisePrivacyLoss``).

Masses after FFT composition (DESIGN.md §2): dp-accounting's dense ``self_compose`` leaves tiny
negative entries, and its connect-the-dots pmfs can carry a total μ_upper-mass above 1 (second
differences of δ in floating point; ≈ 4e-8 per step for the ADD direction of σ = 2, p = 9e-4 at
h = 1e-5, i.e. several percent after 10⁶ steps). :func:`pmf_to_pair` never renormalises: negative
entries are set to 0 and any excess mass is *removed* from the lowest losses and sent to ℓ = ±∞ — which
can only lower the Bayes error (for a pessimistic pmf, the safe side) — and every amount moved is
reported in :class:`PairConversion`.

Optimistic pmfs (``pessimistic_estimate=False``) round every loss down keeping μ_upper: then
Σ qᵢe^{−ℓᵢ} can exceed 1, so they are not pairs. Their Bayes error R' = Σ min(π·pᵢ, (1−π)·qᵢ) is still
≥ the true one (pᵢ only grew), so the valid pair with Bayes error min(R', min(π, 1−π)) — concave,
0 at both ends, below the perfectly private one — is a certified optimistic pair (:func:`bayes_envelope`).
Over 10⁶ compositions its rounding bias is tens of nats (DESIGN.md §1): certified but loose; the
subsampled Gaussian has its own tight lower version in :mod:`.sgm`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from dp_accounting import dp_event
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from scipy.special import logsumexp

from .._numerics import expit
from ..tradeoff import DiscretePair, Rounding

PrivacyLossDistribution = pld_lib.PrivacyLossDistribution

#: dp-accounting's default discretisation of the privacy loss
DEFAULT_DISCRETIZATION = 1e-4


# ---------------------------------------------------------------------------------------------- construction
def _dense(pld: PrivacyLossDistribution) -> PrivacyLossDistribution:
    """The same PLD with dense pmfs (sparse self-composition is ~200× slower; DESIGN.md §1)."""
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


# ---------------------------------------------------------------------------------------------- DpEvent → PLD
@functools.singledispatch
def _event_pld(event: dp_event.DpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    """PLD of a DpEvent (None = no privacy loss); raises ValueError for events dp-accounting's PLD
    accountant does not support with the add/remove-one relation."""
    raise ValueError(f"event: unsupported DpEvent type {type(event).__name__} (supported: Gaussian, Laplace, "
                     "PoissonSampled(Gaussian|Laplace), SelfComposed, Composed, NoOp, NonPrivate)")


@_event_pld.register
def _(event: dp_event.NoOpDpEvent, h: float, pessimistic: bool) -> None:
    return None


@_event_pld.register
def _(event: dp_event.NonPrivateDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution:
    return PrivacyLossDistribution.create_from_rounded_probability({0: 0.0}, 1.0, h, pessimistic_estimate=pessimistic)


@_event_pld.register
def _(event: dp_event.GaussianDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    if event.noise_multiplier == 0:
        return _event_pld(dp_event.NonPrivateDpEvent(), h, pessimistic)
    return subsampled_gaussian_pld(event.noise_multiplier, 1.0, discretization=h, pessimistic=pessimistic)


@_event_pld.register
def _(event: dp_event.LaplaceDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    if event.noise_multiplier == 0:
        return _event_pld(dp_event.NonPrivateDpEvent(), h, pessimistic)
    return _dense(pld_lib.from_laplace_mechanism(
        event.noise_multiplier, pessimistic_estimate=pessimistic, value_discretization_interval=h,
        use_connect_dots=pessimistic))


@_event_pld.register
def _(event: dp_event.PoissonSampledDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    q = event.sampling_probability
    inner = event.event
    if q == 0:
        return None
    if isinstance(inner, dp_event.GaussianDpEvent):
        if inner.noise_multiplier == 0:
            return _event_pld(dp_event.NonPrivateDpEvent(), h, pessimistic)
        return subsampled_gaussian_pld(inner.noise_multiplier, q, discretization=h, pessimistic=pessimistic)
    if isinstance(inner, dp_event.LaplaceDpEvent):
        if inner.noise_multiplier == 0:
            return _event_pld(dp_event.NonPrivateDpEvent(), h, pessimistic)
        return _dense(pld_lib.from_laplace_mechanism(
            inner.noise_multiplier, pessimistic_estimate=pessimistic, value_discretization_interval=h,
            sampling_prob=q, use_connect_dots=pessimistic))
    raise ValueError(f"event: PoissonSampledDpEvent of {type(inner).__name__} is not supported (Gaussian or Laplace only)")


@_event_pld.register
def _(event: dp_event.SelfComposedDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    inner = _event_pld(event.event, h, pessimistic)
    if inner is None or event.count == 0:
        return None
    return compose(inner, event.count)


@_event_pld.register
def _(event: dp_event.ComposedDpEvent, h: float, pessimistic: bool) -> PrivacyLossDistribution | None:
    out = None
    for e in event.events:
        part = _event_pld(e, h, pessimistic)
        if part is None:
            continue
        out = part if out is None else _dense(out).compose(_dense(part))
    return out


def pld_from_event(
    event: dp_event.DpEvent, *, discretization: float = DEFAULT_DISCRETIZATION, pessimistic: bool = True
) -> PrivacyLossDistribution:
    """dp-accounting PLD of any supported DpEvent (add-or-remove-one relation), composed dense.

    Mirrors ``dp_accounting.pld.PLDAccountant`` but also builds the optimistic version
    (``pessimistic=False``), which the accountant does not expose.
    """
    if not isinstance(event, dp_event.DpEvent):
        raise ValueError(f"event must be a dp_accounting DpEvent, got {type(event).__name__}")
    out = _event_pld(event, float(discretization), pessimistic)
    if out is None:
        return pld_lib.identity(value_discretization_interval=float(discretization), pessimistic_estimate=pessimistic)
    return out


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
    pair of :func:`bayes_envelope` with the perfectly private mechanism.
    """
    loss, q, inf_mass, pessimistic = _pmf_arrays(pmf)
    negative = float(-q[q < 0].sum())
    q = np.where(q > 0, q, 0.0)
    if not pessimistic:
        keep = q > 0
        with np.errstate(divide="ignore"):
            log_p = np.log(q[keep]) - loss[keep]
        pair = bayes_envelope([(loss[keep], log_p)], include_perfectly_private=True, rounding=Rounding.OPTIMISTIC)
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
    return bayes_envelope([rem.pair, add.pair], rounding=rem.pair.rounding)


# ---------------------------------------------------------------------------------------------- lower envelope
Component = DiscretePair | tuple[np.ndarray, np.ndarray]


def _arrays(c: Component) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted losses, p, q) of a pair or of raw atoms (loss, log_p) (raw atoms may have Σp > 1)."""
    if isinstance(c, DiscretePair):
        return c.loss, c.p, c.q
    loss, log_p = (np.asarray(v, dtype=float) for v in c)
    order = np.argsort(loss, kind="stable")
    loss, log_p = loss[order], log_p[order]
    return loss, np.exp(log_p), np.exp(np.minimum(log_p + loss, 700.0))


class _Branch:
    """R(π) = π·P(ℓ ≥ λ) + (1−π)·Q(ℓ < λ) of one component (λ = log(π/(1−π))), and its slopes."""

    def __init__(self, c: Component | None):
        if c is None:  # perfectly private: one atom at ℓ = 0 with p = q = 1
            self.loss, self.p, self.q = np.array([0.0]), np.array([1.0]), np.array([1.0])
        else:
            self.loss, self.p, self.q = _arrays(c)
        self.p_tail = np.concatenate([np.cumsum(self.p[::-1])[::-1], [0.0]])
        self.q_head = np.concatenate([[0.0], np.cumsum(self.q)])

    def value(self, lam: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self.loss, lam, side="left")
        return expit(lam) * self.p_tail[k] + expit(-lam) * self.q_head[k]

    def slope(self, lam: np.ndarray, side: str) -> np.ndarray:
        k = np.searchsorted(self.loss, lam, side="right" if side == "right" else "left")
        return self.p_tail[k] - self.q_head[k]


def bayes_envelope(
    components: Sequence[Component], *, include_perfectly_private: bool = False, rounding: Rounding | None = None
) -> DiscretePair:
    """The pair whose Bayes error is min_c R_c(π) (and min(π, 1−π) if ``include_perfectly_private``).

    The lower envelope of concave piecewise-linear functions is concave piecewise linear, 0 at π ∈ {0, 1},
    hence a Bayes error function; its kinks are the components' breakpoints and their pairwise crossings.
    A kink at π with slope drop s is an atom with p = s·(1−π), q = s·π (DESIGN.md §1). Where one
    component is active on both sides of its own atom, the atom keeps its exact masses.
    """
    branches = [_Branch(c) for c in components]
    if include_perfectly_private:
        branches.append(_Branch(None))
    if rounding is None:
        rounding = next((c.rounding for c in components if isinstance(c, DiscretePair)), Rounding.EXACT)
    lam = np.unique(np.concatenate([b.loss for b in branches]))
    vals = np.stack([b.value(lam) for b in branches])
    # pairwise crossings inside the intervals between consecutive breakpoints (both sides linear in π)
    pis = expit(lam)
    cross = []
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            d = vals[i] - vals[j]
            s = np.flatnonzero(((d[:-1] < 0) & (d[1:] > 0)) | ((d[:-1] > 0) & (d[1:] < 0)))
            t = d[s] / (d[s] - d[s + 1])
            pc = pis[s] + t * (pis[s + 1] - pis[s])
            inside = (pc > pis[s]) & (pc < pis[s + 1])
            cross.append(np.log(pc[inside]) - np.log1p(-pc[inside]))
    points = np.unique(np.concatenate([lam, *cross])) if cross else lam
    # active branch on each open interval: the argmin at interval midpoints (len(points)+1 intervals)
    inner = 0.5 * (points[:-1] + points[1:])
    mids = np.concatenate([[points[0] - 1.0], inner, [points[-1] + 1.0]])
    active = np.argmin(np.stack([b.value(mids) for b in branches]), axis=0)
    left, right = active[:-1], active[1:]
    slope_left = np.choose(left, [b.slope(points, "left") for b in branches])
    slope_right = np.choose(right, [b.slope(points, "right") for b in branches])
    drop = np.maximum(slope_left - slope_right, 0.0)
    log_p = np.full(points.size, -np.inf)
    with np.errstate(divide="ignore"):
        log_p_drop = np.log(drop) + np.log(expit(-points))
    log_p[:] = log_p_drop
    # exact masses where the same branch is active on both sides of one of its own atoms
    for bi, b in enumerate(branches):
        same = (left == bi) & (right == bi)
        if not np.any(same):
            continue
        k = np.searchsorted(b.loss, points[same])
        kk = np.minimum(k, b.loss.size - 1)
        hit = (k < b.loss.size) & (b.loss[kk] == points[same])
        idx = np.flatnonzero(same)[hit]
        with np.errstate(divide="ignore"):
            log_p[idx] = np.log(b.p[kk[hit]])
    keep = np.isfinite(log_p)
    # masses at ±∞ are the deficits (= 1 − end slopes in exact arithmetic)
    return DiscretePair(points[keep], log_p[keep], None, None, rounding)
