"""The two DP-SGD central limit theorems — uniform (fixed-size) and Poisson sampling — each next to the
certified accountant for the *same* sampling.

T steps of a subsampled Gaussian with noise multiplier σ and sampling rate p, as p√T → s and T → ∞,
are asymptotically μ-GDP with

- **uniform** (fixed-size batches drawn uniformly without replacement, replace-one neighbours):
  μ = s·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2)  — [SI] Cor 9, eq 5.7 (Dong, Roth & Su 2022,
  *Gaussian differential privacy*, Cor 5.4); Opacus ``compute_mu_uniform``, TF-Privacy
  ``compute_mu_uniform``. The bracket is E_P[(L − 1)²; L > 1] for the one-step likelihood ratio
  L = e^{x/σ − 1/(2σ²)}, P = N(0, 1).
- **Poisson** (each record in each batch independently with probability p, add/remove neighbours):
  μ = s·√(e^{1/σ²} − 1)  — Bu, Dong, Long & Su 2020, *Deep learning with Gaussian differential
  privacy* (the Poisson-subsampling CLT); Opacus ``compute_mu_poisson``. The root is the χ²-divergence
  of the one-step Gaussian pair, E_P[(L − 1)²].

The accountant for the same sampling (certified, pessimistic side = never below the true ε):

- Poisson: :class:`~dpcompare.SubsampledGaussian` (σ, p, T), add/remove.
- uniform: :class:`~dpcompare.mechanisms.fixed_batch.FixedBatchGaussian` (σ, n, b = p·n, T),
  replace-one: its pessimistic side is Dong, Roth & Su's C_p(G_{1/σ})^{⊗T} bound, its optimistic side
  the Poisson composition at rate p — the bracket contains the truth. Here, as in eq 5.7, one step is
  G_{1/σ}: σ is the noise relative to the *replace-one* sensitivity (for gradients clipped to norm C
  that is 2C, so an Opacus noise multiplier σ_C — noise std / C — is σ = σ_C/2).

The CLTs are asymptotic, not bounds: at finite T they can under-state ε (Gopi et al. 2021, *Numerical
composition of differential privacy*; [SI] §5.1). σ = 1, p = 0.01, T = 100: the Poisson CLT gives
μ = 0.131 (ε(1e-5) = 0.458) against the Poisson accountant's 0.718; the uniform CLT gives 0.171 (0.611)
against the fixed-batch accountant's bracket [0.718, 0.768].

>>> round(clt_mu(1.0, 0.01, 100, "poisson"), 6), round(clt_mu(1.0, 0.01, 100, "uniform"), 6)
(0.131083, 0.171014)
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics import ndtr
from .._summary import summarized
from .._validation import check_in_interval, check_integer, check_positive
from ._psi_checks import check_delta

__all__ = ["CLTComparison", "Sampling", "clt_mu", "clt_mu_poisson", "clt_mu_uniform", "compare_clt"]


class Sampling(str, enum.Enum):
    """How DP-SGD's batches are drawn (selects the CLT and the accountant)."""

    POISSON = "poisson"  #: each record independently with probability p; add/remove neighbours
    UNIFORM = "uniform"  #: fixed-size batches without replacement; replace-one neighbours


SOURCES = {
    Sampling.UNIFORM: "[SI] Cor 9 eq 5.7 (Dong, Roth & Su 2022, Cor 5.4); Opacus compute_mu_uniform",
    Sampling.POISSON: "Bu, Dong, Long & Su 2020, Deep learning with Gaussian differential privacy; "
                      "Opacus compute_mu_poisson",
}
ACCOUNTANTS = {
    Sampling.UNIFORM: "FixedBatchGaussian (fixed-size batches, replace-one; certified bracket)",
    Sampling.POISSON: "SubsampledGaussian (Poisson, add/remove; certified PLD)",
}


def _check(sigma: Any, sampling_rate: Any, steps: Any) -> tuple[float, float, int]:
    s_ = check_positive("sigma", sigma)
    r = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    t = check_integer("steps", steps, minimum=1)
    if 1.0 / (s_ * s_) > 700.0:
        raise ValueError(f"sigma must be >= 0.038 for the CLT (e^(1/sigma^2) overflows), got {s_:g}")
    return s_, r, t


