"""Exact N-fold composition of k-ary randomized response (dp-accounting's ``RandomizedResponseDpEvent``).

One step with noise p over k buckets (replace-one: inputs a ≠ b) outputs the input with probability
keep = 1 − p + p/k and each other bucket with probability o = p/k (the event's definition). The privacy
loss log q/p is −L at output a, +L at output b and 0 at the k − 2 others, L = log(keep/o). N independent
steps with i outputs a, j outputs b and r = N − i − j others have loss (j − i)·L and P-probability

    N!/(i! j! r!) · keepⁱ · oʲ · ((k − 2)·o)ʳ      (multinomial; binomial when k = 2, r = 0)

so the N-fold pair is exact: atoms m·L, m = j − i ∈ [−N, N], with the P-masses summed over i in log space
(O(N) terms for k = 2, O(N²) for k > 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from ..tradeoff import DiscretePair
from ..tradeoff.grid import U, StepPartition


def composed_randomized_response_pair(noise_parameter: float, num_buckets: int, count: int) -> DiscretePair:
    """The exact replace-one pair of ``count`` compositions of k-ary randomized response (module docstring).

    >>> pair = composed_randomized_response_pair(0.5, 2, 20)   # ε(δ = 0) = 20·log 3
    >>> round(float(pair.epsilon(0.0)), 10) == round(20 * math.log(3), 10)
    True
    """
    p, k, n = float(noise_parameter), int(num_buckets), int(count)
    if not 0 < p < 1 or k < 2:
        raise ValueError(f"randomized response needs noise_parameter in (0, 1) and num_buckets >= 2, got {p}, {k}")
    if n < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    log_keep, log_o = math.log1p(-p + p / k), math.log(p / k)
    big_l = log_keep - log_o
    lg_n = gammaln(n + 1.0)
    if k == 2:
        j = np.arange(n + 1, dtype=float)
        log_p = lg_n - gammaln(j + 1) - gammaln(n - j + 1) + j * log_o + (n - j) * log_keep
        m = 2 * j - n
    else:
        log_rest = math.log((k - 2) * p / k)
        i = np.arange(n + 1, dtype=float)[:, None]
        j = np.arange(n + 1, dtype=float)[None, :]
        r = n - i - j
        with np.errstate(invalid="ignore"):
            terms = np.where(r >= 0, lg_n - gammaln(i + 1) - gammaln(j + 1) - gammaln(np.maximum(r, 0) + 1)
                             + i * log_keep + j * log_o + np.maximum(r, 0) * log_rest, -np.inf)
        # m = j − i: sum the anti-diagonals
        m = np.arange(-n, n + 1, dtype=float)
        log_p = np.full(m.size, -np.inf)
        ii, jj = np.nonzero(np.isfinite(terms))
        idx = (jj - ii + n).astype(np.int64)
        vals = terms[ii, jj]
        order = np.argsort(idx, kind="stable")
        idx, vals = idx[order], vals[order]
        starts = np.flatnonzero(np.concatenate([[True], idx[1:] != idx[:-1]]))
        ends = np.append(starts[1:], idx.size)
        for s0, e0 in zip(starts, ends):
            log_p[idx[s0]] = logsumexp(vals[s0:e0])
    keep = np.isfinite(log_p)
    return DiscretePair.from_atoms(m[keep] * big_l, log_p[keep], p_neg_inf=0.0, q_pos_inf=0.0)


# ---------------------------------------------------------------------------------------------- many steps, k > 2
@dataclass(frozen=True)
class LatticePair:
    """A one-step discrete pair whose losses are integer multiples kᵢ·u of a unit u (randomized response:
    −L, 0, +L), in the interface :func:`~dpcompare.composition.gaussian_mixture.compose_mixture` composes.
    On the grid g_k = k·u the atoms *are* grid points, so the split and the merge (tradeoff/compose.py steps
    2–3) are the identity and the N-fold composition is exact up to the FFT's certified error bound."""

    unit: float
    multiples: tuple[int, ...]
    log_p: tuple[float, ...]
    extra_error: float = 0.0

    @property
    def dominating_mu(self) -> float:
        return math.inf  # no Gaussian cap is used for a lattice pair

    @property
    def lattice_unit(self) -> float:
        return self.unit

    def loss_std(self) -> float:
        ell = np.array(self.multiples, dtype=float) * self.unit
        q = np.exp(np.array(self.log_p) + ell)
        m1 = float(np.sum(q * ell))
        return math.sqrt(max(float(np.sum(q * ell * ell)) - m1 * m1, 1e-300))

    def loss_range(self, tail: float) -> tuple[float, float]:
        return min(self.multiples) * self.unit, max(self.multiples) * self.unit

    def partition(self, h: float, *, sub: int = 4, tail: float = 1e-30) -> StepPartition:
        m = round(self.unit / h)
        if m < 1 or abs(m * h - self.unit) > 1e-12 * self.unit:
            raise ValueError(f"a lattice pair needs a grid spacing unit/m (unit {self.unit:g}), got {h:g}")
        k = np.array(self.multiples, dtype=np.int64) * m
        k_lo, k_hi = int(k.min()) - 1, int(k.max())
        # atom kᵢ·h lies in the grid interval (g_{kᵢ−1}, g_{kᵢ}]
        cell_k = k - 1 - k_lo
        lp = np.array(self.log_p, dtype=float)
        return StepPartition(h, 0.0, k_lo, k_hi, cell_k, lp, lp + k * h, rel_err=8 * U)


def randomized_response_lattice(noise_parameter: float, num_buckets: int) -> LatticePair:
    """One step of k-ary randomized response as a :class:`LatticePair` (module docstring: atoms −L, 0, +L)."""
    p, k = float(noise_parameter), int(num_buckets)
    if not 0 < p < 1 or k < 2:
        raise ValueError(f"randomized response needs noise_parameter in (0, 1) and num_buckets >= 2, got {p}, {k}")
    log_keep, log_o = math.log1p(-p + p / k), math.log(p / k)
    atoms = [(-1, log_keep)] + ([(0, math.log((k - 2) * p / k))] if k > 2 else []) + [(1, log_o)]
    return LatticePair(log_keep - log_o, tuple(a for a, _ in atoms), tuple(b for _, b in atoms))
