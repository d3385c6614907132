"""The certified N-fold composition of the subsampled Gaussian: pessimistic and optimistic remove-adjacency
pairs with their error bounds (tradeoff/compose.py steps 1–8), and the Chernoff tail bound (its step 9).
Part of :mod:`dpcompare.composition.sgm_certified`, which re-exports every name."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..tradeoff import DiscretePair, Rounding
from ..tradeoff import compose as certified_compose
from ..tradeoff import grid as certified_grid
from ..tradeoff.compose import CompositionReport, DiscretizationTooFine
from ..tradeoff.compose_coarse import compose_coarsened, compose_coarsened_lazy
from ..tradeoff.grid import U
from ..tradeoff.input_error import input_tail
from .infinity_atoms import infinity_bound, profile_pair
from .sgm_grid import KAPPA_H, MAX_ABS_LOSS, NEGLIGIBLE_MU, OUTPUT_ATOMS, WINDOW_TAIL, check_grid
from .sgm_step import grid_range, loss_std, sgm_partition


@dataclass(frozen=True, eq=False)
class CertifiedComposition:
    """The N-fold subsampled Gaussian as a pessimistic and an optimistic *remove-adjacency* pair.

    Every Bayes error of ``pessimistic`` is ≤ the true one + ``numerical_error``, every Bayes error of
    ``optimistic`` is ≥ the true one − ``numerical_error`` (tradeoff/compose.py step 7). The pairs are
    asymmetric; symmetrise them (f_sym = conv(min(f, f⁻¹))) for the mechanism.
    """

    pessimistic: DiscretePair
    optimistic: DiscretePair
    numerical_error: float
    discretization: float
    steps: int
    reports: tuple[CompositionReport, ...]
    seconds: float
    #: the error bounds of each side alone (η of the pessimistic pair, η of the optimistic pair);
    #: ``numerical_error`` is their maximum
    side_errors: tuple[float, float] | None = None
    #: the :class:`PessimisticSide` the pessimistic pair comes from (None where it was built otherwise): it
    #: builds the far-tail passes on demand (:attr:`with_far_tails`)
    pessimistic_side: PessimisticSide | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # direction is a type: a pessimistic field holding an optimistic pair (or vice versa) is refused
        ok = (Rounding.PESSIMISTIC, Rounding.EXACT)
        if self.pessimistic.rounding not in ok:
            raise ValueError(f"pessimistic must be a pessimistic pair, got {self.pessimistic.rounding.name}")
        if self.optimistic.rounding not in (Rounding.OPTIMISTIC, Rounding.EXACT):
            raise ValueError(f"optimistic must be an optimistic pair, got {self.optimistic.rounding.name}")

    @property
    def pessimistic_error(self) -> float:
        return self.numerical_error if self.side_errors is None else self.side_errors[0]

    @property
    def pessimistic_profile(self) -> DiscretePair:
        """The pair δ(ε) and ε(δ) read off the pessimistic side: ``pessimistic``'s atoms with its ±∞ atoms at the
        certified bound of the exact composition's (:attr:`PessimisticSide.profile`, composition/infinity_atoms.py);
        ``pessimistic`` itself where no bound is known. The trade-off, Bayes-error and Δ views read ``pessimistic``."""
        side = self.pessimistic_side
        if side is not None and side.pair is self.pessimistic:
            return side.profile
        return self.pessimistic

    @property
    def optimistic_error(self) -> float:
        return self.numerical_error if self.side_errors is None else self.side_errors[1]

    def pessimistic_error_at(self, eps) -> np.ndarray:
        """Per-threshold bound η(ε) ≤ ``pessimistic_error`` on the error of the pessimistic pair's δ(ε) and of its
        swap's (tradeoff/compose.py step 7′); the scalar where the composition has no itemised atoms."""
        eps = np.asarray(eps, dtype=float)
        rep = self.reports[0] if self.reports else None
        if rep is None or rep.atom_error is None or not math.isfinite(rep.numerical_error):
            return np.full(eps.shape, self.pessimistic_error)
        return rep.error_at(eps) + (self.pessimistic_error - rep.numerical_error)

    @functools.cached_property
    def with_far_tails(self) -> CertifiedComposition:
        """This composition with its pessimistic side's far-tail passes built (:attr:`PessimisticSide.with_far_tails`);
        itself where there are none to build. Every answer of either is certified."""
        side = self.pessimistic_side
        far = side.with_far_tails if side is not None else None
        if far is None or far is side:
            return self
        errs = (far.numerical_error, self.optimistic_error)
        return dataclasses.replace(self, pessimistic=far.pair, numerical_error=max(errs),
                                   reports=(far.report, *self.reports[1:]), side_errors=errs, pessimistic_side=far)

    def to_dict(self) -> dict[str, object]:
        rep = self.reports[0] if self.reports else None
        return {
            "discretization": self.discretization,
            "numerical_error": self.numerical_error,
            "fft_len": rep.fft_len if rep else 0,
            "window": list(rep.window) if rep else None,
            "atoms": [self.pessimistic.size, self.optimistic.size],
            "seconds": self.seconds,
        }


