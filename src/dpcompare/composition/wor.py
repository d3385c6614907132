"""Certified composition of the Gaussian on batches sampled *without* (and *with*) replacement, replace-one.

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
   δ'(ε') ≤ q·δ(ε) with ε' = log(1 + q(e^ε − 1)). (Proof: with D, D' differing in record i,
   M(D) = (1 − q)μ₀ + qμ₁ and M(D') = (1 − q)μ₀ + qμ₁', μ₀ the batches without i; μ₁ and μ₁' are coupled by
   the same other b − 1 records, and μ₁ and μ₀ by replacing i with a uniform record outside the batch, so
   every coupled pair is replace-one neighbours; advanced joint convexity, their Thm 2, and joint
   convexity of the hockey-stick divergence give the bound.)
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
  (composition/sgm_certified.py, connect-the-dots split), symmetrised, split again onto a grid through ℓ = 0 and
  composed by tradeoff/compose.py (every step a Blackwell statement, floating point bounded a priori);
- optimistic (realised): the fixed instance of 4. at every step gives conv(min(f_A^{⊗N}, f_{A⁻¹}^{⊗N})), the
  certified *Poisson* composition's optimistic side at rate q (composition/sgm_certified.py).

So the bracket contains the true trade-off of the fixed-batch mechanism; its width mixes the
discretisation error with the gap of the analysis (symmetrise-then-compose vs the realised instance).
The gap is real, not an artefact: ``examples/fixed_batch_adaptive.py`` (and its test) shows a two-step
adaptive choice of the other records whose δ(ε) exceeds max(δ_{A⊗A}, δ_{A⁻¹⊗A⁻¹}) at every ε tried, inside
our bracket. With b = n (q = 1) every step sees the whole dataset: the Gaussian with μ = √N/σ exactly.
Sampling *with* replacement: :func:`compose_with_replacement` (the multiplicity of the record revealed).

>>> from dpcompare.composition.sgm_certified import pair_epsilon
>>> c = compose_without_replacement(1.0, 0.1, 10)
>>> hi = pair_epsilon(c.pessimistic, c.pessimistic_error, 1e-5)   # certified
>>> lo = max(c.optimistic.epsilon(1e-5), c.optimistic.swap().epsilon(1e-5))  # the realised instance
>>> bool(lo <= hi < 1.25 * lo)
True
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
from .sgm_certified import (
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
from .sgm_compose import _sides_or_error
from .sgm_grid import check_grid

__all__ = ["K_TAIL", "compose_with_replacement", "compose_without_replacement", "multiplicity_weights", "symmetric_step",
           "with_replacement_step"]

#: sub-cells per grid interval of the one-step partition (as composition/sgm_certified.py)
_SUB = 4


def _mirror(loss: np.ndarray, log_p: np.ndarray, q_inf: float, err: float) -> tuple[DiscretePair, float] | None:
    """The symmetric pair whose profile on ε ≥ 0 is that of the pessimistic pair (loss, log_p, q₊∞): its atoms
    with ℓ > 0, each mirrored (ℓ ↦ −ℓ, masses swapped), the rest m₀ at ℓ = 0, masses at ±∞ both q₊∞. m₀ is
    an exact sum (``math.fsum``) rounded *down*; the difference goes to ℓ = ±∞ (a split of the ℓ = 0 atom:
    pessimistic, exact). None if m₀ < 0. Returns the pair and the ℓ₁ error of its masses (3·err + rounding:
    the finite P- and Q-masses are the same numbers, swapped, so their totals agree to rounding)."""
    pos = loss > 0.0
    lp, lq = log_p[pos], log_p[pos] + loss[pos]
    m0 = 1.0 - math.fsum(np.exp(lp).tolist()) - math.fsum(np.exp(lq).tolist()) - q_inf - 8.0 * U
    if m0 < 0.0:
        return None
    atoms_loss = np.concatenate([-loss[pos][::-1], [0.0], loss[pos]])
    with np.errstate(divide="ignore"):
        atoms_lp = np.concatenate([lq[::-1], [math.log(m0) if m0 > 0 else -math.inf], lp])
    keep = np.isfinite(atoms_lp)
    # the same mass at ±∞ on both sides (exactly symmetric; the finite atoms' sums agree to rounding, which the
    # error bound covers)
    inf = min(q_inf + 8.0 * U, 1.0)
    return DiscretePair(atoms_loss[keep], atoms_lp[keep], inf, inf, Rounding.PESSIMISTIC), 3.0 * err + 16.0 * U


def _symmetrise(loss: np.ndarray, log_p: np.ndarray, q_inf: float, err: float) -> tuple[DiscretePair, float]:
    """:func:`_mirror`, or if it does not exist the general conv(min(f, f⁻¹)) (a switch atom is a slope drop: a
    difference of two cumulative sums of ≤ n terms, ≤ 4·n·u each)."""
    out = _mirror(loss, log_p, q_inf, err)
    if out is not None:
        return out
    a = DiscretePair(loss, log_p, None, None, Rounding.PESSIMISTIC)
    s = a.symmetrize()
    new = np.setdiff1d(s.loss, np.union1d(a.loss, -a.loss[::-1])).size
    return s, 2.0 * err + new * 8.0 * (a.size + 2) * U


def _remove_pair_atoms(sigma: float, q: float, h: float, tail: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(losses, log P-masses, q₊∞, ℓ₁ error) of the pessimistic grid pair of A = ((1 − q)P + qQ, P)."""
    step = certified_grid.pessimistic_step(sgm_partition(sigma, q, h, sub=_SUB, tail=tail))
    fin = np.isfinite(step.log_p)
    return step.losses[fin], step.log_p[fin], float(step.q_pos_inf), float(step.err)


