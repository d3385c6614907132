"""The μ that describes a curve: the best-fitting μ-GDP trade-off G_μ, with certified Δ in both directions.

The tightest μ-GDP bound μ_strict = min{μ : f ≥ G_μ} ([GDP] Dong, Roth & Su 2022, Def 2.6) must hold
at every FPR, the extreme tail included. For DP-SGD that tail is the full-batch Gaussian's (the event
"sampled at every step"), so μ_strict = √N/σ (31.6 for σ = 1, N = 1000 at ε = 1.83): true, but it
describes none of the curve a reader sees. What such a reader needs is the μ of a Gaussian curve
close to the mechanism, *and* a certified statement of how far the two are apart. The Δ-divergence
([BCP] Def 1, Cor 1) is exactly that statement, in each direction:

- Δ(G_μ‖M) = max_π (R_{G_μ}(π) − R_M(π)): the run is at most this much *more vulnerable* than μ-GDP
  says — the best attack's Bayes error on the run is at most Δ below G_μ's, against an adversary
  with prior π (the π where the maximum is attained is reported);
- Δ(M‖G_μ) = max_π (R_M(π) − R_{G_μ}(π)): μ-GDP overstates the best attack's success by at most
  this much.

Choice of μ (the minimax fit). μ̂ minimises the symmetric Δ↔(M, G_μ) = max(Δ(M‖G_μ), Δ(G_μ‖M)),
the sup-distance between the Bayes error functions ([BCP] Thm 2: equivalently the Lévy distance of
the trade-off curves, Lemma B.1). Why this and not the calibration point: matching at one point
(e.g. G_μ through the fixed point α*, μ = −2Φ⁻¹(α*)) fits one prior and can leave a larger gap
elsewhere; the minimax μ makes the *worst* gap over every prior as small as any μ can, so the two
certified numbers reported with it are the smallest such statement a μ-GDP description admits.
It is computable: R_{G_μ} decreases in μ, so Δ(M‖G_μ) is non-decreasing and Δ(G_μ‖M) non-increasing
in μ, and the minimum of their maximum is where they cross. μ̂ is found by the monotone solver
(``dpcompare._search``) on g(μ) = max_π(R_M − R_{G_μ}) − max_π(R_{G_μ} − R_M), with R_M the
pessimistic Bayes error (the curve the card's other numbers describe) on a grid of priors that
contains the mechanism's kinks and breakpoints, each maximum refined around its grid argmax. The two
Δ reported are then computed at μ̂ with their certified brackets (``delta_divergences``), so they are
guarantees about *that* μ̂ whatever the search's accuracy. μ̂ itself is a description, not a bound.

Why the pessimistic side: for a mechanism with a wide certified bracket (fixed-size batches: Dong,
Roth & Su's bound against the Poisson composition) the truth lies anywhere inside it. Fitting the
pessimistic curve keeps the safety-relevant statement — Δ(G_μ̂‖M), "more vulnerable than μ-GDP
says" — small (0.0028 at μ̂ = 0.370 for ``sgm(noise_multiplier=1.1, batch_size=256,
dataset_size=60000, epochs=1, sampling=fixed)``, against 0.0064 at the bracket midpoint's crossing
μ = 0.327); the other direction's upper end then carries the bracket's width.

μ̂ ≤ μ_strict always (at μ_strict, Δ(G_μ‖M) = 0 ≤ Δ(M‖G_μ)); μ̂ = μ_strict and both Δ = 0 for the
Gaussian mechanism itself. No finite μ̂ exists when no Gaussian curve is as informative as M
in the Bayes sense over [0, MU_MAX] (e.g. blatant non-privacy): then ``mu`` is None.

>>> import dpcompare as dc
>>> fit = gdp_fit(dc.Gaussian(mu=1.5))
>>> round(fit.mu, 5), fit.excess.upper < 1e-9, fit.slack.upper < 1e-9
(1.5, True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._numerics import ndtri
from .._search import Scale, Side, solve

if TYPE_CHECKING:  # pragma: no cover
    from ..comparison.delta import DeltaResult
    from ..mechanisms import Mechanism

__all__ = ["GdpFit", "MU_MAX", "STRICT_NOTE_RATIO", "gaussian_bayes_error_estimate", "gdp_fit"]

#: the largest μ searched: G_40 has minimax Bayes error Φ(−20) ≈ 2.8e-89, blatant non-privacy in practice
MU_MAX = 40.0
#: the strict μ bound is flagged (with its one-line reason) when it exceeds μ̂ by this factor
STRICT_NOTE_RATIO = 1.5
_GRID_POINTS = 10_001  # logit grid: λ ∈ [−25, 25], spacing 0.005
_LOCAL_POINTS = 401  # dense grid between the neighbours of an argmax
_MAX_BREAKPOINTS = 50_000
_RTOL = 1e-9  # relative accuracy of μ̂ (a description: the reported Δ are certified at whatever μ̂ is)
#: |∂R_{G_μ}(π)/∂μ| ≤ φ(0) = 1/√(2π) < 0.4 (``_candidates``)
_LIPSCHITZ_MU = 0.4
#: what the plain-rounded R_M − R_{G_μ} of two evaluations may add to their difference (a few ulp of ½ each, ×10³)
_PRUNE_MARGIN = 1e-12
#: an evaluation reads the candidates of the last whole-grid one when they are at most this share of the grid
_PRUNE_SHARE = 0.25


@dataclass(frozen=True)
class GdpFit:
    """μ̂ (minimax fit, see the module docstring) with its certified Δ in both directions.

    ``excess`` = Δ(G_μ̂‖M): how much more vulnerable the run is than μ̂-GDP says (value, lower, upper, π);
    ``slack`` = Δ(M‖G_μ̂): how much μ̂-GDP overstates the attack; ``strict_mu`` the tightest μ-GDP bound
    (None when none is known).
    """

    mu: float | None
    excess: "DeltaResult | None"
    slack: "DeltaResult | None"
    strict_mu: float | None

    @property
    def strict_ratio(self) -> float | None:
        """μ_strict / μ̂ (None when either is unknown or μ̂ = 0)."""
        if self.mu is None or self.strict_mu is None or self.mu <= 0:
            return None
        return self.strict_mu / self.mu

    @property
    def strict_is_far(self) -> bool:
        r = self.strict_ratio
        return (r is not None and r > STRICT_NOTE_RATIO) or (self.strict_mu is None and self.mu is not None)

    def sentence(self) -> str:
        """One sentence: the μ, and the certified distance to G_μ in the reader's terms."""
        if self.mu is None or self.excess is None or self.slack is None:
            return "no μ-GDP curve describes this mechanism: it is less private than G_μ for every μ ≤ 40"
        e, s = self.excess, self.slack
        out = (f"μ ≈ {num(self.mu, 4)}: the run is at most {num(e.upper, 3)} more vulnerable than "
               f"{num(self.mu, 4)}-GDP says (Bayes error of the best attack at most {num(e.upper, 3)} lower")
        out += f", against an adversary with prior π = {num(e.pi, 3)})" if e.lower > 0 else ")"
        out += f", and at most {num(s.upper, 3)} less vulnerable"
        out += f" (at π = {num(s.pi, 3)})." if s.lower > 0 else "."
        return out

    def strict_reason(self) -> str:
        """Why the strict bound is much larger than μ̂ (empty when it is not)."""
        if not self.strict_is_far:
            return ""
        if self.strict_mu is None:
            return "no strict μ-GDP bound exists: the curve reaches an FPR-0 test with power > 0 that no G_μ has"
        return (f"the strict bound μ ≤ {num(self.strict_mu, 4)} must hold at every FPR, the extreme tail included "
                f"(for subsampled noise: the event 'sampled at every step'); it is "
                f"{num(self.strict_ratio, 3)}× μ̂ and describes little of the curve")

    def to_dict(self) -> dict[str, Any]:
        return {
            "mu": self.mu,
            "excess": None if self.excess is None else self.excess.to_dict(),
            "slack": None if self.slack is None else self.slack.to_dict(),
            "strict_mu": self.strict_mu,
            "strict_ratio": self.strict_ratio,
            "sentence": self.sentence(),
            "strict_reason": self.strict_reason() or None,
        }