def clt_mu_uniform(sigma: Any, sampling_rate: Any, steps: Any) -> float:
    """Uniform (fixed-size) sampling CLT, [SI] Cor 9 eq 5.7 (Dong, Roth & Su 2022, Cor 5.4).

    μ = p√T·√2·√(e^{1/σ²}·Φ(3/(2σ)) + 3·Φ(−1/(2σ)) − 2); for σ > 10 the bracket (≈ 1/(2σ²), a difference
    of O(1) terms) is integrated instead: ∫_{1/(2σ)}^∞ φ(x)(e^{x/σ − 1/(2σ²)} − 1)² dx.

    >>> round(clt_mu_uniform(1.0, 0.01, 10_000), 6)   # s = 1
    1.710142
    """
    s_, r, t = _check(sigma, sampling_rate, steps)
    mu0 = 1.0 / s_
    if mu0 < 0.1:
        bracket = _bracket_quadrature(mu0)
    else:
        bracket = math.exp(mu0 * mu0) * float(ndtr(1.5 * mu0)) + 3.0 * float(ndtr(-0.5 * mu0)) - 2.0
    return r * math.sqrt(t) * math.sqrt(2.0) * math.sqrt(bracket)


def _bracket_quadrature(mu0: float) -> float:
    from scipy import integrate

    def f(x: float) -> float:
        return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi) * math.expm1(mu0 * x - 0.5 * mu0 * mu0) ** 2

    val, _ = integrate.quad(f, 0.5 * mu0, np.inf, epsabs=0.0, epsrel=1e-13, limit=200)
    return val


def clt_mu_poisson(sigma: Any, sampling_rate: Any, steps: Any) -> float:
    """Poisson sampling CLT (Bu, Dong, Long & Su 2020): μ = p√T·√(e^{1/σ²} − 1), computed with expm1.

    >>> round(clt_mu_poisson(1.0, 0.01, 10_000), 6)   # s = 1: √(e − 1)
    1.310832
    """
    s_, r, t = _check(sigma, sampling_rate, steps)
    return r * math.sqrt(t) * math.sqrt(math.expm1(1.0 / (s_ * s_)))


def clt_mu(sigma: Any, sampling_rate: Any, steps: Any, sampling: Sampling | str = Sampling.POISSON) -> float:
    """The CLT μ for ``sampling`` ("poisson" or "uniform"); see the module docstring."""
    smp = _sampling(sampling)
    return (clt_mu_poisson if smp is Sampling.POISSON else clt_mu_uniform)(sigma, sampling_rate, steps)


def _sampling(sampling: Any) -> Sampling:
    try:
        return Sampling(sampling)
    except ValueError:
        raise ValueError(f"sampling must be 'poisson' or 'uniform', got {sampling!r}") from None


@summarized("DP-SGD: a CLT μ against the certified accountant for the same sampling")
@dataclass(frozen=True)
class CLTComparison:
    """A DP-SGD CLT μ next to the certified accountant for the same sampling.

    ``epsilon_exact`` is the accountant's certified upper end (never understated), ``epsilon_exact_lower``
    its lower end; the truth lies in between. ``psi_exact``: the Gaussian μ with the same ε at δ.
    ``understates``: the CLT's ε is below the certified lower end (it promises more privacy than there is).
    ``psi_clt`` is the CLT's μ (the name of the sensitivity index ψ in [SI]).
    """

    sigma: float
    sampling_rate: float
    steps: int
    delta: float
    psi_clt: float
    epsilon_clt: float
    epsilon_exact: float
    epsilon_exact_lower: float
    psi_exact: float
    sampling: Sampling = Sampling.POISSON
    dataset_size: int | None = None

    @property
    def understates(self) -> bool:
        return self.epsilon_clt < self.epsilon_exact_lower

    @property
    def ratio(self) -> float:
        """ε_CLT / ε_exact (< 1: the CLT under-states the privacy cost)."""
        return self.epsilon_clt / self.epsilon_exact if self.epsilon_exact > 0 else math.inf

    @property
    def source(self) -> str:
        return SOURCES[self.sampling]

    @property
    def accountant(self) -> str:
        return ACCOUNTANTS[self.sampling]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sampling": self.sampling.value, "sigma": self.sigma, "sampling_rate": self.sampling_rate,
            "steps": self.steps, "delta": self.delta, "dataset_size": self.dataset_size,
            "mu_clt": self.psi_clt, "psi_clt": self.psi_clt, "epsilon_clt": self.epsilon_clt,
            "epsilon_exact": self.epsilon_exact, "epsilon_exact_lower": self.epsilon_exact_lower,
            "psi_exact": self.psi_exact, "understates": self.understates, "ratio": self.ratio,
            "source": self.source, "accountant": self.accountant,
        }


