"""Certified composition of the Poisson-subsampled Gaussian mechanism (DP-SGD's privacy analysis).

One step in closed form, on a grid-aligned partition, then :mod:`dpcompare.tradeoff.compose` for the N-fold
composition with an upper (pessimistic) and a lower (optimistic) version.

The dominating pair (remove adjacency, composed once: the add pair is its swap) and the log-space cell
masses are documented in :mod:`dpcompare.composition.sgm_step`.

The code is split by job; every name is re-exported here, so ``dpcompare.composition.sgm_certified.<name>`` keeps
working: :mod:`.sgm_step` (the one-step law and the partition's log masses), :mod:`.sgm_grid` (the grid
spacing from the accuracy asked for, memory limits), :mod:`.sgm_compose` (the certified pairs and the
Chernoff tail bound), and this module (the certified answers: δ(ε), ε(δ), Δ brackets).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._validation import check_grid_choice
from ..tradeoff import Bracket, DiscretePair, Sense
from .sgm_compose import (  # noqa: F401  (re-exported)
    TAIL_FACTOR,
    TAIL_POINTS,
    CertifiedComposition,
    PessimisticSide,
    compose_subsampled_gaussian,
    fft_workers,
    negligible_composition,
    pessimistic_pair,
    pessimistic_side,
    set_fft_workers,
    fft_workers_scope,
    tail_bound,
)
from .sgm_grid import (  # noqa: F401  (re-exported)
    AUTO_MAX_FFT,
    K_EXCESS,
    KAPPA_GAUSS,
    KAPPA_H,
    MAX_ABS_LOSS,
    MAX_CELLS,
    MAX_COARSENING,
    MAX_STEP_POINTS,
    NEGLIGIBLE_MU,
    OUTPUT_ATOMS,
    SUB_CELLS,
    WINDOW_TAIL,
    auto_discretization,
    default_discretization,
    discretization_for_tolerance,
)
from .sgm_step import grid_range, inverse_privacy_loss, loss_std, privacy_loss, sgm_partition  # noqa: F401


#: the far-tail passes (tradeoff/compose.py step 6″) are built for a question only where they could improve its
#: certified answer by more than this fraction (:func:`side_for_epsilon`, :func:`side_for_profile`)
FAR_TAIL_GAIN = 1e-5


def _could_gain(side: PessimisticSide, eps: np.ndarray, delta: np.ndarray) -> bool:
    """Whether the far-tail passes could certify δ(ε) ≤ ``delta`` at some finite ``eps`` where this side does not.

    The passes recompute the itemised atoms only: the uniform part of η(ε) (window, input, ±∞ atoms) stays, and
    each recomputed atom is another bounded computation of the same exact composed mass. This side's δ̂(ε) is within
    I(ε) (the itemised part of η(ε), :meth:`PessimisticSide.itemised_at`) of that exact mass's δ(ε), and the
    passes' certified δ(ε) is ≥ it, so the passes lower the certified δ(ε) = δ̂(ε) + η(ε) by at most 2·I(ε). The
    side built with them also charges the cells' input error per threshold (tradeoff/input_error.py) instead of
    uniformly, which lowers η(ε) by at most the uniform input term D (:attr:`PessimisticSide.deferred_input_error`):
    together they cannot help where δ̂(ε) + η(ε) − 2·I(ε) − D > ``delta``."""
    eps = np.asarray(eps, dtype=float)
    if side.far_tail_builder is None:
        return False
    fin = np.isfinite(eps)
    if not np.any(fin):
        return False
    e = eps[fin]
    d = np.broadcast_to(np.asarray(delta, dtype=float), eps.shape)[fin]
    hi = np.maximum(side.profile.delta(e), side.swapped.delta(e)) + side.error_at(e)
    return bool(np.any(hi - 2.0 * side.itemised_at(e) - side.deferred_input_error <= d))


def side_for_epsilon(side: PessimisticSide, delta: float, *, per_threshold: bool = True,
                     slack: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[PessimisticSide, float]:
    """(side, certified ε(δ)) for ε(δ) read off a pessimistic side whose far-tail passes may not be built yet:
    the side itself, or the side with its passes (:attr:`PessimisticSide.with_far_tails`, built once) where they
    could certify an ε below (1 − FAR_TAIL_GAIN)·ε (:func:`_could_gain` at that point), or where this side certifies
    no finite ε. Either answer is certified (:func:`pair_epsilon` with the side's η(ε)); where the passes are
    built, the answer is the one of a side built with them from the start, bit for bit.

    ``per_threshold=False`` reads ε(δ) with the scalar η instead (``pair_epsilon(pair, η, δ)``, the reading of the
    mixture and batching mechanisms). The same test decides: the passes' certified δ(ε) with the scalar η is ≥ the
    one with η(ε) ≥ the lower bound :func:`_could_gain` compares with δ.

    ``slack``: the δ(ε) reader's (:func:`side_for_profile` with the same ``slack``) with which the answer must agree,
    δ(ε(δ)) ≤ δ (:func:`_consistent_with_profile`)."""

    def read(s: PessimisticSide) -> float:
        if per_threshold:
            return pair_epsilon(s.profile, s.numerical_error, delta, s.swapped, s.error_at)
        return pair_epsilon(s.profile, s.numerical_error, delta, s.swapped)

    eps = read(side)
    if side.far_tail_builder is None or eps == 0.0:
        return side, eps
    if math.isfinite(eps) and not _could_gain(side, np.array([eps * (1.0 - FAR_TAIL_GAIN)]), delta):
        return side, eps
    far = side.with_far_tails
    if far is side:
        return side, eps
    eps_far = read(far)
    return _consistent_with_profile(side, far, eps, eps_far, delta, slack)


def _reader_delta(side: PessimisticSide, e: float, slack: Callable[[np.ndarray], np.ndarray] | None = None
                  ) -> tuple[PessimisticSide, float]:
    """The side δ(ε) at ``e`` is read off (:func:`side_for_profile`'s rule, with ``slack``) and its certified δ there,
    as :func:`profile_bracket` computes it."""
    s = side_for_profile(side, np.array([e]), slack)
    return s, float(max(float(s.profile.delta(e)), float(s.swapped.delta(e))) + float(s.error_at(np.array([e]))[0]))


def _consistent_with_profile(side: PessimisticSide, far: PessimisticSide, eps: float, eps_far: float,
                             delta: float, slack: Callable[[np.ndarray], np.ndarray] | None = None
                             ) -> tuple[PessimisticSide, float]:
    """ε(δ) such that the δ(ε) reader certifies δ there too: δ(ε(δ)) ≤ δ across views.

    ε(δ) and δ(ε) decide on the far-tail passes by different questions (an ε below (1 − FAR_TAIL_GAIN)·ε, a δ
    lower by FAR_TAIL_GAIN): where ε(δ) took ``eps_far`` from the side with the passes but δ(ε) would read that
    ε off the side without them, the latter's certified δ can exceed δ (by less than FAR_TAIL_GAIN of it).
    Then the answer is ``eps`` (> ``eps_far`` there): both certified δ(ε) are non-increasing in ε, so whichever
    side the reader takes at ``eps`` certifies ≤ δ. Where ``eps`` is ∞ (no finite ε without the passes), ε climbs from
    ``eps_far`` by growing steps until the reader certifies δ (∞ if it never does). ``slack``: the reader's
    (:func:`side_for_profile`)."""
    if not math.isfinite(eps_far):
        return far, eps_far
    s, d = _reader_delta(side, eps_far, slack)
    if d <= delta:
        return far, eps_far
    if math.isfinite(eps):  # here eps_far < eps (at eps_far ≥ eps either side would have certified δ above)
        return side, eps
    step = max(abs(eps_far), 1e-12) * 1e-6
    e = eps_far
    for _ in range(60):
        e += step
        step *= 2.0
        s, d = _reader_delta(side, e, slack)
        if d <= delta:
            return s, e
    return side, math.inf


def composition_epsilon(comp: CertifiedComposition, delta: float) -> tuple[CertifiedComposition, float]:
    """(composition, certified ε(δ)) read off the pessimistic pair with the scalar η: ``pair_epsilon(comp.pessimistic,
    comp.pessimistic_error, δ)``, on ``comp.with_far_tails`` where the far-tail passes could lower it
    (:func:`side_for_epsilon` with ``per_threshold=False``); the composition returned is the one read.

    >>> from dpcompare.composition.gaussian_mixture import compose_mixture, mixture_of_gaussians_pair
    >>> c = compose_mixture(mixture_of_gaussians_pair(1.0, [0, 1], [0.5, 0.5]), 3)
    >>> read, eps = composition_epsilon(c, 1e-5)
    >>> read is c, eps == pair_epsilon(c.pessimistic, c.pessimistic_error, 1e-5)
    (True, True)
    """
    side = comp.pessimistic_side
    if side is None or side.far_tail_builder is None:
        return comp, pair_epsilon(comp.pessimistic, comp.pessimistic_error, delta)
    used, eps = side_for_epsilon(side, delta, per_threshold=False)
    return (comp.with_far_tails if used is not side else comp), eps


def side_for_profile(side: PessimisticSide, eps, slack: Callable[[np.ndarray], np.ndarray] | None = None
                     ) -> PessimisticSide:
    """The side to read δ(ε) at ``eps`` off: itself, or itself with the far-tail passes where they could lower a
    certified δ(ε) by more than FAR_TAIL_GAIN of it (:func:`_could_gain`; both are certified).

    ``slack``: for a caller whose accuracy is coarser than FAR_TAIL_GAIN·δ (the default δ(ε), whose grid leaves an
    excess chosen from the question: ``sgm_accuracy.far_tail_slack``), the amount slack(δ̂) it accepts to leave at a
    certified δ̂(ε) = δ(ε) + η(ε) of this side: the passes are built only where they could lower it by more than
    max(FAR_TAIL_GAIN·δ̂, slack(δ̂)). The side returned is certified either way; a caller of ε(δ) agrees with this
    reader by passing the same ``slack`` to :func:`side_for_epsilon`."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    if side.far_tail_builder is None:
        return side
    hi = np.maximum(side.profile.delta(eps), side.swapped.delta(eps)) + side.error_at(eps)
    bar = hi * (1.0 - FAR_TAIL_GAIN)
    if slack is not None:
        bar = np.minimum(bar, hi - np.asarray(slack(hi), dtype=float))
    return side.with_far_tails if _could_gain(side, eps, bar) else side


def composition_for_profile(comp: CertifiedComposition, eps) -> CertifiedComposition:
    """:func:`side_for_profile` for a composition: ``comp`` or ``comp.with_far_tails``."""
    side = comp.pessimistic_side
    if side is None or side.far_tail_builder is None:
        return comp
    return comp.with_far_tails if side_for_profile(side, eps) is not side else comp


def profile_bracket(comp: CertifiedComposition, eps: np.ndarray) -> Bracket:
    """Certified bracket of the symmetrised δ(ε) of a composition, read off the *asymmetric* pairs.

    δ_sym(ε) = max(δ_rem(ε), δ_add(ε)): the conjugate of f_sym = conv(min(f, f⁻¹)) is the maximum of
    the conjugates ([BCP] eq 25–26), and δ_add of the remove pair is δ of its swap. Reading it off
    the asymmetric pairs avoids the cancellation of building the symmetrised curve. Both ends are
    widened by the composition's ``numerical_error`` (which bounds the error of every δ at ε ≥ 0: the
    masses with L ≥ 0 come from the Q-pass, so |Δδ| ≤ Σ|Δq|, tradeoff/compose.py steps 4 and 7) — the
    pessimistic end by its per-threshold form η(ε) ≤ η (step 7′) — and clipped to [0, 1]. The far-tail passes of
    the pessimistic side are built where ``eps`` needs them (:func:`composition_for_profile`). The pessimistic end
    reads ``comp.pessimistic_profile``: the pessimistic pair's atoms with its ±∞ atoms at the certified bound of the
    exact composition's instead of the filled deficit (composition/infinity_atoms.py).
    """
    eps = np.asarray(eps, dtype=float)
    comp = composition_for_profile(comp, eps)
    pess = comp.pessimistic_profile  # the ±∞ atoms at their certified bound (composition/infinity_atoms.py)
    sw = comp.pessimistic_side.swapped if pess is not comp.pessimistic else pess.swap()
    hi = np.maximum(pess.delta(eps), sw.delta(eps)) + comp.pessimistic_error_at(eps)
    return Bracket(np.clip(hi, 0.0, 1.0), optimistic_profile(comp, eps), Sense.UPPER)


def optimistic_profile(comp: CertifiedComposition, eps) -> np.ndarray:
    """The lower end of :func:`profile_bracket` alone: max(δ_rem, δ_add)(ε) of the optimistic pair − its error
    bound, clipped to [0, 1] (a certified lower bound of the symmetrised δ(ε)). It reads no pessimistic pair, so it
    never builds the far-tail passes.

    >>> from dpcompare.composition.random_allocation import compose_random_allocation
    >>> c = compose_random_allocation(1.0, 4, 2)
    >>> bool(optimistic_profile(c, 1.0) == profile_bracket(c, 1.0).optimistic)
    True
    """
    eps = np.asarray(eps, dtype=float)
    opt = comp.optimistic
    return np.clip(np.maximum(opt.delta(eps), opt.swap().delta(eps)) - comp.optimistic_error, 0.0, 1.0)


def pair_epsilon(
    pess: DiscretePair, eta: float, delta: float, swapped: DiscretePair | None = None, eta_at: Callable | None = None
) -> float:
    """Smallest ε with max(δ_rem, δ_add)(ε) + η ≤ δ on the pessimistic asymmetric pair (∞ if δ ≤ η).
    ``swapped``: ``pess.swap()`` when the caller already has it (it is built otherwise).

    On an optimistic pair with η = −(its error) it is a certified *lower* bound of ε(δ): every ε below it
    has δ_opt(ε) − |η| > δ, and where the final check fails the point itself is such an ε.

    ``eta_at``: a per-threshold error bound η(ε) ≤ η (``CompositionReport.error_at``, tradeoff/compose.py
    step 7′; pessimistic pairs only). Then the answer is a smaller ε at which max(δ_rem, δ_add)(ε) + η(ε) ≤ δ
    was *evaluated* (so it is certified pointwise: the true δ at it is ≤ δ), found by bisection below the
    answer for the scalar η (both terms are non-increasing in ε).

    Each side's ε comes from :func:`_closed_form_epsilon` where that is verified, else from
    ``DiscretePair.epsilon``; the answer is certified by evaluating both δ at it."""
    if eta_at is not None and eta >= 0.0:
        return _pair_epsilon_per_threshold(pess, eta, delta, pess.swap() if swapped is None else swapped, eta_at)
    d = delta - eta
    if d <= 0.0:
        return math.inf
    sw = pess.swap() if swapped is None else swapped
    eps = max(_side_epsilon(pess, d), _side_epsilon(sw, d))
    if math.isfinite(eps) and max(float(pess.delta(eps)), float(sw.delta(eps))) > d:
        if eta < 0:  # an optimistic pair (η = −its error): δ_opt(ε) − |η| > δ there, so the true ε is above ε
            return eps
        return math.inf  # not certified at the reported point: let the other bounds answer
    return eps


def _pair_epsilon_per_threshold(pess: DiscretePair, eta: float, delta: float, sw: DiscretePair, eta_at: Callable) -> float:
    """:func:`pair_epsilon` with η(ε): the crossing of g(ε) = max(δ_rem, δ_add)(ε) + η(ε) with δ, where η(ε) is
    constant around it (:func:`_crossing_per_threshold`, two closed-form passes), else bisection between the answer
    for the smallest η (a lower end: η(ε) ≥ that everywhere) and the answer for the scalar η (an upper end,
    certified). Only points where g ≤ δ was evaluated are returned."""

    def ok(e: float) -> bool:
        return max(float(pess.delta(e)), float(sw.delta(e))) + float(eta_at(e)) <= delta

    fast = _crossing_per_threshold(pess, eta, delta, sw, eta_at, ok)
    if fast is not None:
        return fast
    hi = pair_epsilon(pess, eta, delta, sw)
    top = float(max(pess.loss[-1] if pess.size else 0.0, -sw.loss[0] if sw.size else 0.0, 0.0))

    if not math.isfinite(hi):
        # the scalar η cannot certify δ. Above the last atom δ is constant (q₊∞) but η(ε) still falls: try there, then
        # at growing steps beyond (g is non-increasing, so the first certified point bounds the answer from above)
        e, step = top, max(1.0, top) / 8.0
        for _ in range(48):
            if ok(e):
                break
            e, step = e + step, 2.0 * step
        else:
            return math.inf
        hi = e
    eta_min = float(eta_at(max(hi, top) + 1.0))
    lo = pair_epsilon(pess, eta_min, delta, sw) if eta_min < delta else hi
    lo = min(max(lo, 0.0), hi) if math.isfinite(lo) else 0.0
    if ok(lo):
        return lo
    for _ in range(60):  # g(lo) > δ ≥ g(hi)
        if hi - lo <= 1e-9 * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


#: closed-form passes of :func:`_crossing_per_threshold` before it leaves the question to the bisection
CROSSING_PASSES = 3


def _crossing_per_threshold(pess: DiscretePair, eta: float, delta: float, sw: DiscretePair, eta_at: Callable,
                            ok: Callable[[float], bool]) -> float | None:
    """The smallest ε with g(ε) = max(δ_rem, δ_add)(ε) + η(ε) ≤ δ where η(ε) is constant around it, or None.

    With E(c) = the crossing of max(δ_rem, δ_add)(ε) + c with δ (the closed form of :func:`_closed_form_epsilon` on
    each side, unchecked) and η(ε) non-increasing, ε₀ = E(η) lies at or above the answer ε* (η ≥ η(ε)) and
    ε₁ = E(η(ε₀)) at or below it (η(ε₀) ≤ η(ε) for ε ≤ ε₀): where η(ε₁) = η(ε₀), η is constant on [ε₁, ε₀] ∋ ε* and
    ε₁ = ε* (otherwise the next pass, up to CROSSING_PASSES). The point returned is certified as every answer here
    is: g ≤ δ *evaluated* there by ``ok`` (the reader of the bisection), after raising ε₁ by a few ulps where
    rounding left it a hair short of the crossing; None (the caller bisects) where a closed form is unavailable
    (cancellation, overflow, no finite crossing) or the check fails."""
    d_prev, c_prev = None, eta
    e = None
    for _ in range(CROSSING_PASSES):
        d = delta - c_prev
        if not d > 0.0:
            return None
        sides = [_closed_form_candidate(pr, d) for pr in (pess, sw)]
        if any(s is None for s in sides):
            return None
        e = max(sides)
        c = float(eta_at(e))
        if d_prev is not None and c == c_prev:
            break
        d_prev, c_prev = d, c
    else:
        return None
    for i in range(6):  # raise by 1e-12 … 1e-9 relative (steps growing 4×) until the reader certifies it
        if ok(e):
            return e
        e = e + 1e-12 * 4.0**i * max(1.0, abs(e))
    return None


def _closed_form_candidate(pair: DiscretePair, d: float) -> float | None:
    """:func:`_closed_form_epsilon` without its final check (the caller checks g(ε) ≤ δ itself): the crossing of
    δ(ε) = q₊∞ + Qⱼ − e^ε·Pⱼ with ``d`` on the first atom interval where δ drops to ``d`` or below; None where that
    closed form does not apply or cancels."""
    return _closed_form_epsilon(pair, d, check=False)


def _side_epsilon(pair: DiscretePair, d: float) -> float:
    eps = _closed_form_epsilon(pair, d)
    return pair.epsilon(d) if eps is None else eps


def _closed_form_epsilon(pair: DiscretePair, d: float, *, check: bool = True) -> float | None:
    """Smallest ε ≥ 0 with δ(ε) ≤ d in one vectorised pass, or None (then the caller's search answers).

    δ(ε) = q₊∞ + Σ_{ℓᵢ>ε} (qᵢ − e^ε·pᵢ) ([BCP] eq 25) is decreasing; on (ℓⱼ₋₁, ℓⱼ] it equals
    q₊∞ + Qⱼ − e^ε·Pⱼ with the tail sums Qⱼ = Σ_{i≥j} qᵢ, Pⱼ = Σ_{i≥j} pᵢ. The first atom ℓⱼ ≥ 0 with
    δ(ℓⱼ) ≤ d is found on the vector of δ at all atoms, and ε = log((q₊∞ + Qⱼ − d)/Pⱼ) there. The result is
    returned only if ``pair.delta`` (accurate, log space where needed) confirms δ(ε) ≤ d, after raising ε by
    a few ulps if rounding left it just short; None where e^ℓ overflows, the tail sums cancel (δ below
    1e-8 of them) or the check fails. ``check=False``: the closed-form ε as it is (uncertified; for a caller that
    checks its own condition at it).
    """
    loss = pair.loss
    if loss.size == 0 or d >= 1.0 or d < pair.q_pos_inf or not float(loss[-1]) < 700.0:
        return None
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # the tail sums Σ_{i ≥ k} of e^{log p} and e^{log p + ℓ}: the pair's own (cached, the same sums bit for bit)
        # where its q is e^{log p + ℓ}
        p_all, q_all = pair.tail_sums
        p_tail = p_all[:-1]
        q_tail = q_all[:-1] if pair.exact_log_q is None else np.cumsum(np.exp(pair.log_p + loss)[::-1])[::-1]
        k0 = int(np.searchsorted(loss, 0.0, side="right"))
        if k0 >= loss.size:
            return None
        # δ at ε = ℓⱼ (j ≥ k0): the atoms above ℓⱼ count
        qn = np.append(q_tail[k0 + 1 :], 0.0)
        pn = np.append(p_tail[k0 + 1 :], 0.0)
        at = pair.q_pos_inf + qn - np.exp(loss[k0:]) * pn
        if not np.all(np.isfinite(at)):
            return None
        below = np.flatnonzero(at <= d)
        if below.size == 0:
            return None
        j = k0 + int(below[0])
        lo = float(loss[j - 1]) if j > k0 else 0.0
        num = pair.q_pos_inf + float(q_tail[j]) - d
        if not (num > 1e-8 * float(q_tail[j]) and p_tail[j] > 0.0):
            return None  # cancellation: leave it to the log-space search
        eps = min(max(math.log(num) - math.log(float(p_tail[j])), lo, 0.0), float(loss[j]))
    if not check:
        return eps
    # δ is read rounded outwards (a few 1e-12 relative), so the closed-form ε may sit a hair short: raise it
    # by steps growing 4× (1e-12 … 2.6e-7 relative in all) until the read-out confirms δ(ε) ≤ d
    for i in range(10):
        if float(pair.delta(eps)) <= d:
            return eps
        eps = eps + 1e-12 * 4.0**i * max(1.0, abs(eps))
    return None


def _spacing(sigma: float, p: float, steps: int, discretization: float | None, tolerance: float | None) -> float | None:
    h, tol = check_grid_choice(discretization, tolerance)
    return h if tol is None else discretization_for_tolerance(sigma, p, steps, tol)


def certified_delta(
    sigma: float, p: float, steps: int, eps, discretization: float | None = None, *, tolerance: float | None = None
) -> np.ndarray:
    """Certified upper bound of the symmetrised δ(ε) of N steps of SGM(σ, p), pessimistic side only:
    max(δ_rem, δ_add) of the pessimistic pair + its error bound η, and the Chernoff tail bound where that
    is smaller (tradeoff/compose.py steps 7 and 9). ``tolerance`` (a width target) chooses the grid at the ε asked
    (``sgm_accuracy.delta_for_tolerance``: Richardson's estimate of the default grid's excess there; the worst-case
    grid of :func:`discretization_for_tolerance` where that route does not apply).

    >>> d = certified_delta(1.0, 0.01, 100, [0.5, 1.0])
    >>> bool(d[0] > d[1] > 0)
    True
    """
    eps = np.asarray(eps, dtype=float)
    tol = check_grid_choice(discretization, tolerance)[1]
    if tol is not None:
        from .sgm_accuracy import delta_for_tolerance  # the grid chosen at the ε asked

        ans = delta_for_tolerance(sigma, p, steps, eps, tol)
        if ans is not None:
            return np.asarray(ans.delta, dtype=float)
    side = pessimistic_side(sigma, p, steps, _spacing(sigma, p, steps, discretization, tolerance))
    side = side_for_profile(side, eps)
    hi = np.minimum(np.maximum(side.profile.delta(eps), side.swapped.delta(eps)) + side.error_at(eps), 1.0)
    if np.any(hi <= TAIL_FACTOR * side.error_at(eps)):
        hi = np.minimum(hi, tail_bound(sigma, p, steps).delta(eps).reshape(hi.shape))
    return hi


def certified_epsilon(
    sigma: float, p: float, steps: int, delta: float, discretization: float | None = None, *, tolerance: float | None = None
) -> float:
    """Certified upper bound of ε(δ) of N steps of SGM(σ, p) — the entry point for calibration.

    min of (i) the pessimistic composed pair with its error bound η (:func:`pair_epsilon`), (ii) the
    Chernoff tail bound (:func:`tail_bound`, consulted where δ is within TAIL_FACTOR of η). Both are
    upper bounds, so their minimum is. (``SubsampledGaussian.epsilon`` adds the closed form at p = 1 and
    the Gaussian bound μ = √N/σ, which live in the mechanisms layer.)

    >>> e = certified_epsilon(1.0, 0.01, 100, 1e-5)
    >>> 0.5 < e < 1.5
    True
    """
    side = pessimistic_side(sigma, p, steps, _spacing(sigma, p, steps, discretization, tolerance))
    side, eps = side_for_epsilon(side, delta)
    if not math.isfinite(eps) or delta <= TAIL_FACTOR * float(side.error_at(eps)):
        eps = min(eps, tail_bound(sigma, p, steps).epsilon(delta))
    return eps
