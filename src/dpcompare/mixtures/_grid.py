"""Pairs on a uniform loss grid {k·h : |k| ≤ K} and their composition by convolution.

A pair whose finite losses all lie on the grid composes exactly by convolving P-masses (losses add,
and q = p·e^ℓ is multiplicative), so T-fold composition is repeated squaring of a dense vector.
Moving a pair onto the grid must keep its rounding:

- ``split_to_grid`` (pessimistic, any pair): each atom is split onto the two grid points around it,
  keeping its P- and Q-mass (``_discretize._split``); atoms beyond ±K·h are split onto (K·h, +∞) or
  (−∞, −K·h). Splitting is the inverse of merging, so the result dominates the input.
- ``merge_to_grid`` (optimistic, *symmetric* pairs): an atom A at ℓ > 0 with masses (p, q) and its
  mirror A′ at −ℓ with (q, p) exchange labels with probability θ, a post-processing; with
  θ = (q − e^{λ}p)/((q − p)(1 + e^{λ})) the relabelled A lands exactly on the grid point λ ≤ ℓ below
  it (A′ on −λ). Atoms beyond K·h land on K·h; the +∞ atom (p = 0) is handled by the same formula.

``compose`` applies the same truncation after every convolution, so both sides stay certified.
Masses that underflow in the convolution are accounted as ±∞ in the pessimistic pair.
"""

from __future__ import annotations

import math

import numpy as np

from ..tradeoff import DiscretePair, Rounding
from ._discretize import _split


def _dense(pair: DiscretePair, h: float, K: int) -> np.ndarray:
    """P-masses of a pair whose atoms are on the grid, as a vector indexed k + K."""
    k = np.rint(pair.loss / h).astype(np.int64)
    if pair.size and (np.max(np.abs(pair.loss - k * h)) > 1e-9 * h or np.max(np.abs(k)) > K):
        raise ValueError("the pair is not on the grid")
    out = np.zeros(2 * K + 1)
    np.add.at(out, k + K, pair.p)
    return out


def _to_pair(p: np.ndarray, h: float, K: int, p_neg: float, q_pos: float, rounding: Rounding) -> DiscretePair:
    k = np.arange(-K, K + 1)
    keep = p > 0
    loss = k[keep] * h
    log_p = np.log(p[keep])
    if rounding is Rounding.PESSIMISTIC:
        total_p = math.fsum(p[keep].tolist())
        total_q = math.fsum(np.exp(log_p + loss).tolist())
        p_neg = max(p_neg, 1.0 - total_p)  # underflowed mass: perfectly distinguishable
        q_pos = max(q_pos, 1.0 - total_q)
    return DiscretePair(loss, log_p, min(max(p_neg, 0.0), 1.0), min(max(q_pos, 0.0), 1.0), rounding)


def split_to_grid(pair: DiscretePair, h: float, K: int) -> tuple[np.ndarray, float, float]:
    """Pessimistic: (dense P-masses, P-mass at −∞, Q-mass at +∞) on the grid k·h, |k| ≤ K."""
    out = np.zeros(2 * K + 1)
    p_neg, q_pos = pair.p_neg_inf, pair.q_pos_inf
    loss, lp = pair.loss, pair.log_p
    top, bottom = K * h, -K * h
    inside = (loss >= bottom) & (loss <= top)
    j = np.floor(loss[inside] / h).astype(np.int64)
    j = np.minimum(j, K - 1)  # ℓ = K·h exactly splits onto [(K−1)h, Kh] with p_lo = 0
    lo, hi = j * h, (j + 1) * h
    l_lo, l_hi, excess = _split(lo, hi, lp[inside], lp[inside] + loss[inside])
    np.add.at(out, j + K, np.exp(l_lo))
    np.add.at(out, j + 1 + K, np.exp(l_hi))
    q_pos += excess
    above = loss > top  # onto (K·h, +∞): P-mass at K·h, the Q-excess at +∞
    if np.any(above):
        out[2 * K] += float(np.sum(np.exp(lp[above])))
        q_pos += float(np.sum(np.exp(lp[above] + loss[above]) - np.exp(lp[above] + top)))
    below = loss < bottom  # onto (−∞, −K·h): all Q-mass at −K·h, the P-excess at −∞
    if np.any(below):
        lq = lp[below] + loss[below]
        out[0] += float(np.sum(np.exp(lq - bottom)))
        p_neg += float(np.sum(np.exp(lp[below]) - np.exp(lq - bottom)))
    return out, p_neg, q_pos


