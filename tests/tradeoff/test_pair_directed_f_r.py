"""tradeoff/pair.py ``bayes_error_bounds`` and ``tradeoff_bounds``: the directed ends enclose the real R(π)
and f(α) of the stored pair, evaluated in exact rational arithmetic (fractions) from the masses
e^{log pᵢ}, e^{log qᵢ} (taken from mpmath at 60 digits, far beyond the bounds' resolution)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import expit

from dpcompare.tradeoff import DiscretePair

mp = pytest.importorskip("mpmath", reason="mpmath gives the stored masses e^{log p} to 60 digits")


def _frac(x) -> Fraction:
    """An mpf (or a double) as an exact Fraction."""
    m = mp.mpf(x)
    if m == 0:
        return Fraction(0)
    man, exp = m.man_exp
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def _exact_masses(pair: DiscretePair) -> tuple[list[Fraction], list[Fraction]]:
    with mp.workdps(60):
        p = [_frac(mp.exp(mp.mpf(float(v)))) for v in pair.log_p]
        if pair.exact_log_q is not None:
            q = [_frac(mp.exp(mp.mpf(float(v)))) for v in pair.exact_log_q]
        else:  # log q = log p + ℓ in real arithmetic
            q = [_frac(mp.exp(mp.mpf(float(a)) + mp.mpf(float(b)))) for a, b in zip(pair.log_p, pair.loss)]
    return p, q


def _exact_r(p, q, pi: float) -> Fraction:
    f = Fraction(pi)
    return sum((min(f * a, (1 - f) * b) for a, b in zip(p, q)), Fraction(0))


def _exact_vertices(p, q) -> tuple[list[Fraction], list[Fraction]]:
    """The stored pair's trade-off vertices (Σ_{i≥k} pᵢ, Σ_{i<k} qᵢ), k = n … 0, then (1, 0)."""
    n = len(p)
    tail, head = [Fraction(0)] * (n + 1), [Fraction(0)] * (n + 1)
    for k in range(n - 1, -1, -1):
        tail[k] = tail[k + 1] + p[k]
    for k in range(n):
        head[k + 1] = head[k] + q[k]
    return [tail[k] for k in range(n, -1, -1)] + [Fraction(1)], [head[k] for k in range(n, -1, -1)] + [Fraction(0)]


def _exact_f(vertices, alpha: float) -> Fraction:
    """The piecewise-linear curve through ``vertices`` at α (f(1) = 0)."""
    va, vb = vertices
    a = Fraction(alpha)
    if a >= 1:  # f(1) = 0 by definition (the stored masses may sum to 1 + a few u)
        return Fraction(0)
    if a <= 0:
        return vb[0]
    for j in range(1, len(va)):
        if a <= va[j]:
            if va[j] == va[j - 1]:
                return vb[j]
            t = (va[j] - a) / (va[j] - va[j - 1])
            return vb[j] + t * (vb[j - 1] - vb[j])
    return Fraction(0)


def _random_pair(rng: np.random.Generator, n: int, exact_q: bool) -> DiscretePair:
    spread = rng.choice([1.0, 30.0, 300.0])
    lp = -np.abs(rng.normal(0, spread, n)) - rng.exponential(1.0, n)
    lq = -np.abs(rng.normal(0, spread, n)) - rng.exponential(1.0, n)
    # normalise in log space (the masses then sum to 1 up to rounding)
    lp -= np.logaddexp.reduce(lp) + (0.0 if rng.random() < 0.5 else -np.log1p(-0.01))
    lq -= np.logaddexp.reduce(lq)
    p_neg = 0.01 if np.logaddexp.reduce(lp) < -1e-3 else 0.0
    loss = lq - lp
    return DiscretePair.from_atoms(loss, lp, p_neg_inf=p_neg, q_pos_inf=0.0, log_q=lq if exact_q else None)


@pytest.mark.parametrize("seed", range(6))
def test_directed_r_and_f_enclose_the_exact_values(seed):
    rng = np.random.default_rng(seed)
    pair = _random_pair(rng, int(rng.choice([2, 7, 40, 300])), exact_q=bool(seed % 2))
    p, q = _exact_masses(pair)
    pis = np.concatenate([rng.uniform(0, 1, 12), [1e-300, 1e-12, 0.5, 1 - 1e-12, 0.0, 1.0]])
    # π exactly at an atom's threshold (the split is ambiguous there): logit π = ℓᵢ
    pis = np.concatenate([pis, expit(pair.loss[: min(pair.size, 5)])])
    lo, hi = pair.bayes_error_bounds(pis)
    for i, pi in enumerate(pis):
        t = _exact_r(p, q, float(pi))
        assert Fraction(float(lo[i])) <= t <= Fraction(float(hi[i])), (seed, pi)
        assert float(hi[i]) - float(lo[i]) <= 1e-12 * max(float(t), 1e-300) + 1e-300
    a, _ = pair.vertices
    alphas = np.concatenate([rng.uniform(0, 1, 12), a[: min(a.size, 6)], np.nextafter(a[: min(a.size, 6)], 2.0),
                             [0.0, 1e-300, 0.5, 1 - 1e-15, 1.0]])
    lo, hi = pair.tradeoff_bounds(alphas)
    vertices = _exact_vertices(p, q)
    for i, al in enumerate(alphas):
        t = _exact_f(vertices, float(al))
        assert Fraction(float(lo[i])) <= t, (seed, al, float(lo[i]), float(t))
        assert t <= Fraction(float(hi[i])), (seed, al, float(hi[i]), float(t))


def test_bounds_are_tight_on_randomized_response():
    # RR with ε = log 3: R(π) = min(3π, 1 − π)/4 + min(π, 3(1 − π))/4 and f(α) = max(1 − 3α, (1 − α)/3)
    pair = DiscretePair.from_masses([0.25, 0.75], [0.75, 0.25])
    lo, hi = pair.bayes_error_bounds(np.array([0.1, 0.5, 0.9]))
    assert np.all(hi - lo < 1e-14)
    lo, hi = pair.tradeoff_bounds(np.array([0.1, 0.5, 0.9]))
    assert np.all(hi - lo < 1e-14)
