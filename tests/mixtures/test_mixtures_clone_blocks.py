"""The √w-quantile blocks of the clone-count bracket (mixtures/clone_pairs.py, step 2): a valid partition
of the bulk whatever the law, and blocks narrow where C has its mass."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dpcompare.mixtures.clone_pairs import block_starts, clone_count_pairs


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=-800.0, max_value=0.0), min_size=1, max_size=300),
    st.integers(min_value=1, max_value=400),
)
def test_block_starts_partition_the_bulk(log_w, components):
    starts = block_starts(np.array(log_w), components)
    assert starts[0] == 0 and starts[-1] < len(log_w)
    assert np.all(np.diff(starts) > 0)  # strictly increasing: no empty block
    assert starts.size <= min(components, len(log_w))


def test_blocks_are_narrow_at_the_mode_and_wide_in_the_tails():
    # C ~ Bin(10⁶, 0.54) on ±10 standard deviations, 8 blocks: equal shares of √w (the module's rule,
    # recomputed here from scipy's pmf) put the narrowest blocks around the mean
    m, p = 10**6, 0.54
    sd = math.sqrt(m * p * (1 - p))
    c = np.arange(int(m * p - 10 * sd), int(m * p + 10 * sd) + 1)
    log_w = binom.logpmf(c, m, p)
    starts = block_starts(log_w, 8)
    widths = np.diff(np.append(starts, c.size))
    centre = int(np.argmin(np.abs(c[starts] + widths / 2 - m * p)))
    assert widths[centre] == widths.min() and widths[0] > 2 * widths[centre] and widths[-1] > 2 * widths[centre]
    root = np.sqrt(binom.pmf(c, m, p))
    shares = np.add.reduceat(root, starts) / root.sum()
    assert np.all(np.abs(shares - 1 / 8) < 0.01)  # equal shares of √w, up to one count per edge


def test_few_atoms_still_bracket_the_exact_pair():
    # 3 000 atoms per pair (two components) at n = 1200: the bracket holds the exact pair of every clone count
    n, w2 = 1200, 2 / (math.e + 1)
    exact, _, _ = clone_count_pairs(n, w2)
    pess, opt, plan = clone_count_pairs(n, w2, max_atoms=3000, exact_atoms=0)
    assert not plan.exact and plan.components >= 1
    eps = np.linspace(0.0, 2.0, 41)
    assert np.all(opt.delta(eps) <= exact.delta(eps) + 1e-15)
    assert np.all(exact.delta(eps) <= pess.delta(eps) + 1e-15)
