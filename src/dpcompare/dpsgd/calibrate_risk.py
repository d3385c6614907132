"""σ for an operational risk target, certified: step 3 of :mod:`dpcompare.dpsgd.calibrate`.

>>> r = sigma_for_risk("advantage", 0.2, 1.0, 1, rtol=1e-4)   # Gaussian: advantage 2Φ(1/(2σ)) − 1
>>> r.value <= 0.2, round(r.sigma, 3)
(True, 1.974)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._search import Side, Unreachable, solve
from .._validation import check_in_interval, check_integer, check_real
from ..composition.sgm_certified import default_discretization
from .epsilon_bound import _ENGINE_ERRORS, RISK_COARSE_FACTOR, SIGMA_MIN, Progress, _SgmResult


class RiskMetric(str, enum.Enum):
    """What ``sigma_for_risk`` bounds (all read off the certified pessimistic side, :mod:`.risk`)."""

    ADVANTAGE = "advantage"  #: max TPR − FPR = TV ([BCP] eq 29) must be ≤ target
    TPR = "tpr"  #: TPR of the best membership test at FPR ``fpr`` must be ≤ target
    BAYES_ERROR = "bayes_error"  #: the adversary's Bayes error at prior ``prior`` must be ≥ target
    DELTA = "delta"  #: Δ(baseline‖M) ([BCP] Def 1), certified upper end, must be ≤ target


@dataclass(frozen=True)
class RiskCalibration(_SgmResult):
    """Result of :func:`sigma_for_risk`: ``value`` is the certified (pessimistic) metric of ``sigma``, and it
    meets ``target``; ``sigma_below`` is a σ, within ``rtol``, that was evaluated and does not."""

    sigma: float
    value: float
    metric: str
    target: float
    sampling_rate: float
    steps: int
    evaluations: int
    sigma_below: float | None = None
    parameters: dict[str, Any] = field(default_factory=dict)


def check_risk_target(metric: Any, target: Any, fpr: Any, prior: Any, baseline: Any) -> tuple[RiskMetric, float, dict[str, Any]]:
    """Validated (metric, target, parameters) of a risk target, for σ (:func:`sigma_for_risk`) and for the
    number of steps (:func:`dpcompare.dpsgd.risk_steps.steps_for_risk`); errors name the field and the range.
    The parameters are those a result reports: fpr, prior, or the baseline's spec.

    >>> check_risk_target("tpr", 0.05, 0.01, None, None)[2]
    {'fpr': 0.01}
    """
    try:
        m = RiskMetric(metric)
    except ValueError:
        raise ValueError(f"metric must be one of {[x.value for x in RiskMetric]}, got {metric!r}") from None
    t = check_real("target", target)
    params: dict[str, Any] = {}
    if m is RiskMetric.ADVANTAGE:
        t = check_in_interval("target (advantage)", t, 0.0, 1.0, low_open=True, high_open=True)
    elif m is RiskMetric.TPR:
        if fpr is None:
            raise ValueError("metric 'tpr' needs fpr (the false-positive rate at which TPR is bounded)")
        params["fpr"] = check_in_interval("fpr", fpr, 0.0, 1.0, high_open=True)
        t = check_in_interval("target (TPR)", t, 0.0, 1.0, high_open=True)
        if t <= params["fpr"]:
            raise ValueError(f"target TPR must be > fpr={params['fpr']:g} (a test that ignores the data already has "
                             f"TPR = FPR), got {t:g}")
    elif m is RiskMetric.BAYES_ERROR:
        if prior is None:
            raise ValueError("metric 'bayes_error' needs prior (the adversary's prior on membership, in (0, 1))")
        params["prior"] = check_in_interval("prior", prior, 0.0, 1.0, low_open=True, high_open=True)
        ceiling = min(params["prior"], 1.0 - params["prior"])
        t = check_in_interval("target (Bayes error)", t, 0.0, 1.0)
        if t >= ceiling:
            raise ValueError(f"target Bayes error must be < min(prior, 1 - prior) = {ceiling:g} (the error of guessing "
                             f"from the prior alone), got {t:g}")
    else:
        if baseline is None or not hasattr(baseline, "bayes_error"):
            raise ValueError("metric 'delta' needs baseline, a mechanism (e.g. dpcompare.Gaussian(mu=1))")
        t = check_in_interval("target (Delta)", t, 0.0, 1.0, low_open=True)
        params["baseline"] = str(getattr(baseline, "spec", baseline))
    return m, t, params


def risk_of(metric: RiskMetric, params: dict[str, Any], baseline: Any) -> tuple[Callable[[Any], float], float]:
    """(risk, sign): the certified (pessimistic) metric of a mechanism oriented so that larger = more risk, and
    the sign that puts a target on that scale, limit = sign·target; a mechanism meets the target ⇔
    risk(m) − limit ≤ 0 (module docstring step 3). The Bayes error is negated (larger Bayes error = less
    risk); negation is exact, so −b − (−t) = t − b."""
    from . import risk

    if metric is RiskMetric.ADVANTAGE:
        return risk.advantage, 1.0
    if metric is RiskMetric.TPR:
        return (lambda m: float(risk.tpr_at_fpr(m, params["fpr"]))), 1.0
    if metric is RiskMetric.BAYES_ERROR:
        return (lambda m: -float(risk.bayes_error(m, params["prior"]))), -1.0
    return (lambda m: risk.excess_vulnerability(baseline, m)), 1.0


def gaussian_end(risk: Callable[[Any], float], limit: float) -> Callable[[float], float]:
    """μ ↦ risk(G_μ) − limit, +inf where the engine cannot answer: the dominating Gaussian's side of a search."""
    from ..mechanisms import Gaussian

    def g_mu(mu: float) -> float:
        try:
            return float(risk(Gaussian(mu=mu))) - limit
        except _ENGINE_ERRORS:
            return math.inf

    return g_mu


