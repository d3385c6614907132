"""The input error of the certified composition, per threshold: the relative errors of one step's cell masses
carried through N steps (the input term of steps 6, 7 and 7′ of :mod:`dpcompare.tradeoff.compose`).

The cells' closed-form masses (P(c), Q(c)) are known to a *relative* error r_c (step 1). The uniform input
term charges their effect at every ε; but a relative error of the inputs moves δ(ε) only in proportion to the
mass the composition puts above ε, which is what this module bounds.

Lemma (cell perturbation through the split and N steps)
-------------------------------------------------------
Let C be the exact cells and C̃ the computed ones, p̃ = p(1 + α), q̃ = q(1 + β₀), |α|, |β₀| ≤ r_c. Step 2 splits
the cell (p̃, p̃·e^{λ'}) with λ' = clip(fl(log q̃ − log p̃)) onto the ends g_lo < g_hi = g_lo + h of its interval,
i.e. the cell C̃' = (p̃, q̃') with q̃' = q̃·e^{λ' − (log q̃ − log p̃)}: |q̃'/q − 1| ≤ b_c := (1 + r_c)·e^{|λ' − λ̂| + u|λ̂|} − 1
(λ̂ the computed difference; clipping and its rounding are the exponent), and |p̃/p − 1| ≤ a_c := r_c. Write A
for the Q-law (on the loss axis) of the exact split T(C) of the exact cells — the pessimistic step the true
mechanism is a post-processing of — and B for that of the exact split of C̃' (the ±∞ masses are the tails' in
both).

1. *One cell.* The split puts q_hi = (q − p·e^{g_lo})/(1 − e^{−h}) at g_hi and q − q_hi at g_lo (linear in
   (p, q)). So D_c = A_c − B_c puts Δq_c at g_lo and Δq_hi on the difference of the two ends, with
   |Δq_c| ≤ b_c·q_c and |Δq_hi|·(1 − e^{−h}) = |Δq − Δp·e^{g_lo}| ≤ (a_c + b_c)·q_c (p·e^{g_lo} ≤ p·e^{λ} = q).
   For φ with 0 ≤ φ ≤ 1, φ = 0 below a point y and |φ(z + h) − φ(z)| ≤ (1 − e^{−h})(1 + h) — every
   δ-functional f_ε(L) = (1 − e^{ε−L})₊ (y = ε; it is 1-Lipschitz with increments ≤ 1 − e^{−h}) and every
   Bayes-error functional min(π·e^{−L}, 1 − π) (1-Lipschitz; h ≤ (1 − e^{−h})(1 + h)) — this gives
   |∫φ(x + ·) dD_c| ≤ ρ_c·1[x + g_hi > y], ρ_c = (a_c + 2b_c)(1 + h)·q_c.
   The P-side (the swap's δ reads P-masses below −ε through (1 − e^{ε+L})₊) is the mirror image with
   ρᴾ_c = (2a_c + b_c)(1 + h)·p_c, supported where x + g_lo < −ε.
2. *The step's own rounding.* S (the float step, as the FFT reads it) differs from B atom by atom; |S_i − B_i| is
   *measured* (:func:`_split_rounding`: B recomputed in 80-bit precision, with a bound on that computation), so
   B − S is a signed measure with |B − S| ≤ W_r = Σᵢ |Dᵢ|·δ_{gᵢ}. (The offset x = λ' − g_lo is taken against the
   exact grid point; its rounding moves the effective cell's loss by ≤ 4u(|g_lo| + h), which is in b_c.)
3. *N steps.* A^{*N} − S^{*N} = Σⱼ A^{*j} * (A − B) * B^{*(N−1−j)} + Σⱼ B^{*j} * (B − S) * S^{*(N−1−j)} (telescoping),
   so for φ as in 1 (and non-decreasing, as f_ε is)
   |∫φ d(A^{*N} − S^{*N})| ≤ Σⱼ ∫ (ν_j * W)(φ), W = W_c + W_r, W_c = Σ_c ρ_c·δ_{g_hi(c)},
   with each ν_j a product of N − 1 factors among A, B, S. Let B̂ put each cell's whole mass q̃'_c at g_hi(c)
   (and the tails at their atoms). A_c and B_c are below B̂_c in the order of non-decreasing functionals (each
   moves its lower atom up to g_hi; q_c ≤ q̃'_c/(1 − β), β = max_c max(a_c, b_c)), S ≤ B + W_r, and that order
   is preserved by convolution with positive measures; so every factor is dominated by ν̄ = (B̂ + W_r)/(1 − β)
   and the error is ≤ N·(ν̄^{*(N−1)} * W)(L > y) ≤ N·min(ν̄(ℝ)^{N−1}·W(ℝ), min_s e^{−s·y}·M_ν̄(s)^{N−1}·M_W(s))
   (uniformly; Chernoff), M the moment generating functions Σ mass·e^{s·g}, evaluated as upper bounds with
   their rounding (:func:`_log_mgf`) on the exponents of the far-tail passes (:mod:`~dpcompare.tradeoff.compose_jump`,
   whose reader ``jump_bulk_bound`` adds the rounding of s·y). The P-side is the mirror image (B̌: each cell's
   P-mass at g_lo(c); non-increasing functionals; tails below −ε).
4. *Read-out.* The pair's δ(ε) reads composed atoms above ε, the coarse split of step 8 (factor F, H = F·h)
   reads fine atoms within H: the functional it applies to the fine law is 1-Lipschitz, ≤ 1, non-decreasing
   and zero below ε − H (the split's δ interpolates linearly in e^{−L} between the coarse points), so y = ε − H.

*The ±∞ atoms.* The exact step T(C) is a probability pair (the cells and tails partition the loss axis and
the split preserves mass), so its N-fold composition has ±∞ masses ≤ N·(q₊∞ + p₋∞) of the step; the
filled pair's are ≥ 0. That replaces the caps' rounding (:func:`~dpcompare.tradeoff.compose.composed_mass_caps`,
≈ N·25u) by N·(q₊∞ + p₋∞), charged here twice over (a factor 2 for the tails' own closed-form error).

Tested against an mpmath composition of exactly split exact cells, with adversarially perturbed inputs and with
exact ones (rounding only): ``tests/tradeoff/test_input_error.py``; random cases: ``benchmarks/audit_far_tail.py
--input``.

>>> import numpy as np
>>> from dpcompare.tradeoff.grid import StepPartition
>>> lp = np.log([0.4, 0.3, 0.2, 0.1])  # four cells of width 0.1 on −0.2 … 0.2, losses at their midpoints
>>> part = StepPartition(0.1, 0.0, -2, 2, np.arange(4), lp, lp + np.array([-0.15, -0.05, 0.05, 0.15]), rel_err=1e-12)
>>> it = input_tail(part, 10)
>>> bool(it.at(np.array([0.0]))[0] <= it.uniform) and bool(it.at(np.array([5.0]))[0] < 1e-30)
True
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .compose_jump import _S_GRID, jump_bulk_bound
from .grid import U, StepPartition

#: terms in the moment generating function of B̂, B̌ aimed at (runs of cells are blocked: a looser, valid bound)
MGF_BLOCKS = 4096
#: largest (N + 1)·β for which the per-threshold input term is offered (growth factor ≤ e^{0.0102})
MAX_GROWTH_ARG = 0.01


@dataclass(frozen=True, eq=False)
class InputTail:
    """The input term of the lemma above for one N: ``uniform`` (every ε, every Bayes error) and, per ε, the
    Chernoff bounds of N·(ν̄^{*(N−1)} * W) above ε − H and below −ε + H (H = ``shift``), whose log moment generating
    functions (times N, with log N) are ``log_mgf_q``/``log_mgf_p``; ``replaced`` is the part of the step's ``err``
    this term takes over (the cells' share Σ_c (p + q)·r_c, or all of it when the step's rounding is measured)."""

    uniform: float
    log_mgf_q: np.ndarray
    log_mgf_p: np.ndarray
    log_mass: float
    shift: float
    replaced: float

    def at(self, eps) -> np.ndarray:
        """min(uniform, max(tail bounds at ε − H and −ε + H)): the input error of δ(ε) and the swap's δ(ε)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        e = np.where(np.isfinite(eps), eps, 1e300)
        cap = math.exp(min(self.log_mass, 700.0))
        g_q = jump_bulk_bound(self.log_mgf_q, e, self.shift, 1.0, upper=True)
        g_p = jump_bulk_bound(self.log_mgf_p, -e, self.shift, 1.0, upper=False)
        tail = np.minimum(np.maximum(g_q, g_p), cap)
        return np.minimum(self.uniform, tail * (1.0 + 1e-12))

    def shifted(self, by: float) -> "InputTail":
        """The same bound read through a split onto a grid coarser by H = ``by`` (lemma, part 3)."""
        return dataclasses.replace(self, shift=self.shift + by)


