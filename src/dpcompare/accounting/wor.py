"""Certified composition of the Gaussian with fixed-size batches sampled *without replacement*, replace-one.

This is dp-accounting's ``SelfComposed(SampledWithoutReplacement(n, b, Gaussian(σ)), N)``: at every step a
batch of exactly b of the n records is drawn uniformly without replacement and a sum query of replace-one
sensitivity 1 gets N(0, σ²) noise (dp-accounting's noise multiplier of a replace-one event is relative to
the replace-one sensitivity; for clipped gradients of norm ≤ C that sensitivity is 2C). q = b/n.

The single-step bound
---------------------
Let P = N(0, σ²), Q = N(1, σ²) (the inner Gaussian's tight pair, symmetric: G_{1/σ}) and
A = ((1 − q)·P + q·Q, P) — the Poisson *remove* pair at rate q.

1. Balle, Barthe & Gaboardi, "Privacy amplification by subsampling: tight analyses via couplings and
   divergences" (NeurIPS 2018), Thm 10 (sampling without replacement, substitution relation): if the inner
   mechanism has privacy profile δ(ε) under replace-one, the subsampled one has, for every ε ≥ 0,
   δ'(ε') ≤ q·δ(ε) with ε' = log(1 + q(e^ε − 1)).
2. For the pair A, with γ' = 1 + q(γ − 1) and L = dQ/dP:
   H_{γ'}((1 − q)P + qQ ‖ P) = E_P[(1 − q + qL − γ')₊] = q·E_P[(L − γ)₊] = q·δ(ε) exactly. So for every
   ordered pair of neighbours D, D' and every ε' ≥ 0: H_{e^{ε'}}(M(D) ‖ M(D')) ≤ δ_A(ε').
3. Replace-one is symmetric, so for ε < 0, H_{e^ε}(M(D)‖M(D')) = 1 − e^ε + e^ε·H_{e^{−ε}}(M(D')‖M(D)) ≤
   1 − e^ε + e^ε·δ_A(−ε): one step is f_S-DP with f_S the *symmetric* trade-off function whose profile on
   ε ≥ 0 is δ_A. Here δ_A ≥ δ_{A⁻¹} on ε ≥ 0 (checked numerically in the tests; it also follows from 2.,
   because the swapped pair A⁻¹ is realised by swapping D and D'), so f_S = conv(min(f_A, f_A⁻¹)) = C_q(G_{1/σ}),
   Dong, Roth & Su's subsampling operator ("Gaussian differential privacy", JRSS-B 2022, Thm 4.2, whose
   neighbouring datasets are replace-one and whose Sample_m is sampling without replacement). This is
   :meth:`DiscretePair.symmetrize` of A's pair.
4. Tightness of one step: A itself is realised — every other record's contribution equal to the replacement's
   (x′), x one sensitivity away — and so is A⁻¹ (swap D, D').

N steps
-------
The N steps are an *adaptive* composition (the gradients of step t depend on the earlier outputs), so each
step is f_S-DP and the whole run is f_S^{⊗N}-DP (Dong, Roth & Su 2022, Thm 3.2). Unlike Poisson sampling
under add/remove — where every step of a fixed neighbour pair is the remove pair, so max(δ_{A^{⊗N}},
δ_{(A⁻¹)^{⊗N}}) is exact — the replace-one steps of one neighbour pair can be A-like at one step and
A⁻¹-like at the next, so the symmetrisation must come *before* the composition. The truth lies between:

- pessimistic (certified upper bound): f_S^{⊗N}, composed here: A's pessimistic grid pair
  (accounting/sgm.py, connect-the-dots split), symmetrised, split again onto a grid through ℓ = 0 and
  composed by tradeoff/compose.py (every step a Blackwell statement, floating point bounded a priori);
- optimistic (realised): the fixed instance of 4. at every step gives conv(min(f_A^{⊗N}, f_{A⁻¹}^{⊗N})), the
  certified *Poisson* composition's optimistic side at rate q (accounting/sgm.py).

So the bracket contains the true trade-off of the fixed-batch mechanism; its width mixes the
discretisation error with the gap of the analysis (symmetrise-then-compose vs the realised instance).
With b = n (q = 1) every step sees the whole dataset: the Gaussian with μ = √N/σ exactly.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time

import numpy as np

from ..tradeoff import DiscretePair, Rounding
from ..tradeoff import compose as certified_compose
from ..tradeoff import grid as certified_grid
from ..tradeoff.compose import CompositionReport
from ..tradeoff.grid import U, StepPartition
from .sgm import (
    NEGLIGIBLE_MU,
    OUTPUT_ATOMS,
    WINDOW_TAIL,
    CertifiedComposition,
    compose_subsampled_gaussian,
    default_discretization,
    fft_workers,
    negligible_composition,
    sgm_partition,
)

__all__ = ["compose_without_replacement", "symmetric_step"]

#: sub-cells per grid interval of the one-step partition (as accounting/sgm.py)
_SUB = 4


def symmetric_step(sigma: float, q: float, h: float, *, tail: float = 1e-18) -> tuple[DiscretePair, float]:
    """The pessimistic one-step pair of f_S (module docstring, 3.) and a bound on the ℓ₁ error (‖Δp‖₁ + ‖Δq‖₁)
    of its masses from floating point.

    Â = A's pessimistic grid pair (accounting/sgm.py: split = connect-the-dots, δ_Â ≥ δ_A at every ε). Its
    *mirror* S keeps Â's atoms with ℓ > 0, adds each mirrored (ℓ ↦ −ℓ, P- and Q-mass swapped) and puts the
    rest, m₀ = 1 − Σ_{ℓ>0}(p + q) − q₊∞, at ℓ = 0 (p = q = m₀). S is symmetric and its profile on ε ≥ 0 is
    δ_Â ≥ δ_A, so T(S) ≤ f_S. The sums are exact to rounding (``math.fsum``); m₀ is rounded *down* and the
    difference filled at ℓ = ±∞ (a split of the ℓ = 0 atom: pessimistic, exact). If m₀ < 0 (a grid too
    coarse for the split near ℓ = 0 to leave room) the general symmetrisation conv(min(f_Â, f_Â⁻¹)) is used,
    which is C_q(G_{1/σ}) of Dong, Roth & Su 2022, Thm 4.2, at the pessimistic grid.

    >>> pair, err = symmetric_step(1.0, 0.1, 0.01)
    >>> pair.is_symmetric, err < 1e-12
    (True, True)
    """
    part = sgm_partition(sigma, q, h, sub=_SUB, tail=tail)
    step = certified_grid.pessimistic_step(part)
    fin = np.isfinite(step.log_p)
    loss, log_p = step.losses[fin], step.log_p[fin]
    pos = loss > 0.0
    lp, lq = log_p[pos], log_p[pos] + loss[pos]
    q_inf = float(step.q_pos_inf)
    m0 = 1.0 - math.fsum(np.exp(lp).tolist()) - math.fsum(np.exp(lq).tolist()) - q_inf - 8.0 * U
    err = 3.0 * step.err + 16.0 * U
    if m0 >= 0.0:
        atoms_loss = np.concatenate([-loss[pos][::-1], [0.0], loss[pos]])
        with np.errstate(divide="ignore"):
            atoms_lp = np.concatenate([lq[::-1], [math.log(m0) if m0 > 0 else -math.inf], lp])
        keep = np.isfinite(atoms_lp)
        return DiscretePair(atoms_loss[keep], atoms_lp[keep], None, None, Rounding.PESSIMISTIC), err
    a = DiscretePair(loss, log_p, None, None, Rounding.PESSIMISTIC)
    s = a.symmetrize()
    # an atom at a branch switch is a slope drop: a difference of two cumulative sums of ≤ n terms (≤ 4·n·u each)
    new = np.setdiff1d(s.loss, np.union1d(a.loss, -a.loss[::-1])).size
    return s, 2.0 * step.err + new * 8.0 * (a.size + 2) * U


def _partition(pair: DiscretePair, h: float, err: float) -> StepPartition:
    """A symmetric pair's atoms as the cells of a grid through 0 (g_k = k·h; an atom at ℓ lies in (g_k, g_{k+1}]
    with k = ⌈ℓ/h⌉ − 1); ``err`` enters as a relative error of every cell (‖Δ‖₁ ≤ err·Σ masses ≤ 2·err)."""
    loss, log_p = pair.loss, pair.log_p
    k = np.ceil(loss / h).astype(np.int64) - 1
    k_lo, k_hi = int(k.min()), int(k.max()) + 1
    log_q = log_p + loss
    return StepPartition(h, 0.0, k_lo, k_hi, k - k_lo, log_p, log_q, rel_err=err,
                         p_neg_inf=float(pair.p_neg_inf), q_pos_inf=float(pair.q_pos_inf))


def _output_factor(n_atoms: int, steps: int) -> int:
    want = max(1, n_atoms // OUTPUT_ATOMS)
    return max(1, min(want, max(1, int(0.1 * math.sqrt(steps)))))


@functools.lru_cache(maxsize=16)
def compose_without_replacement(sigma: float, q: float, steps: int, discretization: float | None = None) -> CertifiedComposition:
    """Pessimistic pair f_S^{⊗N} and optimistic (realised) pair of N fixed-batch steps (module docstring).

    ``discretization`` is the grid spacing h (default: accounting/sgm.py ``default_discretization`` of the
    Poisson mechanism at the same rate). The pessimistic pair is symmetric; the optimistic one is the
    asymmetric Poisson remove pair (symmetrise it for the mechanism). ``side_errors`` holds each side's η.
    """
    t0 = time.perf_counter()
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return negligible_composition(sigma, q, steps)
    if q >= 1.0:  # every step sees the whole dataset: the Gaussian mechanism (Poisson at rate 1 is the same)
        return compose_subsampled_gaussian(sigma, 1.0, steps, discretization)
    h = default_discretization(sigma, q, steps) if discretization is None else float(discretization)
    tail = min(1e-18, 1e-16 / steps)
    one, err1 = symmetric_step(sigma, q, h, tail=tail)
    step = certified_grid.pessimistic_step(_partition(one, h, err1))
    step = dataclasses.replace(step, err=step.err + err1)
    inf_mass = float(steps) * (step.q_pos_inf + step.p_neg_inf)
    if steps == 1:
        log_p, i_lo = step.log_p, step.k_lo
        eta = step.err + inf_mass
        report = CompositionReport(1, h, 0, (float(step.losses[0]), float(step.losses[-1])), 0.0, 0.0, 0.0, eta, eta)
    else:
        log_p, i_lo, rep = certified_compose.compose(step, steps, tau=WINDOW_TAIL, workers=fft_workers())
        report = dataclasses.replace(rep, numerical_error=rep.numerical_error + inf_mass)
        eta = report.numerical_error
    loss, clp = certified_grid.coarsen_pessimistic(log_p, i_lo, h, _output_factor(log_p.size, steps), 0.0)
    pess = certified_grid.to_pair(loss, clp, Rounding.PESSIMISTIC)
    poisson = compose_subsampled_gaussian(sigma, q, steps, discretization)
    errs = (eta + 64 * U, poisson.optimistic_error)
    return CertifiedComposition(pess, poisson.optimistic, max(errs), h, steps, (report, *poisson.reports[1:]),
                                time.perf_counter() - t0, errs)