def sigma_for_risk(
    metric: RiskMetric | str, target: float, sampling_rate: float, steps: int, *, fpr: float | None = None,
    prior: float | None = None, baseline: Any = None, rtol: float = 1e-3, progress: Progress | None = None,
) -> RiskCalibration:
    """Smallest σ (to relative tolerance ``rtol``) whose certified risk metric meets ``target``. Step 3.

    - ``"advantage"``: advantage ≤ target ∈ (0, 1);
    - ``"tpr"``: TPR at FPR ``fpr`` ≤ target, with fpr < target < 1;
    - ``"bayes_error"``: Bayes error at prior ``prior`` ≥ target, with 0 ≤ target < min(prior, 1 − prior);
    - ``"delta"``: Δ(baseline‖SGM(σ)) ≤ target, ``baseline`` a mechanism object.

    >>> r = sigma_for_risk("advantage", 0.2, 1.0, 1, rtol=1e-4)   # Gaussian: advantage 2Φ(1/(2σ)) − 1
    >>> r.value <= 0.2, round(r.sigma, 3)
    (True, 1.974)
    """
    from ..mechanisms.sgm import SubsampledGaussian

    metric, target, params = check_risk_target(metric, target, fpr, prior, baseline)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    n = check_integer("steps", steps, minimum=1)
    rtol = check_in_interval("rtol", rtol, 0.0, 1.0, low_open=True, high_open=True)
    risk, sign = risk_of(metric, params, baseline)
    limit = sign * target

    def g_mech(m: Any) -> float:
        return risk(m) - limit

    evals = [0]
    # domain end from the dominating Gaussian G_μ, μ = √N/σ: the largest μ that meets the target
    try:
        rmu = solve(gaussian_end(risk, limit), 1e-12, 1e4, side=Side.BELOW, rtol=1e-3)
    except Unreachable:
        raise ValueError(f"{metric.value} target {target:g} is out of reach: even a Gaussian mechanism with mu=1e-12 "
                         "(almost no information) does not meet it; a larger target would work") from None
    sigma_hi = 2.0 * math.sqrt(n) / float(rmu.feasible)

    seen: dict[tuple[float, float], float] = {}

    def make_g(factor: float) -> Callable[[float], float]:
        def g(s: float) -> float:
            if (s, factor) not in seen:
                evals[0] += 1
                try:
                    h = None if factor == 1.0 else factor * default_discretization(s, p, n)
                    v = g_mech(SubsampledGaussian(s, p, n, discretization=h))
                except _ENGINE_ERRORS:
                    v = math.inf
                seen[(s, factor)] = v if v == v else math.inf
            return seen[(s, factor)]
        return g

    # coarse solve (grid 16× the automatic one: every risk read off its pessimistic side is still certified,
    # only more pessimistic) to 2 %, then the automatic grid on the narrow window below the coarse answer
    where = f"for sampling_rate={p:g}, steps={n}"
    try:
        rc = solve(make_g(RISK_COARSE_FACTOR), SIGMA_MIN, sigma_hi, side=Side.ABOVE, rtol=2e-2,
                   start=min(max(1.0, SIGMA_MIN), sigma_hi), callback=progress)
    except Unreachable:
        raise ValueError(f"{metric.value} target {target:g} {where} is out of reach: even sigma={sigma_hi:.4g} does "
                         "not meet it (certified side); a larger target would work") from None
    g, gc = make_g(1.0), make_g(RISK_COARSE_FACTOR)
    top = float(rc.feasible)
    bottom = SIGMA_MIN if rc.infeasible is None else max(SIGMA_MIN, 0.9 * float(rc.infeasible))
    # predict the fine root from g at the automatic grid at ``top`` and the coarse slope dg/dlog σ, then solve on a
    # window of relative width 0.9·rtol around it (two evaluations when the prediction holds)
    r = None
    g_top = g(top)
    if rc.infeasible is not None and math.isfinite(g_top):
        ci = float(rc.infeasible)
        slope = (gc(ci) - gc(top)) / (math.log(ci) - math.log(top))
        if slope < 0 and math.isfinite(slope):
            pred = top * math.exp(-g_top / slope)
            lo_w, hi_w = max(SIGMA_MIN, pred * (1 - 0.45 * rtol)), min(top, pred * (1 + 0.45 * rtol))
            if lo_w < hi_w:
                try:
                    r = solve(g, lo_w, hi_w, side=Side.ABOVE, rtol=rtol, callback=progress)
                except Unreachable:
                    r = None
                if r is not None and (r.infeasible is None or not r.converged):
                    r = None
    if r is None and g_top <= 0:
        try:
            r = solve(g, bottom, top, side=Side.ABOVE, rtol=rtol, callback=progress)
        except Unreachable:
            r = None
        if r is not None and r.infeasible is None and bottom > SIGMA_MIN:
            r = None  # the window was all feasible at the fine grid: search below it as well
    if r is None:
        try:
            r = solve(g, SIGMA_MIN, max(top, sigma_hi if g_top > 0 else top), side=Side.ABOVE, rtol=rtol,
                      start=bottom if bottom > SIGMA_MIN else None, callback=progress)
        except Unreachable:
            raise ValueError(f"{metric.value} target {target:g} {where} is out of reach: even sigma={sigma_hi:.4g} "
                             "does not meet it (certified side); a larger target would work") from None
    s, below = float(r.feasible), None if r.infeasible is None else float(r.infeasible)
    if below is not None:
        s, below = snap_to_lattice(g, s, below, rtol)
    value = g(s)
    value = value + target if metric is not RiskMetric.BAYES_ERROR else target - value
    return RiskCalibration(s, value, metric.value, target, p, n, evals[0], below, params)