#: threads of the composition FFT (−1: all cores), scoped like decimal's context: a context variable, so a
#: setting made in one thread or task (:func:`fft_workers_scope`) does not leak into another
_FFT_WORKERS: contextvars.ContextVar[int] = contextvars.ContextVar("dpcompare_fft_workers", default=-1)


def _check_workers(workers: int) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or not (workers == -1 or workers >= 1):
        raise ValueError(f"workers must be -1 (all cores) or an integer >= 1, got {workers!r}")
    return workers


def set_fft_workers(workers: int) -> int:
    """Set the number of threads later compositions' FFTs use in the current context (−1: all cores, the
    default); returns the previous setting. Prefer :func:`fft_workers_scope`, which restores it."""
    prev = _FFT_WORKERS.get()
    _FFT_WORKERS.set(_check_workers(workers))
    return prev


@contextlib.contextmanager
def fft_workers_scope(workers: int | None) -> Iterator[None]:
    """``with fft_workers_scope(1): ...`` — compositions inside use that many FFT threads (None: unchanged).
    Sweeps running one process per core use 1 so that the threads do not oversubscribe the machine."""
    if workers is None:
        yield
        return
    token = _FFT_WORKERS.set(_check_workers(workers))
    try:
        yield
    finally:
        _FFT_WORKERS.reset(token)


def fft_workers() -> int:
    """The number of threads the composition FFT uses now (see :func:`fft_workers_scope`)."""
    w = _FFT_WORKERS.get()
    return w if w >= 1 else (os.cpu_count() or 1)


def _sides_or_error(sigma: float, p: float, steps: int, h: float, sub: int, tail: float, roundings, *, lazy: bool = False):
    try:
        return _build_sides(sigma, p, steps, h, sub, tail, roundings, lazy=lazy)
    except DiscretizationTooFine:
        raise
    except (RuntimeError, ValueError, OverflowError, FloatingPointError) as exc:
        raise ValueError(
            f"sgm(sigma={sigma:g}, p={p:g}, steps={steps}) is outside the numerically supported range: the "
            f"privacy loss of its {steps} steps spans more nats than double precision can hold in a "
            f"privacy-loss distribution at grid spacing {h:.3g} ({exc}); such a mechanism is blatantly "
            "non-private for every practical purpose (use a larger sigma or fewer steps)"
        ) from None