def symmetric_step(sigma: float, q: float, h: float, *, tail: float = 1e-18) -> tuple[DiscretePair, float]:
    """The pessimistic one-step pair of f_S (module docstring, 3.) and a bound on the ℓ₁ error (‖Δp‖₁ + ‖Δq‖₁)
    of its masses from floating point.

    Â = A's pessimistic grid pair (composition/sgm_certified.py: split = connect-the-dots, δ_Â ≥ δ_A at every ε). Its
    *mirror* S keeps Â's atoms with ℓ > 0, adds each mirrored (ℓ ↦ −ℓ, P- and Q-mass swapped) and puts the
    rest, m₀ = 1 − Σ_{ℓ>0}(p + q) − q₊∞, at ℓ = 0 (p = q = m₀). S is symmetric and its profile on ε ≥ 0 is
    δ_Â ≥ δ_A, so T(S) ≤ f_S. If m₀ < 0 (a grid too coarse for the split near ℓ = 0 to leave room) the
    general symmetrisation conv(min(f_Â, f_Â⁻¹)) is used, which is C_q(G_{1/σ}) of Dong, Roth & Su 2022,
    Thm 4.2, at the pessimistic grid.

    >>> pair, err = symmetric_step(1.0, 0.1, 0.01)
    >>> pair.is_symmetric, err < 1e-12
    (True, True)
    """
    return _symmetrise(*_remove_pair_atoms(sigma, q, h, tail))


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


def _compose_symmetric(one: DiscretePair, err1: float, h: float, steps: int) -> tuple[DiscretePair, float, CompositionReport]:
    """N-fold composition of a symmetric pessimistic step pair (split onto the grid k·h, tradeoff/compose.py):
    the pessimistic pair, its error bound η and the report."""
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
    return certified_grid.to_pair(loss, clp, Rounding.PESSIMISTIC), eta + 64 * U, report


