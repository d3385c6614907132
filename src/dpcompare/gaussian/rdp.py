"""Rényi DP of the Gaussian mechanism and the three RDP → (ε, δ) conversions of [SI] §6.

- RDP curve ([SI] Lemma 7, Cor 10; Mironov 2017 Prop. 7): ρ(α) = α·ψ²/2 for every order α > 1.
- Standard conversion (Cor 11, eq 6.1; Mironov 2017 Prop. 3)::

      ε = ρ + log(1/δ)/(α − 1)

- Improved conversion (B) (Cor 13, eq 6.6; Balle et al. 2020, Thm 21)::

      ε = ρ + log((α − 1)/α) − (log δ + log α)/(α − 1)

- Improved conversion (A) (Cor 12, eq 6.2–6.5; Asoodeh et al. 2021), with ζ_α = (1/α)(1 − 1/α)^{α−1}::

      ε = ρ + log(1 − δ)                                              if α·δ ≥ 1     (eq 6.2 / 6.4)
      ε = (1/(α−1))·min{ (α−1)ρ − log(δ/ζ_α),
                          log(1 + (e^{(α−1)ρ} − 1)/(α·δ)) }          if 0 < α·δ < 1 (eq 6.3 / 6.5)

  The seed prints the condition "α·δ ≥ 1" under *both* eq 6.4 and eq 6.5 (a PDF-conversion error).
  We derived the cases from the RDP definition (Def 4) instead: by data processing, any pair with
  D_α(P‖Q) ≤ ρ has, for every event A, a binary pair (P(A), Q(A)) = (p, q) with
  p^α q^{1−α} + (1−p)^α (1−q)^{1−α} ≤ e^{(α−1)ρ}; so the *optimal* conversion is
  δ*(ε) = sup{p − e^ε q : that constraint}. The pair p = 1, q = e^{−ρ} satisfies it with equality and
  gives p − e^ε q = δ at ε = ρ + log(1 − δ): no valid conversion can go below ρ + log(1 − δ). The tests
  solve the binary problem numerically and find (i) for α·δ ≥ 1, ε*(δ) = ρ + log(1 − δ) exactly (eq 6.2
  is the optimal conversion there); (ii) for α·δ < 1, ρ + log(1 − δ) < ε*(δ) — eq 6.2 would
  *understate* ε, so the condition matters — while the min of eq 6.3 is ≥ ε*(δ) (valid). So eq 6.4
  holds for α·δ ≥ 1 and eq 6.5 for 0 < α·δ < 1, as in Asoodeh et al. The first entry of the min is
  exactly conversion (B) (log ζ_α = −log α + (α−1)·log(1 − 1/α)), hence A ≤ B for every α.

All three return a valid ε for every α > 1 and δ ∈ (0, 1); a formula value below 0 is reported as 0
(an (ε′, δ) guarantee with ε′ < 0 implies (0, δ), since e^{ε′} ≤ 1) — this is the only clipping.

Optimising α over (1, α_max] (α_max = 64 as in Figure 6): the standard conversion in closed form,
α* = 1 + √(2·log(1/δ))/ψ (clipped to α_max; the objective is convex), ε* = ψ²/2 + ψ·√(2·log(1/δ));
the others on a 600-point grid in log(α − 1) refined by bounded Brent between the grid neighbours of
the best point. A user grid of orders is searched exactly (no refinement).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._summary import summarized
from ._psi_checks import check_alpha, check_delta, check_psi, check_scalar_positive, scalar_or_array

__all__ = [
    "Conversion",
    "RDPEpsilon",
    "asoodeh_epsilon",
    "balle_epsilon",
    "conversion_epsilon",
    "rdp",
    "rdp_epsilon",
    "standard_epsilon",
]

DEFAULT_ALPHA_MAX = 64.0


class Conversion(enum.Enum):
    """The RDP → (ε, δ) conversions of [SI] §6."""

    STANDARD = "standard"  #: Mironov 2017 (Cor 11)
    ASOODEH = "asoodeh"  #: improved (A), Asoodeh et al. 2021 (Cor 12)
    BALLE = "balle"  #: improved (B), Balle et al. 2020 (Cor 13)

    @property
    def citation(self) -> str:
        return {
            Conversion.STANDARD: "Cor 11 (Mironov 2017)",
            Conversion.ASOODEH: "Cor 12, improved A (Asoodeh et al. 2021)",
            Conversion.BALLE: "Cor 13, improved B (Balle et al. 2020)",
        }[self]


def _conversion(value: Any) -> Conversion:
    if isinstance(value, Conversion):
        return value
    try:
        return Conversion(value)
    except ValueError:
        allowed = ", ".join(c.value for c in Conversion)
        raise ValueError(f"conversion must be one of {allowed}, got {value!r}") from None


def rdp(psi: Any, alpha: Any) -> float | np.ndarray:
    """RDP of the Gaussian mechanism: ρ(α) = α·ψ²/2 ([SI] Lemma 7), α > 1; arrays broadcast.

    Both directions D_α(P‖Q) and D_α(Q‖P) equal α·ψ²/2 (Cor 10 with equal variances).

    >>> rdp(1.0, 2.0)
    1.0
    """
    p = check_psi(psi)
    a = check_alpha(alpha)
    return scalar_or_array(0.5 * a * p * p)


def _check_rho(rho: Any) -> np.ndarray:
    arr = np.asarray(rho, dtype=float)
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if np.any(bad):
        raise ValueError(f"rho must be a finite number >= 0, got {float(arr[bad].flat[0]):g}")
    return arr


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """log(e^x − 1) for x ≥ 0, without overflow: x + log(1 − e^{−x}) above x = 30."""
    x = np.asarray(x, dtype=float)
    big = x > 30.0
    with np.errstate(divide="ignore"):
        small_part = np.log(np.expm1(np.where(big, 1.0, x)))
    big_part = x + np.log1p(-np.exp(-np.where(big, x, 30.0)))
    return np.where(big, big_part, small_part)


def standard_epsilon(alpha: Any, rho: Any, delta: Any) -> float | np.ndarray:
    """Standard RDP conversion ([SI] Cor 11, eq 6.1): ε = ρ + log(1/δ)/(α − 1), floored at 0.

    >>> round(standard_epsilon(2.0, 1.0, 1e-5), 6)   # ψ = 1, α = 2
    12.512925
    """
    a, r, d = check_alpha(alpha), _check_rho(rho), check_delta(delta)
    return scalar_or_array(np.maximum(_standard(a, r, d), 0.0))


def _standard(a: np.ndarray, r: np.ndarray, d: np.ndarray) -> np.ndarray:
    return r - np.log(d) / (a - 1.0)


def balle_epsilon(alpha: Any, rho: Any, delta: Any) -> float | np.ndarray:
    """Improved conversion (B) ([SI] Cor 13, eq 6.6; Balle et al. 2020), floored at 0.

    ε = ρ + log((α − 1)/α) − (log δ + log α)/(α − 1).

    >>> round(balle_epsilon(2.0, 1.0, 1e-5), 6)
    11.126631
    """
    a, r, d = check_alpha(alpha), _check_rho(rho), check_delta(delta)
    return scalar_or_array(np.maximum(_balle(a, r, d), 0.0))


def _balle(a: np.ndarray, r: np.ndarray, d: np.ndarray) -> np.ndarray:
    return r + np.log1p(-1.0 / a) - (np.log(d) + np.log(a)) / (a - 1.0)


def asoodeh_epsilon(alpha: Any, rho: Any, delta: Any) -> float | np.ndarray:
    """Improved conversion (A) ([SI] Cor 12, eq 6.2–6.5 with derived case conditions), floored at 0.

    ε = ρ + log(1 − δ) if α·δ ≥ 1, else (1/(α−1))·min{(α−1)ρ − log(δ/ζ_α), log(1 + (e^{(α−1)ρ} − 1)/(αδ))},
    ζ_α = (1/α)(1 − 1/α)^{α−1}. See the module docstring for the derivation of the cases.

    >>> round(asoodeh_epsilon(6.0, 0.03, 1e-5), 6)   # ψ = 0.1, α = 6: the second entry wins
    1.580071
    >>> round(balle_epsilon(6.0, 0.03, 1e-5), 6)
    1.791912
    >>> round(asoodeh_epsilon(4.0, 1.0, 0.3), 6)   # α·δ ≥ 1: ρ + log(1 − δ)
    0.643325
    """
    a, r, d = check_alpha(alpha), _check_rho(rho), check_delta(delta)
    return scalar_or_array(np.maximum(_asoodeh(a, r, d), 0.0))


def _asoodeh(a: np.ndarray, r: np.ndarray, d: np.ndarray) -> np.ndarray:
    a, r, d = np.broadcast_arrays(a, r, d)
    log_ad = np.log(a) + np.log(d)
    # first entry of the min: (α−1)ρ − log(δ/ζ_α) = (α−1)·ε_B, so divide-free: ε_B itself (A ≤ B exactly)
    first = _balle(a, r, d)
    with np.errstate(divide="ignore"):
        second = np.logaddexp(_log_expm1((a - 1.0) * r) - log_ad, 0.0) / (a - 1.0)
    small = np.minimum(first, second)
    big = r + np.log1p(-d)
    return np.where(log_ad >= 0.0, big, small)


_FORMULAS = {Conversion.STANDARD: _standard, Conversion.ASOODEH: _asoodeh, Conversion.BALLE: _balle}


def conversion_epsilon(conversion: Conversion | str, alpha: Any, rho: Any, delta: Any) -> float | np.ndarray:
    """ε of one RDP point (α, ρ) at δ by the named conversion ([SI] Cor 11–13), floored at 0.

    Works for any mechanism's RDP curve, not only the Gaussian's.

    >>> round(conversion_epsilon("balle", 2.0, 1.0, 1e-5), 6)
    11.126631
    """
    c = _conversion(conversion)
    a, r, d = check_alpha(alpha), _check_rho(rho), check_delta(delta)
    return scalar_or_array(np.maximum(_FORMULAS[c](a, r, d), 0.0))


@summarized("ε from Rényi DP at its best order")
@dataclass(frozen=True)
class RDPEpsilon:
    """ε at δ from the Gaussian's RDP curve by one conversion, at the best order α (ρ = α·ψ²/2)."""

    epsilon: float
    alpha: float
    rho: float
    delta: float
    conversion: Conversion

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "alpha": self.alpha, "rho": self.rho, "delta": self.delta,
                "conversion": self.conversion.value}