@functools.lru_cache(maxsize=16)
def compose_subsampled_gaussian(
    sigma: float,
    p: float,
    steps: int,
    discretization: float | None = None,
    *,
    exact_gaussian: bool = True,
    step_tail: float | None = None,
) -> CertifiedComposition:
    """Certified pessimistic/optimistic pairs of N steps of the Poisson-subsampled Gaussian.

    ``discretization`` is the privacy-loss grid spacing h (default: :func:`default_discretization`).
    With p = 1 and ``exact_gaussian`` the N steps are one Gaussian step with σ/√N (the composition of
    Gaussians is Gaussian: Dong, Roth & Su 2022, Cor. 2.1), discretised without FFT. The FFT runs on
    :func:`fft_workers` threads. ``step_tail``: the mass one step may leave outside its grid (p < 1;
    ``sgm_grid.check_grid``, default the far-tail one): a question that tolerates more asks for a shorter grid.
    """
    t0 = time.perf_counter()
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return negligible_composition(sigma, p, steps)
    if p >= 1.0 and exact_gaussian and steps > 1:
        out = compose_subsampled_gaussian(sigma / math.sqrt(steps), 1.0, 1, discretization)
        return CertifiedComposition(
            out.pessimistic, out.optimistic, out.numerical_error, out.discretization, steps, out.reports,
            time.perf_counter() - t0, out.side_errors,
        )
    h, tail, sub = check_grid(sigma, p, steps, discretization, step_tail)
    if p < 1.0:
        # the pessimistic side through its own cache, keyed by the grid spacing: a calibration that has just
        # certified ε at this (σ, p, N) and the default grid already composed it (same code path, same pair)
        token = _SHARE_PARTITION.set(True)
        try:
            pess = pessimistic_side(sigma, p, steps, h) if step_tail is None else \
                pessimistic_side(sigma, p, steps, h, step_tail=step_tail)
            sides, reports = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.OPTIMISTIC,))
        finally:
            _SHARE_PARTITION.reset(token)
            _shared_partition.cache_clear()
        errs = (pess.numerical_error, reports[0].numerical_error + 64 * U)
        return CertifiedComposition(
            pess.pair, sides[0], max(errs), h, steps, (pess.report, reports[0]), time.perf_counter() - t0, errs, pess
        )
    sides, reports = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.PESSIMISTIC, Rounding.OPTIMISTIC))
    errs = (reports[0].numerical_error + 64 * U, reports[1].numerical_error + 64 * U)
    return CertifiedComposition(sides[0], sides[1], max(errs), h, steps, tuple(reports), time.perf_counter() - t0, errs)


def negligible_composition(sigma: float, p: float, steps: int) -> CertifiedComposition:
    """Pairs for a mechanism whose dominating Gaussian G_μ (μ = √N/σ ≤ NEGLIGIBLE_MU) is below what a
    loss grid can resolve: pessimistic = the (0, δ₀)-DP pair with δ₀ ≥ TV(G_μ) = 2Φ(μ/2) − 1 (every
    mechanism with TV ≤ δ₀ has f(α) ≥ 1 − δ₀ − α, so it is a post-processing of this pair); optimistic
    = no information (one atom at ℓ = 0). Subsampling only lowers TV ([MIX] Prop E.1)."""
    mu = math.sqrt(steps) / sigma
    tv = math.erf(mu / (2.0 * math.sqrt(2.0)))  # 2Φ(μ/2) − 1
    d0 = min(1.0, tv * (1.0 + 1e-12) + 1e-320)
    zero = np.array([0.0])
    pess = DiscretePair(zero, np.array([math.log1p(-d0)]), d0, d0, Rounding.PESSIMISTIC)
    opt = DiscretePair(zero, zero.copy(), 0.0, 0.0, Rounding.OPTIMISTIC)
    return CertifiedComposition(pess, opt, 0.0, 0.0, steps, (), 0.0)


@functools.lru_cache(maxsize=16)
def pessimistic_pair(sigma: float, p: float, steps: int, discretization: float | None = None) -> DiscretePair:
    """The pessimistic (remove-adjacency, asymmetric) pair of :func:`compose_subsampled_gaussian` alone —
    what an upper bound of δ(ε) or of ε(δ) needs — at half the cost (the optimistic side is not built).

    Bit for bit the ``pessimistic`` field of ``compose_subsampled_gaussian(σ, p, N, h)`` (same code path)."""
    return pessimistic_side(sigma, p, steps, discretization).pair


