"""A mechanism built from Bayes-error values: [BCP] eq 4, f(α) = max_{0 ≤ π < 1} (R(π) − π·α)/(1 − π).

Eq 4 reconstructs the trade-off function from the Bayes error function ([BCP] §2: R_min is a lossless
representation). Given finitely many values Rₖ = R(πₖ), each prior gives a line

    ℓₖ(α) = (Rₖ − πₖ·α)/(1 − πₖ),

and R(πₖ) ≤ πₖα + (1 − πₖ)f(α) for every α (eq 2) says exactly f ≥ ℓₖ. So

    f̂(α) = max(0, maxₖ ℓₖ(α))

is the *smallest* trade-off function whose Bayes errors are at least Rₖ at every πₖ: the least private
mechanism consistent with the values. If the Rₖ are the Bayes errors of a mechanism M (or certified
lower bounds on them), f̂ ≤ f_M everywhere — a valid, pessimistic description of M — and f̂ = f_M when
the prior of every vertex of a piecewise-linear f_M is among the πₖ (the line of prior π has slope
−π/(1 − π), so it touches f_M along the segment of slope −e^λ when π = 1/(1 + e^{−λ}), and at a
vertex for every π between its two segments' priors). With ``symmetric=True`` (the paper's
convention, R(π) = R(1 − π)) each value is also used at 1 − πₖ.

f̂ is piecewise linear and convex, so it is a discrete pair (segment k has pₖ = Δαₖ,
qₖ = −Δβₖ): :func:`mechanism_from_bayes_errors` returns it as an exact ``FromPair``.

Input checks: priors in (0, 1), values in [0, min(π, 1 − π)] (every Bayes error is; eq 2 at α ∈ {0, 1}).
Values that are not concave in π are allowed: f̂ is still the smallest trade-off function above them,
and its own Bayes error is then the concave envelope's (≥ the values).

>>> c = tradeoff_from_bayes_errors([0.25, 0.5], [0.25, 0.25])   # randomized response ε = log 3
>>> c.alpha.tolist(), c.beta.tolist()
([0.0, 0.25, 1.0], [1.0, 0.25, 0.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BayesConstruction", "mechanism_from_bayes_errors", "tradeoff_from_bayes_errors"]

_TOL = 1e-12


@dataclass(frozen=True)
class BayesConstruction:
    """The lines of eq 4 (one per prior) and the vertices (α, β) of their upper envelope f̂."""

    priors: np.ndarray
    complements: np.ndarray  # 1 − πₖ, exact for mirrored priors
    values: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray

    def line(self, k: int, alpha: Any) -> np.ndarray:
        """ℓₖ(α) = (Rₖ − πₖα)/(1 − πₖ)."""
        p, r = self.priors[k], self.values[k]
        return (r - p * np.asarray(alpha, dtype=float)) / self.complements[k]

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """f̂(α) = max(0, maxₖ ℓₖ(α)) (eq 4 over the given priors)."""
        a = np.asarray(alpha, dtype=float)
        lines = (self.values[:, None] - self.priors[:, None] * a.ravel()[None, :]) / self.complements[:, None]
        return np.maximum(0.0, lines.max(axis=0)).reshape(a.shape)

    def to_dict(self) -> dict[str, Any]:
        return {"priors": self.priors.tolist(), "bayes_errors": self.values.tolist(),
                "vertices": {"alpha": self.alpha.tolist(), "beta": self.beta.tolist()}}


def _check(priors: Any, values: Any, symmetric: bool) -> tuple[np.ndarray, np.ndarray]:
    p = np.atleast_1d(np.asarray(priors, dtype=float)).ravel()
    r = np.atleast_1d(np.asarray(values, dtype=float)).ravel()
    if p.size == 0 or p.size != r.size:
        raise ValueError(f"priors and bayes_errors must have the same, non-zero length, got {p.size} and {r.size}")
    if not np.all(np.isfinite(p)) or np.any(p <= 0) or np.any(p >= 1):
        raise ValueError(f"priors must be in (0, 1), got {p[~((p > 0) & (p < 1))][:1].tolist() or p.tolist()}")
    cap = np.minimum(p, 1 - p)
    bad = ~np.isfinite(r) | (r < 0) | (r > cap + _TOL)
    if np.any(bad):
        k = int(np.argmax(bad))
        raise ValueError(f"bayes_errors must be in [0, min(π, 1 − π)]; at π = {p[k]:g} got {r[k]:g} "
                         f"(allowed [0, {cap[k]:g}])")
    r = np.minimum(r, cap)
    q = 1 - p
    if symmetric:  # mirrored priors keep their complement exactly (1 − (1 − π) ≠ π in floating point)
        p, q, r = np.concatenate([p, q]), np.concatenate([q, p]), np.concatenate([r, r])
    return p, q, r


def tradeoff_from_bayes_errors(priors: Any, values: Any, *, symmetric: bool = True) -> BayesConstruction:
    """The vertices of f̂ = max(0, maxₖ (Rₖ − πₖα)/(1 − πₖ)) on [0, 1] ([BCP] eq 4; module docstring).

    The envelope is built by the monotone hull of the lines sorted by slope −πₖ/(1 − πₖ); its vertices
    are evaluated with the max over all lines (so a rounding in the hull cannot move f̂).
    """
    p, q, r = _check(priors, values, symmetric)
    a = np.concatenate([r / q, [0.0]])  # intercepts; the zero line is π = 0 (R(0) = 0)
    s = np.concatenate([-p / q, [0.0]])  # slopes
    order = np.lexsort((a, s))  # by slope, then intercept
    hull: list[int] = []
    for k in order:
        if hull and s[hull[-1]] == s[k]:
            hull.pop()  # same slope: the later one (larger intercept) wins
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            # j is unnecessary if k overtakes i no later than j does
            if (a[k] - a[i]) * (s[j] - s[i]) >= (a[j] - a[i]) * (s[k] - s[i]):
                hull.pop()
            else:
                break
        hull.append(int(k))
    xs = [(a[hull[t]] - a[hull[t + 1]]) / (s[hull[t + 1]] - s[hull[t]]) for t in range(len(hull) - 1)]
    alpha = np.unique(np.concatenate([[0.0, 1.0], np.clip([x for x in xs if 0 < x < 1], 0, 1)]))
    lines = a[:, None] + s[:, None] * alpha[None, :]
    beta = np.maximum(0.0, lines.max(axis=0))
    beta[-1] = 0.0  # f̂(1) = max(0, maxₖ (Rₖ − πₖ)/(1 − πₖ)) = 0 since Rₖ ≤ πₖ
    keep = np.ones(alpha.size, dtype=bool)  # drop vertices that lie on a straight segment
    for t in range(1, alpha.size - 1):
        left = (beta[t] - beta[t - 1]) / (alpha[t] - alpha[t - 1])
        right = (beta[t + 1] - beta[t]) / (alpha[t + 1] - alpha[t])
        keep[t] = abs(left - right) > 1e-12 * max(1.0, abs(left))
    return BayesConstruction(p, q, r, alpha[keep], beta[keep])


def mechanism_from_bayes_errors(priors: Any, values: Any, *, symmetric: bool = True, name: str = "from-bayes"):
    """The mechanism whose trade-off function is f̂ of :func:`tradeoff_from_bayes_errors`, as an exact
    discrete pair (``FromPair``), and the construction itself.

    >>> m, c = mechanism_from_bayes_errors([0.25, 0.5], [0.25, 0.25])
    >>> round(float(m.epsilon(0.0)), 6)   # randomized response: ε = log 3
    1.098612
    """
    from ..mechanisms import FromPair
    from ..tradeoff import DiscretePair

    c = tradeoff_from_bayes_errors(priors, values, symmetric=symmetric)
    pair = DiscretePair.from_vertices(c.alpha, c.beta)  # convex, non-increasing, ≤ 1 − α by construction
    return FromPair(pessimistic=pair, name=name), c