def _log_mgf(mass: np.ndarray, g: np.ndarray, steps: int, sign: float, horizon: int | None = None) -> np.ndarray:
    """N·log Σⱼ massⱼ·e^{±s·gⱼ} at every s of the far-tail passes' grid, rounded up: the terms vⱼ = log massⱼ ± s·gⱼ err
    by ≤ 3u·(|log mass| + s|g|) (absolute in log space), the shift by the row maximum by 2u of that, the exponentials
    2u and the sum of n terms n·u relative, the log and the addition 2u·|log Σ|; then ×N, and 2u of the result.
    Entries within bins of 0.25/``horizon`` nats are merged at the bin's worst end (largest g for +, smallest for −):
    still an upper bound, and raised to the power ``horizon`` it moves by ≤ 0.25·s in log (a looser, valid bound of
    a term that is tiny against δ where it matters)."""
    s = _S_GRID
    fin = (mass > 0.0) & np.isfinite(mass)
    mass, g = mass[fin], g[fin]
    if mass.size == 0:
        return np.full(s.size, -np.inf)
    width = 0.25 / max(int(horizon or steps), 1)
    key = np.floor((g - float(np.min(g))) / width).astype(np.int64)
    if int(key.max()) + 1 < mass.size:  # fewer bins than entries: merge
        order = np.argsort(key, kind="stable")
        key, mass, g = key[order], mass[order], g[order]
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        g = (np.maximum if sign > 0 else np.minimum).reduceat(g, starts)
        mass = np.add.reduceat(mass, starts) * (1.0 + mass.size * U)
    lm = np.log(mass)
    big = float(np.max(np.abs(lm))) + s * float(np.max(np.abs(g)))
    out = np.empty(s.size)
    rows = max(1, (1 << 21) // mass.size)
    with np.errstate(over="ignore", under="ignore"):
        for i in range(0, s.size, rows):
            v = lm[None, :] + sign * s[i : i + rows, None] * g[None, :]
            m = np.max(v, axis=1)
            out[i : i + rows] = m + np.log(np.sum(np.exp(v - m[:, None]), axis=1))
    out = steps * (out + 8 * U * big + (mass.size + 8) * U + 2 * U * np.abs(out))
    return out + 2 * U * np.abs(out)


def _tails(part: StepPartition) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tails as step 2 places them, as pseudo-cells of B̂ and B̌ (Q-mass, its loss; P-mass, its loss): the lower
    tail keeps its Q-mass at g_lo, the upper tail its P-mass at g_hi (the same atoms in A, B and the step)."""
    mq, gq, mp, gp = [], [], [], []
    g0, g1 = float(part.grid(part.k_lo)), float(part.grid(part.k_hi))
    lq = part.tail_lo[1]
    if np.isfinite(lq):
        mq.append(math.exp(lq)); gq.append(g0)
        mp.append(math.exp(min(lq - g0, 700.0))); gp.append(g0)
    lp = part.tail_hi[0]
    if np.isfinite(lp):
        mq.append(math.exp(min(lp + g1, 700.0))); gq.append(g1)
        mp.append(math.exp(lp)); gp.append(g1)
    up = 1.0 + 8 * U * (2.0 + abs(g0) + abs(g1))
    return np.array(mq) * up, np.array(gq), np.array(mp) * up, np.array(gp)


def _split_rounding(part: StepPartition, step, k: np.ndarray, lp: np.ndarray, lam: np.ndarray,
                    p_t: np.ndarray, q_t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The step's own rounding against B, measured per atom: (|D| in P, |D| in Q, the atoms' losses), or None
    without 80-bit floats.

    B = the exact split of the effective cells (p̃, p̃·e^{λ_eff}), λ_eff = g_lo + x with g_lo = o + k·h exact and x
    the clipped offset as evaluated here (|λ_eff − λ'| ≤ 4u(|g_lo| + h) is in b_c), is recomputed in 80-bit
    precision (ε = 2⁻⁶⁴): exp, expm1, the division and product ≲ 8ε relative each, the sum of the c contributions
    of an atom c·ε, x − h an absolute ε·h (≤ 2ε(1 + h) of the cell's P-mass on w_lo), e^{g} 2ε(1 + |g|); allowed:
    ε·(32 + 4c)(1 + h)·(B + Σ contributing cells) in P, plus ε·(8 + 8|g|)·B in Q. |D_i| = |x_i − B_i| + that, x the
    FFT's float inputs exactly as ``compose_coarsened`` forms them. Then B − S is a signed measure with
    |B − S| ≤ W_r = Σᵢ |Dᵢ|·δ_{gᵢ}, and part 2 of the lemma applies to it with W_r in place of Σ_c ρ_c δ_{g_hi(c)}."""
    ld = np.longdouble
    if float(np.finfo(ld).eps) > 1.1e-19 or step.log_p.size != part.size or step.k_lo != part.k_lo:
        return None
    with np.errstate(all="ignore"):  # overflow (losses beyond ~11000) ends in a non-finite |D|: None
        return _split_rounding_ld(part, step, k, lp, lam, p_t, q_t)


def _split_rounding_ld(part, step, k, lp, lam, p_t, q_t):
    """:func:`_split_rounding`'s computation."""
    ld = np.longdouble
    e_x = float(np.finfo(ld).eps) / 2
    size = part.size
    o, hl = ld(part.offset), ld(part.h)
    g_lo = o + (ld(part.k_lo) + k.astype(ld)) * hl
    x = np.clip(lam.astype(ld) - g_lo, ld(0), hl)
    w_hi = np.expm1(x) / np.expm1(hl)
    w_lo = np.expm1(x - hl) / np.expm1(-hl)
    pc = np.exp(lp.astype(ld))
    bp = np.zeros(size, dtype=ld)
    if k.size:  # k is non-decreasing (StepPartition): segment sums of the two ends
        starts = np.flatnonzero(np.concatenate([[True], k[1:] != k[:-1]]))
        bp[k[starts]] += np.add.reduceat(pc * w_lo, starts)
        bp[k[starts] + 1] += np.add.reduceat(pc * w_hi, starts)
    near = np.bincount(k, weights=p_t, minlength=size) + np.bincount(k + 1, weights=p_t, minlength=size)
    near_q = np.bincount(k, weights=q_t, minlength=size) + np.bincount(k + 1, weights=q_t, minlength=size)
    cnt = np.bincount(k, minlength=size) + np.bincount(k + 1, minlength=size)
    g0 = o + ld(part.k_lo) * hl
    tlq = part.tail_lo[1]
    if np.isfinite(tlq):
        bp[0] += np.exp(ld(tlq) - g0)
        cnt[0] += 1
    thp = part.tail_hi[0]
    if np.isfinite(thp):
        bp[-1] += np.exp(ld(thp))
        cnt[-1] += 1
    g = o + (ld(part.k_lo) + np.arange(size).astype(ld)) * hl
    with np.errstate(over="ignore"):
        bq = bp * np.exp(g)
    gf = np.abs(g.astype(float))
    err_p = e_x * (32.0 + 4.0 * cnt) * (1.0 + part.h) * (bp.astype(float) + near)
    with np.errstate(over="ignore", invalid="ignore"):
        err_q = err_p * np.exp(g.astype(float)) + e_x * (8.0 + 8.0 * gf) * bq.astype(float)
        # the FFT's inputs (compose_coarse.compose_coarsened forms them so)
        fin = np.isfinite(step.log_p)
        xp = np.where(fin, np.exp(step.log_p), 0.0)
        xq = np.exp(step.log_p + step.losses)
        xq = np.where(fin & np.isfinite(xq), xq, 0.0)
        d_p = np.abs(xp.astype(ld) - bp).astype(float) * (1.0 + 2 * U) + err_p
        d_q = np.abs(xq.astype(ld) - bq).astype(float) * (1.0 + 2 * U) + err_q
    if not (np.all(np.isfinite(d_p)) and np.all(np.isfinite(d_q))):
        return None
    return d_p, d_q, g.astype(float)


def input_tail(part: StepPartition, steps: int, step=None) -> InputTail | None:
    """The lemma's input term for N = ``steps`` steps of the pessimistic step split from ``part`` (step 2), or
    None where it does not apply (a cell with only one finite mass, a relative error ≥ 1e-3, or (N + 1)·β > 0.01).
    With ``step`` (= ``pessimistic_step(part)``) the step's own rounding is measured against B in 80-bit precision
    (:func:`_split_rounding`) and charged per threshold too, replacing the whole of ``step.err``."""
    lp = np.asarray(part.log_p, dtype=float)
    lq = np.asarray(part.log_q, dtype=float)
    r = np.broadcast_to(np.asarray(part.rel_err, dtype=float), lp.shape)
    fp, fq = np.isfinite(lp), np.isfinite(lq)
    if np.any(fp != fq) or not np.all(np.isfinite(r[fp])) or (fp.any() and float(np.max(r[fp])) >= 1e-3):
        return None
    lp, lq, r = lp[fp], lq[fp], r[fp]
    k = np.asarray(part.cell_k)[fp]
    g_lo = part.grid(part.k_lo + k)
    h = part.h
    g_hi = g_lo + h
    lam_hat = lq - lp
    lam = np.clip(lam_hat, g_lo, g_hi)
    # q̃' = p̃·e^{λ'}: relative to q̃ off by the clipping and the rounding of λ̂, of the clip's bounds and of the
    # offset x = λ' − g_lo against the exact grid point (_split_rounding)
    d = np.abs(lam - lam_hat) * (1.0 + 2 * U) + U * (np.abs(lam_hat) + 6.0 * np.abs(g_lo) + 6.0 * h)
    a = r
    b = np.expm1(np.log1p(r) + d) * (1.0 + 4 * U)
    beta = float(np.max(np.maximum(a, b), initial=0.0))
    n = int(steps)
    if (n + 1) * beta > MAX_GROWTH_ARG:
        return None
    with np.errstate(under="ignore"):
        p_t = np.exp(lp) * (1.0 + 2 * U)
        q_t = np.exp(lp + lam) * (1.0 + 4 * U + 2 * U * np.abs(lp + lam) + 4 * U * (np.abs(g_lo) + h))
    rounding = _split_rounding(part, step, k, lp, lam, p_t, q_t) if step is not None else None
    tq, tgq, tp, tgp = _tails(part)
    q_hat, p_hat = np.concatenate([q_t, tq]), np.concatenate([p_t, tp])  # B̂ (Q-units), B̌ (P-units)
    gq_hat, gp_hat = np.concatenate([g_hi, tgq]), np.concatenate([g_lo, tgp])
    up = 1.0 + 2.0 * U * (lp.size + 8)  # a floating-point sum is within n·u of the exact one (Higham §4.2)
    # W = W_c + W_r: the cells' ρ at g_hi (g_lo for P), the step's rounding |D| at its atoms
    wq_c = (a + 2.0 * b) * (1.0 + h) * q_t / (1.0 - beta)
    wp_c = (2.0 * a + b) * (1.0 + h) * p_t / (1.0 - beta)
    if rounding is not None:
        d_p, d_q, g_at = rounding
    else:
        d_p = d_q = g_at = np.zeros(0)
    tv_q, tv_p = float(np.sum(d_q)) * up, float(np.sum(d_p)) * up
    mass_q = (float(np.sum(q_hat)) * up + tv_q) / (1.0 - beta)
    mass_p = (float(np.sum(p_hat)) * up + tv_p) / (1.0 - beta)
    mass = max(mass_q, mass_p, 1e-300)
    if n * max(math.log(mass), 0.0) > MAX_GROWTH_ARG:
        return None
    # the N terms of the telescoping sums: A, B, S and the measures between them are all dominated, in the order of
    # non-decreasing (non-increasing for P) functionals, by (B̂ + W_r)/(1 − β), of mass ≤ ``mass``; so is each of
    # the N − 1 other factors of every term
    w_q = float(np.sum(wq_c)) * up + tv_q
    w_p = float(np.sum(wp_c)) * up + tv_p
    uniform = n * math.exp((n - 1) * math.log(max(mass, 1e-300))) * max(w_q, w_p) * (1.0 + 1e-9)
    ln_n = math.log(n) + 1e-12
    lb_q = _log_mgf(np.concatenate([q_hat, d_q]) / (1.0 - beta), np.concatenate([gq_hat, g_at]), 1, 1.0, n)
    lb_p = _log_mgf(np.concatenate([p_hat, d_p]) / (1.0 - beta), np.concatenate([gp_hat, g_at]), 1, -1.0, n)
    lw_q = _log_mgf(np.concatenate([wq_c, d_q]), np.concatenate([g_hi, g_at]), 1, 1.0, n)
    lw_p = _log_mgf(np.concatenate([wp_c, d_p]), np.concatenate([g_lo, g_at]), 1, -1.0, n)

    def combine(lb: np.ndarray, lw: np.ndarray) -> np.ndarray:  # log N + (N − 1)·log M_B + log M_W, rounded up
        ok = np.isfinite(lb) & np.isfinite(lw)  # an empty W (or bulk) bounds nothing: −inf, a bound of 0
        lb, lw = np.where(ok, lb, 0.0), np.where(ok, lw, 0.0)
        v = ln_n + (n - 1) * lb + lw
        return np.where(ok, v + 4 * U * (ln_n + (n - 1) * np.abs(lb) + np.abs(lw)), -np.inf)

    log_mgf_q, log_mgf_p = combine(lb_q, lw_q), combine(lb_p, lw_p)
    log_mass = math.log(max(uniform, 1e-300))
    if rounding is not None:  # the whole of rel_err_mass (grid.py) is taken over
        replaced = float(step.err)
    else:  # the cells' share of rel_err_mass: Σ (p + q)·r over the cells it sums (a hair below, never above)
        with np.errstate(over="ignore"):
            m = np.exp(np.asarray(part.log_p, dtype=float)) + np.exp(np.asarray(part.log_q, dtype=float))
        rr = np.broadcast_to(np.asarray(part.rel_err, dtype=float), m.shape)
        fin = np.isfinite(m)
        replaced = float(np.sum(m[fin] * rr[fin])) * (1.0 - 2.0 * U * (m.size + 2)) * (1.0 - 1e-9)
    return InputTail(uniform, log_mgf_q, log_mgf_p, log_mass, 0.0, replaced)
