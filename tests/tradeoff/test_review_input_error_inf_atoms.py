"""Review finding (fixed): ``compose_coarsened(..., input_tail=...)`` understated η(ε) where the partition has ±∞ masses.

With ``input_tail`` the cells' input error N·‖Δx‖₁ is charged per threshold (tradeoff/input_error.py), and the ±∞
atoms' term becomes min(caps' rounding, 2N·(q₊∞ + p₋∞)). But the filled pair's +∞ atom is 1 − Σ(composed finite
Q-mass) ≈ 1 − (Σ q̃)ᴺ, so a relative error r of the cells' masses moves it by ≈ N·r·Σq at *every* ε — which the
uniform N·‖Δx‖₁ used to cover and neither the per-threshold term (finite atoms above ε only) nor the caps' rounding
does once q₊∞ + p₋∞ exceeds the caps' rounding. The ±∞ term is now min(caps' rounding + the lemma's uniform term,
2N·(q₊∞ + p₋∞)). (The subsampled Gaussian's accountant is not affected: it adds
N·(q₊∞ + p₋∞) to η itself, composition/sgm_compose.py.)

Truth: beyond every finite composed loss, δ(ε) of the exact N-fold composition is its +∞ atom 1 − (1 − q₊∞)ᴺ
(closed form, evaluated in mpmath)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.tradeoff import Rounding
from dpcompare.tradeoff.compose_coarse import compose_coarsened
from dpcompare.tradeoff.grid import U, StepPartition, pessimistic_step, to_pair
from dpcompare.tradeoff.input_error import input_tail

mpmath = pytest.importorskip("mpmath", reason="the exact +∞ atom is evaluated in mpmath")


def test_per_threshold_input_error_covers_the_inf_atom():
    h, steps, r = 0.5, 4, 1e-6
    lam = np.array([-0.75, -0.25, 0.25, 0.75])  # cell losses (midpoints of the grid intervals of −1 … 1)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    q = p * np.exp(lam)
    q_fin = 0.99  # the partition's Q-mass at +∞ is 0.01
    scale = q_fin / q.sum()
    p, q = p * scale, q * scale
    q_inf, p_inf = 1.0 - q_fin, 1.0 - float(p.sum())
    # computed cells: Q-masses overstated by the relative error r (within the declared rel_err)
    lp, lq = np.log(p), np.log(q * (1.0 + r))
    rel = r * (1.0 + 1e-6) + 8 * U * (1.0 + np.maximum(np.abs(lp), np.abs(lq)))
    part = StepPartition(h, 0.0, -2, 2, np.arange(4), lp, lq, rel_err=rel, p_neg_inf=p_inf, q_pos_inf=q_inf)
    step = pessimistic_step(part)
    it = input_tail(part, steps, step)
    assert it is not None
    loss, clp, rep = compose_coarsened(step, steps, 1, tau=1e-60, workers=1, input_tail=it, tail_masses=())
    pair = to_pair(loss, clp, Rounding.PESSIMISTIC)
    eps = np.array([steps * 1.0 + 1.0])  # beyond every finite composed loss (≤ N·1)
    with mpmath.workdps(50):
        # the computed p, q differ from the intended ones by rounding only (~1e-16): far below the 4e-6 shortfall
        truth = float(1 - (1 - mpmath.mpf(q_inf)) ** steps)
    got = float(pair.delta(eps)[0] + rep.error_at(eps)[0])
    assert got >= truth * (1.0 - 1e-12), (got, truth, float(rep.error_at(eps)[0]))