def num(x: float, digits: int = 6) -> str:
    """A number for a sentence: ``digits`` significant digits, no trailing zeros."""
    return f"{x:.{digits}g}"


def _gaussian(mu: float) -> "Mechanism":
    from ..mechanisms import Gaussian, PerfectlyPrivate

    return PerfectlyPrivate() if mu <= 0 else Gaussian(mu=mu)


def _prior_grid(m: "Mechanism") -> np.ndarray:
    """Priors for the search: a logit grid, the mechanism's kinks and (subsampled) the breakpoints of its
    discrete pairs, where R_M − R_G (linear minus concave between them) has its maxima."""
    from .._numerics import expit

    pts = [expit(np.linspace(-25.0, 25.0, _GRID_POINTS))]
    kinks = getattr(m, "bayes_error_kinks", None)
    if kinks is not None:
        pts.append(np.asarray(kinks(), dtype=float))
    pess = m.pessimistic_pair()  # ``pairs()[0]``, without the optimistic pair where the mechanism can
    if pess is not None:
        lam = np.asarray(pess.loss, dtype=float)
        if lam.size > _MAX_BREAKPOINTS:
            lam = lam[np.linspace(0, lam.size - 1, _MAX_BREAKPOINTS).astype(int)]
        pts += [expit(lam), expit(-lam)]
    pi = np.unique(np.concatenate(pts))
    return pi[np.isfinite(pi) & (pi > 0) & (pi < 1)]


