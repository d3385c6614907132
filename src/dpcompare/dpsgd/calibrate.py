"""Calibration of DP-SGD (the Poisson-subsampled Gaussian mechanism, SGM) with a certified answer.

Every calibration here is one call (or two) of the certified monotone solver
:func:`dpcompare._search.solve`: the returned σ or N is a point where the certified quantity was
*evaluated* and found to meet the target. There is no other search loop and no private cap.

The certified ε of N steps of SGM(σ, p) at δ
--------------------------------------------
ε_hi(σ, N) = ε of the pessimistic PLD pair (accounting/sgm.py; seed 000 §5 and DESIGN.md §1) at grid
spacing h, which is an upper bound of the true ε at *every* h (coarser h: larger, still certified).
Where that engine cannot answer — δ below the mass it puts at ε = +∞ (δ ≲ 1e-12), σ so small that the
loss leaves double precision, more than ``PLD_MAX_STEPS`` steps — ε_hi is the Rényi-DP bound of
:mod:`.rdp_bound` (Mironov et al. 2019; Balle et al. 2020, Thm 21), also certified, looser. Each answer
says which accountant certified it.

1. ``sigma_for_epsilon`` — the σ with target − tol ≤ ε_hi(σ) ≤ target (ε_hi decreasing in σ).
   a. Domain. σ_hi = 4·√N·σ_G(ε, δ), σ_G the exact Gaussian calibration (seed 001): p = 1 is the
      Gaussian with μ = √N/σ, and subsampling never hurts, so σ_hi is feasible with room to spare
      (the factor 4 covers the RDP fallback). σ_lo = ``SIGMA_MIN``.
   b. Coarse solve at grid 64·h_auto(σ) (a few ms per evaluation), from the CLT guess (Dong, Roth & Su
      2022, Cor. 5.4), to 2 % in σ.
   c. Working grid. ε at grid F·h_auto is ≈ ε₀ + a·F^k (the grid excess is ∝ h² for fine grids); a, k are
      read off ε at F = 64, 32, 16 at the coarse answer, and F is the largest with a·F^k ≤ tol/4, at most
      64 (so ε at the automatic grid, too, stays within ≈ tol of the target; the over-noise is
      ≈ tol/(4·|dε/dlog σ|) in σ, 0.001 % at (8, 1e-5)). The grid spacing is then frozen.
   d. Fine solve at that grid on a narrow domain predicted from the coarse slope (aimed at target −
      tol/2), stopping at the first σ with target − tol ≤ ε_hi(σ) ≤ target (``gtol``) — usually the
      first evaluation. If the prediction missed, the solve runs again on [σ_lo, coarse answer].
2. ``steps_for_sigma`` — the largest N ≤ ``STEPS_MAX`` with ε_hi(N) ≤ target (integer solve,
   ε_hi increasing in N), coarse then at the automatic grid; ``at_limit`` says when even
   ``STEPS_MAX`` steps meet the target (then the answer is "more than that", not a number).
3. ``sigma_for_risk`` — the smallest σ (relative tolerance ``rtol``) whose certified risk — advantage,
   TPR at an FPR, Bayes error at a prior, or Δ(baseline‖SGM) — meets a target; every metric is read off
   the certified pessimistic side (:mod:`.risk`). The domain end σ_hi comes from the Gaussian G_μ with
   μ = √N/σ, which Blackwell-dominates SGM(σ, p, N) (Dong, Roth & Su 2022, §5): a σ that makes G_μ
   meet the target makes the SGM meet it.

Example
-------
>>> c = sigma_for_epsilon(2.0, 1e-5, 1.0, 4)     # p = 1: the Gaussian mechanism with μ = 2/σ
>>> 2.0 - 1e-3 <= c.epsilon <= 2.0, round(c.sigma, 3)
(True, 3.989)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from .._search import Scale, SearchResult, Side, Unreachable, solve
from .._validation import check_in_interval, check_integer, check_positive, check_real, format_number
from ..accounting.sgm import default_discretization
from .rdp_bound import rdp_epsilon

#: smallest σ searched: below it the single-step privacy loss overflows the PLD engine (the RDP bound
#: still answers, but a noise multiplier < 1e-4 is no privacy at all)
SIGMA_MIN = 1e-4
#: largest number of steps composed by the PLD engine; beyond, the Rényi-DP bound certifies ε
PLD_MAX_STEPS = 10**8
#: below this δ, ε_hi is the smaller of the PLD engine's bound and the Rényi-DP bound (both certified)
TINY_DELTA = 1e-10
#: largest number of steps searched by ``steps_for_sigma`` (an answer beyond is reported as "more than")
STEPS_MAX = 10**18
#: coarse grid factor of the bracketing phase
COARSE_FACTOR = 64.0
#: coarse grid factor of the bracketing phase of risk calibration (both sides of the pair are composed)
RISK_COARSE_FACTOR = 16.0

#: what an engine failure at one point looks like (numerically out of range): treated as "not certified"
_ENGINE_ERRORS = (ValueError, RuntimeError, OverflowError, FloatingPointError, ZeroDivisionError, MemoryError)


class Accountant(str, enum.Enum):
    """Which certified bound produced an ε."""

    PLD = "pld"  #: pessimistic privacy-loss distribution (tight)
    RDP = "rdp"  #: Rényi DP conversion (looser, any δ and N)


def _check_target(epsilon: Any, delta: Any) -> tuple[float, float]:
    eps = check_positive("epsilon", epsilon)
    if not math.isfinite(eps):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    d = check_in_interval("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    return eps, d


def certified_epsilon(sigma: float, p: float, steps: int, delta: float, discretization: float | None = None) -> float:
    """Certified ε(δ) of N steps of SGM(σ, p) from the PLD engine: an upper bound of the true ε at every grid.

    The engine's own entry point (:func:`dpcompare.accounting.sgm.certified_epsilon`): only the
    pessimistic pair is composed, and its floating-point error bound η and the certified Chernoff
    tail bound are included, so ε_hi(δ) ≥ the true ε(δ) at every grid spacing (DESIGN.md §1). For the
    symmetrised pair ε_sym(δ) = max(ε_f(δ), ε_{f⁻¹}(δ)), which the engine takes.
    """
    from ..accounting.sgm import certified_epsilon as engine_epsilon

    return float(engine_epsilon(sigma, p, steps, delta, discretization))


@dataclass(frozen=True)
class EpsilonBound:
    """One certified upper bound ε_hi (``math.inf``: nothing certified) and where it came from."""

    epsilon: float
    accountant: Accountant
    discretization: float | None
    note: str = ""  #: why the PLD engine did not answer, when it did not


def epsilon_upper(sigma: float, p: float, steps: int, delta: float, discretization: float | None = None,
                  factor: float = 1.0) -> EpsilonBound:
    """ε_hi of N steps of SGM(σ, p) at δ (module docstring): the PLD bound at grid ``discretization`` (or
    ``factor`` × the automatic grid), or the Rényi-DP bound where the PLD engine cannot certify a finite ε."""
    note = ""
    if steps <= PLD_MAX_STEPS:
        try:
            h = discretization if discretization is not None else factor * default_discretization(sigma, p, steps)
            e = certified_epsilon(sigma, p, steps, delta, h)
            if math.isfinite(e) and delta < TINY_DELTA:
                # far below the grid's resolution the engine answers from its Chernoff tail bound;
                # the Rényi-DP bound is another certified upper bound, and can be tighter there
                r = rdp_epsilon(sigma, p, steps, delta)
                if r < e:
                    return EpsilonBound(r, Accountant.RDP, None, "the Renyi-DP bound is tighter than the PLD tail bound here")
            if math.isfinite(e):
                return EpsilonBound(e, Accountant.PLD, float(h))
            note = f"the PLD engine puts mass > delta={delta:g} at epsilon = +inf"
        except _ENGINE_ERRORS as exc:
            note = f"the PLD engine is out of range here ({type(exc).__name__})"
    else:
        note = f"more than {PLD_MAX_STEPS:.0e} steps: not composed by the PLD engine"
    e = rdp_epsilon(sigma, p, steps, delta)
    return EpsilonBound(e if math.isfinite(e) else math.inf, Accountant.RDP, None, note)


def _sigma_hi(eps: float, delta: float, n: int) -> float:
    """σ_hi = 4·√N·σ_G(ε, δ) (step 1a): feasible for every p ≤ 1."""
    from .. import gaussian as dg

    try:
        s = float(dg.sigma_for(eps, delta))
    except (ValueError, ArithmeticError):
        s = math.sqrt(2.0 * math.log(1.25 / delta)) / eps  # Dwork & Roth 2014, Thm A.1 (ε < 1) — only a domain end
    return max(4.0 * math.sqrt(n) * s, 10.0 * SIGMA_MIN)


def _clt_guess(eps: float, delta: float, p: float, n: int, lo: float, hi: float) -> float:
    """Starting point only: σ whose CLT μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4) equals the μ
    of the Gaussian mechanism at (ε, δ) (dpcompare.gaussian.sigma_for)."""
    from .. import gaussian as dg

    try:
        psi = 1.0 / float(dg.sigma_for(eps, delta))
    except (ValueError, ArithmeticError):
        return math.sqrt(lo * hi)
    if p >= 1.0:
        return min(max(math.sqrt(n) / psi, lo), hi)
    x = psi * psi / (p * p * n)
    guess = 1.0 / math.sqrt(math.log1p(x)) if x > 0 else hi
    return min(max(guess, lo), hi)


class _SgmResult:
    """Shared by the calibration results: a dict view and the spec string of the calibrated mechanism."""

    sigma: float
    sampling_rate: float
    steps: int

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)  # type: ignore[call-overload]
        return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in d.items()}

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"


@dataclass(frozen=True)
class Calibration(_SgmResult):
    """Result of :func:`sigma_for_epsilon`: target − tol ≤ ``epsilon`` ≤ ``target_epsilon``, and ``epsilon`` is a
    certified upper bound of the true ε of ``sigma`` (from ``accountant``, at grid spacing ``discretization``;
    None for the RDP bound)."""

    sigma: float
    epsilon: float
    target_epsilon: float
    delta: float
    sampling_rate: float
    steps: int
    tolerance: float
    discretization: float | None
    evaluations: int
    accountant: Accountant = Accountant.PLD


#: progress callback: (certified feasible σ or None, known infeasible σ or None)
Progress = Callable[[float | None, float | None], None]


def sigma_for_epsilon(
    epsilon: float, delta: float, sampling_rate: float, steps: int, *, tol: float = 1e-3,
    progress: Progress | None = None,
) -> Calibration:
    """Noise multiplier σ of N-step DP-SGD with target − tol ≤ ε_hi(σ) ≤ target at δ (module docstring, step 1).

    Raises ValueError for ε ≤ 0, δ ∉ (0, 1), p ∉ (0, 1], N < 1, tol ∉ (0, ε), and, with the reason and
    what would work, for a target that no σ in [SIGMA_MIN, ∞) meets within the tolerance.
    """
    eps, d = _check_target(epsilon, delta)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    n = check_integer("steps", steps, minimum=1)
    tol = check_positive("tol", tol)
    if tol >= eps:
        raise ValueError(f"tol must be < epsilon ({eps:g}), got {tol:g}")
    evals = [0]
    seen: dict[tuple[float, float | None, float], EpsilonBound] = {}

    def ebound(s: float, h: float | None = None, factor: float = 1.0) -> EpsilonBound:
        key = (s, h, factor)
        if key not in seen:
            evals[0] += 1
            seen[key] = epsilon_upper(s, p, n, d, h, factor)
        return seen[key]

    lo, hi = SIGMA_MIN, _sigma_hi(eps, d, n)
    where = f"for sampling_rate={p:g}, steps={n}, delta={d:g}"

    # (b) coarse solve
    def g_coarse(s: float) -> float:
        return ebound(s, None, COARSE_FACTOR).epsilon - eps

    try:
        r1 = solve(g_coarse, lo, hi, side=Side.ABOVE, start=_clt_guess(eps, d, p, n, lo, hi), rtol=2e-2,
                   callback=progress)
    except Unreachable:
        b = ebound(hi, None, COARSE_FACTOR)
        raise ValueError(
            f"epsilon={eps:g} is out of reach {where}: even sigma={hi:.4g} (4x the noise the unsubsampled "
            f"Gaussian needs) is certified only to epsilon={b.epsilon:.6g} ({b.note or b.accountant.value}); "
            "a larger delta or fewer steps would work"
        ) from None
    if r1.infeasible is None:
        b = ebound(lo, None, COARSE_FACTOR)
        raise ValueError(
            f"epsilon={eps:g} {where} is met by every sigma >= {lo:g} (certified epsilon {b.epsilon:.6g} at "
            f"sigma={lo:g}, {b.accountant.value}); the noise multiplier is not constrained by this target "
            "within tolerance: choose any sigma >= that, or ask for a smaller epsilon"
        )
    s1, s1i = float(r1.feasible), float(r1.infeasible)
    b1, b1i = ebound(s1, None, COARSE_FACTOR), ebound(s1i, None, COARSE_FACTOR)

    # (c) working grid: the grid excess of ε is ≈ a·F^k (k ≈ 2: splitting/merging error ∝ h², less at coarse
    # grids); a and k are read off ε at F = 64, 32, 16 at the coarse answer (three cheap evaluations), and F
    # is the largest with a·F^k ≤ tol/4, at most 64. The model also predicts ε at that grid (step d).
    factor, e_model = COARSE_FACTOR, b1.epsilon
    if b1.accountant is Accountant.PLD:
        e32, e16 = ebound(s1, None, COARSE_FACTOR / 2), ebound(s1, None, COARSE_FACTOR / 4)
        d1, d2 = b1.epsilon - e32.epsilon, e32.epsilon - e16.epsilon
        if e32.accountant is e16.accountant is Accountant.PLD and d1 > 0 and d2 > 0:
            k = min(max(math.log2(d1 / d2), 1.0), 3.0)
            a = d1 / (COARSE_FACTOR**k - (COARSE_FACTOR / 2) ** k)
            factor = min(COARSE_FACTOR, max(1.0, (tol / (4.0 * a)) ** (1.0 / k)))
            e_model = b1.epsilon - a * (COARSE_FACTOR**k - factor**k)
    rdp = b1.accountant is Accountant.RDP  # the PLD engine cannot certify here: stay on the cheap grid
    h = None if rdp else factor * default_discretization(s1, p, n)

    def g_fine(s: float) -> float:
        return (ebound(s, None, COARSE_FACTOR) if rdp else ebound(s, h)).epsilon - eps

    # (d) the quadratic model predicts ε at the working grid at s1; with the coarse slope dε/dlog σ it gives
    # σ_R aimed at target − tol/2. One evaluation there, and a secant step from it with the same slope over
    # a short distance, predict the root well; the fine solve runs on the window where ε is predicted in
    # [target − tol/2, target + tol] (its upper end is σ_R itself if σ_R already meets the tolerance), else
    # on [lo, s1].
    slope = (b1i.epsilon - b1.epsilon) / (math.log(s1i) - math.log(s1)) if math.isfinite(b1i.epsilon) else -eps
    if not slope < 0:
        slope = -eps
    s_r = min(max(s1 * math.exp((eps - 0.5 * tol - e_model) / slope), lo), hi)
    e_r = g_fine(s_r) + eps

    def sigma_at(e: float) -> float:
        return min(max(s_r * math.exp((e - e_r) / slope), lo), hi) if math.isfinite(e_r) else s1

    good = s_r if eps - tol <= e_r <= eps else sigma_at(eps - 0.5 * tol)
    r2: SearchResult | None = None
    try:
        r2 = solve(g_fine, min(sigma_at(eps + tol), good), good, side=Side.ABOVE, gtol=tol, rtol=1e-13,
                   callback=progress)
    except Unreachable:
        r2 = None
    if r2 is None or not -tol <= g_fine(r2.feasible) <= 0:
        top = s1 if g_fine(s1) <= 0 else hi
        try:
            r2 = solve(g_fine, lo, top, side=Side.ABOVE, gtol=tol, rtol=1e-13,
                       start=min(max(sigma_at(eps - 0.5 * tol), lo), top), callback=progress)
        except Unreachable:
            r2 = None
    if r2 is None or not -tol <= g_fine(r2.feasible) <= 0:
        best = r2.feasible if r2 is not None else s1
        bb = g_fine(best) + eps
        fail = g_fine(r2.infeasible) + eps if r2 is not None and r2.infeasible is not None else None
        hidden = -math.expm1(n * math.log1p(-p)) if p < 1 else 1.0
        if bb == 0.0:
            reason = (f"the example is in at least one of the {n} batches only with probability {hidden:.3g} <= "
                      f"delta={d:g}" if hidden <= d else "delta covers the whole privacy loss")
            raise ValueError(
                f"epsilon={eps:g} {where} is met with certified epsilon = 0 by every sigma >= {best:.4g} (the smallest "
                f"the accountant can evaluate here): {reason}; any sigma >= {best:.4g} works, or ask for a smaller delta"
            )
        why = f"just below it, sigma={r2.infeasible:.10g} is certified only to {fail:.6g}" if fail is not None else ""
        raise ValueError(
            f"epsilon={eps:g} {where} cannot be met within tol={tol:g}: sigma={best:.10g} is certified to "
            f"epsilon={bb:.6g}{'; ' + why if why else ''} (the certified epsilon jumps there). Use "
            f"sigma={best:.10g} (it meets the target), or a larger tol"
        )
    sigma = float(r2.feasible)
    b = ebound(sigma, None, COARSE_FACTOR) if rdp else ebound(sigma, h)
    return Calibration(sigma, b.epsilon, eps, d, p, n, tol, b.discretization, evals[0], b.accountant)


@dataclass(frozen=True)
class StepsCalibration(_SgmResult):
    """Result of :func:`steps_for_sigma`: ``steps`` is the largest N with certified ε ≤ target — or, when
    ``at_limit``, only a lower bound: even ``STEPS_MAX`` steps meet the target."""

    steps: int
    epsilon: float
    sigma: float
    target_epsilon: float
    delta: float
    sampling_rate: float
    evaluations: int
    accountant: Accountant = Accountant.PLD
    at_limit: bool = False


def steps_for_sigma(
    sigma: float, epsilon: float, delta: float, sampling_rate: float, *, progress: Progress | None = None,
) -> StepsCalibration:
    """The largest number of steps N ≤ STEPS_MAX such that N steps of SGM(σ, p) are certified (ε, δ)-DP.

    Module docstring, step 2. Raises ValueError (with the ε of one step) if even one step exceeds the target;
    returns ``at_limit=True`` if even STEPS_MAX steps meet it.
    """
    eps, d = _check_target(epsilon, delta)
    s = check_positive("sigma", sigma)
    if not math.isfinite(s):
        raise ValueError(f"sigma must be finite, got {sigma!r}")
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    evals = [0]
    seen: dict[tuple[int, float], EpsilonBound] = {}

    def ebound(k: int, factor: float) -> EpsilonBound:
        if (k, factor) not in seen:
            evals[0] += 1
            seen[(k, factor)] = epsilon_upper(s, p, k, d, None, factor)
        return seen[(k, factor)]

    def make_g(factor: float) -> Callable[[int], float]:
        return lambda k: ebound(int(k), factor).epsilon - eps

    where = f"with sigma={s:g}, sampling_rate={p:g}, delta={d:g}"
    try:
        r1 = solve(make_g(COARSE_FACTOR), 1, STEPS_MAX, side=Side.BELOW, integer=True,
                   start=_clt_steps_guess(eps, d, s, p), rtol=1e-2, callback=progress)
    except Unreachable:
        b = ebound(1, 1.0)
        if b.epsilon <= eps:  # the coarse grid was too pessimistic for one step
            r1 = SearchResult(1, 2, evals[0])
        else:
            raise ValueError(
                f"epsilon={eps:g} is out of reach {where}: a single step is certified only to epsilon="
                f"{b.epsilon:.6g}; a larger sigma, a smaller sampling_rate or a larger delta would work"
            ) from None
    if r1.infeasible is None:  # every N ≤ STEPS_MAX is feasible at the coarse grid
        b = ebound(STEPS_MAX, 1.0)
        return StepsCalibration(STEPS_MAX, b.epsilon, s, eps, d, p, evals[0], b.accountant, True)
    # fine (automatic) grid: the coarse feasible N is a certified lower end; search up to the coarse infeasible
    # N, beyond which the fine grid is also infeasible unless it is much less pessimistic: then the rest
    lo_n, hi_n = int(r1.feasible), int(r1.infeasible)
    r2 = solve(make_g(1.0), lo_n, hi_n, side=Side.BELOW, integer=True, callback=progress) \
        if ebound(lo_n, 1.0).epsilon <= eps else None
    if r2 is None:  # the fine grid disagrees with the coarse one at lo_n (not expected): search all of [1, lo_n]
        r2 = solve(make_g(1.0), 1, lo_n, side=Side.BELOW, integer=True, callback=progress)
    if r2.infeasible is None and r2.feasible == hi_n:
        r2 = solve(make_g(1.0), hi_n, STEPS_MAX, side=Side.BELOW, integer=True, start=2 * hi_n, callback=progress)
        if r2.infeasible is None:
            b = ebound(STEPS_MAX, 1.0)
            return StepsCalibration(STEPS_MAX, b.epsilon, s, eps, d, p, evals[0], b.accountant, True)
    n = int(r2.feasible)
    b = ebound(n, 1.0)
    return StepsCalibration(n, b.epsilon, s, eps, d, p, evals[0], b.accountant, False)


def _clt_steps_guess(eps: float, delta: float, sigma: float, p: float) -> float:
    """Starting point only: N whose CLT μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4) equals the μ
    of the Gaussian mechanism at (ε, δ) (dpcompare.gaussian.sigma_for); N = (μ/p)²/(e^{1/σ²} − 1)."""
    from .. import gaussian as dg

    try:
        mu = 1.0 / float(dg.sigma_for(eps, delta))
        guess = (mu / p) ** 2 / math.expm1(1.0 / (sigma * sigma))
    except (ValueError, ArithmeticError):
        return 1.0
    return min(max(1.0, guess), float(STEPS_MAX)) if math.isfinite(guess) else 1.0


# ---------------------------------------------------------------------------------------------- risk targets
class RiskMetric(str, enum.Enum):
    """What ``sigma_for_risk`` bounds (all read off the certified pessimistic side, :mod:`.risk`)."""

    ADVANTAGE = "advantage"  #: max TPR − FPR = TV (seed 000 eq 29) must be ≤ target
    TPR = "tpr"  #: TPR of the best membership test at FPR ``fpr`` must be ≤ target
    BAYES_ERROR = "bayes_error"  #: the adversary's Bayes error at prior ``prior`` must be ≥ target
    DELTA = "delta"  #: Δ(baseline‖M) (seed 000 Def 1), certified upper end, must be ≤ target


@dataclass(frozen=True)
class RiskCalibration:
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"


def _risk_g(metric: RiskMetric, target: float, fpr: float | None, prior: float | None, baseline: Any) -> Callable[[Any], float]:
    """g(mechanism) ≤ 0 ⇔ the mechanism meets the risk target (certified side, module docstring step 3)."""
    from . import risk

    if metric is RiskMetric.ADVANTAGE:
        return lambda m: risk.advantage(m) - target
    if metric is RiskMetric.TPR:
        return lambda m: float(risk.tpr_at_fpr(m, fpr)) - target
    if metric is RiskMetric.BAYES_ERROR:
        return lambda m: target - float(risk.bayes_error(m, prior))
    return lambda m: risk.excess_vulnerability(baseline, m) - target


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
    from ..mechanisms import Gaussian
    from ..mechanisms.sgm import SubsampledGaussian

    try:
        metric = RiskMetric(metric)
    except ValueError:
        raise ValueError(f"metric must be one of {[m.value for m in RiskMetric]}, got {metric!r}") from None
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    n = check_integer("steps", steps, minimum=1)
    rtol = check_in_interval("rtol", rtol, 0.0, 1.0, low_open=True, high_open=True)
    target = check_real("target", target)
    params: dict[str, Any] = {}
    if metric is RiskMetric.ADVANTAGE:
        target = check_in_interval("target (advantage)", target, 0.0, 1.0, low_open=True, high_open=True)
    elif metric is RiskMetric.TPR:
        if fpr is None:
            raise ValueError("metric 'tpr' needs fpr (the false-positive rate at which TPR is bounded)")
        fpr = check_in_interval("fpr", fpr, 0.0, 1.0, high_open=True)
        target = check_in_interval("target (TPR)", target, 0.0, 1.0, high_open=True)
        if target <= fpr:
            raise ValueError(f"target TPR must be > fpr={fpr:g} (a test that ignores the data already has TPR = FPR), "
                             f"got {target:g}")
        params["fpr"] = fpr
    elif metric is RiskMetric.BAYES_ERROR:
        if prior is None:
            raise ValueError("metric 'bayes_error' needs prior (the adversary's prior on membership, in (0, 1))")
        prior = check_in_interval("prior", prior, 0.0, 1.0, low_open=True, high_open=True)
        ceiling = min(prior, 1.0 - prior)
        target = check_in_interval("target (Bayes error)", target, 0.0, 1.0)
        if target >= ceiling:
            raise ValueError(f"target Bayes error must be < min(prior, 1 - prior) = {ceiling:g} (the error of guessing "
                             f"from the prior alone, reached only with infinite noise), got {target:g}")
        params["prior"] = prior
    else:
        if baseline is None or not hasattr(baseline, "bayes_error"):
            raise ValueError("metric 'delta' needs baseline, a mechanism (e.g. dpcompare.Gaussian(mu=1))")
        target = check_in_interval("target (Delta)", target, 0.0, 1.0, low_open=True)
        params["baseline"] = str(getattr(baseline, "spec", baseline))
    g_mech = _risk_g(metric, target, fpr, prior, baseline)
    evals = [0]

    # domain end from the dominating Gaussian G_μ, μ = √N/σ: the largest μ that meets the target
    def g_mu(mu: float) -> float:
        try:
            return g_mech(Gaussian(mu=mu))
        except _ENGINE_ERRORS:
            return math.inf

    try:
        rmu = solve(g_mu, 1e-12, 1e4, side=Side.BELOW, rtol=1e-3)
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
    s = float(r.feasible)
    value = g(s)
    value = value + target if metric is not RiskMetric.BAYES_ERROR else target - value
    return RiskCalibration(s, value, metric.value, target, p, n, evals[0],
                           None if r.infeasible is None else float(r.infeasible), params)
