"""PLRV moments v₁…v₄, η, the CLT μ and the Theorem 3 bound ([BCP] §4, eq 8–15, proof eq 77–88), for any
mechanism with closed-form, quadrature or exact discrete moments (``moments_with_method``).

Conventions ([BCP] eq 9–12). For a trade-off function f = T(P, Q) and α uniform on [0, 1],
−f′(α) = q/p at the rejection boundary of the most powerful test, so with L = log(p/q) distributed under P:

    v₁ = −∫₀¹ log|f′| = E_P[L] = KL(P‖Q)      (eq 9)
    v₂ =  ∫₀¹ log²|f′| = E_P[L²]               (eq 10)
    v₃ =  ∫₀¹ |log|f′| + v₁|³ = E_P|L − v₁|³     (eq 11)
    v₄ =  ∫₀¹ |log|f′||³ = E_P|L|³              (eq 12)
    η  = v₁ / √(v₂ − v₁²)                        (eq 8)

Check: the Gaussian G_μ (P = N(0,1), Q = N(μ,1)) has L = μ²/2 − μZ, so v₁ = μ²/2, v₂ − v₁² = μ², η = μ/2.

The subsampled Gaussian (one step, noise multiplier σ, sampling rate p, sensitivity 1; μ = 1/σ) has the
remove pair P = N(0,1), Q = (1−p)N(0,1) + pN(μ,1) (trade-off C_p-style f_p = p G_μ + (1−p) Id, Dong et al.
2022 §4.2) and the add pair (Q, P) with trade-off f_p⁻¹. With t = μz − μ²/2 and u = p(eᵗ − 1), q/p = 1 + u:

    remove: L = −log1p(u) under z ~ N(0,1); v₁ = E[u − log1p(u)] (E[u] = 0 exactly, so no cancellation)
    add:    L = log1p(u) under Q, i.e. E_Q[g] = E_P[(1+u) g];  v₁ = E_P[(1+u) log1p(u) − u]

The moments are computed by adaptive Gauss–Kronrod quadrature (scipy.integrate.quad, relative tolerance 1e-12)
of these analytic integrands over z, split at 0, μ/2 and μ, with |z| ≤ 60 + μ (the Gaussian tails beyond carry
< 1e-780 mass). For p = 9e-4 the per-step loss is O(1e-3), far below any PLD grid, so this — not a
discretised PLD — is how the moments must be computed.

Theorem 3 (main text eq 14, with the precondition corrected from the proof): with μ = 2η√N, μ̃ = 2η̃√Ñ
(eq 77–78), if μ ≥ μ̃ — equivalently N/Ñ ≥ η̃²/η² (eq 79; the appendix's statement "η²/η̃²" and the proof's
"η/η̃" are typos, eq 79 squares out to η̃²/η²) — then

    Δ(M^⊗N ‖ M̃^⊗Ñ) ≤ γ + γ̃,  γ = 0.56 v₃ / (√N (v₂ − v₁²)^{3/2}) = 0.56 η³ v₃ / (√N v₁³)   (eq 85, 14)

(Berry–Esseen for trade-off functions, Dong, Roth & Su 2022, Thm 5). The Gaussian proxies are Blackwell
ordered (Lemma B.2): the one with the larger μ is more informative, and the mechanism it approximates
is the one that will come to dominate (be less private) as N, Ñ grow at a fixed ratio (Lemma 6).
"""

from __future__ import annotations

import enum
import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import integrate

from .._validation import check_in_interval, check_integer, check_positive

BERRY_ESSEEN = 0.56  # Dong, Roth & Su 2022, Thm 5 ([BCP] eq 14)


class Direction(str, enum.Enum):
    """Which ordering of an asymmetric pair: remove = T(P, Q) = f, add = T(Q, P) = f⁻¹."""

    REMOVE = "remove"
    ADD = "add"


