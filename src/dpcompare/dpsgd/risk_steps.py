"""How many DP-SGD steps a risk target allows: the largest N whose *certified* risk meets it.

:func:`steps_for_risk` is the steps-direction of :func:`~dpcompare.dpsgd.sigma_for_risk`: σ and p are
fixed, and the answer is the largest number of steps N of the Poisson-subsampled Gaussian SGM(σ, p, N)
whose risk — read off the certified pessimistic side (:mod:`.risk`) — meets the target:

- ``"advantage"``: advantage (max TPR − FPR) ≤ target ∈ (0, 1);
- ``"tpr"``: TPR of the best membership test at FPR ``fpr`` ≤ target (fpr < target < 1);
- ``"bayes_error"``: Bayes error at prior ``prior`` ≥ target (0 ≤ target < min(prior, 1 − prior));
- ``"delta"``: Δ(baseline‖SGM) ≤ target ([BCP] Def 1), ``baseline`` a mechanism.

Monotonicity: N + 1 steps are N steps composed with one more, and composition can only lower the
trade-off function (f^{⊗(N+1)} ≤ f^{⊗N}: the first N outputs are a post-processing of all N + 1;
Dong, Roth & Su, "Gaussian differential privacy", 2022, §3), so every metric above gets worse with N.
The search is one integer call of the certified solver :func:`dpcompare._search.solve` (``Side.BELOW``):
the returned N is a point where the certified metric was *evaluated* and found to meet the target.

1. **Lower end, certified for free.** SGM(σ, p, N) is Blackwell-dominated by the Gaussian G_μ with
   μ = √N/σ (subsampling only raises a symmetric f: [MIX] Prop E.1; composition of Gaussians:
   Dong, Roth & Su 2022, Cor 3.3). With μ* the largest μ at which G_μ meets the target (a solve on
   the closed form), every N ≤ ⌊(σ·μ*)²⌋ meets it. At p = 1 this *is* the answer (SGM = G_μ exactly).
2. **Coarse solve** at 16× the automatic grid (every pessimistic side is certified at any grid, only
   looser), from the CLT guess N ≈ (μ*/p)²/(e^{1/σ²} − 1) (Dong, Roth & Su 2022, Cor 5.4), to 1 %.
3. **Fine solve** at the automatic grid between the coarse feasible N and the coarse infeasible one
   (and above it, if the fine grid still meets the target there).

``steps_above`` is N + 1 or the nearest larger count that was evaluated and found *not* to meet the
target (None when nothing above was shown to miss it; ``at_limit`` when even ``STEPS_LIMIT`` steps
meet it — then ``value`` may be the Gaussian bound's). Counts whose composition the engine cannot build
count as not certified (never as met).

>>> r = steps_for_risk("advantage", 0.2, 2.0, 1.0)    # p = 1: advantage of G_{√N/2} is 2Φ(√N/4) − 1
>>> r.steps, r.value <= 0.2, r.steps_above
(1, True, 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._search import Side, Unreachable, solve
from .._validation import check_in_interval, check_positive
from .calibrate import RiskMetric
from .calibrate_risk import check_risk_target, gaussian_end, risk_of
from .epsilon_bound import _ENGINE_ERRORS, PLD_MAX_STEPS, RISK_COARSE_FACTOR, Progress, _SgmResult

__all__ = ["STEPS_LIMIT", "RiskStepsCalibration", "steps_for_risk"]

#: largest number of steps searched (the certified composition's own range); beyond, the answer is "more"
STEPS_LIMIT = PLD_MAX_STEPS

@dataclass(frozen=True)
class RiskStepsCalibration(_SgmResult):
    """Result of :func:`steps_for_risk`: ``value`` is the certified metric of ``steps`` steps and meets
    ``target``; ``steps_above`` a larger count that was evaluated and misses it (None: none shown)."""

    steps: int
    value: float
    metric: str
    target: float
    sigma: float
    sampling_rate: float
    evaluations: int
    steps_above: int | None = None
    at_limit: bool = False
    parameters: dict[str, Any] = field(default_factory=dict)


def steps_for_risk(
    metric: RiskMetric | str, target: float, sigma: float, sampling_rate: float, *, fpr: float | None = None,
    prior: float | None = None, baseline: Any = None, progress: Progress | None = None,
) -> RiskStepsCalibration:
    """The largest N ≤ ``STEPS_LIMIT`` whose certified risk metric of SGM(σ, p, N) meets ``target`` (module
    docstring). Raises ValueError naming the field for bad input, and saying what would work when even one
    step misses the target."""
    from ..composition.sgm_certified import default_discretization
    from ..mechanisms import Gaussian
    from ..mechanisms.sgm import SubsampledGaussian

    m, t, params = check_risk_target(metric, target, fpr, prior, baseline)
    s = check_positive("sigma", sigma)  # finite and > 0
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    risk, sign = risk_of(m, params, baseline)
    limit = sign * t
    where = f"with sigma={s:g}, sampling_rate={p:g}"
    evals = [0]
    seen: dict[tuple[int, float], float] = {}

    def value(n: int, factor: float) -> float:
        """Certified metric (larger = more risk) of N = n steps; +inf where the engine cannot answer."""
        if (n, factor) not in seen:
            evals[0] += 1
            try:
                if p >= 1.0:  # SGM(σ, 1, N) = G_{√N/σ} exactly (Dong, Roth & Su 2022, Cor 3.3)
                    v = float(risk(Gaussian(mu=math.sqrt(n) / s)))
                else:
                    h = None if factor == 1.0 else factor * default_discretization(s, p, n)
                    v = float(risk(SubsampledGaussian(s, p, n, discretization=h)))
            except _ENGINE_ERRORS:
                v = math.inf
            seen[(n, factor)] = v if v == v else math.inf
        return seen[(n, factor)]

    def make_g(factor: float) -> Callable[[int], float]:
        return lambda n: value(int(n), factor) - limit

    def result(n: int, above: int | None = None) -> RiskStepsCalibration:
        if above is not None and not math.isfinite(value(above, 1.0)):
            above = None  # the engine could not build it: not shown to miss the target
        return RiskStepsCalibration(n, sign * value(n, 1.0), m.value, t, s, p, evals[0], above,
                                    above is None and n == STEPS_LIMIT, params)

    def result_of(r) -> RiskStepsCalibration:
        return result(int(r.feasible), None if r.infeasible is None else int(r.infeasible))

    def out_of_reach() -> ValueError:
        return ValueError(f"{m.value} target {t:g} is out of reach {where}: even one step is certified only to "
                          f"{sign * value(1, 1.0):.6g}; a larger sigma, a smaller sampling_rate or a larger target "
                          "would work")

    # 1. the Gaussian lower end: μ* = the largest μ at which G_μ meets the target; N ≤ ⌊(σμ*)²⌋ all meet it
    try:
        mu_star = float(solve(gaussian_end(risk, limit), 1e-12, 1e4, side=Side.BELOW, rtol=1e-9).feasible)
    except Unreachable:
        mu_star = 0.0
    n_gauss = int(min(math.floor((s * mu_star) ** 2), STEPS_LIMIT))
    lo = max(1, n_gauss)
    if p >= 1.0:  # the closed form: one exact integer solve
        try:
            r = solve(make_g(1.0), 1, STEPS_LIMIT, side=Side.BELOW, integer=True, start=lo, callback=progress)
        except Unreachable:
            raise out_of_reach() from None
        return result_of(r)
    if n_gauss >= STEPS_LIMIT:  # the Gaussian bound alone certifies every count searched
        v = float(risk(Gaussian(mu=math.sqrt(STEPS_LIMIT) / s)))
        return RiskStepsCalibration(STEPS_LIMIT, sign * v, m.value, t, s, p, evals[0], None, True, params)
    # 2. coarse solve (certified at any grid) from the CLT guess, above the Gaussian end
    start = _clt_guess(mu_star, s, p, lo)
    try:
        rc = solve(make_g(RISK_COARSE_FACTOR), lo, STEPS_LIMIT, side=Side.BELOW, integer=True, start=start, rtol=1e-2,
                   callback=progress)
    except Unreachable:
        rc = None
    if rc is not None and rc.infeasible is None:
        return result(STEPS_LIMIT)
    # 3. fine solve at the automatic grid: from the certified coarse answer (or the Gaussian end, or 1) up to the
    # coarse infeasible count, and above it when the fine grid still meets the target there
    g = make_g(1.0)
    lo_n = int(rc.feasible) if rc is not None else lo
    if g(lo_n) > 0:  # not expected after a coarse answer (a finer grid is less pessimistic): search below
        if g(1) > 0:
            raise out_of_reach()
        return result_of(solve(g, 1, lo_n, side=Side.BELOW, integer=True, callback=progress))
    hi_n = int(rc.infeasible) if rc is not None else min(STEPS_LIMIT, 2 * lo_n)
    r = solve(g, lo_n, hi_n, side=Side.BELOW, integer=True, callback=progress)
    if r.infeasible is None and hi_n < STEPS_LIMIT:  # the fine grid meets the target at hi_n: search above it
        r = solve(g, hi_n, STEPS_LIMIT, side=Side.BELOW, integer=True, start=min(2 * hi_n, STEPS_LIMIT),
                  callback=progress)
    return result_of(r)


def _clt_guess(mu_star: float, sigma: float, p: float, lo: int) -> float:
    """Starting point only: N whose CLT μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4) equals μ*."""
    try:
        guess = (mu_star / p) ** 2 / math.expm1(1.0 / (sigma * sigma))
    except (ArithmeticError, ZeroDivisionError):
        return float(lo)
    return min(max(float(lo), guess), float(STEPS_LIMIT)) if math.isfinite(guess) else float(lo)
