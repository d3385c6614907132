"""A mechanism from oracle access to its trade-off function: certified discrete pairs from samples.

[BCP] §3.2 and App. B.3 compute the Δ-divergence from nothing but a Python function f(α)
implementing a trade-off function. ``TradeoffOracle`` accepts the same input and turns it into a
pessimistic and an optimistic discrete pair (certified numerics: tradeoff/bracket.py), so that every
downstream computation (Δ, dominance, profiles) is exact on the pairs and the truth is bracketed.

The argument (f convex and non-increasing on [0, 1], sampled exactly at 0 = α₀ < α₁ < … < α_N = 1,
values βₖ = f(αₖ), secant slopes sₖ = (βₖ₊₁ − βₖ)/(αₖ₊₁ − αₖ), non-decreasing in k):

1. **Upper bound (optimistic pair).** On [αₖ, αₖ₊₁] a convex f lies below its chord, so the
   piecewise-linear interpolant C through the samples satisfies C ≥ f. C is itself a convex
   trade-off curve; segment k is an atom with p = Δαₖ, q = −Δβₖ, ℓ = log(−sₖ).
   A larger f means less information: R and f of this pair are ≥ the truth, δ ≤ the truth.
2. **Lower bound (pessimistic pair).** Outside [αⱼ, αⱼ₊₁] a convex f lies *above* the extension
   of the secant j (the slope of a convex function only increases). On interval k the best such
   bound comes from the neighbouring secants, so
       f(α) ≥ L(α) := max(βₖ + sₖ₋₁(α − αₖ), βₖ₊₁ + sₖ₊₁(α − αₖ₊₁)),  α ∈ [αₖ, αₖ₊₁],
   with the conventions s₋₁ = −∞ (nothing is known left of α = 0: f may drop steeply there) and
   s_N = 0 (f ≥ 0 = f(1) to the right). L equals f at the nodes and has one kink per interval, at
       αₖ + tₖ,  tₖ = hₖ (sₖ₊₁ − sₖ)/(sₖ₊₁ − sₖ₋₁),  hₖ = αₖ₊₁ − αₖ,
   where the vertical gap to the chord is  gₖ = hₖ (sₖ − sₖ₋₁)(sₖ₊₁ − sₖ)/(sₖ₊₁ − sₖ₋₁).
   L is not convex (it has concave kinks at the nodes), so it is not yet a trade-off function; its
   lower convex envelope conv(L) ≤ L ≤ f is, because a convex function that lies above L lies above
   conv(L). conv(L) is the lower convex hull of L's vertices (the kinks, the nodes, and the point
   (0, L(0⁺)) where L(0⁺) = β₁ − s₁α₁; a drop below f(0) there becomes Q-mass at ℓ = +∞).
3. **The bracket.** C − conv(L) ≤ maxₖ gₖ in sup norm, and since R(π) = min_α πα + (1−π)f(α)
   ([BCP] eq 2) the Bayes errors, hence each Δ ([BCP] Cor 1), differ by at most as much.
   The symmetrisation f ↦ conv(min(f, f⁻¹)) is monotone in f, so the bracket survives it; it is
   the one envelope every mechanism uses (:func:`dpcompare.tradeoff.envelope.symmetrize`). Its R bracket
   is still at most maxₖ gₖ wide (R_sym(π) = min(R(π), R(1−π))); its f bracket can be wider (a
   horizontal gap of f is a vertical gap of f⁻¹), and ``max_gap`` reports that sup-norm width.
4. **Sampling.** The grid starts log-spaced towards both ends (where trade-off functions bend
   most: f′(0⁺) = −e^{ℓ_max} can be −∞) plus a uniform part, then spends the rest of the budget in
   rounds that split the intervals with the largest gap, max(gₖ, gₖ/|sₖ|) (vertical, and
   horizontal: the latter is a vertical gap of f⁻¹, hence of f_sym). A piecewise-linear f is
   recovered exactly at its linear pieces, and the gap shrinks quadratically elsewhere.

Validation (tolerance ``tol`` on values): finite values in [0, 1], f(1) = 0, f(α) ≤ 1 − α,
non-increasing, convex (no sample more than ``tol`` above the lower convex hull of all samples).
Samples within the tolerance are repaired (clipped to [0, 1 − α], f(1) := 0, the lower convex
hull taken), which moves the curves by at most ``tol``. The bracket is certified for the function
as evaluated: if f itself carries floating-point error e, the bracket holds up to e.

Resolution limit: the tail of the privacy profile (δ at large ε) lives in 1 − f(α) for tiny α,
which a double f(α) ≈ 1 resolves only to ~1e-16. The pessimistic pair therefore keeps Q-mass
1 − L(0⁺) at ℓ = +∞ (about 1e-16 for G₁, 6e-11 for G₃ at the default budget), and δ_hi never
falls below it: ``epsilon(delta)`` is ``inf`` for smaller ``delta``. Use a closed-form or
PLD-backed mechanism where such δ matter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np

from .._limits import check_memory
from .._validation import check_in_interval, check_integer
from ..tradeoff import DiscretePair, Rounding
from .pair_backed import PairMechanism

#: Budget split: the initial grid uses this fraction of ``points``, the rest goes to refinement.
_INITIAL_FRACTION = 0.5
#: working memory per sampled point (measured 158: docs/edges.md)
ORACLE_BYTES_PER_POINT = 200
#: Number of refinement rounds (one call of f per round when f is vectorised).
_ROUNDS = 8
#: Smallest log-spaced α near 0 and 1 − α near 1 of the initial grid.
_LOG_MIN_LEFT = -20.0
_LOG_MIN_RIGHT = -15.0


# ---------------------------------------------------------------------- evaluation and validation
def _evaluate(f: Callable[..., Any], alpha: np.ndarray) -> np.ndarray:
    """f at every α: one vectorised call if f accepts arrays, else one scalar call per α."""
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(f(alpha.copy()), dtype=float)
        if out.shape == alpha.shape:
            return out
    except Exception:  # noqa: BLE001 - a scalar-only f fails on arrays in arbitrary ways
        pass
    vals = np.empty(alpha.size)
    for i, a in enumerate(alpha):
        try:
            with np.errstate(all="ignore"):
                v = np.asarray(f(float(a)), dtype=float)
        except Exception as exc:
            raise ValueError(f"f raised {type(exc).__name__} at alpha={float(a)!r}: {exc}") from exc
        if v.size != 1:
            raise ValueError(f"f must return one number per alpha; f({float(a)!r}) has shape {v.shape}")
        vals[i] = float(v.reshape(()))
    return vals


def _check_values(alpha: np.ndarray, beta: np.ndarray, tol: float) -> None:
    """Pointwise checks: finite, in [0, 1], f(α) ≤ 1 − α, f(1) = 0 (all within tol)."""
    bad = ~np.isfinite(beta)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"f must return finite values, got f({alpha[i]:.6g}) = {beta[i]!r}")
    out = (beta < -tol) | (beta > 1.0 + tol)
    if np.any(out):
        i = int(np.argmax(out))
        raise ValueError(f"f must take values in [0, 1], got f({alpha[i]:.6g}) = {beta[i]:.6g}")
    at_one = alpha == 1.0
    if np.any(at_one) and abs(float(beta[at_one][0])) > tol:
        raise ValueError(f"a trade-off function has f(1) = 0, got f(1) = {float(beta[at_one][0]):.6g}")
    above = beta - (1.0 - alpha)
    if np.any(above > tol):
        i = int(np.argmax(above))
        raise ValueError(
            f"a trade-off function satisfies f(α) ≤ 1 − α, got f({alpha[i]:.6g}) = {beta[i]:.6g} > {1 - alpha[i]:.6g}"
        )


def _check_shape(alpha: np.ndarray, beta: np.ndarray, tol: float) -> None:
    """Global checks on sorted samples: non-increasing and convex (within tol)."""
    running_min = np.minimum.accumulate(beta)
    rise = beta[1:] - running_min[:-1]
    if rise.size and np.max(rise) > tol:
        j = int(np.argmax(rise)) + 1
        i = int(np.argmax(beta[:j] == running_min[j - 1]))
        raise ValueError(
            f"f must be non-increasing, but f({alpha[i]:.6g}) = {beta[i]:.6g} < f({alpha[j]:.6g}) = {beta[j]:.6g}"
        )
    ha, hb = _lower_hull(alpha, beta)
    excess = beta - np.interp(alpha, ha, hb)
    if np.max(excess) > tol:
        i = int(np.argmax(excess))
        hint = ""
        if min(alpha[i], 1.0 - alpha[i]) < 1e-12:
            hint = (
                "; so close to α = 0 or 1 this usually means f loses precision (e.g. it evaluates 1 − α):"
                " use tail-accurate forms such as norm.cdf(norm.isf(α) − μ)"
            )
        raise ValueError(
            f"f must be convex, but f({alpha[i]:.6g}) = {beta[i]:.6g} lies {excess[i]:.3g} above the "
            f"chord of its neighbours (tolerance {tol:g}){hint}"
        )


# ---------------------------------------------------------------------- geometry
def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points sorted by x (equal x: keep the lowest y).

    Vectorised pruning: a point strictly above the chord of its current neighbours is not a hull
    vertex, and all such points can be dropped at once; repeat until none is left.
    """
    if x.size > 1:
        # collapse equal x to the lowest y
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
        first = np.concatenate([[True], np.diff(x) > 0])
        x, y = x[first], y[first]
    while x.size > 2:
        dx0, dx1 = x[1:-1] - x[:-2], x[2:] - x[1:-1]
        dy0, dy1 = y[1:-1] - y[:-2], y[2:] - y[1:-1]
        above = dy0 * dx1 > dy1 * dx0  # slope before > slope after: point k is above the chord
        if not np.any(above):
            break
        keep = np.concatenate([[True], ~above, [True]])
        x, y = x[keep], y[keep]
    return x, y


