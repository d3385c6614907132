"""composition/closed_form.py ``discrete_partition``: each atom's charged relative error covers its stored masses.

Truth: 50-digit mpmath log-masses of the *real* mechanisms (the closed forms at the double parameters), against
the doubles the package's builders store; masses are compared after exp, as the composition reads them. The
atoms reach |log m| ≈ 1500 (masses far below the smallest double are still atoms of the pair: their log is
stored). The charged bound is ``rel_err`` of the partition (:func:`log_mass_rel_error`, plus the snap term,
≈ 0 on the aligned grids used here).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.composition.closed_form import aligned_spacing, discrete_partition, log_mass_rel_error
from dpcompare.mechanisms.events import discrete_laplace_pair, randomized_response_pair
from dpcompare.tradeoff import DiscretePair

mp = pytest.importorskip("mpmath", reason="mpmath is the independent truth")

U = 2.0**-53


def _rr_truth(eps: float, delta: float) -> list[tuple]:
    """(log p, log q) per atom, loss order (−ε, +ε): P = (1 − δ)·(e^ε, 1)/(1 + e^ε), Q mirrored."""
    e0, base = mp.mpf(eps), mp.log1p(-mp.mpf(delta))
    hi, lo = base - mp.log1p(mp.exp(-e0)), base - e0 - mp.log1p(mp.exp(-e0))
    return [(hi, lo), (lo, hi)]


def _dlap_truth(a: float, s: int) -> list[tuple]:
    """Discrete Laplace: x ≤ 0 (loss −aΔ), 0 < x < Δ, x ≥ Δ (loss +aΔ); pmf tanh(a/2)·e^{−a|x|}."""
    aa = mp.mpf(a)
    edge = -mp.log1p(mp.exp(-aa))
    lt = mp.log(mp.tanh(aa / 2))
    mid = [(lt - aa * x, lt - aa * (s - x)) for x in range(1, s)]
    return [(edge, edge - aa * s), *mid, (edge - aa * s, edge)]


def _krr_truth(p: float, k: int) -> list[tuple]:
    """k-ary randomized response: outputs a (loss < 0), the k − 2 others (loss 0), b (loss > 0)."""
    pp = mp.mpf(p)
    keep, other = mp.log(1 - pp + pp / k), mp.log(pp / k)
    rest = [(mp.log((k - 2) * pp / k),) * 2] if k > 2 else []
    return [(keep, other), *rest, (other, keep)]


def _masses_truth(p: list[float], q: list[float]) -> list[tuple]:
    """A pair given by its (double) masses: their exact logs, in loss order."""
    atoms = sorted(((mp.log(mp.mpf(b)) - mp.log(mp.mpf(a)), mp.log(mp.mpf(a)), mp.log(mp.mpf(b))) for a, b in zip(p, q)))
    return [(lp, lq) for _, lp, lq in atoms]


P_TINY, Q_TINY = [1e-300, 0.25, 1.0 - 0.25 - 1e-300], [0.5, 0.25, 0.25]
CASES = {
    "rr eps=300": (lambda: dc.RandomizedResponse(eps=300.0).pairs()[0], lambda: _rr_truth(300.0, 0.0)),
    "approx-dp eps=700 delta=1e-9": (lambda: dc.ApproxDP(eps=700.0, delta=1e-9).pairs()[0], lambda: _rr_truth(700.0, 1e-9)),
    "approx-dp eps=37.3 delta=0.3": (lambda: dc.ApproxDP(eps=37.3, delta=0.3).pairs()[0], lambda: _rr_truth(37.3, 0.3)),
    "discrete laplace a=30 sens=50": (lambda: discrete_laplace_pair(30.0, 50), lambda: _dlap_truth(30.0, 50)),
    "discrete laplace a=5 sens=50": (lambda: discrete_laplace_pair(5.0, 50), lambda: _dlap_truth(5.0, 50)),
    "discrete laplace a=0.7 sens=3": (lambda: discrete_laplace_pair(0.7, 3), lambda: _dlap_truth(0.7, 3)),
    "k-ary rr p=1-1e-6 k=1e6": (lambda: randomized_response_pair(0.999999, 10**6), lambda: _krr_truth(0.999999, 10**6)),
    "k-ary rr p=0.3 k=3": (lambda: randomized_response_pair(0.3, 3), lambda: _krr_truth(0.3, 3)),
    "from masses 1e-300": (lambda: DiscretePair.from_masses(P_TINY, Q_TINY), lambda: _masses_truth(P_TINY, Q_TINY)),
}


def _measured_rel_errors(name: str):
    """(partition, per atom the larger of |m̃/m − 1| over its P- and Q-mass)."""
    build, truth = CASES[name]
    pair = build()
    part = discrete_partition(pair, aligned_spacing(pair.loss, 0.05 * float(np.max(np.abs(pair.loss)))))
    with mp.workdps(50):
        want = truth()
        assert len(want) == part.log_p.size, name
        errs = [max(abs(mp.expm1(mp.mpf(float(part.log_p[i])) - lp)), abs(mp.expm1(mp.mpf(float(part.log_q[i])) - lq)))
                for i, (lp, lq) in enumerate(want)]
    return part, errs


@pytest.mark.parametrize("name", list(CASES))
def test_each_atoms_charged_error_covers_its_stored_masses(name):
    part, errs = _measured_rel_errors(name)
    rel = np.broadcast_to(np.asarray(part.rel_err, dtype=float), part.log_p.shape)
    for i, err in enumerate(errs):
        assert err <= rel[i], (name, i, float(part.log_p[i]), float(part.log_q[i]), float(err / U), float(rel[i] / U))


def test_a_flat_16u_does_not_cover_the_far_tails():
    # the old charge (16u per mass, whatever its size) is exceeded by the builders' real errors at far-tail atoms:
    # the log's absolute error becomes the mass's relative error (≈ 1.3u·|log m| for ε-DP at ε = 700, ≈ 0.6u·
    # (|log p| + |log q|) for the discrete Laplace atom whose Q-mass comes from log p + ℓ)
    worst = {name: max(_measured_rel_errors(name)[1]) / U for name in
             ("approx-dp eps=700 delta=1e-9", "discrete laplace a=30 sens=50")}
    assert all(w > 16.0 for w in worst.values()), worst


def test_the_declared_bound_grows_with_the_log_masses():
    r = log_mass_rel_error(np.array([0.0, -1.0, -700.0, -np.inf]), np.array([0.0, -1.0, -1.0, -np.inf]))
    assert r[0] == pytest.approx(32 * U, rel=1e-12)
    assert r[1] == pytest.approx(3 * 32 * U, rel=1e-12)
    assert r[2] == pytest.approx(702 * 32 * U, rel=1e-9)  # e^{e} − 1 ≈ e at e ≈ 5e-12
    assert r[3] == 0.0
    assert np.all(r[:3] > 16 * U)
