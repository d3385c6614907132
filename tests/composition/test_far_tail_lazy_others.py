"""The far-tail passes (tradeoff/compose.py step 6″) of Gaussian-mixture and random-allocation compositions are built
only for questions that reach the far tail (composition/sgm_compose.py ``lazy_pessimistic_side``,
composition/sgm_certified.py ``composition_epsilon``, ``composition_for_profile``), as the subsampled Gaussian's are
(tests/composition/test_sgm_far_tail_lazy.py).

Reference: the pessimistic side built with the passes from the start by ``_build_side`` (the route both mechanisms
took before), patched in for ``lazy_pessimistic_side``. Far-tail answers must equal its answers bit for bit; moderate
ones must not build the passes and must stay within FAR_TAIL_GAIN of it (both are certified).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcompare.composition.random_allocation as ra
import dpcompare.composition.sgm_compose as sc
import dpcompare.tradeoff.compose_coarse as cc
from dpcompare.composition.gaussian_mixture import compose_mixture, mixture_of_gaussians_pair
from dpcompare.composition.sgm_certified import FAR_TAIL_GAIN, composition_epsilon, pair_epsilon
from dpcompare.mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
from dpcompare.mechanisms.gaussian_mixture import ComposedGaussianMixture
from dpcompare.tradeoff import Rounding

U = 2.0**-53
PAIR = mixture_of_gaussians_pair(1.0, [0, 1], [0.5, 0.5])


def _eager(part, steps, h, *, workers=None, extra_error=0.0, cells_per_threshold=False):
    """The side as it was built before: ``_build_side`` with the passes, η = report's error + 64u + extra."""
    w = sc.fft_workers() if workers is None else workers
    pair, rep = sc._build_side(part, steps, h, Rounding.PESSIMISTIC, w, cells_per_threshold)
    return sc.PessimisticSide(pair, rep.numerical_error + 64 * U + extra_error, rep)


def _clear():
    compose_mixture.cache_clear()
    ra.compose_random_allocation.cache_clear()


@pytest.fixture
def passes(monkeypatch):
    """Counts the far-tail passes built (calls of compose_jump.jump_spectrum); fresh composition caches."""
    calls = [0]
    orig = cc.jump_spectrum

    def counted(*a, **k):
        calls[0] += 1
        return orig(*a, **k)

    monkeypatch.setattr(cc, "jump_spectrum", counted)
    _clear()
    yield calls
    _clear()


def _always_built(monkeypatch, make):
    """``make()`` with every pessimistic side built with its passes (the lazy builder patched out)."""
    with monkeypatch.context() as m:
        m.setattr(sc, "lazy_pessimistic_side", _eager)
        m.setattr(ra, "lazy_pessimistic_side", _eager)
        _clear()
        try:
            return make()
        finally:
            _clear()


MECHANISMS = {
    # (2 steps of the mixture, 4 steps per epoch × 2 epochs of balls-in-bins): at δ = 1e-10 (and 2e-12 for the
    # mixture) the plain side's ε and the always-built side's differ (checked below), so the passes matter there.
    # Not 1e-12: the mixture's η is 1.0e-12 (the cells' rounding bound), so ε there is ∞ or finite by a last digit
    "mixture": (lambda: ComposedGaussianMixture(PAIR, 2), lambda: compose_mixture(PAIR, 2), (1e-10, 2e-12)),
    "balls_in_bins": (lambda: BallsInBinsGaussian(1.0, dataset_size=40, batch_size=10, epochs=2),
                      lambda: ra.compose_random_allocation(1.0, 4, 2), (1e-10,)),
}
FAR = [(name, d) for name, (_, _, ds) in MECHANISMS.items() for d in ds]