def _slopes_extended(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Secant slopes s₋₁ = −∞, s₀ … s_{N−1}, s_N = 0 (index shifted by one)."""
    s = np.diff(b) / np.diff(a)
    return np.concatenate([[-np.inf], s, [0.0]])


def _interval_gaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gₖ = hₖ (sₖ − sₖ₋₁)(sₖ₊₁ − sₖ)/(sₖ₊₁ − sₖ₋₁): sup gap between chord and L on interval k."""
    h = np.diff(a)
    s = _slopes_extended(a, b)
    left, mid, right = s[:-2], s[1:-1], s[2:]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(np.isneginf(left), 1.0, (mid - left) / (right - left))
    frac = np.where(np.isfinite(frac), frac, 0.0)
    return np.clip(h * np.clip(right - mid, 0.0, None) * np.clip(frac, 0.0, 1.0), 0.0, None)


def _refinement_score(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max(vertical, horizontal) gap per interval: gₖ · max(1, 1/|sₖ|).

    The vertical gap bounds the R bracket; the horizontal one (gₖ/|sₖ|, the triangle between chord
    and L is widest at the kink's height) becomes a vertical gap of f⁻¹, hence of f_sym near the
    other end, where it bounds the δ bracket at large ε.
    """
    s = np.abs(np.diff(b) / np.diff(a))
    with np.errstate(divide="ignore"):
        stretch = np.where(s > 0, np.maximum(1.0, 1.0 / s), 1.0)
    return _interval_gaps(a, b) * stretch


def _pessimistic_vertices(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of conv(L) (module docstring, step 2) from convex samples a (0 … 1), b (…, 0)."""
    s = _slopes_extended(a, b)  # s[k + 1] = sₖ
    h = np.diff(a)
    n = h.size
    # (0, L(0⁺)) with L(0⁺) = β₁ − s₁ α₁ (s₁ = 0 when there is a single interval)
    start = b[1] - s[2] * h[0] if n >= 1 else b[0]
    # kinks on intervals k = 1 … n−1
    k = np.arange(1, n)
    left, mid, right = s[k], s[k + 1], s[k + 2]
    den = right - left
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(den > 0, (right - mid) / den, 0.0)
    t = h[k] * np.clip(frac, 0.0, 1.0)
    kx = a[k] + t
    ky = b[k] + left * t
    x = np.concatenate([[0.0], a[1:], kx])
    y = np.concatenate([[start], b[1:], ky])
    y = np.clip(y, 0.0, 1.0 - x)
    order = np.argsort(x, kind="stable")
    return _lower_hull(x[order], y[order])


def _initial_grid(n: int) -> np.ndarray:
    """0, 1, log-spaced towards both ends and uniform in between (about n points)."""
    quarter = max(n // 4, 2)
    left = np.logspace(_LOG_MIN_LEFT, math.log10(0.5), quarter)
    right = 1.0 - np.logspace(_LOG_MIN_RIGHT, math.log10(0.5), quarter)
    uniform = np.linspace(0.0, 1.0, max(n - 2 * quarter, 3))
    return np.unique(np.concatenate([[0.0, 1.0], left, right, uniform]))


# ---------------------------------------------------------------------- the mechanism
@dataclass(frozen=True, repr=False, eq=False)
class TradeoffOracle(PairMechanism):
    """A mechanism given by a Python function f(α) implementing its trade-off function.

    The input of [BCP] App. B.3 ("only oracle access to a function implementing the trade-off
    function"). f may be vectorised (called once per batch with a float array) or scalar (called
    once per α). It is sampled on about ``points`` values of α and turned into a certified bracket:
    an optimistic pair (chords, above f) and a pessimistic pair (convex envelope of the neighbouring
    secants' extensions, below f); see the module docstring for the argument. Both are symmetrised
    like every other mechanism, so an asymmetric f is read as f_sym = conv(min(f, f⁻¹)).

    Parameters
    ----------
    f : callable α ↦ f(α) on [0, 1]; compared by identity.
    name : label used in ``spec``.
    points : number of evaluations of f (at least 16).
    tol : tolerance of the validation on values (default 1e-9).

    Raises
    ------
    ValueError naming what is wrong: f not callable, non-finite values, values outside [0, 1],
    f(1) ≠ 0, f(α) > 1 − α, f increasing somewhere, f not convex.

    Example
    -------
    >>> import numpy as np, dpcompare as dc
    >>> from scipy.stats import norm
    >>> g = TradeoffOracle(lambda a: norm.cdf(norm.isf(a) - 1.0))
    >>> lo, hi = g.bayes_error_bounds(0.5)
    >>> bool(lo <= dc.Gaussian(mu=1).bayes_error(0.5) <= hi), g.max_gap < 1e-6
    (True, True)
    """

    f: Callable[..., Any]
    _: KW_ONLY
    name: str = "oracle"
    points: int = 4096
    tol: float = 1e-9
    _alpha: np.ndarray = field(init=False, repr=False)
    _beta: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.f):
            raise ValueError(f"f must be a callable alpha -> f(alpha), got {type(self.f).__name__}")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        # 158 bytes per point measured (docs/edges.md): refused up front, not by numpy gigabytes later
        points = check_memory("points", check_integer("points", self.points, minimum=16), ORACLE_BYTES_PER_POINT)
        tol = check_in_interval("tol", self.tol, 0.0, 1e-3)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "tol", tol)
        alpha, beta = self._sample()
        alpha.setflags(write=False)
        beta.setflags(write=False)
        object.__setattr__(self, "_alpha", alpha)
        object.__setattr__(self, "_beta", beta)

    # -- identity: the callable is compared by identity (two lambdas with equal code differ)
    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.f is other.f and self.points == other.points and self.tol == other.tol  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, id(self.f), self.points, self.tol))

    # -- step 4: sampling
    def _sample(self) -> tuple[np.ndarray, np.ndarray]:
        n0 = max(int(self.points * _INITIAL_FRACTION), 8)
        alpha = _initial_grid(n0)[: self.points]
        if alpha[-1] != 1.0:
            alpha = np.append(alpha[:-1], 1.0)
        beta = _evaluate(self.f, alpha)
        _check_values(alpha, beta, self.tol)
        _check_shape(alpha, beta, self.tol)
        for r in range(_ROUNDS):
            budget = self.points - alpha.size
            if budget <= 0:
                break
            m = int(math.ceil(budget / (_ROUNDS - r)))
            ha, hb = _lower_hull(alpha, self._repair(alpha, beta))
            gaps = _refinement_score(ha, hb)
            order = np.argsort(gaps)[::-1][:m]
            order = order[gaps[order] > 0]
            if order.size == 0:
                break
            # k new points per chosen interval: 1 when the gap is spread out, up to 64 when few
            # intervals carry it (a kink of a piecewise-linear f is then located fast)
            k = int(min(max(m // order.size, 1), 64))
            lo, hi = ha[order][:, None], ha[order + 1][:, None]
            frac = np.arange(1, k + 1)[None, :] / (k + 1)
            # the interval at α = 0 is split geometrically (f may drop steeply at 0)
            mid = np.where(lo == 0.0, hi * 16.0 ** (-(k + 1) * (1.0 - frac)), lo + (hi - lo) * frac)
            lo, hi = np.broadcast_to(lo, mid.shape), np.broadcast_to(hi, mid.shape)
            ok = (mid > lo) & (mid < hi)
            mid = np.setdiff1d(mid[ok], alpha)
            if mid.size == 0:
                break
            new = _evaluate(self.f, mid)
            _check_values(mid, new, self.tol)
            alpha = np.concatenate([alpha, mid])
            beta = np.concatenate([beta, new])
            order_all = np.argsort(alpha, kind="stable")
            alpha, beta = alpha[order_all], beta[order_all]
            _check_shape(alpha, beta, self.tol)
        return alpha, beta

    @staticmethod
    def _repair(alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        """Clip into [0, 1 − α] and set f(1) = 0 (moves values by at most tol after validation)."""
        out = np.clip(beta, 0.0, 1.0 - alpha)
        out[alpha == 1.0] = 0.0
        return out

    # -- steps 1–2: the two curves
    def _curves(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        opt = _lower_hull(self._alpha, self._repair(self._alpha, self._beta))
        pess = _pessimistic_vertices(*opt)
        return pess, opt

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        (pa, pb), (oa, ob) = self._curves()
        return (
            DiscretePair.from_vertices(pa, pb, rounding=Rounding.PESSIMISTIC),
            DiscretePair.from_vertices(oa, ob, rounding=Rounding.OPTIMISTIC),
        )

    # -- introspection
    @property
    def samples(self) -> tuple[np.ndarray, np.ndarray]:
        """The (α, f(α)) samples as evaluated (read-only arrays, α ascending)."""
        return self._alpha, self._beta

    @property
    def max_gap(self) -> float:
        """sup_α (f_hi(α) − f_lo(α)) of the certified (symmetrised) curves.

        It bounds the width of every bracket of this mechanism: f, R (R(π) = min_α πα + (1−π)f(α),
        [BCP] eq 2) and δ (δ(ε) = sup_α 1 − f(α) − e^ε α); a Δ bracket is at most the sum of
        the two mechanisms' gaps.
        """
        pess, opt = self.pairs()
        x = np.union1d(pess.vertices[0], opt.vertices[0])
        return float(max(np.max(opt.tradeoff(x) - pess.tradeoff(x)), 0.0))

    @property
    def spec(self) -> str:
        return f"{self.name}(points={self.points})"