@dataclass(frozen=True)
class Moments:
    """v₁…v₄ and η of one step ([BCP] eq 8–12)."""

    v1: float
    v2: float
    v3: float
    v4: float

    @property
    def variance(self) -> float:
        return self.v2 - self.v1 * self.v1

    @property
    def finite(self) -> bool:
        """v₄ < ∞ (Theorem 3's assumption; it implies v₁, v₂, v₃ < ∞) and a non-degenerate loss."""
        return math.isfinite(self.v4) and math.isfinite(self.v2) and self.variance > 0

    @property
    def eta(self) -> float:
        """η = v₁/√(v₂ − v₁²) (eq 8); ∞ when a moment is infinite or the loss is degenerate."""
        if not self.finite:
            return math.inf
        return self.v1 / math.sqrt(self.variance)

    def clt_mu(self, steps: int) -> float:
        """μ = 2η√N of the Gaussian limit of the N-fold composition (eq 77; Dong et al. 2022, Thm 6)."""
        return 2.0 * self.eta * math.sqrt(steps)

    def berry_esseen_gamma(self, steps: int) -> float:
        """γ = 0.56 v₃ / (√N (v₂ − v₁²)^{3/2}) (eq 85)."""
        return BERRY_ESSEEN * self.v3 / (math.sqrt(steps) * self.variance**1.5)

    def to_dict(self) -> dict[str, float]:
        return {**asdict(self), "eta": self.eta, "variance": self.variance}


def gaussian_moments(mu: float) -> Moments:
    """Closed form for G_μ: L = μ²/2 − μZ, Z ~ N(0,1) ([BCP] §4).

    v₁ = μ²/2, v₂ = μ² + μ⁴/4, v₃ = μ³ E|Z|³ = 2√(2/π) μ³, v₄ = E|μ²/2 − μZ|³ = μ³ E|Z − a|³ with a = μ/2, where
    E|Z − a|³ = (a³ + 3a) (2Φ(a) − 1) + 2(a² + 2) φ(a) (third absolute moment of a shifted normal).
    """
    from scipy.stats import norm

    mu = check_positive("mu", mu)
    a = mu / 2.0
    abs3 = (a**3 + 3 * a) * (2 * norm.cdf(a) - 1) + 2 * (a * a + 2) * norm.pdf(a)
    return Moments(mu * mu / 2.0, mu * mu + mu**4 / 4.0, 2.0 * math.sqrt(2.0 / math.pi) * mu**3, float(mu**3 * abs3))


