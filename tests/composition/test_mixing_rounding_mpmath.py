"""The rounding of mixing cell masses in log space, charged explicitly this round: ``sgm_step._mix_masses`` (Q = (1 − p)P
+ p·P₁, rel_Q ≤ max(rel_P, rel_P₁) + (10 + 2|log(1 − p)| + 2|log p| + |a| + |b| + |log Q|)·u) and the Gaussian-mixture
weighted sums (``gaussian_mixture._sum_rounding``). Checked against mpmath at 60 digits: each cell's log P and log Q
against the exact masses of the cells the code integrates (the same double edges, and the edges x − μ, (x − c)/s as
the code rounds them), within the returned relative error — on narrow Gauss–Legendre cells (the route whose own bound
has the least slack) and log_ndtr cells, at small and large p (measured ≤ 0.36 of the bound on the SGM cells, ≤ 0.12 on the mixture's)."""


import numpy as np
import pytest

from dpcompare.composition import sgm_step
from dpcompare.composition.gaussian_mixture import MixtureComponent

mp = pytest.importorskip("mpmath", reason="the exact cell masses are computed with mpmath")


def _mass(a: float, b: float):
    a, b = mp.mpf(a), mp.mpf(b)
    return mp.ncdf(b) - mp.ncdf(a) if b <= 0 else mp.ncdf(-a) - mp.ncdf(-b)


def _edges(seed: int, start: float, lw: float, hw: float, n: int, stop: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = start + np.concatenate([[0.0], np.cumsum(10.0 ** rng.uniform(lw, hw, n))])
    return x[x <= stop]


@pytest.mark.parametrize("seed, mu, p, start, lw, hw", [
    (3, 1.0, 1e-3, 3.0, -5.0, -3.5),     # narrow 3-point cells in the loss tail
    (4, 0.3, 0.5, -11.0, -6.0, -3.0),    # far left, p = ½
    (5, 1 / 1.01, 0.01, -4.0, -4.5, -1.5),  # the bulk, 3- and 8-point and log_ndtr cells
])
def test_sgm_cells_within_their_bound(seed, mu, p, start, lw, hw):
    x = _edges(seed, start, lw, hw, 250, 12.0 + min(mu, 0.0))
    lp, lq, rel = sgm_step._log_masses_cells(x, mu, p)
    y = x - mu  # the P₁ cells' edges as the code rounds them
    worst = 0.0
    with mp.workdps(60):
        for i in range(x.size - 1):
            P = _mass(float(x[i]), float(x[i + 1]))
            Q = (1 - mp.mpf(p)) * P + mp.mpf(p) * _mass(float(y[i]), float(y[i + 1]))
            err = max(abs(mp.mpf(float(lp[i])) - mp.log(P)), abs(mp.mpf(float(lq[i])) - mp.log(Q)))
            assert err <= rel[i], (float(x[i]), float(x[i + 1]), float(err), rel[i])
            worst = max(worst, float(err / rel[i]))
    assert worst > 0.01


def test_mixture_component_cells_within_their_bound():
    comp = MixtureComponent(0.8, (0.0,), (1.0,), (0.0, 0.7, 1.9, 3.3), (0.4, 0.3, 0.2, 0.1))
    # narrow cells where every centre's standardised cell lies within |z| ≤ 12 (Gauss–Legendre for all: the smallest
    # bounds, so the weighted sums' rounding is a visible part of them; measured ≤ 0.12 of the bound, 0.20 without
    # _sum_rounding's charge)
    x = _edges(6, -3.0, -5.0, -3.0, 400, 5.0)
    lp, lq, rel = comp.log_masses(x[:-1], x[1:])
    s = comp.scale
    worst = 0.0
    with mp.workdps(60):
        for i in range(x.size - 1):
            masses = []
            for centers, weights in ((comp.p_centers, comp.p_weights), (comp.q_centers, comp.q_weights)):
                masses.append(mp.fsum(mp.mpf(w) * _mass(float((x[i] - c) / s), float((x[i + 1] - c) / s))
                                      for c, w in zip(centers, weights)))
            err = max(abs(mp.mpf(float(lp[i])) - mp.log(masses[0])), abs(mp.mpf(float(lq[i])) - mp.log(masses[1])))
            assert err <= rel[i], (float(x[i]), float(x[i + 1]), float(err), rel[i])
            worst = max(worst, float(err / rel[i]))
    assert worst > 0.01
