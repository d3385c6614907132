"""The certified monotone solver (``dpcompare._search``) and the ``Bracket`` type, against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompare._search import Scale, Side, Unreachable, solve
from dpcompare.tradeoff import Bracket, Sense


@settings(max_examples=200, deadline=None)
@given(root=st.floats(1e-200, 1e200), side=st.sampled_from(list(Side)), scale=st.sampled_from(list(Scale)))
def test_real_boundary_is_certified(root: float, side: Side, scale: Scale) -> None:
    # g(x) = ±log(x/root), resolved to ~|log x|·u relative: the feasible set is [root, ∞) or (0, root]
    sign = -1.0 if side is Side.ABOVE else 1.0
    g = lambda x: sign * (math.log(x) - math.log(root)) if x > 0 else sign * -math.inf  # noqa: E731
    r = solve(g, 0.0, 1e300, side=side, scale=scale, rtol=1e-10, max_evaluations=3000)
    assert g(r.feasible) <= 0 and g(r.infeasible) > 0  # both ends were really evaluated on their side
    if side is Side.ABOVE:
        assert r.infeasible < root * (1 + 1e-13) and r.feasible >= root * (1 - 1e-13)
    else:
        assert r.feasible <= root * (1 + 1e-13) and r.infeasible > root * (1 - 1e-13)
    if scale is Scale.LOG:
        assert r.converged and r.width <= 1e-10 * abs(r.feasible) * 1.0001


@settings(max_examples=200, deadline=None)
@given(n_star=st.integers(1, 10**15), start=st.one_of(st.none(), st.integers(2, 10**15 - 1)))
def test_integer_boundary_matches_brute_force(n_star: int, start: int | None) -> None:
    r = solve(lambda n: n - n_star - 0.5, 1, 10**15, side=Side.BELOW, integer=True, start=start)
    assert r.feasible == n_star and (r.infeasible is None or r.infeasible == n_star + 1)


def test_unreachable_and_whole_domain() -> None:
    with pytest.raises(Unreachable):
        solve(lambda x: 1.0, 0.0, 10.0, side=Side.ABOVE)
    r = solve(lambda x: -1.0, 0.0, 10.0, side=Side.ABOVE)
    assert r.feasible == 0.0 and r.infeasible is None


def test_nan_is_never_feasible() -> None:
    r = solve(lambda x: math.nan if x > 7 else x - 5, 0.0, 10.0, side=Side.BELOW, scale=Scale.LINEAR)
    assert 5 - 1e-9 <= r.feasible <= 5 and r.infeasible > 5
    with pytest.raises(Unreachable):  # NaN at the feasible end is not feasible
        solve(lambda x: math.nan, 0.0, 10.0, side=Side.BELOW)


def test_bracket_rejects_inverted_and_nan() -> None:
    with pytest.raises(ValueError, match="inverted bracket"):
        Bracket(pessimistic=0.1, optimistic=0.2, sense=Sense.UPPER)
    with pytest.raises(ValueError, match="inverted bracket"):
        Bracket(pessimistic=np.array([0.3, 0.5]), optimistic=np.array([0.2, 0.4]), sense=Sense.LOWER)
    with pytest.raises(ValueError, match="nan"):
        Bracket(math.nan, 0.0)
    with pytest.raises(TypeError):
        Bracket(1.0, 0.0, sense="upper")  # type: ignore[arg-type]


def test_bracket_operations_keep_direction() -> None:
    f = Bracket(pessimistic=0.2, optimistic=0.3, sense=Sense.LOWER)  # a trade-off value
    tpr = f.complement()
    assert tpr.sense is Sense.UPPER and tpr.pessimistic == pytest.approx(0.8) and tpr.optimistic == pytest.approx(0.7)
    w = f.widened(0.05)
    assert w.lower == pytest.approx(0.15) and w.upper == pytest.approx(0.35)
    assert Bracket.from_interval(1.0, 2.0, Sense.LOWER).pessimistic == 1.0
    assert Bracket.from_interval(1.0, 2.0, Sense.UPPER).pessimistic == 2.0
    assert Bracket.exact(0.5).contains(0.5) and not Bracket.exact(0.5).contains(0.6)