def _phi(z: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _u_and_log1pu(z: np.ndarray, mu: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    """u = p(e^{μz − μ²/2} − 1) and log(1 + u) = log(q/p), stable for large t (log-space) and small u."""
    t = mu * z - 0.5 * mu * mu
    big = t > 30.0
    tt = np.where(big, 0.0, t)
    u = p * np.expm1(tt)
    lg = np.log1p(u)
    if np.any(big):
        tb = t[big]
        lg_big = np.logaddexp(math.log1p(-p) if p < 1 else -np.inf, math.log(p) + tb)
        lg = lg.copy()
        lg[big] = lg_big
        u = u.copy()
        u[big] = np.exp(math.log(p) + tb) - p  # may be inf only beyond t ≈ 700, where φ underflows anyway
    return u, lg


def _quad(fun, mu: float) -> float:
    """∫ fun(z) φ(z) dz over |z| ≤ 60 + μ, split at the places where the integrand changes scale."""
    pts = sorted({-60.0, -10.0, 0.0, 0.5 * mu, mu, mu + 10.0, mu + 60.0})
    total = 0.0
    with warnings.catch_warnings():
        # quad reports "roundoff" on pieces whose integral is ~1e-300 of the total; those pieces do not matter
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        for a, b in zip(pts[:-1], pts[1:]):
            if b <= a:
                continue
            val, _ = integrate.quad(lambda z: float(fun(np.asarray([z]))[0] * _phi(np.asarray([z]))[0]), a, b,
                                    epsabs=0.0, epsrel=1e-12, limit=400)
            total += val
    return total


def subsampled_gaussian_moments(sigma: float, sampling_rate: float, direction: Direction | str = "remove") -> Moments:
    """v₁…v₄ of one step of the Poisson-subsampled Gaussian by quadrature of the analytic densities (module docstring)."""
    sigma = check_positive("sigma", sigma)
    p = check_in_interval("sampling_rate", sampling_rate, 0.0, 1.0, low_open=True)
    direction = Direction(direction)
    mu = 1.0 / sigma
    if p == 1.0:
        return gaussian_moments(mu)
    if direction is Direction.REMOVE:
        def v1f(z):
            u, lg = _u_and_log1pu(z, mu, p)
            return u - lg  # E[u] = 0: v₁ = E[−log1p(u)] = E[u − log1p(u)]

        v1 = _quad(v1f, mu)
        v2 = _quad(lambda z: _u_and_log1pu(z, mu, p)[1] ** 2, mu)
        v3 = _quad(lambda z: np.abs(-_u_and_log1pu(z, mu, p)[1] - v1) ** 3, mu)
        v4 = _quad(lambda z: np.abs(_u_and_log1pu(z, mu, p)[1]) ** 3, mu)
    else:
        def w(z):
            return 1.0 + _u_and_log1pu(z, mu, p)[0]

        def v1f(z):
            u, lg = _u_and_log1pu(z, mu, p)
            return (1.0 + u) * lg - u  # E_P[u] = 0

        v1 = _quad(v1f, mu)
        v2 = _quad(lambda z: w(z) * _u_and_log1pu(z, mu, p)[1] ** 2, mu)
        v3 = _quad(lambda z: w(z) * np.abs(_u_and_log1pu(z, mu, p)[1] - v1) ** 3, mu)
        v4 = _quad(lambda z: w(z) * np.abs(_u_and_log1pu(z, mu, p)[1]) ** 3, mu)
    return Moments(v1, v2, v3, v4)


def laplace_moments(m: float) -> Moments:
    """v₁…v₄ of the Laplace mechanism with m = Δ/b by quadrature of its privacy-loss law.

    Under P = Lap(0, b), with u = x/b, L = log(p/q) = (|x − Δ| − |x|)/b is m for u ≤ 0 (mass ½), −m for
    u ≥ m (mass ½e^{−m}) and m − 2u in between (density ½e^{−u}), so
    E_P[g(L)] = ½g(m) + ½e^{−m}g(−m) + ∫₀^m ½e^{−u} g(m − 2u) du. Check: v₁ = KL = m + e^{−m} − 1.
    """
    m = check_positive("m", m)

    def expect(g) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            mid, _ = integrate.quad(lambda u: 0.5 * math.exp(-u) * g(m - 2.0 * u), 0.0, m, epsabs=0.0,
                                    epsrel=1e-13, limit=200, points=[0.5 * m])
        return 0.5 * g(m) + 0.5 * math.exp(-m) * g(-m) + mid

    v1 = m + math.expm1(-m)  # KL(Lap(0,b) ‖ Lap(Δ,b)), closed form
    v2 = expect(lambda l: l * l)
    v3 = expect(lambda l: abs(l - v1) ** 3)
    v4 = expect(lambda l: abs(l) ** 3)
    return Moments(v1, v2, v3, v4)


def discrete_moments(pair: Any) -> Moments:
    """Exact sums over the atoms of an exact discrete pair (``DiscretePair``; ℓ = log(q/p), so L = −ℓ).

    A P-mass at ℓ = −∞ (L = +∞) makes every moment infinite (Theorem 3 needs v₄ < ∞).
    """
    if pair.p_neg_inf > 0:
        return Moments(math.inf, math.inf, math.inf, math.inf)
    p = np.asarray(pair.p, dtype=float)
    L = -np.asarray(pair.loss, dtype=float)
    v1 = float(np.sum(p * L))
    return Moments(v1, float(np.sum(p * L * L)), float(np.sum(p * np.abs(L - v1) ** 3)), float(np.sum(p * np.abs(L) ** 3)))


class MomentsMethod(str, enum.Enum):
    """How the moments of a mechanism were obtained."""

    CLOSED_FORM = "closed form"
    QUADRATURE = "quadrature"
    EXACT_SUM = "exact sum over atoms"


def moments_with_method(mechanism: Any, direction: Direction | str = "remove") -> tuple[Moments, MomentsMethod]:
    """Single-step moments of a mechanism and how they were computed: Gaussian (closed form), Laplace and
    SubsampledGaussian (quadrature; its ``steps`` are ignored — the moments are per step), and any
    mechanism whose pair is exact and discrete (randomized response, pure DP, approximate DP, FromPair…:
    exact sums). Anything else raises ValueError naming what is missing."""
    from ..mechanisms import Gaussian, Laplace, SubsampledGaussian
    from ..mechanisms.events import closed_form_view

    mechanism = closed_form_view(mechanism)
    if isinstance(mechanism, SubsampledGaussian):
        return subsampled_gaussian_moments(mechanism.sigma, mechanism.sampling_rate, direction), MomentsMethod.QUADRATURE
    if isinstance(mechanism, Gaussian):
        return gaussian_moments(mechanism.mu), MomentsMethod.CLOSED_FORM
    if isinstance(mechanism, Laplace):
        return laplace_moments(mechanism.m), MomentsMethod.QUADRATURE
    pairs = mechanism.pairs() if hasattr(mechanism, "pairs") else None
    if pairs is not None and pairs[0] is pairs[1]:
        return discrete_moments(pairs[0]), MomentsMethod.EXACT_SUM
    spec = getattr(mechanism, "spec", repr(mechanism))
    raise ValueError(
        f"PLRV moments are available for gaussian, laplace, sgm and exact discrete mechanisms; {spec} has "
        "only a numerically composed pair (its moments would not be certified)"
    )


def moments_of(mechanism: Any, direction: Direction | str = "remove") -> Moments:
    """Single-step moments v₁…v₄ of a mechanism (see ``moments_with_method``)."""
    return moments_with_method(mechanism, direction)[0]


@dataclass(frozen=True)
class Thm3Result:
    """[BCP] Thm 3 for M^⊗N vs M̃^⊗Ñ (module docstring)."""

    eta: float
    eta_tilde: float
    steps: int
    steps_tilde: int
    mu: float  # 2η√N
    mu_tilde: float  # 2η̃√Ñ
    ratio: float  # N/Ñ
    ratio_needed: float  # η̃²/η²
    precondition: bool  # N/Ñ ≥ η̃²/η²  ⇔  μ ≥ μ̃
    gamma: float
    gamma_tilde: float
    bound: float  # γ + γ̃ — valid for Δ(M^⊗N‖M̃^⊗Ñ) only when the precondition holds
    more_informative: str  # "M", "M~" or "equal": whose Gaussian proxy has the larger μ (less private)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def thm3(moments: Moments, steps: int, moments_tilde: Moments, steps_tilde: int) -> Thm3Result:
    """Evaluate Theorem 3 of [BCP] (eq 14, 77–88): CLT μ's, the precondition and the Berry–Esseen bound."""
    n = check_integer("steps", steps)
    nt = check_integer("steps_tilde", steps_tilde)
    mu, mut = moments.clt_mu(n), moments_tilde.clt_mu(nt)
    g, gt = moments.berry_esseen_gamma(n), moments_tilde.berry_esseen_gamma(nt)
    needed = moments_tilde.eta**2 / moments.eta**2
    more = "equal" if mu == mut else ("M" if mu > mut else "M~")
    return Thm3Result(moments.eta, moments_tilde.eta, n, nt, mu, mut, n / nt, needed, n / nt >= needed, g, gt,
                      g + gt, more)
