"""σ for an (ε, δ) target and N for a σ, certified: steps 1 and 2 of :mod:`dpcompare.dpsgd.calibrate`.

>>> s = steps_for_sigma(4.0, 2.0, 1e-5, 1.0)    # p = 1: N steps are the Gaussian mechanism with μ = √N/4
>>> s.steps, s.epsilon <= 2.0, s.at_limit
(4, True, False)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .._search import SearchResult, Side, Unreachable, solve
from .._validation import check_in_interval, check_integer, check_positive
from ..composition.sgm_accuracy import never_sampled_upper
from ..composition.sgm_certified import default_discretization
from .epsilon_bound import (
    COARSE_FACTOR,
    SIGMA_MIN,
    STEPS_MAX,
    Accountant,
    EpsilonBound,
    Progress,
    _check_target,
    _SgmResult,
    epsilon_upper,
)


#: the coarse phase stops at the first σ with log(target/ε_hi) ∈ [0, COARSE_GTOL]
COARSE_GTOL = 5e-3
#: floor of ε_hi in the coarse phase's log ε (an ε_hi of 0 is far below any target)
_TINY_EPS = 1e-300


def _gaussian_sigma(eps: float, delta: float) -> float:
    """σ_G(ε, δ) of the Gaussian mechanism (sensitivity 1): the σ = 1/μ with δ(ε; μ) = δ, where ([SI] eq 7.1;
    Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy", Thm 8)

        δ(ε; μ) = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ),

    evaluated in log space (log Φ, then log(a − b) of the two terms). Only the calibration's search domain end
    (σ_hi) and its starting point are made of it, so it need not be certified like
    :func:`dpcompare.gaussian.sigma_for` (same value to ~1e-12 relative; it avoids importing the Gaussian and
    mechanism packages, ~20 ms of a cold calibration). The search starts at μ₀ = c + √(c² + 2ε), c = Φ⁻¹(δ),
    where the first term alone equals δ (μ₀ ≤ μ). Raises ValueError where no μ in (0, 1e150] is found.

    >>> round(_gaussian_sigma(1.0, 1e-5), 6)
    3.730632
    """
    from .._numerics import log_ndtr, logsubexp, ndtri

    log_target = math.log(delta)

    def g(mu: float) -> float:
        ratio = eps / mu
        la = float(log_ndtr(0.5 * mu - ratio))
        lb = eps + float(log_ndtr(-0.5 * mu - ratio))
        return float(logsubexp(la, min(lb, la))) - log_target

    c = float(ndtri(delta))
    mu0 = c + math.sqrt(c * c + 2.0 * eps)
    try:
        r = solve(g, 1e-300, 1e150, side=Side.BELOW, start=mu0 if 1e-300 < mu0 < 1e150 else None, rtol=1e-15)
    except Unreachable:
        raise ValueError(f"no Gaussian mechanism is (epsilon={eps:g}, delta={delta:g})-DP in range") from None
    return 1.0 / float(r.feasible)


def _sigma_hi(eps: float, delta: float, n: int, s: float | None = None) -> float:
    """σ_hi = 4·√N·σ_G(ε, δ) (step 1a): feasible for every p ≤ 1. ``s``: σ_G if known (None: not computable)."""
    if s is None:
        s = math.sqrt(2.0 * math.log(1.25 / delta)) / eps  # Dwork & Roth 2014, Thm A.1 (ε < 1) — only a domain end
    return max(4.0 * math.sqrt(n) * s, 10.0 * SIGMA_MIN)


def _clt_guess(eps: float, delta: float, p: float, n: int, lo: float, hi: float, s: float | None = None) -> float:
    """Starting point only: σ whose CLT μ = p√(N(e^{1/σ²} − 1)) (Dong, Roth & Su 2022, Cor 5.4) equals the μ
    = 1/σ_G of the Gaussian mechanism at (ε, δ) (``s`` = σ_G from :func:`_gaussian_sigma`; None: not known)."""
    if s is None:
        return math.sqrt(lo * hi)
    psi = 1.0 / s
    if p >= 1.0:
        return min(max(math.sqrt(n) / psi, lo), hi)
    x = psi * psi / (p * p * n)
    guess = 1.0 / math.sqrt(math.log1p(x)) if x > 0 else hi
    return min(max(guess, lo), hi)


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

    try:
        s_gauss: float | None = _gaussian_sigma(eps, d)
    except (ValueError, ArithmeticError):
        s_gauss = None
    lo, hi = SIGMA_MIN, _sigma_hi(eps, d, n, s_gauss)
    where = f"for sampling_rate={p:g}, steps={n}, delta={d:g}"
    hidden = never_sampled_upper(p, n)  # P(the example is in some batch), rounded up
    if hidden * (1.0 + 1e-12) <= d:  # δ(ε) ≤ δ(0) ≤ TV ≤ that probability for every σ: nothing to calibrate
        raise ValueError(
            f"epsilon={eps:g} {where} is met with certified epsilon = 0 by any sigma > 0: the example is in at least "
            f"one of the {n} batches only with probability {hidden:.3g} <= delta={d:g}; ask for a smaller delta"
        )

    # (b) coarse solve, on log ε_hi − log target: log ε is close to linear in log σ, so the false-position steps
    # of the solver land within a few evaluations (same sign, same feasible set as ε_hi − target)
    def g_coarse(s: float) -> float:
        return math.log(max(ebound(s, None, COARSE_FACTOR).epsilon, _TINY_EPS) / eps)

    try:
        # stop at the first coarse σ with ε_hi within 0.5 % below the target (the nearest infeasible σ seen gives
        # the slope); if none was seen below it, the plain 2 % solve (cached evaluations are free)
        start = _clt_guess(eps, d, p, n, lo, hi, s_gauss)
        r1 = solve(g_coarse, lo, hi, side=Side.ABOVE, start=start, step=0.1, rtol=2e-2, gtol=COARSE_GTOL,
                   callback=progress)
        if r1.infeasible is None:
            r1 = solve(g_coarse, lo, hi, side=Side.ABOVE, start=start, step=0.1, rtol=2e-2, callback=progress)
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
    # is the largest with a·F^k ≤ tol/2 (tol/4 to tol/2 measured, step 1c), at most 64. The model also predicts ε at that grid (step d).
    factor, e_model = COARSE_FACTOR, b1.epsilon
    if b1.accountant is Accountant.PLD:
        e32, e16 = ebound(s1, None, COARSE_FACTOR / 2), ebound(s1, None, COARSE_FACTOR / 4)
        d1, d2 = b1.epsilon - e32.epsilon, e32.epsilon - e16.epsilon
        if e32.accountant is e16.accountant is Accountant.PLD and d1 > 0 and d2 > 0:
            k = min(max(math.log2(d1 / d2), 1.0), 3.0)
            a = d1 / (COARSE_FACTOR**k - (COARSE_FACTOR / 2) ** k)
            factor = min(COARSE_FACTOR, max(1.0, (tol / (2.0 * a)) ** (1.0 / k)))
            e_model = b1.epsilon - a * (COARSE_FACTOR**k - factor**k)
    rdp = b1.accountant is Accountant.RDP  # the PLD engine cannot certify here: stay on the cheap grid
    h = None if rdp else factor * default_discretization(s1, p, n)

    def g_fine(s: float) -> float:
        return (ebound(s, None, COARSE_FACTOR) if rdp else ebound(s, h)).epsilon - eps

    # (d) the quadratic model predicts ε at the working grid at s1; with the coarse slope dlog ε/dlog σ it gives
    # σ_R aimed at target − tol/2. One evaluation there, and a secant step from it with the same slope over
    # a short distance, predict the root well; the fine solve runs on the window where ε is predicted in
    # [target − tol/2, target + tol] (its upper end is σ_R itself if σ_R already meets the tolerance), else
    # on [lo, s1].
    slope = -1.0  # d log ε / d log σ from the coarse bracket (log ε is close to linear in log σ)
    if math.isfinite(b1i.epsilon) and b1i.epsilon > 0 and b1.epsilon > 0:
        slope = math.log(b1i.epsilon / b1.epsilon) / math.log(s1i / s1)
    if not slope < 0:
        slope = -1.0

    def sigma_from(s0: float, e0: float, e: float) -> float:
        return min(max(s0 * math.exp(math.log(e / e0) / slope), lo), hi)

    s_r = sigma_from(s1, e_model, eps - 0.5 * tol) if e_model > 0 else s1
    e_r = g_fine(s_r) + eps

    def sigma_at(e: float) -> float:
        return sigma_from(s_r, e_r, e) if math.isfinite(e_r) and e_r > 0 else s1

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
        hidden = never_sampled_upper(p, n)
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
