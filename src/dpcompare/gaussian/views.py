"""Every equivalent view of one Gaussian mechanism, from whichever parameter the user has ([SI] §7).

[SI]'s closing theorem: the sensitivity index ψ = Δ/σ alone fixes the Gaussian mechanism, and
the following are equivalent descriptions of it — (ε, δ(ε))-DP with the profile of eq 7.1, ψ-GDP
(Lemma 6), (α, αψ²/2)-RDP (Lemma 7), the ROC curve Φ(ψ + Φ⁻¹(x)) (eq 7.2) and its AUC Φ(ψ/√2) (eq 7.3).

:func:`resolve_psi` turns exactly one of ψ, (σ, Δ), μ, AUC or an (ε, δ) target into ψ;
:func:`views` computes every view (ε at δ by each conversion with its best order, RDP at chosen orders,
AUC, advantage, fixed point α*, minimax Bayes error R*) as a frozen :class:`GaussianViews`.
The Gaussian mechanism itself is the core's :class:`dpcompare.Gaussian` (``.psi`` = μ), so every
core view (trade-off, Bayes error, Δ-divergence, …) applies to it: :func:`mechanism`.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._summary import summarized
from ..mechanisms.continuous import Gaussian
from ._psi_checks import PSI_MAX, check_delta, check_psi, check_scalar_positive, check_unit_open
from .psi_calibration import classical_epsilon, psi_for
from ..mechanisms.gaussian_profile import log_delta as _log_delta
from .profile import epsilon as profile_epsilon
from .rdp import DEFAULT_ALPHA_MAX, Conversion, RDPEpsilon, rdp_epsilon
from .rdp import rdp as rdp_curve
from .roc import psi_from_auc

__all__ = ["DEFAULT_ORDERS", "GaussianViews", "Source", "mechanism", "resolve_psi", "views"]

#: RDP orders shown by default (the order grid of Figure 6 runs over (1, 64])
DEFAULT_ORDERS: tuple[float, ...] = (1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


class Source(enum.Enum):
    """Which parameter determined ψ."""

    PSI = "psi"
    SIGMA = "sigma"
    MU = "mu"
    AUC = "auc"
    EPSILON = "epsilon"


def mechanism(psi: Any = None, *, sigma: Any = None, sensitivity: Any = 1.0) -> Gaussian:
    """The Gaussian mechanism with index ψ (or noise σ and sensitivity Δ, ψ = Δ/σ, [SI] Def 6).

    It is the core's :class:`dpcompare.Gaussian`, so every dpcompare view and comparison applies.

    >>> mechanism(0.5).psi, mechanism(sigma=4.0, sensitivity=2.0).psi
    (0.5, 0.5)
    """
    if psi is not None and sigma is not None:
        raise ValueError("give either psi or sigma (with sensitivity), not both")
    if psi is not None:
        return Gaussian(mu=float(check_psi(psi)) if _is_scalar(psi) else _scalar("psi"))
    if sigma is None:
        raise ValueError("give psi, or sigma (with sensitivity)")
    return Gaussian(sigma=sigma, sensitivity=sensitivity)


def _is_scalar(x: Any) -> bool:
    return np.ndim(x) == 0


def _scalar(name: str):
    raise ValueError(f"{name} must be a single number, got an array")


def resolve_psi(
    *,
    psi: Any = None,
    sigma: Any = None,
    sensitivity: Any = None,
    mu: Any = None,
    auc: Any = None,
    epsilon: Any = None,
    delta: Any = 1e-5,
    prefix: str = "",
) -> tuple[float, Source]:
    """ψ from exactly one of: ψ; σ (and sensitivity Δ, default 1); μ (Lemma 6: ψ = μ); AUC
    (ψ = √2·Φ⁻¹(AUC), eq 4.9); an (ε, δ) target (ψ*(ε, δ), Cor 14 — the largest ψ that meets it).

    ``prefix`` is put before the parameter names in messages (``"--"`` for the CLI).

    >>> resolve_psi(sigma=2.0, sensitivity=1.0)
    (0.5, <Source.SIGMA: 'sigma'>)
    >>> resolve_psi(psi=1.0, mu=1.0)
    Traceback (most recent call last):
    ...
    ValueError: give exactly one of psi, sigma, mu, auc, epsilon; got psi and mu
    """
    given = [(s, v) for s, v in ((Source.PSI, psi), (Source.SIGMA, sigma), (Source.MU, mu), (Source.AUC, auc),
                                 (Source.EPSILON, epsilon)) if v is not None]
    names = ", ".join(prefix + s.value for s in Source)
    if len(given) != 1:
        got = " and ".join(prefix + s.value for s, _ in given) if given else "none"
        raise ValueError(f"give exactly one of {names}; got {got}")
    source, value = given[0]
    sens = 1.0 if sensitivity is None else check_scalar_positive(prefix + "sensitivity", sensitivity)
    if source is Source.PSI:
        return float(check_psi(check_scalar_positive(prefix + "psi", value), prefix + "psi")), source
    if source is Source.MU:
        return float(check_psi(check_scalar_positive(prefix + "mu", value), prefix + "mu")), source
    if source is Source.SIGMA:
        s = check_scalar_positive(prefix + "sigma", value)
        p = sens / s
        if not (math.isfinite(p) and 0 < p <= PSI_MAX):
            raise ValueError(f"{prefix}sensitivity/{prefix}sigma must be a number in (0, {PSI_MAX:g}], got {p!r}")
        return p, source
    if source is Source.AUC:
        return float(psi_from_auc(float(check_unit_open(value, prefix + "auc", 0.5, 1.0)))), source
    eps = float(value)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"{prefix}epsilon must be a finite number >= 0, got {eps:g}")
    d = float(check_delta(delta, prefix + "delta"))
    return float(psi_for(eps, d)), source


@summarized("The Gaussian mechanism through its sensitivity index ψ ([SI])")
@dataclass(frozen=True)
class GaussianViews:
    """All views of the Gaussian mechanism with index ψ at one δ ([SI]'s closing theorem)."""

    psi: float
    source: Source
    sensitivity: float
    delta: float
    epsilon: float  #: privacy-profile conversion (eq 6.7): exact
    epsilon_classical: float  #: eq 3.5
    epsilon_classical_valid: bool  #: eq 3.5 is proven only for ε < 1
    epsilon_classical_holds: bool  #: whether δ(ε_classical; ψ) ≤ δ anyway (checked on the exact profile)
    rdp_standard: RDPEpsilon  #: Cor 11
    rdp_asoodeh: RDPEpsilon  #: Cor 12 (improved A)
    rdp_balle: RDPEpsilon  #: Cor 13 (improved B)
    rdp_orders: tuple[tuple[float, float], ...]  #: (α, ρ(α) = αψ²/2), Lemma 7
    alpha_max: float
    auc: float  #: Φ(ψ/√2), eq 4.9
    advantage: float  #: TV = δ(0) = 2Φ(ψ/2) − 1
    fixed_point: float  #: α* with G_ψ(α*) = α*: Φ(−ψ/2)
    minimax_bayes_error: float  #: R* = R(½) = Φ(−ψ/2)
    epsilon_target: float | None = None  #: the ε asked for, when ψ came from an (ε, δ) target

    @property
    def sigma(self) -> float:
        """Noise standard deviation σ = Δ/ψ for the sensitivity Δ given (default 1)."""
        return self.sensitivity / self.psi

    @property
    def mu(self) -> float:
        """Tightest μ-GDP parameter: μ = ψ (Lemma 6)."""
        return self.psi

    @property
    def mechanism(self) -> Gaussian:
        return Gaussian(mu=self.psi)

    def to_dict(self) -> dict[str, Any]:
        """The keys of ``dpcompare gaussian --json`` (the command line's JSON contract)."""
        d: dict[str, Any] = {
            "psi": self.psi,
            "source": self.source.value,
            "sigma": self.sigma,
            "sensitivity": self.sensitivity,
            "mu": self.mu,
            "gdp_mu": self.mu,
            "delta": self.delta,
            "epsilon": self.epsilon,
            "epsilon_classical": self.epsilon_classical,
            "epsilon_classical_valid": self.epsilon_classical_valid,
            "epsilon_classical_holds": self.epsilon_classical_holds,
        }
        for key, r in (("epsilon_rdp", self.rdp_standard), ("epsilon_rdp_asoodeh", self.rdp_asoodeh),
                       ("epsilon_rdp_balle", self.rdp_balle)):
            d[key] = r.epsilon
            d[key + "_order"] = r.alpha
        d["alpha_max"] = self.alpha_max
        d["rdp"] = [{"alpha": a, "rho": r} for a, r in self.rdp_orders]
        d.update(auc=self.auc, advantage=self.advantage, fixed_point=self.fixed_point,
                 minimax_bayes_error=self.minimax_bayes_error)
        if self.epsilon_target is not None:
            d["epsilon_target"] = self.epsilon_target
        return d


def views(
    psi: Any,
    *,
    delta: Any = 1e-5,
    sensitivity: Any = 1.0,
    orders: Any = DEFAULT_ORDERS,
    alpha_max: float = DEFAULT_ALPHA_MAX,
    source: Source = Source.PSI,
    epsilon_target: float | None = None,
) -> GaussianViews:
    """Every view of the Gaussian mechanism with index ψ at δ ([SI] §7).

    >>> v = views(1.0, delta=1e-5)
    >>> round(v.epsilon, 4), round(v.rdp_standard.epsilon, 4), round(v.auc, 4)
    (4.3772, 5.2985, 0.7602)
    """
    p = float(check_psi(check_scalar_positive("psi", psi)))
    d = float(check_delta(delta))
    sens = check_scalar_positive("sensitivity", sensitivity)
    ords = np.atleast_1d(np.asarray(orders, dtype=float)).ravel()
    rhos = np.atleast_1d(rdp_curve(p, ords)) if ords.size else np.array([])
    mech = Gaussian(mu=p)
    cl = classical_epsilon(p, d)
    return GaussianViews(
        psi=p,
        source=source,
        sensitivity=sens,
        delta=d,
        epsilon=float(profile_epsilon(p, d)),
        epsilon_classical=float(cl.epsilon),
        epsilon_classical_valid=bool(cl.valid),
        epsilon_classical_holds=bool(_log_delta(p, float(cl.epsilon)) <= math.log(d)),
        rdp_standard=rdp_epsilon(p, d, Conversion.STANDARD, alpha_max=alpha_max),
        rdp_asoodeh=rdp_epsilon(p, d, Conversion.ASOODEH, alpha_max=alpha_max),
        rdp_balle=rdp_epsilon(p, d, Conversion.BALLE, alpha_max=alpha_max),
        rdp_orders=tuple((float(a), float(r)) for a, r in zip(ords, rhos)),
        alpha_max=float(alpha_max),
        auc=float(mech.auc),
        advantage=float(mech.advantage),
        fixed_point=float(mech.fixed_point),
        minimax_bayes_error=float(mech.minimax_bayes_error),
        epsilon_target=epsilon_target,
    )
