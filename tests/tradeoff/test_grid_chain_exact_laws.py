"""The vectorised chain of regular groups (tradeoff/grid_chain.py) against the law its certificate rests on, computed
exactly: the landing is a post-processing of the input up to the returned snap Q-mass, so for every ε
δ_out(ε) ≤ δ_in(ε) + snap, and P is conserved. test_grid_chain.py checks this law in double with a tolerance of
1e-12·(Q + e^ε·P) (≈ 4500u); here the masses e^{log p}, e^{log p + λ}, e^{out + g} are taken exactly in mpmath (40
digits) and the tolerance is the merge's own rounding budget, the 16u per unit of mass that rel_err_mass charges
beside the snap mass (measured: ≤ 1.9u, for the loop and the chain alike), on random partition-like inputs with the
chain forced on every fast run and small windows (mispredictions, stops and window ends exercised)."""

import math

import numpy as np
import pytest
from test_grid_chain import _force_chain, _spy
from test_grid_merge import _atoms

from dpcompare.tradeoff import grid_chain
from dpcompare.tradeoff.grid import U
from dpcompare.tradeoff.grid_merge import greedy_merge

mp = pytest.importorskip("mpmath", reason="the law is checked on exact masses in mpmath")


def _excess(lam, lp, h, o, k_lo, k_hi, out, snap):
    """max over ε of (δ_out(ε) − δ_in(ε) − snap)/(Q_in + e^ε·P_in), and |ΣP_out − ΣP_in|/ΣP_in, exactly."""
    g = o + (k_lo + np.arange(out.size)) * h  # the grid losses as doubles: the landed pair is (p, p·e^g)
    keep, fin = np.isfinite(lp), np.isfinite(out)
    with mp.workdps(40):
        pin = [mp.exp(mp.mpf(float(a))) for a in lp[keep]]
        qin = [mp.exp(mp.mpf(float(a)) + mp.mpf(float(b))) for a, b in zip(lp[keep], lam[keep])]
        pout = [mp.exp(mp.mpf(float(v))) for v in out[fin]]
        qout = [mp.exp(mp.mpf(float(v)) + mp.mpf(float(gg))) for v, gg in zip(out[fin], g[fin])]
        p_tot, q_tot = mp.fsum(pin), mp.fsum(qin)
        worst = -math.inf
        for eps in [*g[fin].tolist(), g[0] - 30 * h, g[-1] + h]:
            e = mp.exp(mp.mpf(eps))
            d_in = mp.fsum(max(q - e * p, 0) for p, q in zip(pin, qin))
            d_out = mp.fsum(max(q - e * p, 0) for p, q in zip(pout, qout))
            worst = max(worst, float((d_out - d_in - snap) / (q_tot + e * p_tot)))
        return worst, float(abs(mp.fsum(pout) - p_tot) / p_tot)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_sub", [1, 3, 8])
def test_chain_landing_is_a_post_processing_up_to_its_snap_mass(seed, max_sub, monkeypatch):
    lam, lp, h, o, k_lo, k_hi = _atoms(seed, n_int=40, max_sub=max_sub, tails=seed % 2 == 0)
    _force_chain(monkeypatch)
    monkeypatch.setattr(grid_chain, "WINDOW", 4)
    taken = _spy(monkeypatch)
    try:
        out, snap = greedy_merge(lam, lp, h, o, k_lo, k_hi)
    except (RuntimeError, OverflowError):
        pytest.skip("an input the merge refuses (masses beyond the double range apart)")
    assert taken[0] > 0
    worst, dp = _excess(lam, lp, h, o, k_lo, k_hi, out, snap)
    assert worst <= 16 * U, worst / U
    assert dp <= 16 * U, dp / U
