"""The tightest μ-GDP bound of a mechanism (Dong et al. 2022, Def 2.6).

f ≥ G_μ with G_μ(α) = Φ(Φ⁻¹(1−α) − μ) holds iff μ ≥ Φ⁻¹(1−α) − Φ⁻¹(f(α)) for every α, so the
tightest μ is μ* = sup_α [−Φ⁻¹(α) − Φ⁻¹(f(α))]. It is infinite when f(0) < 1 (mass at ℓ = +∞).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import optimize

from .._numerics import ndtri

if TYPE_CHECKING:
    from .base import Mechanism


def tightest_gdp_mu(mech: "Mechanism") -> float | None:
    """μ* = sup_α [−Φ⁻¹(α) − Φ⁻¹(f(α))] on the pessimistic f; None when no finite μ exists.

    The supremum is searched on a log-spaced grid α ∈ [1e-12, 1 − 1e-12] and refined with a bounded
    scalar search around the best grid point; f_sym is symmetric, so the grid covers both tails.
    """
    f0 = float(mech._tradeoff_bounds(np.asarray(0.0))[0])
    if f0 < 1.0:
        return None
    alpha = np.unique(np.concatenate([np.logspace(-12, np.log10(0.5), 600), 1 - np.logspace(-12, np.log10(0.5), 600)]))

    def gap(a: np.ndarray) -> np.ndarray:
        f = mech._tradeoff_bounds(np.asarray(a))[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return -ndtri(a) - ndtri(np.clip(f, 0.0, 1.0))

    g = gap(alpha)
    g = np.where(np.isfinite(g), g, -np.inf)
    k = int(np.argmax(g))
    lo = np.log(alpha[max(k - 1, 0)])
    hi = np.log(alpha[min(k + 1, alpha.size - 1)])
    if hi > lo:
        res = optimize.minimize_scalar(lambda t: -float(gap(np.exp(t))), bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-12})
        best = max(float(g[k]), -float(res.fun))
    else:
        best = float(g[k])
    return max(best, 0.0) if np.isfinite(best) else None
