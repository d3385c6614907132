"""The least informative pair consistent with a privacy-profile *bound*, with no dp-accounting involved.

:func:`profile_bound_pair` — δ(εᵢ) ≤ δᵢ at finitely many points (used for RDP/zCDP bounds, which give
only such a bound): the upper envelope of the trade-off lines each point implies. (The *lower*
envelope of several pairs, f = conv(min fᵢ), is :func:`dpcompare.tradeoff.lower_envelope`.)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..tradeoff import DiscretePair, Rounding


# ---------------------------------------------------------------------------------------------- profile bound
def profile_bound_pair(eps: Sequence[float], delta: Sequence[float]) -> DiscretePair:
    """The pessimistic pair of a profile bound: δ(εᵢ) ≤ δᵢ for each i (εᵢ ≥ 0, δᵢ ∈ [0, 1]).

    Each point gives f(α) ≥ f_{εᵢ,δᵢ}(α) = max(0, 1 − δᵢ − e^{εᵢ}α, e^{−εᵢ}(1 − δᵢ − α)) for the symmetric
    trade-off f (Dong, Roth & Su, "Gaussian differential privacy", 2022, Prop 2.5 and Prop 2.12: a
    symmetric f is (ε, δ(ε))-DP for all ε iff it lies above every f_{ε,δ(ε)}), so f is above the upper
    envelope g = max_i f_{εᵢ,δᵢ}, a convex piecewise-linear trade-off function. The returned pair is g's
    (segment k → atom pₖ = Δαₖ, qₖ = −Δβₖ, ℓₖ = log(−slopeₖ)); it is at least as
    informative as the truth, so every view computed from it errs towards less privacy.

    >>> pair = profile_bound_pair([0.0, 1.0], [0.5, 0.1])
    >>> bool(pair.delta(1.0) <= 0.1 + 1e-12 and pair.delta(0.0) <= 0.5 + 1e-12)
    True
    """
    e = np.asarray(eps, dtype=float).ravel()
    d = np.asarray(delta, dtype=float).ravel()
    if e.size == 0 or e.size != d.size:
        raise ValueError("eps and delta must be non-empty and of the same length")
    if np.any(~np.isfinite(e)) or np.any(e < 0):
        raise ValueError("eps must be finite and >= 0")
    if np.any(~(d >= 0)) or np.any(d > 1):
        raise ValueError("delta must be in [0, 1]")
    # lines β = a + s·α: slope −e^ε with intercept 1 − δ, slope −e^{−ε} with intercept e^{−ε}(1 − δ), and β = 0
    slope = np.concatenate([-np.exp(e), -np.exp(-e), [0.0]])
    inter = np.concatenate([1.0 - d, np.exp(-e) * (1.0 - d), [0.0]])
    alpha, beta = _upper_envelope(slope, inter)
    return DiscretePair.from_vertices(alpha, beta, rounding=Rounding.PESSIMISTIC)


def _upper_envelope(slope: np.ndarray, inter: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (α, β) on [0, 1] of max_k (inter_k + slope_k·α), a convex piecewise-linear function."""
    order = np.lexsort((-inter, slope))  # slope ascending; for equal slopes the highest line first
    hull: list[int] = []
    for k in order:
        if hull and slope[hull[-1]] == slope[k]:
            continue  # same slope, lower (or equal) intercept: never on the upper envelope
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            # j is useless if i and k cross at or before where i and j cross (convex-hull trick)
            x_ij = (inter[i] - inter[j]) / (slope[j] - slope[i])
            x_ik = (inter[i] - inter[k]) / (slope[k] - slope[i])
            if x_ik <= x_ij:
                hull.pop()
            else:
                break
        hull.append(int(k))
    # hull lines in slope order: the steepest is active at α → −∞; walk α from 0 to 1
    xs = [(inter[hull[t]] - inter[hull[t + 1]]) / (slope[hull[t + 1]] - slope[hull[t]]) for t in range(len(hull) - 1)]
    alpha = [0.0]
    for x in xs:
        if 0.0 < x < 1.0:
            alpha.append(float(x))
    alpha.append(1.0)
    a = np.array(alpha)
    b = np.max(inter[:, None] + slope[:, None] * a[None, :], axis=0)
    b = np.clip(b, 0.0, 1.0)
    return a, b