@pytest.mark.parametrize("name, delta", FAR)
def test_far_tail_epsilon_is_the_always_built_answer(name, delta, passes, monkeypatch):
    mech, comp, _ = MECHANISMS[name]
    c = comp()
    assert passes[0] == 0  # composing alone builds no pass
    used, eps = composition_epsilon(c, delta)
    assert passes[0] > 0 and used is c.with_far_tails and used is not c
    got = mech().epsilon(delta)
    ref_c = _always_built(monkeypatch, comp)
    assert ref_c.pessimistic_side.far_tail_builder is None  # the reference really is the eager route
    want = pair_epsilon(ref_c.pessimistic, ref_c.pessimistic_error, delta)
    assert eps == want
    # the passes are what this answer needs: the plain side alone reads another ε
    assert pair_epsilon(c.pessimistic, c.pessimistic_error, delta) != want
    np.testing.assert_array_equal(used.pessimistic.log_p, ref_c.pessimistic.log_p)
    assert used.pessimistic_error == ref_c.pessimistic_error
    assert got == _always_built(monkeypatch, lambda: mech().epsilon(delta))


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_far_tail_profile_is_the_always_built_answer(name, passes, monkeypatch):
    mech, comp, ds = MECHANISMS[name]
    eps = np.array([composition_epsilon(comp(), ds[0])[1]])  # an ε where δ ≈ 1e-10: the far tail
    _clear()
    passes[0] = 0
    got = mech().delta_bounds(eps)
    assert passes[0] > 0
    want = _always_built(monkeypatch, lambda: mech().delta_bounds(eps))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_moderate_delta_does_not_build_the_passes(name, passes, monkeypatch):
    mech, comp, _ = MECHANISMS[name]
    m = mech()
    eps = m.epsilon(1e-5)
    bounds = m.delta_bounds(np.array([0.5, 1.0, 2.0]))
    assert passes[0] == 0
    c = comp()
    assert c.pessimistic_side.far_tail_builder is not None  # still unbuilt
    # within FAR_TAIL_GAIN of the always-built answer (both certified; either may be the smaller)
    ref = _always_built(monkeypatch, lambda: mech().epsilon(1e-5))
    assert ref * (1.0 - FAR_TAIL_GAIN) <= eps <= ref / (1.0 - FAR_TAIL_GAIN)
    ref_b = _always_built(monkeypatch, lambda: mech().delta_bounds(np.array([0.5, 1.0, 2.0])))
    np.testing.assert_allclose(np.asarray(bounds), np.asarray(ref_b), rtol=FAR_TAIL_GAIN)


def test_shuffle_lower_bound_builds_no_pass(passes):
    """The shuffle instance reads the optimistic side only: its ε lower bound never builds the pessimistic passes."""
    m = ShuffledGaussian(2.0, dataset_size=95, batch_size=10, epochs=2)
    assert m.epsilon_lower(1e-12) > 0.0
    assert passes[0] == 0


def test_epsilon_bracket_far_tail(passes, monkeypatch):
    """random_allocation.epsilon_bracket's upper end is the always-built answer at δ = 1e-10."""
    got = ra.epsilon_bracket(1.0, 4, 2, 1e-10)
    assert passes[0] > 0
    assert got == _always_built(monkeypatch, lambda: ra.epsilon_bracket(1.0, 4, 2, 1e-10))


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_uniform_part_lowered_by_at_most_deferred_input_error(name, passes):
    """These sides keep the input error uniform in their far-tail version (``input_per_threshold`` False): the uniform
    part of η (η less the itemised atoms) of the far-tail version is ≥ this side's less ``deferred_input_error``,
    which is what the trigger (sgm_certified._could_gain) assumes; and D is far below the uniform input term."""
    _, comp, _ = MECHANISMS[name]
    side = comp().pessimistic_side
    assert not side.input_per_threshold
    far = side.with_far_tails
    uniform = side.numerical_error - side.report.atom_error_total
    uniform_far = far.numerical_error - far.report.atom_error_total
    d = side.deferred_input_error
    assert 0.0 <= d <= side.report.input_error
    assert uniform_far >= uniform - d - 4 * U * (side.numerical_error + far.numerical_error)  # (the subtractions)


def test_shuffle_profile_builds_no_pass(passes):
    """ShuffledGaussian's δ(ε) lower end reads the optimistic side only (sgm_certified.optimistic_profile): no pass
    even at an ε in the far tail, and its value is profile_bracket's lower end."""
    from dpcompare.composition.sgm_certified import optimistic_profile, profile_bracket

    m = ShuffledGaussian(2.0, dataset_size=95, batch_size=10, epochs=2)
    eps = np.array([0.5, 3.0, 6.0])
    lo, _ = m.delta_bounds(eps)
    assert passes[0] == 0
    c = m.composition
    np.testing.assert_array_equal(optimistic_profile(c, eps), profile_bracket(c, eps).optimistic)
    np.testing.assert_array_equal(lo, np.minimum(profile_bracket(c, eps).optimistic, m._gaussian._delta_bounds(eps)[1]))