def _theta(l: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Relabelling probability that moves an atom at ℓ > 0 (with its mirror) down to λ ∈ [0, ℓ]."""
    with np.errstate(over="ignore", invalid="ignore"):
        num = -np.expm1(lam - l)  # (q − e^λ p)/q with q/p = e^ℓ
        den = -np.expm1(-l) * (1.0 + np.exp(lam))  # (q − p)(1 + e^λ)/q
        th = np.where(np.isinf(l), 1.0 / (1.0 + np.exp(lam)), num / den)
    # θ ∈ [0, ½] whenever 0 ≤ λ ≤ ℓ; the clip only removes floating-point excursions of a few ulp
    return np.clip(th, 0.0, 0.5)


def merge_to_grid(pair: DiscretePair, h: float, K: int) -> tuple[np.ndarray, float, float]:
    """Optimistic, for a symmetric pair: (dense P-masses, P at −∞, Q at +∞) on the grid, |k| ≤ K.

    Only the atoms with ℓ ≥ 0 (and the +∞ atom) are read; the negative half is their mirror image.
    """
    out = np.zeros(2 * K + 1)
    pos = pair.loss > 0
    loss = np.append(pair.loss[pos], np.inf if pair.q_pos_inf > 0 else np.empty(0))
    p = np.append(pair.p[pos], 0.0 if pair.q_pos_inf > 0 else np.empty(0))
    q = np.append(pair.q[pos], pair.q_pos_inf if pair.q_pos_inf > 0 else np.empty(0))
    j = np.minimum(np.floor(np.where(np.isinf(loss), K, loss / h)), K).astype(np.int64)
    lam = j * h
    th = _theta(loss, lam)
    new_p = (1.0 - th) * p + th * q  # P-mass of the relabelled A at λ; its Q-mass is new_p·e^λ
    np.add.at(out, j + K, new_p)
    np.add.at(out, K - j, new_p * np.exp(lam))  # the mirror A′ at −λ has P-mass = A's Q-mass
    zero = pair.loss == 0  # atoms at ℓ = 0 stay
    out[K] += float(np.sum(pair.p[zero]))
    return out, 0.0, 0.0


def _truncate(c: np.ndarray, h: float, K: int, p_neg: float, q_pos: float, rounding: Rounding) -> tuple[np.ndarray, float, float]:
    """Cut a dense vector of half-length 2K back to K, the tails accounted as in split/merge."""
    mid = (c.size - 1) // 2
    k = np.arange(-mid, mid + 1)
    inner = c[mid - K : mid + K + 1].copy()
    hi_tail, lo_tail = k > K, k < -K
    if rounding is Rounding.PESSIMISTIC:
        ph = c[hi_tail]
        inner[-1] += float(np.sum(ph))
        with np.errstate(divide="ignore"):
            lph = np.log(ph)
        q_pos += float(np.sum(np.exp(lph + k[hi_tail] * h) - np.exp(lph + K * h)))
        pl = c[lo_tail]
        with np.errstate(divide="ignore"):
            lql = np.log(pl) + k[lo_tail] * h
        inner[0] += float(np.sum(np.exp(lql + K * h)))
        p_neg += float(np.sum(pl - np.exp(lql + K * h)))
    else:
        ph = c[hi_tail]
        l = k[hi_tail] * h
        th = _theta(l, np.full(l.shape, K * h))
        with np.errstate(divide="ignore"):
            qh = np.exp(np.log(ph) + l)  # Q-masses of the tail atoms (≤ 1: no overflow)
        new_p = (1.0 - th) * ph + th * qh
        inner[-1] += float(np.sum(new_p))
        inner[0] += float(np.sum(new_p)) * math.exp(K * h)
    return inner, p_neg, q_pos


def compose(pair: DiscretePair, steps: int, h: float, K: int) -> DiscretePair:
    """T-fold composition of a pair on the grid (repeated squaring with exact direct convolution)."""
    rounding = pair.rounding
    base = (_dense(pair, h, K), pair.p_neg_inf, pair.q_pos_inf)
    unit = np.zeros(2 * K + 1)
    unit[K] = 1.0
    result = (unit, 0.0, 0.0)

    def mul(a, b):
        c = np.convolve(a[0], b[0])
        pn = a[1] + b[1] - a[1] * b[1]
        qp = a[2] + b[2] - a[2] * b[2]
        return _truncate(c, h, K, pn, qp, rounding)

    t = int(steps)
    while t:
        if t & 1:
            result = mul(result, base)
        t >>= 1
        if t:
            base = mul(base, base)
    return _to_pair(*result[:1], h, K, result[1], result[2], rounding)


def grid_pair(dense: tuple[np.ndarray, float, float], h: float, K: int, rounding: Rounding) -> DiscretePair:
    """A DiscretePair from (dense P-masses, P at −∞, Q at +∞)."""
    return _to_pair(dense[0], h, K, dense[1], dense[2], rounding)
