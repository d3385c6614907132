"""The per-threshold input error (tradeoff/input_error.py) against an independent truth: the Gaussian shift pair
(P = N(0, 1), Q = N(μ, 1)) partitioned into grid-aligned cells with exact masses (mpmath, 60 digits), split exactly
(step 2, in mpmath) and composed N times exactly — the pessimistic object the true mechanism is a post-processing
of. The engine gets the cells with *deliberately perturbed* masses (relative error r = 1e-5, far above rounding,
signs chosen adversarially or at random) and must bound the truth with δ(ε) + η(ε) at every ε into the far tail,
where the perturbation is large against the tail mass but η(ε) no longer carries the uniform input term.

The pair read is the one δ(ε) reads (composition/infinity_atoms.py): the filled pair's atoms with the ±∞ masses at
``infinity_bound(part, N)`` (checked ≥ the exact ones) where that is below the filled deficit; its δ(ε) is ≤ the
filled pair's, so the check covers both readings."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.composition.infinity_atoms import infinity_bound, profile_pair
from dpcompare.tradeoff import Rounding
from dpcompare.tradeoff.compose_coarse import compose_coarsened
from dpcompare.tradeoff.grid import U, StepPartition, pessimistic_step, to_pair
from dpcompare.tradeoff.input_error import input_tail
from exact_compose import npow

mpmath = pytest.importorskip("mpmath", reason="the exact split and N-fold composition are computed in mpmath")

MU, H, K_LO, K_HI = 1.0, 0.25, -48, 48  # losses −12 … 12: the tails beyond are < 1e-30


def _exact_cells():
    """Exact cell masses of the shift pair: loss L = μx − μ²/2, cell k = {L ∈ (g_k, g_{k+1}]}, and the two tails."""
    with mpmath.workdps(60):
        mu = mpmath.mpf(MU)
        xs = [(mpmath.mpf(k) * mpmath.mpf(H) + mu * mu / 2) / mu for k in range(K_LO, K_HI + 1)]
        cdf = lambda x: mpmath.ncdf(x)  # noqa: E731
        p = [cdf(b) - cdf(a) for a, b in zip(xs[:-1], xs[1:])]
        q = [cdf(b - mu) - cdf(a - mu) for a, b in zip(xs[:-1], xs[1:])]
        tail_lo = (cdf(xs[0]), cdf(xs[0] - mu))
        tail_hi = (1 - cdf(xs[-1]), 1 - cdf(xs[-1] - mu))
    return p, q, tail_lo, tail_hi


def _exact_split(p, q, tail_lo, tail_hi):
    """Step 2 in mpmath: P- and Q-masses on the grid k_lo … k_hi and the ±∞ masses."""
    n = K_HI - K_LO + 1
    sp, sq = [mpmath.mpf(0)] * n, [mpmath.mpf(0)] * n
    for i, (pc, qc) in enumerate(zip(p, q)):
        glo, ghi = mpmath.mpf(K_LO + i) * H, mpmath.mpf(K_LO + i + 1) * H
        q_hi = (qc - pc * mpmath.exp(glo)) / (1 - mpmath.exp(-(ghi - glo)))
        p_hi = q_hi * mpmath.exp(-ghi)
        sp[i] += pc - p_hi
        sq[i] += qc - q_hi
        sp[i + 1] += p_hi
        sq[i + 1] += q_hi
    g_lo, g_hi = mpmath.mpf(K_LO) * H, mpmath.mpf(K_HI) * H
    sq[0] += tail_lo[1]  # keep Q, move up to g_lo; missing P to −∞
    sp[0] += tail_lo[1] * mpmath.exp(-g_lo)
    p_neg = tail_lo[0] - tail_lo[1] * mpmath.exp(-g_lo)
    sp[-1] += tail_hi[0]  # keep P, move down to g_hi; missing Q to +∞
    sq[-1] += tail_hi[0] * mpmath.exp(g_hi)
    q_pos = tail_hi[1] - tail_hi[0] * mpmath.exp(g_hi)
    return sp, sq, p_neg, q_pos


@pytest.mark.parametrize(
    "signs,steps,factor,r", [("adverse", 8, 1, 1e-5), ("random", 6, 1, 1e-5), ("adverse", 6, 3, 1e-5), ("random", 4, 2, 1e-5),
                             ("exact", 8, 1, 0.0), ("exact", 5, 2, 0.0)])
def test_perturbed_cells_bounded_per_threshold(signs, steps, factor, r):
    """r = 0 ("exact"): the cells are the exact masses rounded to float (their bound: 4u·(1 + |log mass|)), so the
    step's own rounding, measured against the exact split in 80-bit precision, is what the input term carries."""
    with mpmath.workdps(60):
        p, q, tail_lo, tail_hi = _exact_cells()
        sp, sq, p_neg, q_pos = _exact_split(p, q, tail_lo, tail_hi)
        assert p_neg >= 0 and q_pos >= 0
        comp_q, comp_p = npow(sq, steps), npow(sp, steps)
        q_inf, p_inf = 1 - (1 - q_pos) ** steps, 1 - (1 - p_neg) ** steps
        i0 = steps * K_LO
        lz = [(i0 + i) * H for i in range(len(comp_q))]
        # the computed cells: p(1 + s_p·r), q(1 + s_q·r). "adverse": the cells above loss 1 move their loss down
        # (P up, Q down), those below −1 up, and the bulk makes up both totals exactly — nothing reaches the
        # ±∞ atoms or the caps, and δ(ε) and the swap's δ(ε) of the computed step fall below the truth in the tails
        rng = np.random.default_rng(steps)
        lam = np.array([(K_LO + i + 0.5) * H for i in range(len(p))])
        if signs == "adverse":
            top, bot = lam > 1.0, lam < -1.0
            bulk = ~(top | bot)
            s_p = np.where(top, 1.0, np.where(bot, -1.0, 0.0))
            s_q = -s_p
            pt, qt = [mpmath.fsum(v for v, m in zip(x, top) if m) for x in (p, q)]
            pb, qb = [mpmath.fsum(v for v, m in zip(x, bot) if m) for x in (p, q)]
            pm, qm = [mpmath.fsum(v for v, m in zip(x, bulk) if m) for x in (p, q)]
            s_p = [mpmath.mpf(v) for v in s_p]
            s_q = [mpmath.mpf(v) for v in s_q]
            for i in np.flatnonzero(bulk):
                s_p[i] = -(pt - pb) / pm
                s_q[i] = (qt - qb) / qm
        elif signs == "random":
            s_p, s_q = rng.choice([-1.0, 1.0], len(p)), rng.choice([-1.0, 1.0], len(p))
        else:
            s_p = s_q = np.zeros(len(p))
        lp = np.array([float(mpmath.log(v * (1 + s * r))) for v, s in zip(p, s_p)])
        lq = np.array([float(mpmath.log(v * (1 + s * r))) for v, s in zip(q, s_q)])
        tl = (float(mpmath.log(tail_lo[0])), float(mpmath.log(tail_lo[1])))
        th = (float(mpmath.log(tail_hi[0])), float(mpmath.log(tail_hi[1])))
    rel = r * (1 + 1e-6) + 4 * U * (1.0 + np.maximum(np.abs(lp), np.abs(lq)))  # + the logs' rounding to float
    part = StepPartition(H, 0.0, K_LO, K_HI, np.arange(len(p)), lp, lq, tl, th, rel_err=rel)
    step = pessimistic_step(part)
    it = input_tail(part, steps, step)  # with the step: its own rounding measured and charged per threshold
    assert it is not None
    loss, clp, rep = compose_coarsened(step, steps, factor, tau=1e-60, workers=1, input_tail=it, tail_masses=())
    assert rep.input_tail is not None
    b_p, b_q = infinity_bound(part, steps)
    with mpmath.workdps(60):
        assert mpmath.mpf(b_p) >= p_inf and mpmath.mpf(b_q) >= q_inf, (b_p, float(p_inf), b_q, float(q_inf))
    pair = profile_pair(to_pair(loss, clp, Rounding.PESSIMISTIC), (b_p, b_q))
    sw = pair.swap()
    eps = np.linspace(0.0, float(lz[-1]) - 0.3, 60)
    eta = rep.error_at(eps)
    assert np.all(np.diff(eta) <= 0) and np.all(eta <= rep.numerical_error)
    d1, d2 = pair.delta(eps), sw.delta(eps)
    needed = False
    with mpmath.workdps(60):
        for e, et, a, b, term in zip(eps.tolist(), eta.tolist(), d1.tolist(), d2.tolist(), rep.input_tail.at(eps).tolist()):
            em = mpmath.mpf(e)
            t1 = q_inf + mpmath.fsum(v * -mpmath.expm1(em - big_l) for v, big_l in zip(comp_q, lz) if big_l > e)
            t2 = p_inf + mpmath.fsum(v * -mpmath.expm1(em + big_l) for v, big_l in zip(comp_p, lz) if big_l < -e)
            assert a + et >= t1 and b + et >= t2, (e, a, et, float(t1), b, float(t2))
            # the per-threshold term carries the check somewhere in the tail: without it the bound would fail
            needed |= bool(min(a - float(t1), b - float(t2)) + et - term < 0.0 and et < 0.1 * it.uniform)
    # (with F > 1 the coarse split's own pessimism may cover the shortfall)
    assert needed or signs != "adverse" or factor > 1
    if signs == "exact":  # nothing but rounding: the step's err is replaced entirely, and the term is tiny in the tail
        assert it.replaced == step.err and float(rep.input_tail.at(np.array([float(lz[-1]) / 2]))[0]) < 1e-20