def _best_on_grid(fn, alphas: np.ndarray) -> tuple[float, float]:
    vals = fn(alphas)
    k = int(np.argmin(vals))
    return float(alphas[k]), float(vals[k])


def _optimise(fn, alpha_max: float) -> tuple[float, float]:
    """min over α ∈ (1, α_max] of the vectorised objective fn: grid in log(α−1), then bounded Brent."""
    grid = 1.0 + np.geomspace(1e-9, alpha_max - 1.0, 600)
    grid[-1] = alpha_max
    a_best, v_best = _best_on_grid(fn, grid)
    k = int(np.searchsorted(grid, a_best))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    if hi > lo:
        from scipy import optimize  # ~0.15 s to import: only where an RDP optimum is refined

        res = optimize.minimize_scalar(lambda a: float(fn(np.array([a]))[0]), bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-12 * hi})
        if res.fun < v_best:
            a_best, v_best = float(res.x), float(res.fun)
    return a_best, v_best


def rdp_epsilon(
    psi: Any,
    delta: Any,
    conversion: Conversion | str = Conversion.STANDARD,
    *,
    alpha: Any = None,
    alpha_max: float = DEFAULT_ALPHA_MAX,
) -> RDPEpsilon:
    """ε at δ of the Gaussian mechanism through its RDP curve ρ(α) = α·ψ²/2 ([SI] §6, Figure 6).

    ``alpha``: ``None`` optimises over α ∈ (1, ``alpha_max``] (default 64, as in Figure 6); a number
    uses that order; an array searches those orders. Returns the best ε, its α and ρ(α).
    Each conversion is a valid but lossy bound: ε ≥ :func:`dpcompare.gaussian.epsilon` (ψ, δ).

    >>> r = rdp_epsilon(1.0, 1e-5, "standard")
    >>> round(r.epsilon, 6), round(r.alpha, 6)     # ψ²/2 + ψ√(2 log 1e5), α* = 1 + √(2 log 1e5)
    (5.298526, 5.798526)
    >>> r = rdp_epsilon(1.0, 1e-5, "asoodeh", alpha=[2, 4, 8])
    >>> r.alpha
    4.0
    """
    c = _conversion(conversion)
    p = float(check_psi(psi)) if np.ndim(psi) == 0 else _scalar_only("psi")
    d = float(check_delta(delta)) if np.ndim(delta) == 0 else _scalar_only("delta")
    formula = _FORMULAS[c]

    def fn(a: np.ndarray) -> np.ndarray:
        return np.maximum(formula(a, 0.5 * a * p * p, d), 0.0)

    if alpha is None:
        amax = check_scalar_positive("alpha_max", alpha_max)
        if amax <= 1.0:
            raise ValueError(f"alpha_max must be > 1, got {amax:g}")
        if c is Conversion.STANDARD:
            # α* − 1 below 1e-12 (ψ > 1e12) is not representable next to 1: use 1 + 1e-12 (still valid)
            a_best = min(amax, 1.0 + max(math.sqrt(-2.0 * math.log(d)) / p, 1e-12))
            v_best = float(fn(np.array([a_best]))[0])
        else:
            a_best, v_best = _optimise(fn, amax)
    else:
        grid = np.atleast_1d(check_alpha(alpha)).ravel()
        if grid.size == 0:
            raise ValueError("alpha must hold at least one order > 1, got an empty array")
        a_best, v_best = _best_on_grid(fn, grid)
    return RDPEpsilon(epsilon=v_best, alpha=a_best, rho=0.5 * a_best * p * p, delta=d, conversion=c)


def _scalar_only(name: str):
    raise ValueError(f"{name} must be a single number for rdp_epsilon (loop over arrays), got an array")