@functools.lru_cache(maxsize=16)
def compose_without_replacement(sigma: float, q: float, steps: int, discretization: float | None = None) -> CertifiedComposition:
    """Pessimistic pair f_S^{⊗N} and optimistic (realised) pair of N fixed-batch steps (module docstring).

    ``discretization`` is the grid spacing h (default: composition/sgm_certified.py ``default_discretization`` of the
    Poisson mechanism at the same rate). The pessimistic pair is symmetric; the optimistic one is the
    asymmetric Poisson remove pair (symmetrise it for the mechanism). ``side_errors`` holds each side's η.
    """
    t0 = time.perf_counter()
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return negligible_composition(sigma, q, steps)
    if q >= 1.0:  # every step sees the whole dataset: the Gaussian mechanism (Poisson at rate 1 is the same)
        return compose_subsampled_gaussian(sigma, 1.0, steps, discretization)
    # the realised (optimistic) side first, the Poisson remove pair's (only that side: the Poisson pessimistic
    # side is not needed); its grid checks refuse a run too large to compose before any work
    try:
        h, tail, sub = check_grid(sigma, q, steps, discretization)
        sides, reports = _sides_or_error(sigma, q, steps, h, sub, tail, (Rounding.OPTIMISTIC,))
    except ValueError as exc:
        msg = str(exc).replace(f"sgm(sigma={sigma:g}, p={q:g}, steps={steps})",
                               f"fixed-batch DP-SGD (sigma={sigma:g} per replace-one sensitivity, q={q:g}, steps={steps})")
        msg = msg.replace("sampling_rate=1 (a closed form at any number of steps)", "batch_size=dataset_size (a closed form)")
        raise type(exc)(msg) from None
    pess, eta, report = _compose_symmetric(*symmetric_step(sigma, q, h, tail=tail), h, steps)
    errs = (eta, reports[0].numerical_error + 64 * U)  # the optimistic error as compose_subsampled_gaussian's
    return CertifiedComposition(pess, sides[0], max(errs), h, steps, (report, reports[0]), time.perf_counter() - t0, errs)


# ---------------------------------------------------------------------------------------------- with replacement
#: multiplicities K whose total probability P(K > k) is below this are treated as blatantly non-private (their
#: mass goes to ℓ = +∞: pessimistic, and exact bookkeeping)
K_TAIL = 1e-20


