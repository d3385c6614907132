"""Exact N-fold composition of k-ary randomized response (dp-accounting's ``RandomizedResponseDpEvent``).

One step with noise p over k buckets (replace-one: inputs a ≠ b) outputs the input with probability
keep = 1 − p + p/k and each other bucket with probability o = p/k (the event's definition). The privacy
loss log q/p is −L at output a, +L at output b and 0 at the k − 2 others, L = log(keep/o). N independent
steps with i outputs a, j outputs b and r = N − i − j others have loss (j − i)·L and P-probability

    N!/(i! j! r!) · keepⁱ · oʲ · ((k − 2)·o)ʳ      (multinomial; binomial when k = 2, r = 0)

so the N-fold pair is exact: atoms m·L, m = j − i ∈ [−N, N], with the P-masses summed over i in log space
(O(N) terms for k = 2, O(N²) for k > 2), each with an a-priori error bound (:func:`compose_randomized_response`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from ..tradeoff import DiscretePair
from ..tradeoff.grid import U, StepPartition


def composed_randomized_response_pair(noise_parameter: float, num_buckets: int, count: int) -> DiscretePair:
    """The replace-one pair of ``count`` compositions of k-ary randomized response (module docstring), as
    :func:`compose_randomized_response` computes it (every δ and Bayes error within its η of the truth).

    >>> pair = composed_randomized_response_pair(0.5, 2, 20)   # ε(δ = 0) = 20·log 3
    >>> round(float(pair.epsilon(0.0)), 10) == round(20 * math.log(3), 10)
    True
    """
    return compose_randomized_response(noise_parameter, num_buckets, count)[0]


# ---------------------------------------------------------------------------------------------- with an error bound
_ELEM = 8.0 * U  # one numpy/math elementary function: within 4 ulp (directed_rounding.ELEM)


def _step_logs(p: float, k: int) -> dict[str, tuple[float, float]]:
    """The one-step log-probabilities as doubles with a bound of their absolute error: keep, o = p/k,
    rest = (k−2)·o, s = keep + o and the conditional o/s, keep/s (first-order, u per operation and
    ``_ELEM`` per logarithm; log1p(x) moves by |Δx|/(1 + x))."""
    lk = math.log1p(-p + p / k)
    x = -p + p / k
    out = {"keep": (lk, 1.01 * (U * p / k + U * abs(x)) / math.exp(lk) + _ELEM * abs(lk)),
           "other": (math.log(p / k), U + _ELEM * abs(math.log(p / k)))}
    if k > 2:
        xs = -(k - 2) * p / k
        ls = math.log1p(xs)
        lr = math.log((k - 2) * p / k)
        es = 1.01 * 2 * U * abs(xs) / math.exp(ls) + _ELEM * abs(ls)
        out["rest"] = (lr, 2 * U + _ELEM * abs(lr))
        out["s"] = (ls, es)
        for name, base in (("other|s", "other"), ("keep|s", "keep")):
            v = out[base][0] - ls
            out[name] = (v, out[base][1] + es + U * abs(v))
    return out


def _binomial_log_pmf_rows(n: np.ndarray, j: np.ndarray, log_pi: float, log_rho: float) -> tuple[np.ndarray, np.ndarray]:
    """``binomial.binomial_log_pmf`` for an array of n (element-wise with j, 0 ≤ j ≤ n, n ≥ 0): the same
    operations (Loader's form) and the same error bound, with n·π formed from the logs where π is not normal."""
    from .binomial import bd0, stirlerr

    n = np.asarray(n, dtype=float)
    j = np.asarray(j, dtype=float)
    inner = (j > 0) & (j < n)
    nn = np.where(n > 0, n, 1.0)
    jj = np.where(inner, j, nn / 2)
    log_n = np.log(nn)
    if log_pi > -700.0:
        b1, e1 = bd0(jj, log_n + log_pi, nn * math.exp(log_pi), 3 * U)
    else:
        b1, e1 = bd0(jj, log_n + log_pi)
    if log_rho > -700.0:
        b2, e2 = bd0(nn - jj, log_n + log_rho, nn * math.exp(log_rho), 3 * U)
    else:
        b2, e2 = bd0(nn - jj, log_n + log_rho)
    # log n carries ELEM relative: n·π and log(n·π) inherit it (bd0 moves by ≤ |x − m| per unit of log m)
    e_logn = 8 * U * log_n * (np.abs(jj - nn * math.exp(log_pi)) + np.abs(nn - jj - nn * math.exp(log_rho)))
    lf = math.log(2 * math.pi) + np.log(jj) + np.log1p(-jj / nn)
    table = stirlerr(np.arange(int(nn.max()) + 1, dtype=float))  # n, j integers: one evaluation each
    st = table[nn.astype(np.int64)] - table[jj.astype(np.int64)] - table[(nn - jj).astype(np.int64)]
    mid = st - b1 - b2 - 0.5 * lf
    mid_err = e1 + e2 + e_logn + 8 * U * (0.3 + np.abs(lf) + np.abs(mid)) + 4e-16
    edge = np.where(j <= 0, n * log_rho, n * log_pi)
    edge = np.where(n == 0, 0.0, edge)
    edge_err = 4 * U * np.abs(edge)
    return np.where(inner, mid, edge), np.where(inner, mid_err, edge_err)


def _group_logsumexp(t: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """log Σ e^{tᵢ} over each group [starts[g], starts[g] + counts[g]) of t: the group's maximum plus the log
    of Σ e^{tᵢ − max} (K positive terms: (K − 1)·u; each exp ELEM relative; the log ELEM·log K; the sum u)."""
    top = np.maximum.reduceat(t, starts)
    finite = np.isfinite(top)
    shift = np.repeat(np.where(finite, top, 0.0), counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        tot = np.add.reduceat(np.exp(t - shift), starts)
        return np.where(finite, top + np.log(tot), top)


def compose_randomized_response(noise_parameter: float, num_buckets: int, count: int) -> tuple[DiscretePair, float]:
    """(the N-fold pair, η): ``count`` compositions of k-ary randomized response, every δ(ε) and Bayes error R(π)
    of the returned pair within η of the true mechanism's (the η of composition/binomial.py).

    k = 2: the two-atom binomial composition (composition/binomial.py, Loader's form with its per-atom bound).
    k > 2: the multinomial split into nested binomials — c = i + j outputs in {a, b} is Bin(N, s),
    s = keep + o, and given c the b-count j is Bin(c, o/s) under P (Bin(c, keep/s) under Q) — so each atom
    m = j − i = 2j − c has log-masses logsumexp over c of log Bin(c; N, s) + log Bin(j; c, ·), each term with
    binomial.py's a-priori error (``binomial_log_pmf``), plus u per addition and the logsumexp's rounding
    ((K + 2)·u + 2·ELEM for K terms, u·|result|). η = Σ (e^{eᵢ} − 1)(pᵢ + qᵢ) + (n + 8)·u as in binomial.py.

    Both add the rounding of the one-step inputs: each composed log-mass is a sum of N one-step
    log-probabilities (errors ≤ e₁ each, ``_step_logs``) and each composed loss m·L̂ is off by ≤ N·(2e₁ + u·L),
    so every atom's masses are within a factor e^{1.01·N·e} (e = 2e₁ + u·L) of the true mechanism's:
    η += 2.02·(e^{1.01·N·e} − 1).

    >>> pair, eta = compose_randomized_response(0.5, 3, 10)
    >>> pair.size, bool(eta < 1e-12)
    (21, True)
    """
    from .binomial import binomial_log_pmf, binomial_window, compose_two_atoms

    p, k, n = float(noise_parameter), int(num_buckets), int(count)
    if not 0 < p < 1 or k < 2:
        raise ValueError(f"randomized response needs noise_parameter in (0, 1) and num_buckets >= 2, got {p}, {k}")
    if n < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    logs = _step_logs(p, k)
    lk, lo = logs["keep"][0], logs["other"][0]
    big_l = lk - lo
    e1 = max(e for _, e in logs.values())
    e_step = 2.0 * e1 + U * abs(big_l)
    eta_step = 2.02 * math.expm1(1.01 * n * e_step)
    if k == 2:
        one = DiscretePair.from_atoms(np.array([-big_l, big_l]), np.array([lk, lo]), p_neg_inf=0.0, q_pos_inf=0.0,
                                      log_q=np.array([lo, lk]))
        pair, eta = compose_two_atoms(one, n, input_error=0.0)  # the inputs' rounding: eta_step, from _step_logs
        return pair, eta + eta_step
    ls, lr = logs["s"][0], logs["rest"][0]
    lo_s, lk_s = logs["other|s"][0], logs["keep|s"][0]
    c_lo, c_hi = binomial_window(n, ls, lr)
    c_all = np.arange(n + 1, dtype=float)
    outer, outer_err = binomial_log_pmf(n, c_all, ls, lr)
    # every (c, j) with c in the window and 0 ≤ j ≤ c, flattened; c = 0 is the single atom m = 0, j = 0
    cs = np.arange(c_lo, c_hi + 1)
    sizes = cs + 1
    cc = np.repeat(cs, sizes).astype(float)
    jj = (np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)).astype(float)
    bp, ep = _binomial_log_pmf_rows(cc, jj, lo_s, lk_s)  # P: b (loss +L) with probability o/s
    # Q: b with probability keep/s, and Bin(j; c, keep/s) = Bin(c − j; c, o/s): the P row reversed
    mirror = (np.repeat(np.cumsum(sizes) - sizes, sizes) + (cc - jj)).astype(np.int64)
    bq, eq = bp[mirror], ep[mirror]
    oc, oe = outer[cc.astype(np.int64)], outer_err[cc.astype(np.int64)]
    tp, tq = oc + bp, oc + bq
    te = oe + np.maximum(ep + 4 * U * (np.abs(tp) + np.abs(oc) + np.abs(bp)), eq + 4 * U * (np.abs(tq) + np.abs(oc) + np.abs(bq)))
    idx_l, p_l, q_l, e_l = [(2 * jj - cc + n).astype(np.int64)], [tp], [tq], [te]
    idx = np.concatenate(idx_l)
    tp, tq, te = np.concatenate(p_l), np.concatenate(q_l), np.concatenate(e_l)
    order = np.argsort(idx, kind="stable")
    idx, tp, tq, te = idx[order], tp[order], tq[order], te[order]
    starts = np.flatnonzero(np.concatenate([[True], idx[1:] != idx[:-1]]))
    m_idx = idx[starts]
    counts = np.diff(np.append(starts, idx.size))
    log_p, log_q = _group_logsumexp(tp, starts, counts), _group_logsumexp(tq, starts, counts)
    err = (np.maximum.reduceat(te, starts) + (counts + 2) * U + _ELEM * (2 + np.log(counts + 1.0))
           + U * np.maximum(np.abs(log_p), np.abs(log_q)))
    loss = (m_idx - n).astype(float) * big_l
    err = 1.01 * (err + 2 * U * np.abs(loss))  # the loss m·L̂: one rounding (binomial.py's symmetric case)
    keep_atoms = np.isfinite(log_p) | np.isfinite(log_q)
    loss, log_p, log_q, err = loss[keep_atoms], log_p[keep_atoms], log_q[keep_atoms], err[keep_atoms]
    with np.errstate(over="ignore"):
        eta = float(np.sum(np.expm1(err) * (np.exp(log_p) + np.exp(log_q))))
    left_out = (c_hi - c_lo + 1) < n + 1
    eta += (loss.size + 8) * U + (5e-324 * (n + 1) ** 2 if left_out else 0.0)
    pair = DiscretePair(loss, log_p, 0.0, 0.0, exact_log_q=log_q)
    return pair, eta * (1 + 1e-6) + eta_step


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
        lq = lp + k * h
        # the log-stored masses' input error grows with |log m| (closed_form.log_mass_rel_error: a flat 8u is below
        # the rounding of log(p/k) alone once |log(p/k)| > 8), plus the 8u of this construction
        from .closed_form import log_mass_rel_error

        return StepPartition(h, 0.0, k_lo, k_hi, cell_k, lp, lq, rel_err=log_mass_rel_error(lp, lq) + 8 * U)


def randomized_response_lattice(noise_parameter: float, num_buckets: int) -> LatticePair:
    """One step of k-ary randomized response as a :class:`LatticePair` (module docstring: atoms −L, 0, +L)."""
    p, k = float(noise_parameter), int(num_buckets)
    if not 0 < p < 1 or k < 2:
        raise ValueError(f"randomized response needs noise_parameter in (0, 1) and num_buckets >= 2, got {p}, {k}")
    # 1 − p + p/k without cancellation for p ≥ ½ (as mechanisms.events.randomized_response_pair forms it)
    log_keep = math.log((1.0 - p) + p / k) if p >= 0.5 else math.log1p(-p + p / k)
    log_o = math.log(p / k)
    atoms = [(-1, log_keep)] + ([(0, math.log((k - 2) * p / k))] if k > 2 else []) + [(1, log_o)]
    return LatticePair(log_keep - log_o, tuple(a for a, _ in atoms), tuple(b for _, b in atoms))
