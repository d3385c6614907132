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
mechanism is a post-processing of — and B for that of the exact split of C̃'. (B and the floating-point step
differ by the split's own rounding, which stays in the uniform term; the ±∞ masses are the tails' in both.)

1. *One cell.* The split puts q_hi = (q − p·e^{g_lo})/(1 − e^{−h}) at g_hi and q − q_hi at g_lo (linear in
   (p, q)). So D_c = A_c − B_c puts Δq_c at g_lo and Δq_hi on the difference of the two ends, with
   |Δq_c| ≤ b_c·q_c and |Δq_hi|·(1 − e^{−h}) = |Δq − Δp·e^{g_lo}| ≤ (a_c + b_c)·q_c (p·e^{g_lo} ≤ p·e^{λ} = q).
   For φ with 0 ≤ φ ≤ 1, φ = 0 below a point y and |φ(z + h) − φ(z)| ≤ (1 − e^{−h})(1 + h) — every
   δ-functional f_ε(L) = (1 − e^{ε−L})₊ (y = ε; it is 1-Lipschitz with increments ≤ 1 − e^{−h}) and every
   Bayes-error functional min(π·e^{−L}, 1 − π) (1-Lipschitz; h ≤ (1 − e^{−h})(1 + h)) — this gives
   |∫φ(x + ·) dD_c| ≤ ρ_c·1[x + g_hi > y], ρ_c = (a_c + 2b_c)(1 + h)·q_c.
   The P-side (the swap's δ reads P-masses below −ε through (1 − e^{ε+L})₊) is the mirror image with
   ρᴾ_c = (2a_c + b_c)(1 + h)·p_c, supported where x + g_lo < −ε.
2. *N steps.* A^{*N} − B^{*N} = Σⱼ A^{*j} * D * B^{*(N−1−j)} (telescoping, D = Σ_c D_c), so
   |∫φ d(A^{*N} − B^{*N})| ≤ Σⱼ Σ_c ρ_c·νⱼ(L > y − g_hi(c)), νⱼ = A^{*j} * B^{*(N−1−j)}.
   *Uniformly:* νⱼ has mass ≤ (1 + β)^{N−1} (β = max_c max(a_c, b_c)), so the error is ≤ N·(1 + β)^{N−1}·Σ_c ρ_c.
   *Per threshold:* let B̂ put each cell's whole mass q̃'_c at g_hi(c). A_c and B_c are stochastically below
   B̂_c-type measures of the same masses (each moves its lower atom up to g_hi), q_c ≤ q̃'_c/(1 − β), and
   stochastic order of equal-mass measures is preserved by convolution; so νⱼ * (Σ_c ρ_c δ_{g_hi(c)}) has
   tail above y at most ρ̄·(1 − β)^{−N}·B̂^{*N}(L > y), ρ̄ = max_c (a_c + 2b_c)(1 + h), and the error is
   ≤ N·ρ̄·(1 − β)^{−N}·B̂^{*N}(L > y). B̂^{*N}(L > y) ≤ min(Σq̃'ᴺ, min_s e^{−s·y}·M_B̂(s)ᴺ) (Chernoff), with
   M_B̂(s) = Σ_c q̃'_c e^{s·g_hi(c)} evaluated as an upper bound with its rounding (:func:`_log_mgf`), on the
   exponents of the far-tail passes (:mod:`~dpcompare.tradeoff.compose_jump`, whose reader
   ``jump_bulk_bound`` adds the rounding of s·y). Mirror image below −ε with B̌ (each cell's P-mass at g_lo(c)).
3. *Read-out.* The pair's δ(ε) reads composed atoms above ε, the coarse split of step 8 (factor F, H = F·h)
   reads fine atoms within H: the functional it applies to the fine law is 1-Lipschitz, ≤ 1 and zero below
   ε − H (the split's δ interpolates linearly in e^{−L} between the coarse points), so y = ε − H.

Both growth factors (1 ± β)^{±(N+1)} are bounded by exp(1.02·(N + 1)·β) for (N + 1)·β ≤ 0.01 (otherwise no
per-threshold term is offered).

*The ±∞ atoms.* The exact step T(C) is a probability pair (the cells and tails partition the loss axis and
the split preserves mass), so its N-fold composition has ±∞ masses ≤ N·(q₊∞ + p₋∞) of the step; the
filled pair's are ≥ 0. That replaces the caps' rounding (:func:`~dpcompare.tradeoff.compose.composed_mass_caps`,
≈ N·25u) by N·(q₊∞ + p₋∞), charged here twice over (a factor 2 for the tails' own closed-form error).

Tested against an mpmath composition of exactly split exact cells, with adversarially perturbed inputs:
``tests/tradeoff/test_input_error.py``.

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
    """The input term of the lemma above for one N: ``uniform`` (every ε, every Bayes error) and, per ε,
    ``coef``·max(B̂^{*N}(L > ε − H), B̌^{*N}(L < −ε + H)) with H = ``shift``; ``replaced`` is the part of the
    step's ``err`` (Σ_c (p + q)·r_c, the cells' share of ‖Δx‖₁) that this term takes over."""

    uniform: float
    coef: float
    log_mgf_q: np.ndarray
    log_mgf_p: np.ndarray
    log_mass: float
    shift: float
    replaced: float

    def at(self, eps) -> np.ndarray:
        """min(uniform, coef·max(tail bounds at ε − H and −ε + H)): the input error of δ(ε) and the swap's δ(ε)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        e = np.where(np.isfinite(eps), eps, 1e300)
        cap = math.exp(min(self.log_mass, 700.0))
        g_q = jump_bulk_bound(self.log_mgf_q, e, self.shift, 1.0, upper=True)
        g_p = jump_bulk_bound(self.log_mgf_p, -e, self.shift, 1.0, upper=False)
        tail = np.minimum(np.maximum(g_q, g_p), cap)
        return np.minimum(self.uniform, self.coef * tail * (1.0 + 1e-12))

    def shifted(self, by: float) -> "InputTail":
        """The same bound read through a split onto a grid coarser by H = ``by`` (lemma, part 3)."""
        return dataclasses.replace(self, shift=self.shift + by)


def _log_mgf(mass: np.ndarray, g: np.ndarray, steps: int, sign: float) -> np.ndarray:
    """N·log Σⱼ massⱼ·e^{±s·gⱼ} at every s of the far-tail passes' grid, rounded up: the terms vⱼ = log massⱼ ± s·gⱼ err
    by ≤ 3u·(|log mass| + s|g|) (absolute in log space), the shift by the row maximum by 2u of that, the exponentials
    2u and the sum of n terms n·u relative, the log and the addition 2u·|log Σ|; then ×N, and 2u of the result."""
    s = _S_GRID
    fin = mass > 0.0
    mass, g = mass[fin], g[fin]
    if mass.size == 0:
        return np.full(s.size, -np.inf)
    # runs of cells moved to their worst end (largest g for +, smallest for −): still an upper bound; a run spans
    # ≤ 0.01/N nats, so that the N-fold bound moves by ≤ 0.01·s in log (which at δ's scale is nothing)
    span = float(np.max(g) - np.min(g)) / max(mass.size - 1, 1)
    run = min(-(-mass.size // MGF_BLOCKS), int(0.01 / (steps * span)) if span > 0 else mass.size)
    if run > 1:
        starts = np.arange(0, mass.size, run)
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


def input_tail(part: StepPartition, steps: int) -> InputTail | None:
    """The lemma's input term for N = ``steps`` steps of the pessimistic step split from ``part`` (step 2), or
    None where it does not apply (a cell with only one finite mass, a relative error ≥ 1e-3, or (N + 1)·β > 0.01)."""
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
    # q̃' = p̃·e^{λ'}: relative to q̃ off by the clipping and the rounding of λ̂ (and of the clip's bounds)
    d = np.abs(lam - lam_hat) * (1.0 + 2 * U) + U * (np.abs(lam_hat) + 2.0 * np.abs(g_lo) + 2.0 * h)
    a = r
    b = np.expm1(np.log1p(r) + d) * (1.0 + 4 * U)
    beta = float(np.max(np.maximum(a, b), initial=0.0))
    n = int(steps)
    if (n + 1) * beta > MAX_GROWTH_ARG:
        return None
    growth = math.exp(1.02 * (n + 1) * beta) * (1.0 + 1e-12)
    with np.errstate(under="ignore"):
        p_t = np.exp(lp) * (1.0 + 2 * U)
        q_t = np.exp(lp + lam) * (1.0 + 4 * U + 2 * U * np.abs(lp + lam))
    w_q = (a + 2.0 * b) * (1.0 + h)
    w_p = (2.0 * a + b) * (1.0 + h)
    # Σ_c ρ_c over cells (ρ_c in units of the exact masses ≤ computed/(1 − β)), rounded up
    up = 1.0 + 2.0 * U * (lp.size + 2)  # a floating-point sum is within n·u of the exact one (Higham §4.2)
    rho_sum = max(float(np.sum(w_q * q_t)), float(np.sum(w_p * p_t))) * up / (1.0 - beta)
    uniform = n * growth * rho_sum * (1.0 + 1e-9)
    coef = n * growth * float(np.max(np.maximum(w_q, w_p), initial=0.0)) / (1.0 - beta) * (1.0 + 1e-9)
    log_mgf_q = _log_mgf(q_t, g_hi, n, 1.0)
    log_mgf_p = _log_mgf(p_t, g_lo, n, -1.0)
    mass = max(float(np.sum(q_t)), float(np.sum(p_t)), 1e-300) * up
    log_mass = n * math.log(mass) * (1.0 - 1e-12 if mass < 1 else 1.0 + 1e-12)
    # the cells' share of rel_err_mass (grid.py): Σ (p + q)·r over the cells it sums (a hair below, never above)
    with np.errstate(over="ignore"):
        m = np.exp(np.asarray(part.log_p, dtype=float)) + np.exp(np.asarray(part.log_q, dtype=float))
    rr = np.broadcast_to(np.asarray(part.rel_err, dtype=float), m.shape)
    fin = np.isfinite(m)
    replaced = float(np.sum(m[fin] * rr[fin])) * (1.0 - 2.0 * U * (m.size + 2)) * (1.0 - 1e-9)
    return InputTail(uniform, coef, log_mgf_q, log_mgf_p, log_mass, 0.0, replaced)
