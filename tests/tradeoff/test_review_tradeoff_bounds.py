"""Review finding: ``DiscretePair.tradeoff_bounds`` upper end falls below the real f(α) of the stored pair at a
vertex followed (to its left) by a much steeper segment.

At α = the computed vertex a₁ the real vertex A₁ = e^{log p} may lie a rounding above it, so α is really on the
steep segment (slope s₁ = q/p), where f is higher by (A₁ − α)·s₁ ≈ u·q — while the bound charges only the flat
segment's slope. The docstring calls the upper end "first-order"; it is not a certified bound there. (The lower
end, the one a guarantee reads, is sound: f is convex.) Truth: f of the stored atoms (masses e^{log p} and
e^{exact log q}) in mpmath at 50 digits."""

from __future__ import annotations

import numpy as np
import pytest

from dpcompare.tradeoff.pair import DiscretePair

mpmath = pytest.importorskip("mpmath", reason="the real f of the stored pair is evaluated in mpmath")


def _real_f(pair: DiscretePair, alpha: float):
    """f(α) of the stored pair's real masses: vertices from the largest loss down (f(0) = Σq)."""
    lq = pair.exact_log_q if pair.exact_log_q is not None else pair.log_p + pair.loss
    p = [mpmath.exp(mpmath.mpf(float(x))) for x in pair.log_p]
    q = [mpmath.exp(mpmath.mpf(float(x))) for x in lq]
    a, b, al = mpmath.mpf(0), mpmath.fsum(q), mpmath.mpf(alpha)
    for pi, qi in zip(p[::-1], q[::-1]):
        if al <= a + pi:
            return b - (al - a) * (qi / pi)
        a, b = a + pi, b - qi
    return mpmath.mpf(0)


def test_tradeoff_upper_end_at_a_vertex_after_a_steep_segment():
    with mpmath.workdps(50):
        pair = DiscretePair.from_masses([1.0 - 1e-9, 1e-9], [1e-6, 1.0 - 1e-6])
        a, _ = pair.vertices
        alpha = float(a[1])  # the computed vertex after the steep atom (P = 1e-9, Q ≈ 1)
        lo, hi = pair.tradeoff_bounds(np.array([alpha]))
        truth = _real_f(pair, alpha)
        assert lo[0] <= truth  # the guarantee's end holds
        assert truth <= hi[0], (float(truth), float(hi[0]), float(truth - hi[0]))
