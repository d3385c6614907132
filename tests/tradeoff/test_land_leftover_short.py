"""``grid._land_leftover`` when the partners run out a little short of the need: the remainder (at most 1e-9 of the
need, above the snap level) is put on g as it is, and the Q-mass this changes, need_left·need·e^g, is returned to be
charged to the step's error — it was neither snapped, charged nor refused before. Hand-built case: grid −1, 0, 1, 2
(h = 1); a leftover atom at λ = ½ with P-mass 0.1 lands on g = 0 and needs 0.1·(e^{½} − 1) of P-units from below; the
one partner, at −1, can give (1 − 1e-12) of that."""

import math

import numpy as np

from dpcompare.tradeoff.grid import SNAP, _land_leftover


def _case(short: float):
    need = 0.1 * math.expm1(0.5)
    p_partner = need * (1.0 - short) / -math.expm1(-1.0)  # its capacity at g = 0: P·(1 − e^{−1})
    out = np.array([math.log(p_partner), -math.inf, -math.inf, -math.inf])
    snap = _land_leftover(out, np.array([math.log(0.1)]), np.array([0.5]), 1.0, 0.0, -1, 2)
    return need, out, snap


def test_a_short_remainder_is_charged():
    need, out, snap = _case(1e-12)
    assert 1e-12 * need > SNAP  # above the snap level: the branch that returned 0 before
    assert math.isclose(snap, 1e-12 * need, rel_tol=1e-3)  # need_left·need·e^g, g = 0
    # the partner went whole into the atom at g = 0, which holds the leftover's and the partner's P-mass
    assert out[0] == -math.inf and math.isclose(math.exp(out[1]), 0.1 + need / -math.expm1(-1.0), rel_tol=1e-9)


def test_an_exact_balance_charges_nothing_beyond_rounding():
    need, _, snap = _case(0.0)
    assert snap <= SNAP
