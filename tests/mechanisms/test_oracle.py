"""TradeoffOracle: certified pairs from oracle access to f ([BCP] §3.2, App. B.3).

Reference values:
- closed forms of dpcompare's Gaussian / Laplace / randomized response views (themselves tested
  against mpmath in test_mechanisms.py), evaluated at the same points;
- Δ(Gauss μ=1‖Lap b=1) and Δ(Lap‖Gauss) from ``reference_values.py`` (mpmath, 30 digits, no dpcompare);
- the trade-off callables are written independently with scipy.special (as B.3 does with scipy.stats).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import special

import dpcompare as dc
from dpcompare.comparison import delta_divergence
from dpcompare.mechanisms.oracle import TradeoffOracle
from reference_values import gauss_laplace_reference

SLACK = 1e-14  # floating-point slack of "contains": the callables and the closed forms round differently


def f_gauss(mu):
    return lambda a: special.ndtr(-special.ndtri(np.asarray(a)) - mu)  # Φ(Φ⁻¹(1−α) − μ), tail-accurate


def f_laplace(m):
    """f(α) = F_Q(F_P⁻¹(1−α)) for P = Lap(0, 1), Q = Lap(m, 1) (Dong et al. 2022, App. A)."""

    def cdf(x):
        return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(x, 0.0)))

    def isf(a):
        a = np.asarray(a, dtype=float)
        with np.errstate(divide="ignore"):
            return np.where(a <= 0.5, -np.log(2.0 * a), np.log(2.0 * (1.0 - a)))

    return lambda a: cdf(isf(a) - m)


CASES = [
    ("gauss-0.5", f_gauss(0.5), dc.Gaussian(mu=0.5)),
    ("gauss-1", f_gauss(1.0), dc.Gaussian(mu=1.0)),
    ("gauss-3", f_gauss(3.0), dc.Gaussian(mu=3.0)),
    ("laplace-1", f_laplace(1.0), dc.Laplace(b=1.0)),
    ("laplace-0.25", f_laplace(4.0), dc.Laplace(b=0.25)),
]


@pytest.fixture(scope="module")
def oracles():
    return {name: TradeoffOracle(f, name=name) for name, f, _ in CASES}


# ---------------------------------------------------------------- the bracket holds for every view
@pytest.mark.parametrize("name,f,exact", CASES, ids=[c[0] for c in CASES])
def test_oracle_brackets_closed_form_views(oracles, name, f, exact):
    o = oracles[name]
    alpha = np.unique(np.concatenate([np.linspace(0, 1, 2001), np.logspace(-12, -0.5, 300), 1 - np.logspace(-12, -0.5, 300)]))
    lo, hi = o.tradeoff_bounds(alpha)
    fe = exact.tradeoff(alpha)
    assert np.all(lo <= fe + SLACK) and np.all(fe <= hi + SLACK)
    assert np.max(hi - lo) <= o.max_gap + SLACK

    pi = np.unique(np.concatenate([np.linspace(0, 1, 2001), special.expit(np.linspace(-30, 30, 601))]))
    rlo, rhi = o.bayes_error_bounds(pi)
    re = exact.bayes_error(pi)
    assert np.all(rlo <= re + SLACK) and np.all(re <= rhi + SLACK)
    assert np.max(rhi - rlo) <= o.max_gap + SLACK

    eps = np.linspace(0.0, 6.0, 241)
    dlo, dhi = o.delta_bounds(eps)
    de = exact.delta(eps)
    assert np.all(dlo <= de + SLACK) and np.all(de <= dhi + SLACK)
    # the public views err on the side of less privacy
    assert np.all(o.delta(eps) >= de - SLACK)
    assert np.all(o.bayes_error(pi) <= re + SLACK)
    assert o.epsilon(1e-3) >= exact.epsilon(1e-3) - 1e-12


@pytest.mark.parametrize("name", ["gauss-1", "laplace-1"])
def test_bracket_is_tight(oracles, name):
    o = oracles[name]
    assert o.max_gap < 1e-6
    pess, opt = o.pairs()
    assert pess.rounding is dc.Rounding.PESSIMISTIC and opt.rounding is dc.Rounding.OPTIMISTIC
    assert pess.is_symmetric and opt.is_symmetric
    assert not o.exact


def test_bracket_shrinks_quadratically_with_points():
    gaps = [TradeoffOracle(f_gauss(1.0), points=n).max_gap for n in (512, 2048)]
    assert gaps[1] < gaps[0] / 8  # ~16 for an O(n⁻²) error


# ---------------------------------------------------------------- Δ through the oracle
def test_delta_via_oracle_brackets_reference(oracles):
    ref = gauss_laplace_reference(1.0, 1.0)
    g, lap = oracles["gauss-1"], oracles["laplace-1"]
    gl = delta_divergence(g, lap)
    lg = delta_divergence(lap, g)
    assert gl.lower - SLACK <= ref.delta_gl <= gl.upper + SLACK
    assert lg.lower - SLACK <= ref.delta_lg <= lg.upper + SLACK
    assert gl.upper - gl.lower < 1e-6 and lg.upper - lg.lower < 1e-6
    assert lg.pi == pytest.approx(ref.pi_lg, abs=1e-3)


def test_delta_between_oracle_and_closed_form(oracles):
    """Mixed inputs go through the certified branch and bound; the reference stays inside."""
    ref = gauss_laplace_reference(1.0, 1.0)
    r = delta_divergence(oracles["laplace-1"], dc.Gaussian(mu=1.0))
    assert r.lower - SLACK <= ref.delta_lg <= r.upper + SLACK
    r = delta_divergence(dc.Gaussian(mu=1.0), oracles["laplace-1"])
    assert r.lower - SLACK <= ref.delta_gl <= r.upper + SLACK


def test_oracle_of_itself_is_close_to_zero(oracles):
    o = oracles["gauss-1"]
    r = delta_divergence(o, dc.Gaussian(mu=1.0))
    assert r.lower <= SLACK and 0.0 <= r.upper <= o.max_gap + SLACK


# ---------------------------------------------------------------- piecewise-linear f is recovered exactly
def test_randomized_response_recovered_exactly():
    eps = 1.0
    o = TradeoffOracle(lambda a: np.maximum(1 - math.exp(eps) * a, math.exp(-eps) * (1 - a)))
    rr = dc.RandomizedResponse(eps=eps)
    assert o.max_gap < 1e-12  # the refinement homes in on the kink at α = 1/(1+e)
    for r in (delta_divergence(o, rr), delta_divergence(rr, o)):
        assert r.lower <= SLACK and r.upper < 1e-12
    assert float(o.delta(0.5)) == pytest.approx(float(rr.delta(0.5)), abs=1e-12)


def test_asymmetric_f_is_symmetrised_like_every_mechanism():
    """f(α) = max(0, 1 − 2α) ≠ f⁻¹; the oracle reads it as conv(min(f, f⁻¹))."""
    o = TradeoffOracle(lambda a: max(0.0, 1.0 - 2.0 * a), points=256)  # scalar-only callable
    curve = dc.TradeoffCurve(alpha=[0.0, 0.5, 1.0], beta=[1.0, 0.0, 0.0])
    for r in (delta_divergence(o, curve), delta_divergence(curve, o)):
        assert r.lower <= SLACK and r.upper < 1e-12
    alpha = np.linspace(0, 1, 101)
    lo, hi = o.tradeoff_bounds(alpha)
    assert np.allclose(lo, hi, atol=1e-12)
    # min(1 − 2α, (1 − α)/2) has convex envelope max(0, ½ − α)
    assert np.allclose(lo, np.maximum(0.0, 0.5 - alpha), atol=1e-12)


# ---------------------------------------------------------------- callables: vectorised, scalar, noisy
def test_scalar_and_vectorised_callables_agree():
    vec = TradeoffOracle(f_gauss(1.0), points=300)
    calls = []

    def scalar(a: float) -> float:
        if not isinstance(a, float):
            raise TypeError("scalar only")
        calls.append(a)
        return float(special.ndtr(-special.ndtri(a) - 1.0))

    sca = TradeoffOracle(scalar, points=300)
    assert len(calls) <= 300
    assert np.array_equal(vec.samples[0], sca.samples[0])
    assert np.allclose(vec.samples[1], sca.samples[1], rtol=0, atol=1e-15)


def test_values_within_tolerance_are_accepted():
    base = f_gauss(1.0)
    noisy = lambda a: np.clip(base(a) + 5e-11 * np.sin(1e4 * np.asarray(a)), 0.0, 1.0 - np.asarray(a))  # noqa: E731
    o = TradeoffOracle(noisy, points=512)
    pi = np.linspace(0, 1, 501)
    rlo, rhi = o.bayes_error_bounds(pi)
    re = dc.Gaussian(mu=1.0).bayes_error(pi)
    assert np.all(rlo <= re + 1e-9) and np.all(re <= rhi + 1e-9)


# ---------------------------------------------------------------- invalid input: clear errors
@pytest.mark.parametrize(
    "f,match",
    [
        (0.5, "f must be a callable"),
        (lambda a: np.full_like(np.asarray(a, dtype=float), np.nan), "finite values"),
        (lambda a: 1.5 - np.asarray(a), r"values in \[0, 1\]"),
        (lambda a: 0.5 - 0.45 * np.asarray(a), r"f\(1\) = 0"),
        (lambda a: 1.0 - np.asarray(a) ** 2, "1 − α"),
        (lambda a: np.asarray(a) * (1.0 - np.asarray(a)), "non-increasing"),
        (lambda a: 0.5 * (1.0 - np.asarray(a) ** 2), "convex"),
        (lambda a: [0.1, 0.2], "one number per alpha"),
        (lambda a: 1 / 0, "f raised ZeroDivisionError at alpha="),
    ],
    ids=["not-callable", "nan", "range", "f(1)", "above-diagonal", "increasing", "concave", "shape", "raises"],
)
def test_invalid_callables_raise_clear_errors(f, match):
    with pytest.raises(ValueError, match=match):
        TradeoffOracle(f, points=64)


@pytest.mark.parametrize(
    "kwargs,match",
    [({"points": 3}, "points must be an integer >= 16"), ({"tol": -1.0}, "tol must be in"), ({"name": ""}, "name")],
)
def test_invalid_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TradeoffOracle(f_gauss(1.0), **kwargs)


# ---------------------------------------------------------------- value semantics
def test_frozen_and_compared_by_identity_of_f():
    f = f_gauss(1.0)
    a, b = TradeoffOracle(f, points=64), TradeoffOracle(f, points=64, name="other")
    assert a == b and hash(a) == hash(b)
    assert a != TradeoffOracle(f_gauss(1.0), points=64)  # equal code, different object
    assert a != TradeoffOracle(f, points=128)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.points = 10  # type: ignore[misc]
    assert a.spec == "oracle(points=64)"
    with pytest.raises(ValueError):
        a.samples[1][0] = 0.0  # read-only samples
