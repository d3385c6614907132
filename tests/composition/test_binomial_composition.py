"""composition/binomial.py and its route in ``Composed``: the exact N-fold composition of a two-atom pair.

Truths: brute-force enumeration of all 2ᴺ outcome sequences (small N), the binomial closed form summed in
50-digit mpmath (any N), and Loader's stirlerr table recomputed in mpmath.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.composition import binomial
from dpcompare.composition.binomial import binomial_log_pmf, binomial_window, compose_two_atoms, stirlerr
from dpcompare.mechanisms.composed import Composed

mp = pytest.importorskip("mpmath", reason="mpmath is the independent truth")


def _mp_rr_delta(eps0: float, n: int, eps: float) -> "mp.mpf":
    """δ(ε) of n-fold ε₀-randomized response: Σ_{ℓⱼ>ε} Qⱼ − e^ε Pⱼ, j ~ Bin(n, ·), ℓⱼ = (2j − n)ε₀."""
    mp.mp.dps = 50
    e0 = mp.mpf(eps0)
    hi = mp.exp(e0) / (1 + mp.exp(e0))  # the Q-probability of the +ε₀ outcome
    tot = mp.mpf(0)
    for j in range(n + 1):
        if (2 * j - n) * e0 > eps:
            c = mp.binomial(n, j)
            tot += c * hi ** j * (1 - hi) ** (n - j) - mp.exp(eps) * c * (1 - hi) ** j * hi ** (n - j)
    return tot


def _brute_pair(p1: list[float], q1: list[float], n: int) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) over all outcome sequences of n steps of a one-step pair given by its outcome masses."""
    seqs = list(itertools.product(range(len(p1)), repeat=n))
    return (np.array([math.prod(p1[o] for o in s) for s in seqs]), np.array([math.prod(q1[o] for o in s) for s in seqs]))


def test_stirlerr_table_and_series_against_mpmath():
    mp.mp.dps = 40
    for n in list(range(1, 40)) + [81, 100, 501, 10**4, 10**9]:
        want = mp.log(mp.factorial(n)) - (n + mp.mpf(1) / 2) * mp.log(n) + n - mp.log(2 * mp.pi) / 2
        assert float(stirlerr(np.array([float(n)]))[0]) == pytest.approx(float(want), rel=1e-14, abs=2e-16)  # series truncation ≈ 1.1e-16 at n = 16


@pytest.mark.parametrize(("n", "p"), [(10, 0.3), (1000, 0.5), (10**6, 0.3), (48, 1 / (1 + math.exp(100))), (10**5, 1e-5)])
def test_binomial_log_pmf_within_its_error_bound(n, p):
    mp.mp.dps = 50
    j = np.unique(np.concatenate([np.linspace(0, n, 30).astype(int), np.arange(int(n * p) - 3, int(n * p) + 4)]))
    j = j[(j >= 0) & (j <= n)]
    got, err = binomial_log_pmf(n, j.astype(float), math.log(p), math.log1p(-p))
    for jj, g, e in zip(j, got, err):
        want = mp.log(mp.binomial(n, int(jj))) + int(jj) * mp.log(mp.mpf(p)) + (n - int(jj)) * mp.log1p(-mp.mpf(p))
        assert abs(g - float(want)) <= e + 2 * math.ulp(abs(float(want)))
        if abs(float(want)) < 10:  # where the mass matters the bound is at rounding level
            assert e < 1e-12


def test_binomial_window_keeps_every_mass_above_the_floor():
    n, lp, lr = 5000, math.log(0.2), math.log(0.8)
    lo, hi = binomial_window(n, lp, lr)
    allj = np.arange(n + 1, dtype=float)
    full, _ = binomial_log_pmf(n, allj, lp, lr)
    outside = (allj < lo) | (allj > hi)
    assert np.all(full[outside] <= binomial.LOG_MASS_FLOOR) and lo > 0 and hi < n


@pytest.mark.parametrize("make", [lambda: dc.RandomizedResponse(eps=0.7), lambda: dc.ApproxDP(eps=0.3, delta=0.01),
                                  lambda: dc.PureDP(eps=2.0)])
@pytest.mark.parametrize("n", [1, 3, 7])
def test_composed_pair_equals_brute_force_enumeration(make, n):
    pair = make().pairs()[0]
    # one step's outcomes: the finite atoms, and the ±∞ masses as their own outcomes
    p1 = list(pair.p) + [pair.p_neg_inf, 0.0]
    q1 = list(pair.q) + [0.0, pair.q_pos_inf]
    P, Q = _brute_pair(p1, q1, n)
    out, eta = compose_two_atoms(pair, n)
    for eps in (0.0, 0.5, 1.9, 4.0):
        with np.errstate(divide="ignore"):
            want = float(np.sum(np.maximum(Q - math.exp(eps) * P, 0.0)))
        assert abs(float(out.delta(eps)) - want) <= eta + 1e-15
    for pi in (0.1, 0.5, 0.77):
        want = float(np.sum(np.minimum(pi * P, (1 - pi) * Q)))
        assert abs(float(out.bayes_error(pi)) - want) <= eta + 1e-15


