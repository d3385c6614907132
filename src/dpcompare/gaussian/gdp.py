"""ψ as a Gaussian-DP parameter: Lemma 6, group privacy (Cor 7), composition (Cor 8), DP-SGD CLT (Cor 9).

- Lemma 6: the Gaussian mechanism with index ψ is μ-GDP (trade-off ≥ G_μ) iff ψ ≤ μ; its tightest
  GDP parameter is μ = ψ.
- Cor 7 (group privacy, Dong et al. 2022 Thm 2.14): for groups of k individuals the index is k·ψ
  (the means move k·Δ apart; as ROC curves R_ψ∘R_ψ∘… = R_{kψ}).
- Cor 8 (composition, Dong et al. 2022 Cor 3.3): G_{ψ₁} ⊗ … ⊗ G_{ψₙ} = G_{√(ψ₁² + … + ψₙ²)} exactly;
  k equal mechanisms compose to √k·ψ.
- Cor 9 (DP-SGD CLT, Dong et al. 2022 Cor 5.4), eq 5.7: T steps of the Poisson-subsampled Gaussian
  with noise multiplier σ and sampling rate r, as r√T → s and T → ∞, are asymptotically ψ-GDP with::

      ψ = s·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2),   s = r·√T

  The bracket is E_P[(L − 1)²; L > 1] for the likelihood ratio L = e^{x/σ − 1/(2σ²)} of one step
  (P = N(0, 1)): ∫_{1/(2σ)}^∞ φ(x)(L(x) − 1)² dx, which the tests integrate numerically.

  The CLT is asymptotic and can *under-state* the privacy cost at finite T (Gopi et al. 2021; seed 001
  §5.1). :func:`compare_clt` puts it next to the exact answer from the certified PLD accountant
  (:class:`dpcompare.mechanisms.sgm.SubsampledGaussian`): ε(δ) of G_{ψ_CLT} versus the certified
  bracket of the true ε(δ), and the ψ of the Gaussian mechanism that matches the true ε at δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .._numerics import ndtr
from .._validation import check_in_interval, check_integer, check_positive
from ._checks import check_delta, check_psi, scalar_or_array
from ..mechanisms.gaussian_profile import epsilon as _gauss_epsilon

__all__ = ["CLTComparison", "clt_psi", "compare_clt", "compose", "group", "is_gdp"]


def is_gdp(psi: Any, mu: Any) -> bool | np.ndarray:
    """Lemma 6 (seed 001): the Gaussian mechanism with index ψ is μ-GDP iff ψ ≤ μ.

    >>> is_gdp(1.0, 1.5), is_gdp(1.0, 0.5)
    (True, False)
    """
    p = check_psi(psi)
    m = check_psi(mu, "mu")
    out = p <= m
    return bool(out) if out.ndim == 0 else out


def compose(psis: Iterable[Any]) -> float:
    """Cor 8 (seed 001): composing Gaussian mechanisms ψ₁, …, ψₙ gives ψ = √(ψ₁² + … + ψₙ²), exactly.

    Accepts any iterable (or array) of indices; computed with ``math.hypot`` (no overflow).

    >>> compose([3.0, 4.0])
    5.0
    >>> round(compose([0.5] * 100), 12)   # √100·0.5
    5.0
    """
    arr = np.atleast_1d(np.asarray(list(psis) if not isinstance(psis, np.ndarray) else psis, dtype=float)).ravel()
    if arr.size == 0:
        raise ValueError("psis must hold at least one sensitivity index, got none")
    check_psi(arr, "psis")
    return float(math.hypot(*arr.tolist()))


def group(psi: Any, k: Any) -> float | np.ndarray:
    """Cor 7 (seed 001): for groups of k individuals the Gaussian mechanism has index k·ψ.

    >>> group(0.5, 3)
    1.5
    """
    p = check_psi(psi)
    kk = check_integer("k", k, minimum=1)
    return scalar_or_array(kk * p)


def clt_psi(sigma: Any, sampling_rate: Any, steps: Any) -> float:
    """DP-SGD CLT index, seed 001 Cor 9 eq 5.7 (Dong et al. 2022 Cor 5.4).

    ψ = s·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2) with s = r·√T. Asymptotic (r√T → s, T → ∞);
    compare with the exact accountant before relying on it (:func:`compare_clt`).

    >>> round(clt_psi(1.0, 0.01, 10_000), 6)   # s = 1
    1.710142
    """
    s_ = check_positive("sigma", sigma)
    r = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    t = check_integer("steps", steps, minimum=1)
    mu0 = 1.0 / s_
    if mu0 * mu0 > 700.0:
        raise ValueError(f"sigma must be >= 0.038 for eq 5.7 (e^(1/sigma^2) overflows), got {s_:g}")
    if mu0 < 0.1:
        # σ > 10: the bracket ≈ μ₀²/2 is a difference of O(1) terms (relative cancellation 1/μ₀²)
        bracket = _bracket_quadrature(mu0)
    else:
        bracket = math.exp(mu0 * mu0) * float(ndtr(1.5 * mu0)) + 3.0 * float(ndtr(-0.5 * mu0)) - 2.0
    return r * math.sqrt(t) * math.sqrt(2.0) * math.sqrt(bracket)


def _bracket_quadrature(mu0: float) -> float:
    """E_P[(L−1)²; L>1] = ∫_{μ₀/2}^∞ φ(x)(e^{μ₀x − μ₀²/2} − 1)² dx for small μ₀ = 1/σ, by quadrature of the
    positive integrand (no cancellation)."""
    from scipy import integrate

    def f(x: float) -> float:
        return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi) * math.expm1(mu0 * x - 0.5 * mu0 * mu0) ** 2

    val, _ = integrate.quad(f, 0.5 * mu0, np.inf, epsabs=0.0, epsrel=1e-13, limit=200)
    return val


@dataclass(frozen=True)
class CLTComparison:
    """The CLT ψ of DP-SGD (Cor 9) next to the exact, certified answer of the PLD accountant.

    ``epsilon_exact`` is the certified upper end (never understated), ``epsilon_exact_lower`` the lower
    end; the truth lies in between. ``psi_exact`` is the index of the Gaussian mechanism with the same
    ε at δ. ``understates`` is True when the CLT's ε is below the certified lower end: the CLT then
    promises more privacy than the mechanism has.
    """

    def __str__(self) -> str:
        """A readable summary (``print(result)``)."""
        from .._summary import summary

        return summary(self, "DP-SGD: the CLT ψ ([SI] Cor 9) against the certified PLD")

    sigma: float
    sampling_rate: float
    steps: int
    delta: float
    psi_clt: float
    epsilon_clt: float
    epsilon_exact: float
    epsilon_exact_lower: float
    psi_exact: float

    @property
    def understates(self) -> bool:
        return self.epsilon_clt < self.epsilon_exact_lower

    @property
    def ratio(self) -> float:
        """ε_CLT / ε_exact (< 1: the CLT under-states the privacy cost)."""
        return self.epsilon_clt / self.epsilon_exact if self.epsilon_exact > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        return {
            "sigma": self.sigma, "sampling_rate": self.sampling_rate, "steps": self.steps, "delta": self.delta,
            "psi_clt": self.psi_clt, "epsilon_clt": self.epsilon_clt, "epsilon_exact": self.epsilon_exact,
            "epsilon_exact_lower": self.epsilon_exact_lower, "psi_exact": self.psi_exact,
            "understates": self.understates, "ratio": self.ratio,
        }


def compare_clt(
    sigma: Any, sampling_rate: Any, steps: Any, delta: Any = 1e-5, *, discretization: float | None = None
) -> CLTComparison:
    """Cor 9's asymptotic ψ versus the exact PLD answer (certified, :mod:`dpcompare.mechanisms.sgm`).

    ε_CLT = ε(δ; ψ_CLT) by the exact Gaussian profile (eq 6.7); ε_exact and its lower end come from the
    pessimistic and optimistic pairs of ``SubsampledGaussian(σ, r, T)``; ψ_exact = ψ with
    ε(δ; ψ) = ε_exact (the Gaussian mechanism as private as DP-SGD at this δ).

    >>> c = compare_clt(1.0, 0.01, 100, 1e-5)
    >>> c.epsilon_exact_lower <= c.epsilon_exact and c.psi_clt > 0
    True
    """
    from ..mechanisms.sgm import SubsampledGaussian  # lazy: the PLD machinery is heavy
    from .calibrate import psi_for

    d = float(check_delta(delta))
    psi_c = clt_psi(sigma, sampling_rate, steps)
    mech = SubsampledGaussian(sigma=sigma, sampling_rate=sampling_rate, steps=steps, discretization=discretization)
    eps_hi = float(mech.epsilon(d))
    pess, opt = mech.pairs()
    eps_lo = float(opt.epsilon(d))
    if not math.isfinite(eps_hi):
        raise ValueError(f"delta = {d:g} is below the accountant's resolution for this mechanism: no finite ε")
    eps_c = float(_gauss_epsilon(psi_c, d))
    psi_x = float(psi_for(eps_hi, d))
    return CLTComparison(
        sigma=float(sigma), sampling_rate=float(sampling_rate), steps=int(mech.steps), delta=d,
        psi_clt=psi_c, epsilon_clt=eps_c, epsilon_exact=eps_hi, epsilon_exact_lower=min(eps_lo, eps_hi),
        psi_exact=psi_x,
    )