def snap_to_lattice(g: Callable[[float], float], feasible: float, infeasible: float,
                    rtol: float) -> tuple[float, float]:
    """(σ*, σ*₋): the smallest point of the lattice σ_k = (1 + rtol)^k with g(σ_k) ≤ 0, and its infeasible
    neighbour σ_{k−1} (both evaluated), given a feasible and an infeasible σ that bracket the boundary.

    Why: the search's path (its secant steps and the window it predicts) depends on the values of g, and
    so on the last digits of the certified risk, which differ between CPUs (the FFT and exp/log kernels
    take other SIMD paths); two runs could stop at different points of the same rtol-wide bracket. The
    lattice point depends only on the side of the boundary each lattice point lies on, so every machine
    returns the same σ unless the boundary is within rounding of a lattice point. σ*/σ*₋ = 1 + rtol: the
    tolerance is kept. If g is not monotone on the bracket (it is, up to rounding), the given pair is
    returned unchanged.

    >>> hi, lo = snap_to_lattice(lambda s: 2.0 - s * s, 1.4143, 1.4141, 1e-3)   # √2 = 1.41421…
    >>> round(hi, 5), round(lo, 5), lo < 2 ** 0.5 <= hi
    (1.41457, 1.41316, True)
    """
    lam = math.log1p(rtol)
    k_lo, k_hi = math.floor(math.log(infeasible) / lam), math.ceil(math.log(feasible) / lam)

    def at(k: int) -> float:
        return math.exp(k * lam)

    if k_hi <= k_lo or not g(at(k_lo)) > 0 or not g(at(k_hi)) <= 0:
        return feasible, infeasible
    while k_hi - k_lo > 1:
        mid = (k_lo + k_hi) // 2
        if g(at(mid)) <= 0:
            k_hi = mid
        else:
            k_lo = mid
    return at(k_hi), at(k_lo)