def _merge_atoms(loss: np.ndarray, log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted atoms with equal losses merged (masses added: merging equal likelihood ratios loses nothing)."""
    order = np.argsort(loss, kind="stable")
    loss, log_p = loss[order], log_p[order]
    uniq, start = np.unique(loss, return_index=True)
    return uniq, np.logaddexp.reduceat(log_p, start)


def multiplicity_weights(dataset_size: int, sample_size: int) -> tuple[float, np.ndarray, np.ndarray, float]:
    """(η, k = 1…k_max, log P(K = k), P(K > k_max)) for the multiplicity K ~ Binomial(b, 1/n) of one record in b
    independent uniform draws from n records; η = P(K ≥ 1) = 1 − (1 − 1/n)^b; k_max is the smallest k with
    P(K > k) ≤ ``K_TAIL`` (or b)."""
    from scipy.stats import binom

    n, b = int(dataset_size), int(sample_size)
    eta = 1.0 if n == 1 else -math.expm1(b * math.log1p(-1.0 / n))
    ks = np.arange(1, b + 1)
    sf = binom.sf(ks, b, 1.0 / n)
    k_max = int(ks[np.argmax(sf <= K_TAIL)]) if np.any(sf <= K_TAIL) else b
    ks = ks[:k_max]
    return eta, ks, binom.logpmf(ks, b, 1.0 / n), float(sf[k_max - 1])


def with_replacement_step(sigma: float, dataset_size: int, sample_size: int, h: float, *,
                          tail: float = 1e-18) -> tuple[DiscretePair, float]:
    """Pessimistic one-step pair of the Gaussian (replace-one sensitivity 1, noise σ) on b records drawn *with*
    replacement from n, and the ℓ₁ error of its masses (module docstring of :func:`compose_with_replacement`).

    >>> pair, err = with_replacement_step(1.0, 100, 10, 0.01)
    >>> pair.is_symmetric, err < 1e-12
    (True, True)
    """
    eta, ks, log_w, w_tail = multiplicity_weights(dataset_size, sample_size)
    losses, log_ps = [], []
    q_inf, err = w_tail, 0.0  # K > k_max: blatantly non-private, its Q-mass η·(w_tail/η) at ℓ = +∞
    for k, lw in zip(ks.tolist(), log_w.tolist()):
        weight = math.exp(lw) / eta
        if weight == 0.0:
            continue
        # grid h·k for shift k (its losses spread ∝ k; any grid is pessimistic, the union is split again below)
        loss, log_p, qi, e = _remove_pair_atoms(sigma / k, eta, h * k, tail)
        losses.append(loss)
        log_ps.append(log_p + (lw - math.log(eta)))
        q_inf += weight * qi
        err += weight * e
    loss, log_p = _merge_atoms(np.concatenate(losses), np.concatenate(log_ps))
    return _symmetrise(loss, log_p, min(q_inf, 1.0), err + 16.0 * U * len(losses))


@functools.lru_cache(maxsize=16)
def compose_with_replacement(sigma: float, dataset_size: int, sample_size: int, steps: int,
                             discretization: float | None = None) -> CertifiedComposition:
    """Certified upper bound of N steps of dp-accounting's ``SampledWithReplacement(n, b, Gaussian(σ))``.

    Reading of the event: b independent uniform draws of indices from the n records (so a record can appear
    K ~ Binomial(b, 1/n) times); the inner Gaussian adds N(0, σ²) to a sum of replace-one sensitivity 1 over
    the b drawn records (each copy counts). The dataset size is part of the event, so the relation is
    replace-one (as for sampling without replacement).

    One step (the argument of Balle, Barthe & Gaboardi 2018, Thm 10, written out for this case). Let D, D'
    differ in record i (x vs x'), η = P(K ≥ 1), w_k = P(K = k). Conditioning on K and on the other draws
    (i.i.d. uniform on the other n − 1 records) writes M(D) = (1 − η)μ₀ + ην, M(D') = (1 − η)μ₀ + ην' with
    ν = Σ_{k≥1}(w_k/η)μ_k. Coupling the same other draws, μ_k and μ'_k differ by k replaced copies, a mean
    shift ≤ k: H_γ(μ_k‖μ'_k) ≤ δ_{G_{k/σ}}(ε); replacing the k copies of x by k fresh draws from the others
    couples μ_k with μ₀ the same way. Advanced joint convexity (Balle et al. 2018, Thm 2) and joint convexity
    of H_γ then give, for γ' = 1 + η(γ − 1) ≥ 1,

        H_{γ'}(M(D)‖M(D')) ≤ η·H_γ(ν‖(1 − β)μ₀ + βν') ≤ Σ_{k≥1} w_k·δ_{G_{k/σ}}(ε)   (β = γ'/γ).

    The right side is exactly H_{γ'} of the pair A = ((1 − η)P̃ + ηQ̃, P̃) with P̃ = Σ(w_k/η)[k]⊗N(0, σ²),
    Q̃ = Σ(w_k/η)[k]⊗N(k, σ²) (K revealed when K ≥ 1): a mixture over k of Poisson remove pairs at rate η
    with shift k. As for fixed batches (module docstring, 3.), replace-one is symmetric, so one step is
    f_S-DP with f_S the symmetric trade-off function whose profile on ε ≥ 0 is δ_A, and N adaptive steps are
    f_S^{⊗N}-DP (Dong, Roth & Su 2022, Thm 3.2). Computed: the union of the components' pessimistic grid
    pairs (grid h·k for shift k; k up to P(K > k) ≤ ``K_TAIL``, larger k blatantly non-private), mirrored,
    composed.

    This is a certified *bound*: revealing K makes it more informative than the mechanism, which hides K
    (b = 1 is the exception: then K ∈ {0, 1} and the bound is the fixed-batch one). The optimistic side is
    the perfectly private pair (no realised instance is computed).
    """
    t0 = time.perf_counter()
    eta = multiplicity_weights(dataset_size, sample_size)[0]  # η = P(K ≥ 1) ≤ 1: the Poisson rate of the grid
    h = default_discretization(sigma, eta, steps) if discretization is None else float(discretization)
    tail = min(1e-18, 1e-16 / steps)
    pess, eta_err, report = _compose_symmetric(*with_replacement_step(sigma, dataset_size, sample_size, h, tail=tail),
                                               h, steps)
    opt = DiscretePair(np.array([0.0]), np.array([0.0]), 0.0, 0.0, Rounding.EXACT)
    return CertifiedComposition(pess, opt, eta_err, h, steps, (report,), time.perf_counter() - t0, (eta_err, 0.0))
