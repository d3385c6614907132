"""Calibration of DP-SGD (the Poisson-subsampled Gaussian mechanism) with certified ε.

Spec (seed 000 §5, "all mechanisms are calibrated to (8, 1e-5)-DP ... absolute calibration error ≤ 0.00042";
issue 5):

    ε(σ) = certified ε at δ of N steps of SGM(σ, p)   (dpcompare.mechanisms.sgm.SubsampledGaussian.epsilon:
           the pessimistic pair of accounting/certified.py, so ε(σ) ≥ the true ε at every grid spacing)

1. ``sigma_for_epsilon``: the σ with  target − tol ≤ ε(σ) ≤ target.  ε(σ) is decreasing in σ.
   a. coarse phase: grid spacing 16× the automatic one (cheap, still an upper bound) — bracket the root by
      geometric search in σ from the CLT guess (Dong, Roth & Su 2022, Cor 5.4: μ = p√(N(e^{1/σ²} − 1))),
      then Illinois (regula falsi) on (log σ, ε) to 1 % of the target;
   b. fine phase: the grid spacing is frozen at the automatic one for the coarse root (ε(σ) at a fixed grid
      is smooth in σ); secant steps on (log σ, ε) starting from the coarse slope aim at target − tol/2
      (usually two evaluations); failing that, the root is bracketed at that grid and Illinois runs until
      the feasible end meets the tolerance. The returned ``epsilon`` is ε at that fixed grid — a certified upper bound of
      the true ε of the returned σ, never above the target.
2. ``steps_for_sigma``: the largest N with ε(N) ≤ target (ε increasing in N): at the coarse grid, a geometric
   bracket in 1/N from the CLT guess and Illinois to 1 % (cheap), then an integer secant search at the fine
   grid from the coarse answer with the coarse slope dε/dlog N (``_last_feasible``; usually 3–5 fine
   evaluations). The answer is always an evaluated point: ε(N) ≤ target < ε(N+1), or N = steps_max.
3. ``sigma_for_risk``: the smallest σ (to a relative tolerance) whose risk metric — advantage, TPR at a
   given FPR, or Δ(baseline‖M) (its certified upper end) — is at most a value; every metric is read off the
   certified pessimistic side (dpcompare.dpsgd.risk), so the returned σ truly meets the risk target.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .._validation import check_in_interval, check_integer, check_positive, format_number
from ..accounting.sgm import default_discretization

SIGMA_MAX = 1e4


SIGMA_MIN = 1e-3
COARSE_FACTOR = 16.0


def _check_target(epsilon: Any, delta: Any) -> tuple[float, float]:
    eps = check_positive("epsilon", epsilon)
    d = check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    return eps, d


def _mechanism(sigma: float, p: float, steps: int, discretization: float | None = None):
    from ..mechanisms.sgm import SubsampledGaussian

    return SubsampledGaussian(sigma, p, steps, discretization=discretization)


def certified_epsilon(sigma: float, p: float, steps: int, delta: float, discretization: float | None = None) -> float:
    """Certified ε(δ) of N steps of SGM(σ, p): an upper bound of the true ε at every grid spacing.

    Equal to ``SubsampledGaussian(σ, p, N, discretization=h).epsilon(δ)`` (the same pessimistic pair,
    symmetrised), but only the pessimistic side is composed (accounting.sgm.pessimistic_pair)."""
    from ..accounting.sgm import pessimistic_pair

    return float(pessimistic_pair(sigma, p, steps, discretization).symmetrize().epsilon(delta))


def _illinois(
    g: Callable[[float], float], lo: float, hi: float, glo: float, ghi: float, target: float, tol: float,
    *, log_x: bool = True, maxiter: int = 80,
) -> tuple[float, float, float, float]:
    """Shrink a bracket of a decreasing g (g(lo) > target ≥ g(hi)) until target − tol ≤ g(hi).

    Illinois variant of regula falsi on (log x, g); returns (lo, hi, g(lo), g(hi)). Every third step is a
    bisection, so a slowly converging interpolation cannot stall.
    """
    tx = (lambda x: math.log(x)) if log_x else (lambda x: x)  # noqa: E731
    ix = (lambda y: math.exp(y)) if log_x else (lambda y: y)  # noqa: E731
    fa, fb = glo - target, ghi - target  # fa > 0 ≥ fb; possibly Illinois-halved copies
    side = 0
    for it in range(maxiter):
        if -tol <= ghi - target <= 0.0:
            break
        a, b = tx(lo), tx(hi)
        if abs(b - a) <= 1e-13 * max(1.0, abs(a)):
            break
        if it % 3 == 2 or not (fa > fb):
            c = 0.5 * (a + b)
        else:
            c = b - fb * (b - a) / (fb - fa)
            w = b - a
            c = min(max(c, a + 1e-3 * w), b - 1e-3 * w)
        x = ix(c)
        gx = g(x)
        if gx > target:
            lo, glo, fa = x, gx, gx - target
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            hi, ghi, fb = x, gx, gx - target
            if side == 1:
                fa *= 0.5
            side = 1
    return lo, hi, glo, ghi


def _bracket_decreasing(g: Callable[[float], float], x0: float, target: float, xmin: float, xmax: float,
                        factor: float = 2.0):
    """(lo, hi, g(lo), g(hi)) with g(lo) > target ≥ g(hi) by geometric search from x0; hi = None if g(xmax) > target."""
    x = min(max(x0, xmin), xmax)
    gx = g(x)
    if gx <= target:
        hi, ghi = x, gx
        while True:
            lo = max(hi / factor, xmin)
            if lo == hi:
                return None, hi, math.inf, ghi  # feasible at the smallest σ considered
            glo = g(lo)
            if glo > target:
                return lo, hi, glo, ghi
            hi, ghi = lo, glo
            factor *= factor
    lo, glo = x, gx
    while True:
        hi = min(lo * factor, xmax)
        factor *= factor  # widen fast if the guess was far off
        ghi = g(hi)
        if ghi <= target:
            return lo, hi, glo, ghi
        if hi >= xmax:
            return lo, None, glo, ghi
        lo, glo = hi, ghi


def _clt_guess(eps: float, delta: float, p: float, n: int) -> float:
    """Starting point only: σ whose CLT approximation μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4)
    equals the μ of the Gaussian mechanism at (ε, δ) (dpcompare.gaussian.sigma_for)."""
    from .. import gaussian as dg

    try:
        psi = 1.0 / float(dg.sigma_for(eps, delta))
    except (ValueError, ArithmeticError):
        return 1.0
    if p >= 1.0:
        return math.sqrt(n) / psi
    x = psi * psi / (p * p * n)
    return min(max(1.0 / math.sqrt(math.log1p(x)), SIGMA_MIN), SIGMA_MAX) if x > 0 else 1.0


class _SgmResult:
    """Shared by the calibration results: a dict view and the spec string of the calibrated mechanism."""

    sigma: float
    sampling_rate: float
    steps: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"


@dataclass(frozen=True)
class Calibration(_SgmResult):
    """Result of :func:`sigma_for_epsilon`: ``epsilon`` ≤ ``target_epsilon`` is the certified ε of ``sigma``
    at grid spacing ``discretization`` (an upper bound of the true ε)."""

    sigma: float
    epsilon: float
    target_epsilon: float
    delta: float
    sampling_rate: float
    steps: int
    tolerance: float
    discretization: float
    evaluations: int


def sigma_for_epsilon(
    epsilon: float, delta: float, sampling_rate: float, steps: int, *, tol: float = 1e-3,
    sigma_max: float = SIGMA_MAX,
) -> Calibration:
    """Noise multiplier σ of N-step DP-SGD with target − tol ≤ ε(σ) ≤ target at δ (module docstring, step 1).

    Raises ValueError for ε ≤ 0, δ ∉ (0, 1), p ∉ (0, 1], N < 1, tol ∉ (0, ε), or an unreachable target
    (ε(sigma_max) > target).
    """
    eps, d = _check_target(epsilon, delta)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    n = check_integer("steps", steps, minimum=1)
    tol = check_positive("tol", tol)
    if tol >= eps:
        raise ValueError(f"tol must be < epsilon ({eps:g}), got {tol:g}")
    sigma_max = check_positive("sigma_max", sigma_max)
    count = [0]

    # (a) coarse phase
    def g_coarse(s: float) -> float:
        count[0] += 1
        return certified_epsilon(s, p, n, d, COARSE_FACTOR * default_discretization(s, p, n))

    lo, hi, glo, ghi = _bracket_decreasing(g_coarse, _clt_guess(eps, d, p, n), eps, SIGMA_MIN, sigma_max, 1.15)
    eps_max = math.inf
    if hi is None:  # the coarse grid misses the target at sigma_max: ask the fine grid
        eps_max = certified_epsilon(sigma_max, p, n, d)
        count[0] += 1
        if eps_max > eps:
            raise ValueError(
                f"epsilon={eps:g} at delta={d:g} is unreachable for sampling_rate={p:g}, steps={n}: even "
                f"sigma={sigma_max:g} gives epsilon={eps_max:.6g}"
            )
        lo, hi, glo, ghi = lo, sigma_max, glo, eps_max
    if lo is not None:
        lo, hi, glo, ghi = _illinois(g_coarse, lo, hi, glo, ghi, eps, 0.01 * eps)
    s0 = hi

    # (b) fine phase at a frozen grid spacing
    h = default_discretization(s0, p, n)

    def g_fine(s: float) -> float:
        count[0] += 1
        return certified_epsilon(s, p, n, d, h)

    # secant steps from the coarse slope dε/dlog σ, first at 4h (ε there exceeds the fine ε by ~h², a few 1e-4),
    # then at h: usually one evaluation at h lands in [target − tol, target]
    slope = (glo - ghi) / (math.log(lo) - math.log(hi)) if lo is not None and glo < math.inf else -eps
    if slope < 0:
        x = s0
        gx = certified_epsilon(x, p, n, d, 4.0 * h)
        count[0] += 1
        for _ in range(3):
            if abs(gx - (eps - 0.5 * tol)) <= 0.25 * tol:
                break
            x_new = min(max(x * math.exp((eps - 0.5 * tol - gx) / slope), SIGMA_MIN), sigma_max)
            if x_new == x:
                break
            g_new = certified_epsilon(x_new, p, n, d, 4.0 * h)
            count[0] += 1
            if g_new != gx:
                slope = (g_new - gx) / (math.log(x_new) - math.log(x))
            x, gx = x_new, g_new
            if not slope < 0:
                slope = (glo - ghi) / (math.log(lo) - math.log(hi)) if lo is not None and glo < math.inf else -eps
                break
        s0 = x
    x, gx = s0, g_fine(s0)
    feas: tuple[float, float] | None = None  # (σ, ε) with ε ≤ target
    infeas: tuple[float, float] | None = None
    for _ in range(4):
        if gx <= eps:
            feas = (x, gx) if feas is None or x < feas[0] else feas
            if eps - tol <= gx:
                break
        else:
            infeas = (x, gx) if infeas is None or x > infeas[0] else infeas
        if feas is not None and infeas is not None:
            break
        if not slope < 0:
            break
        x_new = min(max(x * math.exp((eps - 0.5 * tol - gx) / slope), SIGMA_MIN), sigma_max)
        if x_new == x:
            break
        g_new = g_fine(x_new)
        if g_new != gx:
            slope = (g_new - gx) / (math.log(x_new) - math.log(x))
        x, gx = x_new, g_new
    if feas is not None and eps - tol <= feas[1]:
        fhi, gfhi = feas
    else:  # bracket at the fine grid and finish with Illinois
        if feas is None:
            fhi, gfhi = x, gx
            while gfhi > eps:
                if fhi >= sigma_max:
                    h = None  # type: ignore[assignment]
                    fhi, gfhi = sigma_max, certified_epsilon(sigma_max, p, n, d)
                    if gfhi > eps:
                        raise ValueError(
                            f"epsilon={eps:g} at delta={d:g} is unreachable for sampling_rate={p:g}, steps={n}: "
                            f"even sigma={sigma_max:g} gives epsilon={gfhi:.6g}"
                        )
                    break
                infeas = (fhi, gfhi)
                fhi = min(fhi * 1.05, sigma_max)
                gfhi = g_fine(fhi)
        else:
            fhi, gfhi = feas
        if infeas is not None:
            flo, gflo = infeas
        else:
            flo = fhi
            gflo = gfhi
            while gflo <= eps and flo > SIGMA_MIN:
                fhi, gfhi = flo, gflo
                flo = max(flo / 1.05, SIGMA_MIN)
                gflo = g_fine(flo)
            if gflo <= eps:
                raise ValueError(
                    f"epsilon={eps:g} at delta={d:g} is met already by sigma={SIGMA_MIN:g} (sampling_rate={p:g}, "
                    f"steps={n}); no noise multiplier within tolerance {tol:g} of the target is in range"
                )
        _, fhi, _, gfhi = _illinois(g_fine, flo, fhi, gflo, gfhi, eps, tol)
    if not (eps - tol <= gfhi <= eps):
        raise RuntimeError(  # a bug or numerical trouble, not a user error
            f"calibration did not reach tolerance {tol:g}: sigma={fhi:.10g} gives epsilon={gfhi:.10g} (target {eps:g})"
        )
    return Calibration(fhi, gfhi, eps, d, p, n, tol, float(h if h is not None else default_discretization(fhi, p, n)), count[0])


@dataclass(frozen=True)
class StepsCalibration(_SgmResult):
    """Result of :func:`steps_for_sigma`: ``steps`` is the largest N with certified ε ≤ target."""

    steps: int
    epsilon: float
    sigma: float
    target_epsilon: float
    delta: float
    sampling_rate: float
    evaluations: int


def steps_for_sigma(
    sigma: float, epsilon: float, delta: float, sampling_rate: float, *, steps_max: int = 10**7
) -> StepsCalibration:
    """The largest number of steps N ≤ steps_max such that N steps of SGM(σ, p) are (ε, δ)-DP (certified).

    Raises ValueError if even one step exceeds the target. Module docstring, step 2.
    """
    eps, d = _check_target(epsilon, delta)
    s = check_positive("sigma", sigma)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    steps_max = check_integer("steps_max", steps_max, minimum=1)
    count = [0]

    def g(n: int, coarse: bool) -> float:
        count[0] += 1
        h = COARSE_FACTOR * default_discretization(s, p, n) if coarse else None
        return certified_epsilon(s, p, n, d, h)

    e1 = g(1, False)
    if e1 > eps:
        raise ValueError(f"epsilon={eps:g} at delta={d:g} is unreachable with sigma={s:g}, sampling_rate={p:g}: "
                         f"a single step already gives epsilon={e1:.6g}")
    if steps_max == 1:
        return StepsCalibration(1, e1, s, eps, d, p, count[0])

    # (a) coarse phase in u = 1/N (ε decreasing in u), from the CLT guess: a 1 % bracket and the local slope
    def g_u(u: float) -> float:
        return g(max(1, min(steps_max, int(round(1.0 / u)))), True)

    u_lo, u_hi, gu_lo, gu_hi = _bracket_decreasing(g_u, 1.0 / _clt_steps_guess(eps, d, s, p), eps,
                                                   1.0 / steps_max, 1.0, 1.5)
    slope = eps / 2.0  # dε/dlog N of ε ∝ √N, if the coarse phase cannot tell
    if u_lo is not None and u_hi is not None:
        # a few steps suffice (N is an integer: ε may jump by more than the 1 % between N and N+1)
        u_lo, u_hi, gu_lo, gu_hi = _illinois(g_u, u_lo, u_hi, gu_lo, gu_hi, eps, 0.01 * eps, maxiter=8)
        if u_lo != u_hi and gu_lo > gu_hi:
            slope = (gu_lo - gu_hi) / math.log(u_hi / u_lo)  # u_lo < u_hi: N = 1/u_lo is the larger
    n0 = 1 if u_hi is None else max(1, min(steps_max, int(1.0 / u_hi)))
    n = _last_feasible(lambda k: g(k, False), eps, 1, e1, steps_max, n0, slope)
    return StepsCalibration(n, certified_epsilon(s, p, n, d), s, eps, d, p, count[0])


def _clt_steps_guess(eps: float, delta: float, sigma: float, p: float) -> float:
    """Starting point only: N whose CLT μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4) equals the μ
    of the Gaussian mechanism at (ε, δ) (dpcompare.gaussian.sigma_for); N = (μ/p)²/(e^{1/σ²} − 1)."""
    from .. import gaussian as dg

    try:
        mu = 1.0 / float(dg.sigma_for(eps, delta))
        guess = (mu / p) ** 2 / math.expm1(1.0 / (sigma * sigma))
    except (ValueError, ArithmeticError):
        return 1.0
    return max(1.0, guess) if math.isfinite(guess) else 1.0


def _last_feasible(f: Callable[[int], float], eps: float, lo: int, f_lo: float, n_max: int, n0: int,
                   slope: float) -> int:
    """The n ∈ [lo, n_max] with f(n) ≤ eps < f(n+1) (or n_max), given f(lo) = f_lo ≤ eps, f increasing.

    Integer search on (log n, f): from n0, extrapolate with ``slope`` = df/dlog n until the root is bracketed,
    then secant steps between the bracket ends (floor of the predicted root, then its successor, so a good
    prediction ends in two evaluations); a bisection whenever a step fails to halve the bracket.
    Every answer is an evaluated point: f(n) ≤ eps, and f(n+1) > eps unless n = n_max.
    """
    hi, f_hi = n_max + 1, math.inf  # infeasible by constraint
    n, width = min(max(n0, lo + 1), n_max), math.inf
    while hi - lo > 1:
        fn = f(n)
        if fn <= eps:
            lo, f_lo = n, fn
        else:
            hi, f_hi = n, fn
        if hi - lo <= 1:
            break
        if math.isfinite(f_hi) and (hi - lo) > width / 2:  # safeguard: the last step did not halve the bracket
            n = int(math.sqrt(lo * hi)) if hi > 2 * lo else (lo + hi) // 2
            n = min(max(n, lo + 1), hi - 1)
        else:
            if math.isfinite(f_hi) and f_hi > f_lo:
                log_r = math.log(lo) + (eps - f_lo) * math.log(hi / lo) / (f_hi - f_lo)
            else:  # only the feasible end is an evaluation: extrapolate from it
                log_r = math.log(lo) + (eps - f_lo) / max(slope, 1e-12) + 1e-3
            n = int(math.floor(math.exp(min(log_r, math.log(hi)))))
            n = min(max(n, lo + 1), hi - 1)
        width = hi - lo
    return lo


class RiskMetric(str, enum.Enum):
    """What ``sigma_for_risk`` bounds."""

    ADVANTAGE = "advantage"  # TV = max TPR − FPR (seed 000 eq 29)
    TPR = "tpr"  # TPR of the best membership test at a given FPR
    DELTA = "delta"  # Δ(baseline‖M), certified upper end (seed 000 Def 1)


@dataclass(frozen=True)
class RiskCalibration:
    sigma: float
    value: float
    metric: str
    target: float
    sampling_rate: float
    steps: int
    evaluations: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sigma_for_risk(
    metric: RiskMetric | str, target: float, sampling_rate: float, steps: int, *, fpr: float | None = None,
    baseline: Any = None, rtol: float = 1e-3, sigma_max: float = SIGMA_MAX,
) -> RiskCalibration:
    """Smallest σ (to relative tolerance ``rtol``) whose certified risk metric is ≤ ``target``. Step 3.

    ``metric`` ``"tpr"`` needs ``fpr``; ``"delta"`` needs ``baseline`` (a mechanism or spec string) and bounds
    the certified upper end of Δ(baseline‖SGM(σ)), the excess vulnerability of SGM(σ) over the baseline.
    """
    from . import risk

    try:
        metric = RiskMetric(metric)
    except ValueError:
        raise ValueError(f"metric must be one of {[m.value for m in RiskMetric]}, got {metric!r}") from None
    target = check_in_interval("target", target, 0.0, 1.0)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    n = check_integer("steps", steps, minimum=1)
    rtol = check_in_interval("rtol", rtol, 0.0, 1.0, low_open=True, high_open=True)
    if metric is RiskMetric.TPR:
        if fpr is None:
            raise ValueError("metric 'tpr' needs fpr")
        fpr = check_in_interval("fpr", fpr, 0.0, 1.0)
    if metric is RiskMetric.DELTA:
        if baseline is None:
            raise ValueError("metric 'delta' needs a baseline mechanism")
        if isinstance(baseline, str):
            from ..io.spec import parse

            baseline = parse(baseline)
    count = [0]

    def g(s: float) -> float:
        count[0] += 1
        m = _mechanism(s, p, n)
        if metric is RiskMetric.ADVANTAGE:
            return risk.advantage(m)
        if metric is RiskMetric.TPR:
            return float(risk.tpr_at_fpr(m, fpr))
        return risk.excess_vulnerability(baseline, m)

    gmax = g(sigma_max)
    if gmax > target:
        raise ValueError(f"{metric.value} <= {target:g} is unreachable for sampling_rate={p:g}, steps={n}: "
                         f"even sigma={sigma_max:g} gives {gmax:.6g}")
    lo, hi, glo, ghi = _bracket_decreasing(g, 1.0, target, SIGMA_MIN, sigma_max)
    if hi is None:
        hi, ghi = sigma_max, gmax
    if lo is not None:
        while hi / lo - 1.0 > rtol:
            mid = math.sqrt(lo * hi)
            gm = g(mid)
            if gm > target:
                lo = mid
            else:
                hi, ghi = mid, gm
    return RiskCalibration(hi, ghi, metric.value, target, p, n, count[0])
