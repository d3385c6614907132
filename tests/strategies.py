"""Hypothesis strategies for dpcompare mechanisms and discrete pairs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

import dpcompare as dc

finite = dict(allow_nan=False, allow_infinity=False)

gaussians = st.floats(0.05, 5.0, **finite).map(lambda mu: dc.Gaussian(mu=mu))
laplaces = st.floats(0.2, 5.0, **finite).map(lambda b: dc.Laplace(b=b))
rrs = st.floats(0.0, 5.0, **finite).map(lambda e: dc.RandomizedResponse(eps=e))
approx_dps = st.builds(
    lambda e, d: dc.ApproxDP(eps=e, delta=d), st.floats(0.0, 5.0, **finite), st.floats(0.0, 0.5, **finite)
)


_DENOM = 2**20


@st.composite
def mass_vectors(draw, n: int, allow_zero: bool = True) -> np.ndarray:
    """A probability vector of length n with dyadic entries k/2**20 that sum to exactly 1.

    Dyadic masses keep the test about the algorithms, not about a sum that is 1 ± 1 ulp
    (that case is covered by its own test in test_pair.py).
    """
    lo = 0 if allow_zero else 1
    k = np.array(draw(st.lists(st.integers(lo, 1000), min_size=n, max_size=n)), dtype=np.int64)
    if k.sum() == 0:
        k[:] = 1
    k = np.floor(k * (_DENOM / k.sum())).astype(np.int64)
    k[int(np.argmax(k))] += _DENOM - int(k.sum())
    return k / _DENOM


@st.composite
def mass_pairs(draw, min_size: int = 2, max_size: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) on 2–8 common outcomes, possibly with outcomes only one of them produces."""
    n = draw(st.integers(min_size, max_size))
    return draw(mass_vectors(n)), draw(mass_vectors(n))


discrete_pairs = mass_pairs().map(lambda pq: dc.DiscretePair.from_masses(*pq))
pair_mechanisms = discrete_pairs.map(lambda p: dc.FromPair(p, name="random"))


@st.composite
def tradeoff_curves(draw) -> dc.TradeoffCurve:
    """A convex piecewise-linear trade-off curve through (0, 1 − d) built from random segment slopes."""
    k = draw(st.integers(1, 5))
    dalpha = np.array(draw(st.lists(st.floats(0.05, 1.0, **finite), min_size=k, max_size=k)))
    slopes = np.sort(np.array(draw(st.lists(st.floats(0.05, 20.0, **finite), min_size=k, max_size=k))))[::-1]
    a = np.concatenate([[0.0], np.cumsum(dalpha) / dalpha.sum()])
    drops = slopes * np.diff(a)  # β decrements, convex (slopes −s non-decreasing)
    beta0 = min(1.0, drops.sum())
    beta = np.maximum(beta0 - np.concatenate([[0.0], np.cumsum(drops)]), 0.0)
    beta = np.minimum(beta, 1 - a)
    # re-impose convexity after clipping by building the lower convex hull of the clipped points
    pts = _lower_hull(a, beta)
    return dc.TradeoffCurve(alpha=tuple(pts[0]), beta=tuple(pts[1]))


def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[list[float], list[float]]:
    hull: list[tuple[float, float]] = []
    for p in zip(x.tolist(), y.tolist()):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    # keep β non-increasing
    xs, ys = [h[0] for h in hull], [h[1] for h in hull]
    ys = list(np.minimum.accumulate(ys))
    return xs, ys


analytic_mechanisms = st.one_of(gaussians, laplaces)
discrete_mechanisms = st.one_of(rrs, approx_dps, pair_mechanisms, tradeoff_curves())
mechanisms = st.one_of(gaussians, laplaces, rrs, approx_dps, pair_mechanisms)


# ---------------------------------------------------------------------------------------------- declared domains
# Values inside and outside a parameter's one declaration (``dpcompare._validation.Param``, the ``PARAMS`` of
# a mechanism class): the constructor, the spec language and these strategies all read the same Interval.
def inside(param) -> st.SearchStrategy:
    """Finite values in ``param.domain`` (its closed ends included, its open ends excluded)."""
    d = param.domain
    lo = d.low if math.isfinite(d.low) else -1e300
    hi = d.high if math.isfinite(d.high) else 1e300
    values = st.floats(lo, hi, exclude_min=d.low_open or not math.isfinite(d.low),
                       exclude_max=d.high_open or not math.isfinite(d.high), **finite)
    return values.map(lambda v: float(math.floor(v)) + (1.0 if math.floor(v) < lo else 0.0)) if param.integer else values


def outside(param) -> st.SearchStrategy:
    """Finite values not in ``param.domain`` (an open end itself included); nothing if the domain is ℝ."""
    d = param.domain
    parts = []
    if math.isfinite(d.low):
        parts.append(st.floats(-1e300, d.low, exclude_max=not d.low_open, **finite))
    if math.isfinite(d.high):
        parts.append(st.floats(d.high, 1e300, exclude_min=not d.high_open, **finite))
    return st.one_of(*parts) if parts else st.nothing()