def _build_sides(sigma: float, p: float, steps: int, h: float, sub: int, tail: float, roundings, *, lazy: bool = False):
    """The pairs of the requested ``roundings`` (tradeoff/compose.py steps 1–8) and their reports; with ``lazy``
    also, per side, a function that builds it with the far-tail passes (:func:`_build_side_lazy`) and the certified
    bound of its exact composition's ±∞ masses (composition/infinity_atoms.py; None for an optimistic side).

    The sides are built one after the other: building them in two threads (the optimistic merge holds the
    GIL, the FFTs release it) was not faster on two shared cores and raised the peak memory by 100 MB."""
    if p < 1.0 and tuple(roundings) == (Rounding.PESSIMISTIC,):
        # the pessimistic split (step 2) is linear in each cell's (P, Q) masses, so one cell per grid interval
        # gives the pair of ``sub`` cells per interval (same grid: the anchor cell keeps its width h/(2·sub))
        # up to rounding, at 1/sub of the cell masses' cost
        part = sgm_partition(sigma, p, h, sub=1, tail=tail, anchor_sub=sub)
    elif _SHARE_PARTITION.get():
        part = _shared_partition(sigma, p, h, sub, tail)
    else:
        part = sgm_partition(sigma, p, h, sub=sub, tail=tail)
    workers = fft_workers()
    if lazy:
        done = [_build_side_lazy(part, steps, h, r, workers, cells_per_threshold=True) for r in roundings]
        # the partition covers the whole pair (cells, tails, ±∞ masses): its tails bound the composition's ±∞ atoms
        bounds = [infinity_bound(part, steps) if r is Rounding.PESSIMISTIC else None for r in roundings]
        return [d[0] for d in done], [d[1] for d in done], [d[2] for d in done], bounds
    done = [_build_side(part, steps, h, r, workers, cells_per_threshold=True) for r in roundings]
    return [d[0] for d in done], [d[1] for d in done]


#: set by :func:`compose_subsampled_gaussian` while it builds its two sides (a lone side builds its own partition)
_SHARE_PARTITION: contextvars.ContextVar[bool] = contextvars.ContextVar("_SHARE_PARTITION", default=False)


@functools.lru_cache(maxsize=1)
def _shared_partition(sigma: float, p: float, h: float, sub: int, tail: float):
    """:func:`sgm_partition`, built once for both sides: :func:`compose_subsampled_gaussian` builds the
    pessimistic side (through :func:`pessimistic_side`) and then the optimistic one from the same partition.
    The partition is read-only (both discretisations copy what they change); one entry (≤ MAX_CELLS cells,
    ≤ 32 MB), used only inside :func:`compose_subsampled_gaussian` and released when both sides are built."""
    return sgm_partition(sigma, p, h, sub=sub, tail=tail)


def _build_side(part, steps: int, h: float, rounding: Rounding, workers: int,
                cells_per_threshold: bool = False) -> tuple[DiscretePair, CompositionReport]:
    """One side of :func:`_build_sides` (a pessimistic one with the far-tail passes, step 6″). ``cells_per_threshold``:
    ``part`` is a partition of the whole pair (cells, tails and ±∞ masses exact up to the relative errors ``rel_err``
    of the cells), as :func:`sgm_partition`'s is, so the pessimistic side charges the cells' input error per threshold
    (tradeoff/input_error.py)."""
    pair, rep, _ = _build_side_any(part, steps, h, rounding, workers, lazy=False, cells_per_threshold=cells_per_threshold)
    return pair, rep


def _build_side_lazy(part, steps: int, h: float, rounding: Rounding, workers: int, cells_per_threshold: bool = False):
    """One side of :func:`_build_sides` *without* the far-tail passes (step 6″ of tradeoff/compose.py) and with the
    input error charged uniformly, and a function returning (pair, report) with both — the passes and, with
    ``cells_per_threshold``, the input error per threshold (tradeoff/input_error.py): what :func:`_build_side` returns,
    bit for bit, reusing this side's window and composed spectra — or None where no pass applies (an optimistic side,
    a single step). Both are questions of the far tail: a moderate δ never pays for them."""
    return _build_side_any(part, steps, h, rounding, workers, lazy=True, cells_per_threshold=cells_per_threshold)


