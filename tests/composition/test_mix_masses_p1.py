"""``sgm_step._mix_masses`` at p = 1 (Q = P₁: the random-allocation and closed-form routes partition with p = 1): a
cell where P₁ = 0 keeps its finite log P (it read log P₁·0 + log P = NaN before), and Q is P₁ as it is."""

import numpy as np

from dpcompare.composition.sgm_step import _mix_masses


def test_p_one_keeps_log_p_where_q_is_zero():
    log_p, log_q, rel = _mix_masses(np.array([-1.0, -2.0]), np.array([1e-15, 2e-15]), np.array([-np.inf, -3.0]),
                                    np.array([0.0, 3e-15]), 1.0)
    np.testing.assert_array_equal(log_p, [-1.0, -2.0])
    np.testing.assert_array_equal(log_q, [-np.inf, -3.0])
    np.testing.assert_array_equal(rel, [1e-15, 3e-15])