def _gaussian_r_terms(pi: np.ndarray) -> tuple[np.ndarray, ...]:
    """(π, 1 − π, λ = log(π/(1 − π))) of a prior grid: the parts of R_{G_μ}(π) that do not depend on μ."""
    pi = np.asarray(pi, dtype=float)
    with np.errstate(divide="ignore"):
        return pi, 1.0 - pi, np.log(pi) - np.log1p(-pi)


def gaussian_bayes_error_estimate(mu: float, pi: Any, terms: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """R_{G_μ}(π) = π·Φ(−λ/μ − μ/2) + (1 − π)·Φ(λ/μ − μ/2), λ = log(π/(1 − π)), to rounding (not directed).

    The Bayes error of N(0, 1) against N(μ, 1) at prior π ([BCP] eq 2 with the likelihood-ratio test at
    threshold λ: its FPR Φ(−λ/μ − μ/2), its FNR Φ(λ/μ − μ/2); Dong, Roth & Su 2022, G_μ). Only the fit's
    search uses it (μ̂ is a description, located to ``_RTOL``); the Δ reported at μ̂ are the certified ones
    (``delta_divergences``, the Gaussian's outward-rounded R). ``terms`` are ``_gaussian_r_terms(pi)`` when
    the same priors are evaluated at many μ.

    >>> import dpcompare as dc
    >>> x = np.array([1e-9, 0.2, 0.5, 0.9])
    >>> lo, hi = dc.Gaussian(mu=0.7).bayes_error_bounds(x)
    >>> r = gaussian_bayes_error_estimate(0.7, x)
    >>> bool(np.all(np.abs(r - lo) <= 1e-15 + 1e-13 * r))
    True
    """
    from scipy.special import ndtr

    p, q, lam = _gaussian_r_terms(pi) if terms is None else terms
    ratio = lam / mu
    return p * ndtr(-ratio - 0.5 * mu) + q * ndtr(ratio - 0.5 * mu)


def _local_grid(pi: np.ndarray, k: int) -> np.ndarray:
    """The dense local grid between the neighbours of grid index ``k`` (where a maximum is refined: an interior
    maximum of a smooth difference is then located to ~(h/200)²)."""
    return np.linspace(pi[max(k - 1, 0)], pi[min(k + 1, pi.size - 1)], _LOCAL_POINTS)


def _candidates(d0: np.ndarray, reach: float) -> np.ndarray:
    """The grid indices where max d or max(−d) can lie, for every d within ``reach``/2 of ``d0`` at each point.

    Used with d = R_M − R_{G_μ} and d0 its values at ν on the same priors: R_{G_μ}(π) = min_t π·Φ(−t) + (1 − π)·Φ(t − μ)
    (the likelihood-ratio test at threshold t; Dong, Roth & Su 2022, G_μ), so by the envelope theorem
    ∂R_{G_μ}/∂μ = −(1 − π)·φ(t* − μ) and |R_{G_μ}(π) − R_{G_ν}(π)| ≤ φ(0)·|μ − ν| ≤ ``_LIPSCHITZ_MU``·|μ − ν| for every
    π; with reach = 2·that + ``_PRUNE_MARGIN`` (rounding), a point i outside has d_i ≤ d0_i + reach/2 < max d0 − reach/2
    ≤ d at the argmax of d0, which is inside: so the argmax of d over the whole grid (np.argmax: the first index
    attaining it) is the argmax over the candidates, index for index, and likewise for −d.

    >>> d0 = np.array([0.0, 0.5, 0.9, 1.0, 0.2, -1.0, -0.95])
    >>> _candidates(d0, 0.15).tolist()
    [2, 3, 5, 6]
    """
    return np.flatnonzero((d0 >= np.max(d0) - reach) | (d0 <= np.min(d0) + reach))


def gdp_fit(m: "Mechanism", *, tol: float = 1e-10) -> GdpFit:
    """The minimax μ-GDP description of ``m`` (module docstring), with certified Δ both ways.

    Steps: (1) R_M on a grid of priors (``_prior_grid``), from the pessimistic side — the curve every
    other number of the card describes; (2) the crossing μ̂ of max(R_M − R_{G_μ}) and max(R_{G_μ} − R_M)
    by the monotone solver, each max refined locally around its grid argmax (R_{G_μ} in closed form);
    (3) the two Δ reported are the certified ones at μ̂ (``delta_divergences``, to ``tol``): their
    ``value`` is the bracket's estimate, so for a mechanism with a wide bracket the two values need
    not be equal at μ̂; their upper ends are the guarantees.

    >>> import dpcompare as dc
    >>> fit = gdp_fit(dc.Laplace(b=1))
    >>> round(fit.mu, 4), round(fit.excess.value, 4), round(fit.slack.value, 4), round(fit.excess.pi, 3)
    (0.8926, 0.0244, 0.0244, 0.5)
    """
    from ..comparison.delta import delta_divergences
    from ..mechanisms import Mechanism

    if not isinstance(m, Mechanism):
        raise TypeError(f"m must be a dpcompare Mechanism, got {type(m).__name__}")
    strict = m.gdp_mu
    strict = None if strict is None or not math.isfinite(float(strict)) else float(strict)
    if float(m.summary_advantage()) <= 0.0:  # perfectly private: G_0 (δ(0) as the summary reads it, certified)
        slack, excess = delta_divergences(m, _gaussian(0.0), tol=tol)
        return GdpFit(0.0, excess, slack, strict)
    hi = MU_MAX if strict is None else min(MU_MAX, max(strict, 1e-12))

    pi = _prior_grid(m)  # 1.
    r_m = np.asarray(m.bayes_error(pi), dtype=float)
    grid_terms = _gaussian_r_terms(pi)  # μ-free parts of R_{G_μ} on the grid, once for every evaluation

    def r_g(mu: float, x: np.ndarray, terms: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
        return np.minimum(x, 1 - x) if mu <= 0 else gaussian_bayes_error_estimate(mu, x, terms)

    local: dict[int, tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]] = {}

    def refined_max(mu: float, k: int, grid_max: float, sign: float) -> float:
        """max of sign·(R_M − R_{G_μ}) given its grid max ``grid_max`` at grid index ``k``, refined on the local grid
        around k (R_M there computed once per argmax: near μ̂ every evaluation has the same)."""
        if k not in local:
            x = _local_grid(pi, k)
            local[k] = (x, np.asarray(m.bayes_error(x), dtype=float), _gaussian_r_terms(x))
        x, r_mx, terms = local[k]
        return float(max(grid_max, np.max(sign * (r_mx - r_g(mu, x, terms)))))

    ref: list[tuple[float, np.ndarray]] = []  # (ν, d at ν) of the last evaluation on the whole grid

    def grid_d(mu: float) -> tuple[np.ndarray, np.ndarray | None]:
        """d = R_M − R_{G_μ} at the grid indices ``idx`` where its maximum or minimum can lie (``_candidates``, from the
        last whole-grid evaluation), or on the whole grid (idx None) where those are more than ``_PRUNE_SHARE`` of it:
        near μ̂ the solver's steps are small and a few hundred of the ~3·10⁴ priors remain."""
        if ref:
            nu, d0 = ref[0]
            idx = _candidates(d0, 2.0 * _LIPSCHITZ_MU * abs(mu - nu) + _PRUNE_MARGIN)
            if idx.size <= _PRUNE_SHARE * d0.size:
                return r_m[idx] - r_g(mu, pi[idx], tuple(t[idx] for t in grid_terms)), idx
        d = r_m - r_g(mu, pi, grid_terms)
        ref[:] = [(mu, d)]
        return d, None

    seen: dict[float, float] = {}  # g at the points the solver evaluated (its two ends are compared below)

    def g(mu: float) -> float:  # 2.
        if mu not in seen:
            d, idx = grid_d(mu)
            kp, km = int(np.argmax(d)), int(np.argmin(d))  # argmin d = argmax −d (the same first index)
            up = refined_max(mu, kp if idx is None else int(idx[kp]), d[kp], 1.0)
            seen[mu] = up - refined_max(mu, km if idx is None else int(idx[km]), -d[km], -1.0)
        return seen[mu]

    # start the search at the μ whose G_μ has M's minimax Bayes error: R_{G_μ}(½) = Φ(−μ/2) ([BCP] Lemma 4:
    # the fixed point), so μ₀ = −2Φ⁻¹(R_M(½)) — near μ̂ for a curve close to Gaussian (DP-SGD: 36 → 21
    # evaluations, the same μ̂); only a start: the solver still brackets and certifies the crossing
    r_half = float(np.asarray(m.bayes_error(0.5), dtype=float))
    start = -2.0 * float(ndtri(r_half)) if 0.0 < r_half < 0.5 else None
    start = start if start is not None and 0.0 < start < hi else None
    r = solve(g, 0.0, hi, side=Side.BELOW, scale=Scale.LOG, rtol=_RTOL, max_evaluations=300, start=start)
    if r.infeasible is None and (strict is None or strict > MU_MAX):
        return GdpFit(None, None, None, strict)  # no crossing up to MU_MAX
    cands = [x for x in (r.feasible, r.infeasible) if x is not None and x > 0]
    mu = min(cands, key=lambda x: abs(g(x))) if cands else 0.0
    slack, excess = delta_divergences(m, _gaussian(mu), tol=tol)  # 3.
    return GdpFit(float(mu), excess, slack, strict)