def batch_for(sampling_rate: float, dataset_size: int | None) -> tuple[int, int]:
    """(n, b) with b/n = p exactly: from ``dataset_size`` when given, else the smallest such n ≤ 10⁹."""
    if dataset_size is not None:
        n = check_integer("dataset_size", dataset_size, minimum=1)
        b = round(sampling_rate * n)
        if b < 1 or abs(b / n - sampling_rate) > 1e-12 * sampling_rate:
            raise ValueError(f"dataset_size must make the batch size p·n an integer ≥ 1; p·n = {sampling_rate * n:g}")
        return n, int(b)
    frac = Fraction(sampling_rate).limit_denominator(10**9)
    if float(frac) != sampling_rate:
        raise ValueError(f"sampling_rate {sampling_rate!r} is not a ratio b/n with n ≤ 1e9; give dataset_size")
    return frac.denominator, frac.numerator


def compare_clt(
    sigma: Any, sampling_rate: Any, steps: Any, delta: Any = 1e-5, *, sampling: Sampling | str = Sampling.POISSON,
    dataset_size: int | None = None, discretization: float | None = None,
) -> CLTComparison:
    """The CLT for ``sampling`` versus the certified accountant for the same sampling (module docstring).

    ε_CLT = ε(δ; μ_CLT) by the exact Gaussian profile ([SI] eq 6.7); ε_exact and its lower end from the
    accountant's pessimistic and optimistic pairs; ψ_exact = the Gaussian μ with ε(δ; ψ) = ε_exact.
    Uniform sampling needs an integral batch size b = p·n (``dataset_size`` n; by default the smallest n).

    >>> c = compare_clt(1.0, 0.01, 100, 1e-5)
    >>> round(c.psi_clt, 4), round(c.epsilon_clt, 3), round(c.epsilon_exact, 3), c.understates
    (0.1311, 0.458, 0.718, True)
    """
    from ..mechanisms.gaussian_profile import epsilon as gauss_epsilon
    from .psi_calibration import psi_for

    smp = _sampling(sampling)
    d = float(check_delta(delta))
    mu = clt_mu(sigma, sampling_rate, steps, smp)
    n = None
    if smp is Sampling.POISSON:
        from ..mechanisms.sgm import SubsampledGaussian  # lazy: the PLD machinery is heavy

        mech = SubsampledGaussian(sigma=sigma, sampling_rate=sampling_rate, steps=steps, discretization=discretization)
    else:
        from ..mechanisms.fixed_batch import FixedBatchGaussian

        n, b = batch_for(float(sampling_rate), dataset_size)
        mech = FixedBatchGaussian(float(sigma), dataset_size=n, batch_size=b, steps=int(steps),
                                  discretization=discretization)
    eps_hi = float(mech.epsilon(d))
    _, opt = mech.pairs()
    eps_lo = float(opt.epsilon(d))
    if not math.isfinite(eps_hi):
        raise ValueError(f"delta = {d:g} is below the accountant's resolution for this mechanism: no finite ε")
    return CLTComparison(
        sigma=float(sigma), sampling_rate=float(sampling_rate), steps=int(steps), delta=d, psi_clt=mu,
        epsilon_clt=float(gauss_epsilon(mu, d)), epsilon_exact=eps_hi, epsilon_exact_lower=min(eps_lo, eps_hi),
        psi_exact=float(psi_for(eps_hi, d)), sampling=smp, dataset_size=n,
    )
