"""sgm_certified ``_crossing_per_threshold``: ε(δ) read with the per-threshold η(ε) in closed form where η(ε) is
constant around the crossing, against the bisection it replaces (the reference: the same reader, bisected to 1e-9
relative), and certified at the point it returns; where it cannot answer, the bisection does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcompare.composition import sgm_certified as sc
from dpcompare.composition.sgm_compose import pessimistic_side

CASES = [(1.01, 0.01, 10_000, 1e-5), (0.7, 0.05, 300, 1e-6), (2.0, 0.2, 50, 1e-5), (5.0, 0.5, 100, 1e-3)]


def _side(sigma, p, steps):
    return pessimistic_side(sigma, p, steps, sc.default_discretization(sigma, p, steps))


def _g(side, e: float) -> float:
    """What the bisection's reader evaluates: max(δ_rem, δ_add)(ε) + η(ε)."""
    return max(float(side.pair.delta(e)), float(side.swapped.delta(e))) + float(side.error_at(np.array([e]))[0])


@pytest.mark.parametrize("sigma, p, steps, delta", CASES)
def test_crossing_is_certified_and_within_the_bisection_tolerance(sigma, p, steps, delta, monkeypatch):
    side = _side(sigma, p, steps)
    fast = sc.pair_epsilon(side.pair, side.numerical_error, delta, side.swapped, side.error_at)
    monkeypatch.setattr(sc, "_crossing_per_threshold", lambda *a, **k: None)
    bisected = sc.pair_epsilon(side.pair, side.numerical_error, delta, side.swapped, side.error_at)
    assert math.isfinite(fast) and math.isfinite(bisected)
    assert _g(side, fast) <= delta  # certified where it is returned, by the same reader
    # the bisection returns a point within 1e-9·max(1, ε) above the crossing; the closed form the crossing itself
    # (up to the few ulps it may be raised by), so it is at or below the bisection's, by at most that tolerance
    assert bisected - 1e-9 * max(1.0, bisected) <= fast <= bisected + 1e-12 * max(1.0, bisected)
    # and it is the crossing: a point 1e-9 relative below it is not certified
    assert _g(side, fast * (1.0 - 1e-9)) > delta


def test_no_closed_form_falls_back_to_the_bisection(monkeypatch):
    side = _side(1.01, 0.01, 10_000)
    args = (side.pair, side.numerical_error, 1e-5, side.swapped, side.error_at)
    monkeypatch.setattr(sc, "_closed_form_candidate", lambda pair, d: None)
    none = sc.pair_epsilon(*args)
    monkeypatch.setattr(sc, "_crossing_per_threshold", lambda *a, **k: None)
    assert none == sc.pair_epsilon(*args)


def test_a_candidate_the_reader_rejects_is_not_returned(monkeypatch):
    """A closed form that lands short of the crossing by more than the ulps it may be raised by: the reader
    rejects it and the bisection answers (never an uncertified point)."""
    side = _side(1.01, 0.01, 10_000)
    real = sc._closed_form_candidate
    def short(pair, d):
        e = real(pair, d)
        return None if e is None else 0.99 * e

    monkeypatch.setattr(sc, "_closed_form_candidate", short)
    got = sc.pair_epsilon(side.pair, side.numerical_error, 1e-5, side.swapped, side.error_at)
    monkeypatch.setattr(sc, "_crossing_per_threshold", lambda *a, **k: None)
    assert got == sc.pair_epsilon(side.pair, side.numerical_error, 1e-5, side.swapped, side.error_at)
    assert _g(side, got) <= 1e-5