@pytest.mark.parametrize(("eps0", "n"), [(100.0, 48), (11.3, 1000), (0.1, 3000), (1.0, 200)])
def test_composed_rr_takes_the_exact_route_and_brackets_mpmath(eps0, n, monkeypatch):
    """The deep fuzz's slow calls (RR(100)^48: 56 s, RR(11.3)^1000: 269 s through the FFT) are closed
    forms now: no grid is built, δ is bracketed around the mpmath binomial sum, never below it."""
    from dpcompare.composition import closed_form

    monkeypatch.setattr(closed_form, "compose_discrete", lambda *a, **k: pytest.fail("took the FFT route"))
    c = Composed(dc.RandomizedResponse(eps=eps0), steps=n)
    assert c.composition.discretization == 0.0 and c.composition.reports[0].fft_len == 0
    assert c.numerical_error < 1e-9
    for eps in (0.0, 0.3 * n * eps0 ** 0.5, eps0 * n - eps0):
        lo, hi = c.delta_bounds(eps)
        truth = _mp_rr_delta(eps0, n, eps)
        assert float(hi) >= truth >= float(lo) - 1e-300  # δ never understated
        assert float(hi) - float(lo) <= 1e-9
    # trade-off: the pessimistic f never above the truth, the Neyman–Pearson vertices (P(ℓ ≥ ℓₖ), Q(ℓ < ℓₖ))
    # of the binomial pair joined by segments, in mpmath
    alpha = np.array([1e-7, 0.01, 0.3])
    t = c.tradeoff_bounds(alpha)
    if n <= 1000:
        e0 = mp.mpf(eps0)
        hi = mp.exp(e0) / (1 + mp.exp(e0))
        pj = [mp.binomial(n, j) * (1 - hi) ** j * hi ** (n - j) for j in range(n + 1)]  # ℓⱼ = (2j − n)ε₀ ascending
        qj = [mp.binomial(n, j) * hi ** j * (1 - hi) ** (n - j) for j in range(n + 1)]
        va = [mp.fsum(pj[k:]) for k in range(n + 1)][::-1] + [mp.mpf(1)]
        vb = [mp.fsum(qj[:k]) for k in range(n + 1)][::-1] + [mp.mpf(0)]
        va, vb = [mp.mpf(0)] + va, [mp.mpf(1)] + vb
        for a, f_pess in zip(alpha, np.asarray(t.pessimistic)):
            k = max(i for i in range(len(va) - 1) if va[i] <= a)
            w = (a - va[k]) / (va[k + 1] - va[k]) if va[k + 1] > va[k] else 0
            truth = vb[k] + w * (vb[k + 1] - vb[k])
            assert f_pess <= truth + 1e-300  # f never overstated
            assert f_pess >= truth - 1e-9


def test_exact_route_agrees_with_the_certified_grid_route():
    """Both routes are certified: their brackets for RR(0.5)^100 overlap (the grid route is the FFT)."""
    from dpcompare.composition.closed_form import compose_discrete

    pair = dc.RandomizedResponse(eps=0.5).pairs()[0]
    grid = compose_discrete(pair, 100)
    exact = Composed(dc.RandomizedResponse(eps=0.5), steps=100)
    eps = np.array([0.0, 2.0, 5.0, 10.0])
    lo_e, hi_e = exact.delta_bounds(eps)
    lo_g = grid.optimistic.delta(eps) - grid.numerical_error
    hi_g = grid.pessimistic.delta(eps) + grid.numerical_error
    assert np.all(np.maximum(lo_e, lo_g) <= np.minimum(hi_e, hi_g) + 1e-15)


@pytest.mark.parametrize(("eps0", "n"), [(1e-3, 10**10), (0.5, 10**12)])
def test_too_many_atoms_or_too_large_losses_fall_back_before_allocating(eps0, n, monkeypatch):
    """Beyond MAX_ATOMS (RR(1e-3)^10¹⁰: two windows of ≈ 4e6 atoms) or MAX_ABS_LOSS (RR(0.5)^10¹²: losses
    up to 5e11) the estimate sends the call to the grid route without building atoms."""
    from dpcompare.composition import closed_form

    monkeypatch.setattr(binomial, "compose_two_atoms", lambda *a, **k: pytest.fail("built the atoms"))
    sentinel = object()
    monkeypatch.setattr(closed_form, "compose_discrete", lambda *a, **k: sentinel)
    pair = dc.RandomizedResponse(eps=eps0).pairs()[0]
    assert binomial.two_atom_window(pair, n) > binomial.MAX_ATOMS or n * eps0 > binomial.MAX_ABS_LOSS
    assert Composed(dc.RandomizedResponse(eps=eps0), steps=n).composition is sentinel


def test_the_two_windows_of_a_large_epsilon_keep_the_atoms_that_matter():
    """RR(11.3)^(2·10⁶): P sits near j = 0, Q near j = N; the atoms between (both masses < e^−800) are
    left out, so 2 windows of a few hundred atoms are built instead of 2·10⁶ + 1, and the pair is whole."""
    pair = dc.RandomizedResponse(eps=11.3).pairs()[0]
    assert binomial.two_atom_window(pair, 2 * 10**6) < 10**4
    out, eta = compose_two_atoms(pair, 2 * 10**6)
    assert abs(float(np.sum(out.p)) - 1.0) < 1e-12 and abs(float(np.sum(out.q)) - 1.0) < 1e-12 and eta < 1e-6