def _build_side_any(part, steps: int, h: float, rounding: Rounding, workers: int, *, lazy: bool,
                    cells_per_threshold: bool = False):
    build = certified_grid.pessimistic_step if rounding is Rounding.PESSIMISTIC else certified_grid.optimistic_step
    try:
        step = build(part)
    except RuntimeError:  # the grid is too coarse to land the optimistic groups: closed-form fallback
        loss, clp, eta = certified_grid.optimistic_binary(part, steps)
        if float(np.max(np.abs(loss))) > MAX_ABS_LOSS:
            raise
        rep = CompositionReport(steps, h, 0, (float(loss.min()), float(loss.max())), 0.0, 0.0, 0.0, eta, eta)
        return certified_grid.to_pair(loss, clp, rounding), rep, None
    # the ±∞ atoms of the step: N steps put at most N·(q₊∞ + p₋∞) there. The pair below represents
    # them only as 1 − Σ(finite masses), which cannot resolve masses below ~1e-16, so they are
    # added to the error bound explicitly ("never understated" has no size exemption)
    inf_mass = float(steps) * (step.q_pos_inf + step.p_neg_inf)

    def finish(loss, clp, rep):
        if steps > 1:
            rep = dataclasses.replace(rep, numerical_error=rep.numerical_error + inf_mass)
        if float(np.max(np.abs(loss[np.isfinite(clp)]), initial=0.0)) > MAX_ABS_LOSS:
            raise ValueError(f"composed losses reach {float(np.max(np.abs(loss))):.3g} nats")
        return certified_grid.to_pair(loss, clp, rounding), rep

    far = None
    if steps == 1:
        log_p, i_lo = step.log_p.copy(), step.k_lo
        eta = step.err + inf_mass
        rep = CompositionReport(1, h, 0, (float(step.losses[0]), float(step.losses[-1])), 0.0, 0.0, 0.0, eta, eta)
        factor = _coarsening_factor(log_p.size, steps)
        coarsen = certified_grid.coarsen_pessimistic if rounding is Rounding.PESSIMISTIC else certified_grid.coarsen_optimistic
        loss, clp = coarsen(log_p, i_lo, h, factor, steps * part.offset)
    # the pessimistic step is split from ``part`` unchanged: its cells' input error can be charged per threshold
    per_threshold = rounding is Rounding.PESSIMISTIC and cells_per_threshold
    if steps > 1 and lazy:  # as below, the far-tail passes and the per-threshold input error left for later
        (loss, clp, rep), more = compose_coarsened_lazy(
            step, steps, lambda width: _coarsening_factor(width, steps), tau=WINDOW_TAIL, workers=workers
        )
        if more is not None:
            def later():
                return finish(*more(input_tail(part, steps, step) if per_threshold else None))

            far = later
    elif steps > 1:  # steps 4–8 in the Fourier domain (tradeoff/compose_coarse.py): no fine composed grid is formed
        loss, clp, rep = compose_coarsened(
            step, steps, lambda width: _coarsening_factor(width, steps), tau=WINDOW_TAIL, workers=workers,
            input_tail=input_tail(part, steps, step) if per_threshold else None,
        )
    return (*finish(loss, clp, rep), far)


def _coarsening_factor(n_atoms: int, steps: int) -> int:
    """Output coarsening (tradeoff/compose.py step 8): ≤ OUTPUT_ATOMS atoms, and factor ≤ 0.1·√N so that the one
    extra split/merge adds ≤ 1% of the variance the N steps' splits/merges add."""
    want = max(1, n_atoms // OUTPUT_ATOMS)
    cap = max(1, int(0.1 * math.sqrt(steps)))
    return max(1, min(want, cap))


#: grid points of the single step used for the Chernoff tail bound (tradeoff/compose.py step 9)
TAIL_POINTS = 1 << 15
#: the tail bound is consulted where the FFT bound is within this factor of its error bound
TAIL_FACTOR = 1e3


@functools.lru_cache(maxsize=16)
def tail_bound(sigma: float, p: float, steps: int) -> certified_compose.TailBound:
    """Certified Chernoff bound of the profile of N steps (tradeoff/compose.py step 9), from a pessimistic
    single step whose truncated tail (moved to ℓ = +∞) is sized for δ down to 1e-300.

    >>> tb = tail_bound(1.0, 0.01, 100)
    >>> 0.0 < tb.epsilon(1e-300) < float("inf")
    True
    """
    mu = 1.0 / sigma
    tail = max(1e-300 / (4.0 * steps), 1e-306)
    k_lo, k_hi = grid_range(mu, p, 1.0, tail)
    h = max(KAPPA_H * loss_std(mu, p), (k_hi - k_lo + 2) / TAIL_POINTS)
    part = sgm_partition(sigma, p, h, sub=2, tail=tail)
    step = certified_grid.pessimistic_step(part)
    rel = np.asarray(part.rel_err, dtype=float)
    rel_max = float(np.max(rel)) if rel.size else 0.0
    return certified_compose.TailBound.from_step(step, steps, rel_max)


@dataclass(frozen=True, eq=False)
class PessimisticSide:
    """The pessimistic asymmetric pair of N steps and its error bound η (tradeoff/compose.py step 7)."""

    pair: DiscretePair
    numerical_error: float
    #: the composition's report (None for the negligible-μ pair, which is not composed)
    report: CompositionReport | None = None
    #: builds this side again *with* the far-tail passes (tradeoff/compose.py step 6″) from this side's window and
    #: spectra; None where they are built already or none apply. Use :attr:`with_far_tails`.
    far_tail_builder: Callable[[], PessimisticSide] | None = field(default=None, repr=False)
    #: whether the side ``far_tail_builder`` builds charges the cells' input error per threshold (tradeoff/input_error.py)
    #: instead of uniformly, as the subsampled Gaussian's does; False where it keeps the uniform charge (mixtures,
    #: random allocation): then only the removed-mass rounding of that charge can differ (:attr:`deferred_input_error`)
    input_per_threshold: bool = field(default=True, repr=False)
    #: (B_p, B_q): certified upper bounds of the P-mass at −∞ and the Q-mass at +∞ of the exact composition
    #: (composition/infinity_atoms.py), or None where the partition need not cover the whole pair; δ(ε) reads them
    #: (:attr:`profile`) instead of the filled deficit of ``pair``
    infinity_bound: tuple[float, float] | None = field(default=None, repr=False)

    @functools.cached_property
    def profile(self) -> DiscretePair:
        """The pair δ(ε) and ε(δ) read: ``pair``'s atoms with the ±∞ masses min(filled deficit, ``infinity_bound``)
        (composition/infinity_atoms.py has the proof that δ(ε) + η(ε) of it bounds the truth, and why the trade-off
        and Bayes-error views keep ``pair``); ``pair`` itself without a bound."""
        return profile_pair(self.pair, self.infinity_bound)

    @functools.cached_property
    def with_far_tails(self) -> PessimisticSide:
        """This side with the far-tail passes (step 6″), built once; itself where there are none to build.

        Both sides are certified (same pair up to which of two bounded computations of each far-tail atom is
        kept); the passes only tighten η(ε) in the far tail. Should the passes fail numerically (a non-finite
        spectrum: ``FloatingPointError``, which would have failed the whole composition had they been built
        with it), this side — certified without them — answers."""
        if self.far_tail_builder is None:
            return self
        try:
            return self.far_tail_builder()
        except (FloatingPointError, OverflowError, ValueError, RuntimeError):
            return self

    def itemised_at(self, eps) -> np.ndarray:
        """The part of :meth:`error_at` that is itemised per atom (what the far-tail passes can shrink): η(ε) less
        its uniform part (window, input, ±∞ atoms); 0 where the composition has no itemised atoms."""
        eps = np.asarray(eps, dtype=float)
        rep = self.report
        if rep is None or rep.atom_error is None or not math.isfinite(rep.numerical_error):
            return np.zeros(eps.shape)
        return np.maximum(rep.error_at(eps) - (rep.numerical_error - rep.atom_error_total), 0.0)

    @property
    def deferred_input_error(self) -> float:
        """The uniform input term of η (the report's ``input_error``: the cells' ‖Δx‖₁ N times over, the ±∞ caps'
        rounding, loss rounding) where the side built with its far-tail passes charges the cells per threshold
        instead (tradeoff/input_error.py): the most that replacement can lower a certified δ(ε); 0 without a
        builder."""
        rep = self.report
        if self.far_tail_builder is None or rep is None or not math.isfinite(rep.input_error):
            return 0.0
        if not self.input_per_threshold and rep.atom_loss is not None:
            # the uniform input term is the same in both but for its removed-mass rounding n·u·removed
            # (tradeoff/compose_coarse.py; n ≤ the itemised atoms): the far-tail version's removed mass is ≥ 0
            return min(float(rep.input_error), rep.atom_loss.size * U * float(rep.removed_mass) * (1.0 + 8 * U))
        return float(rep.input_error)

    @functools.cached_property
    def swapped(self) -> DiscretePair:
        """``profile.swap()`` (the add-adjacency view of δ(ε)), built once."""
        return self.profile.swap()

    def error_at(self, eps) -> np.ndarray:
        """Per-threshold bound η(ε) ≤ ``numerical_error`` on the error of δ(ε) of ``pair`` and of ``swapped``
        (tradeoff/compose.py step 7′); the scalar where the composition has no itemised atoms."""
        eps = np.asarray(eps, dtype=float)
        rep = self.report
        if rep is None or rep.atom_error is None or not math.isfinite(rep.numerical_error):
            return np.full(eps.shape, self.numerical_error)
        return rep.error_at(eps) + (self.numerical_error - rep.numerical_error)


@functools.lru_cache(maxsize=16)
def pessimistic_side(sigma: float, p: float, steps: int, discretization: float | None = None, *,
                     step_tail: float | None = None) -> PessimisticSide:
    """:func:`pessimistic_pair` with its numerical error bound (only the pessimistic side is composed).
    ``step_tail``: the single step's tail mass (``sgm_grid.check_grid``; default: the far-tail one)."""
    if math.sqrt(steps) / sigma <= NEGLIGIBLE_MU:
        return PessimisticSide(negligible_composition(sigma, p, steps).pessimistic, 0.0)
    if p >= 1.0 and steps > 1:
        return pessimistic_side(sigma / math.sqrt(steps), 1.0, 1, discretization)
    h, tail, sub = check_grid(sigma, p, steps, discretization, step_tail)
    # the far-tail passes (step 6″) are built only when a question needs them (sgm_certified.side_for_epsilon,
    # side_for_profile): they cost as much as the rest of the composition and serve δ within reach of η(ε) only
    sides, reports, fars, bounds = _sides_or_error(sigma, p, steps, h, sub, tail, (Rounding.PESSIMISTIC,), lazy=True)
    return _side_with_builder(sides[0], reports[0], fars[0], 0.0, infinity_bound=bounds[0])


def lazy_pessimistic_side(part, steps: int, h: float, *, workers: int | None = None, extra_error: float = 0.0,
                          cells_per_threshold: bool = False) -> PessimisticSide:
    """The pessimistic side of N steps of the pair partitioned by ``part`` (tradeoff/compose.py steps 1–8) with its
    far-tail passes (step 6″) left for later (:attr:`PessimisticSide.with_far_tails`, built on demand by
    sgm_certified.side_for_epsilon, side_for_profile, composition_epsilon): how every mechanism composed by this
    engine (the subsampled Gaussian, Gaussian mixtures, random allocation) gets its pessimistic side.

    ``extra_error``: an error the partition does not itemise (a mixture's N·extra_error), added to η of both the
    side and its far-tail version. ``with_far_tails`` is, bit for bit, what :func:`_build_side` would have built
    (with η = its report's error + 64u + ``extra_error``). ``workers``: FFT threads (default :func:`fft_workers`).

    >>> from dpcompare.composition.sgm_step import sgm_partition
    >>> side = lazy_pessimistic_side(sgm_partition(1.0, 0.5, 0.01, sub=1, tail=1e-18), 4, 0.01)
    >>> side.far_tail_builder is not None, side.with_far_tails.far_tail_builder is None
    (True, True)
    """
    w = fft_workers() if workers is None else workers
    pair, rep, far = _build_side_lazy(part, steps, h, Rounding.PESSIMISTIC, w, cells_per_threshold=cells_per_threshold)
    # a partition of the whole pair (``cells_per_threshold``) bounds the composition's ±∞ atoms by its tails
    bound = infinity_bound(part, steps) if cells_per_threshold else None
    return _side_with_builder(pair, rep, far, float(extra_error), cells_per_threshold, infinity_bound=bound)


def _side_with_builder(pair: DiscretePair, rep: CompositionReport, far, extra_error: float,
                       input_per_threshold: bool = True, *, infinity_bound: tuple[float, float] | None = None
                       ) -> PessimisticSide:
    """A lazily built side (η = report's error + 64u + ``extra_error``) and the builder of its far-tail version; both
    carry ``infinity_bound`` (the same exact composition: composition/infinity_atoms.py)."""

    def with_passes() -> PessimisticSide:
        pair2, rep2 = far()
        return PessimisticSide(pair2, rep2.numerical_error + 64 * U + extra_error, rep2, infinity_bound=infinity_bound)

    return PessimisticSide(pair, rep.numerical_error + 64 * U + extra_error, rep, None if far is None else with_passes,
                           input_per_threshold, infinity_bound=infinity_bound)
