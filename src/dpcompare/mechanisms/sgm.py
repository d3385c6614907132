"""The Poisson-subsampled Gaussian (DP-SGD) with its certified composition (DpEvents and PLDs: mechanisms/events.py).

``SubsampledGaussian`` is N steps of the Poisson-subsampled Gaussian mechanism with noise multiplier σ
and sampling rate p (Abadi et al. 2016; dominating pair of Balle et al. 2018 / Zhu et al. 2022):
one step's remove pair is P = N(0, σ²), Q = (1 − p)·N(0, σ²) + p·N(1, σ²), the add pair its swap; the
mechanism is f_sym = conv(min(f, f⁻¹)) of the N-fold composition ([BCP] §1).
Its two pairs are certified (tradeoff/compose.py): the pessimistic one is at least as informative
as the truth, the optimistic one at most, up to ``numerical_error`` in Bayes error; the bracket
therefore contains the exact value. With p = 1 the mechanism is the Gaussian with μ = √N/σ exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import POSITIVE, Interval, Param, check_grid_choice, format_number
from ..directed_rounding import add_up, one_minus_down, sub_down
from ..tradeoff import DiscretePair, Sense
from .base import _ROUNDING_ABS, interval_bracket
from .pair_backed import PairMechanism


@dataclass(frozen=True, repr=False)
class SubsampledGaussian(PairMechanism):
    """N = ``steps`` steps of the Poisson-subsampled Gaussian mechanism (sensitivity 1).

    Parameters
    ----------
    sigma : noise multiplier σ > 0 (noise standard deviation / clipping norm).
    sampling_rate : Poisson sampling probability p ∈ (0, 1].
    steps : number of compositions N ≥ 1 (an integral float such as 1.4e6 is accepted).
    discretization : privacy-loss grid spacing h (keyword only). Default: h = 0.01·s, s the
        single-step loss standard deviation, so the bracket width is ≈ 1e-5 or less in Δ
        (composition/sgm_certified.py, ``auto_discretization``); a coarser h is faster and wider, never uncertified.
        Without ``discretization`` and ``tolerance``, δ(ε) chooses its grid from the ε asked: the certified
        width aimed at is min(1e-3·δ, 1.5e-7), on a loss grid no coarser than 1.3e-4 (composition/sgm_accuracy.py,
        ``delta_to_accuracy``, ``DEFAULT_MAX_SPACING``; ``accuracy(ε)``
        reports the width achieved); a given ``discretization`` is used as is for every view. Likewise Δ
        (``delta_divergence``, ``compare``) chooses the grids from Δ: a certified width of max(1e-3·Δ, 1e-6)
        or the ``accuracy`` asked (comparison/delta_accuracy.py).
    tolerance : instead of ``discretization``, the accuracy wanted for δ(ε) (absolute; keyword only): the
        grid is chosen so that the pessimistic δ exceeds the truth by about this much or less
        (composition/sgm_certified.py, ``discretization_for_tolerance``); ``accuracy(ε)`` reports back the certified
        bracket width achieved.

    >>> import dpcompare as dc
    >>> m = dc.SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=100)
    >>> lo, hi = m.delta_bounds(1.0)
    >>> bool(lo <= hi < 1e-3)
    True
    """

    sigma: float
    sampling_rate: float
    steps: int
    discretization: float | None = field(default=None, kw_only=True)
    tolerance: float | None = field(default=None, kw_only=True)

    #: the one declaration of the parameter domains (the spec language's ``sgm`` derives its keys from it)
    PARAMS = (Param("sigma", POSITIVE), Param("sampling_rate", Interval(0.0, 1.0, low_open=True)),
              Param("steps", Interval(1.0, math.inf), integer=True))

    def __post_init__(self) -> None:
        for p in self.PARAMS:  # the spec language's wording ("sigma must be > 0"), as before
            object.__setattr__(self, p.name, p.check_spec(getattr(self, p.name)))
        h, tol = check_grid_choice(self.discretization, self.tolerance)
        object.__setattr__(self, "discretization", h)
        object.__setattr__(self, "tolerance", tol)
        if 1.0 / self.sigma > 1e6:
            raise ValueError(
                f"sigma must be >= 1e-6 (the privacy loss of a smaller noise multiplier does not fit in "
                f"double precision), got {self.sigma:g}"
            )

    # ------------------------------------------------------------------ closed form at p = 1 and the Gaussian bound
    @cached_property
    def _gaussian(self):
        """G_μ with μ = √N/σ. At p = 1 it *is* the mechanism (the composition of N Gaussians with
        sensitivity 1/σ is the Gaussian with μ = √N/σ: Dong, Roth & Su 2022, Cor. 3.3); for every p it
        dominates it (Poisson subsampling only raises a symmetric f: [MIX] Prop E.1), so its δ(ε)
        and ε(δ) are certified upper bounds at no cost."""
        from .continuous import Gaussian

        return Gaussian(mu=math.sqrt(self.steps) / self.sigma)

    @property
    def _closed_form(self) -> bool:
        return self.sampling_rate >= 1.0

    @property
    def exact(self) -> bool:  # type: ignore[override]
        """Closed form (p = 1), or one pair for both sides — what ``PairMechanism.exact`` says of the symmetrised pairs,
        read off the composition without symmetrising them (``describe`` and the prior sweep ask it)."""
        if self._closed_form:
            return True
        c = self.composition
        return c.optimistic is c.pessimistic

    def delta(self, eps: Any) -> np.ndarray:
        """Privacy profile δ(ε), upper end (never understated). Without ``discretization``/``tolerance`` the grid
        is chosen from the question: the pessimistic side is composed on the grid whose δ is within
        0.6·min(1e-3·δ, 1.5e-7) of the truth by the h² law (the excess of the default grid estimated from its
        pessimistic sides on h₀ and 2·h₀; no optimistic side is composed) and on a loss grid no coarser than 1.3e-4
        (the spacing of dp-accounting's default; composition/sgm_accuracy.py, ``delta_to_accuracy``,
        ``richardson_excess``, ``DEFAULT_MAX_SPACING``); ``delta_bounds``/``accuracy`` build both sides and report
        the certified width achieved."""
        from .._validation import Argument, check_argument

        eps = check_argument(Argument.EPS, eps)
        lo, hi = self._delta_bounds_raw(eps, upper_only=True)
        return np.clip(self._delta_bounds_finish(eps, lo, hi)[1], 0.0, 1.0)

    def _delta_bounds(self, eps):
        lo, hi = self._delta_bounds_raw(eps)
        return self._delta_bounds_finish(eps, lo, hi)

    def _delta_bounds_finish(self, eps, lo, hi):
        # δ(ε) > 0 at every finite ε (the loss is unbounded above): a bound that underflowed is reported as
        # the smallest positive float, never as 0
        eps = np.asarray(eps, dtype=float)
        hi = np.where(np.isfinite(eps), np.maximum(hi, np.nextafter(0.0, 1.0)), hi)
        return interval_bracket(lo, hi, Sense.UPPER, 0.0, 1.0)

    @property
    def grid_from_question(self) -> bool:
        """True when neither ``discretization`` nor ``tolerance`` was given: δ(ε) chooses its grid from ε."""
        return self.discretization is None and self.tolerance is None and not self._closed_form

    @property
    def never_sampled_bound(self) -> float:
        """1 − (1 − p)^N rounded up: δ(ε) ≤ δ(0) = TV(P, Q) ≤ the probability that the example is ever sampled
        (on the event that it never is, the two output laws coincide: a coupling), for every ε ≥ 0.

        −expm1(N·log1p(−p)): log1p and expm1 within ELEM each, the product within u, and −expm1 turns the
        error of its argument x into at most the same relative error (|x|·eˣ ≤ 1 − eˣ), so 3·ELEM relative.

        >>> SubsampledGaussian(1.0, 1e-8, 1000).never_sampled_bound > 9.99995e-6
        True
        """
        from ..composition.sgm_accuracy import never_sampled_upper

        return never_sampled_upper(self.sampling_rate, self.steps)

    def summary_mechanism(self) -> "SubsampledGaussian":
        """What ``dpcompare describe`` reads. On the grid chosen from the question (no ``discretization``/``tolerance``,
        p < 1): the same (σ, p, N) reading :func:`~dpcompare.composition.sgm_summary.summary_composition` — the default
        grid's pessimistic side (the composition's own: ε(δ), the advantage, the AUC and the μ̂ fit's R_M read the same
        pair) and an optimistic side whose single step is cut where no Bayes error moves by more than 1e-12, which a
        summary's six digits do not see and which costs ≈ 20 % less to build. η is that composition's (the larger of
        the two sides', as always), so R* and the Δ brackets move by |Δη| (≈ 1e-12; certified either way).
        Otherwise ``self``. The answer does not depend on which views of ``self`` were asked before.

        >>> m = SubsampledGaussian(1.0, 0.01, 100)
        >>> s = m.summary_mechanism()
        >>> s.spec == m.spec, s.summary_mechanism() is s, float(s.epsilon(1e-5)) == float(m.epsilon(1e-5))
        (True, True, True)
        """
        if not self.grid_from_question:
            return self
        return self._summary_view

    @cached_property
    def _summary_view(self) -> "SubsampledGaussian":
        return _SummarySubsampledGaussian(self.sigma, self.sampling_rate, self.steps)

    def summary_advantage(self) -> float:
        """δ(0) for ``describe``, read off :attr:`composition` (the pair of the summary's R*, AUC and μ̂; its
        pessimistic side is ε(δ)'s) rather than the finer grid the default δ(ε) composes for ``advantage``:
        the same certified upper end as ``SubsampledGaussian(σ, p, N, discretization=h₀).delta(0)``, h₀ the
        default grid (profile bracket, the Gaussian bound, P(ever sampled), the tail bound where η is within
        reach). At (1, 0.01, 1000): 0.16101901 against the finer grid's 0.16101771 (truth ≥ 0.16101757). The
        same whether or not ``advantage`` was asked before (the summary does not depend on the object's history).

        >>> m = SubsampledGaussian(1.0, 0.01, 100)
        >>> bool(m.summary_advantage() >= float(m.delta_bounds(0.0)[0]))
        True
        """
        if not self.grid_from_question:  # a given grid (or p = 1): ``advantage`` reads the composition already
            return self.advantage
        return self._summary_advantage

    @cached_property
    def _summary_advantage(self) -> float:
        """:meth:`summary_advantage` on the grid chosen from the question, once per object (``describe`` and the μ̂
        fit's perfectly-private check both read it; the value depends on (σ, p, N) only)."""
        lo, hi = self._delta_bounds_raw(np.asarray(0.0), from_composition=True)
        return float(np.clip(self._delta_bounds_finish(0.0, lo, hi)[1], 0.0, 1.0))

    def _delta_bounds_raw(self, eps, upper_only: bool = False, from_composition: bool = False):
        if self._closed_form and self._gaussian.mu > HUGE_MU:
            return _huge_gaussian_delta_bounds(self._gaussian.mu, np.asarray(eps, dtype=float))
        if self._closed_form:
            return self._gaussian._delta_bounds(eps)
        from ..composition.sgm_certified import NEGLIGIBLE_MU, TAIL_FACTOR, profile_bracket, tail_bound
        from ..tradeoff import Bracket

        eps = np.asarray(eps, dtype=float)
        if from_composition:  # summary_advantage: the default grid's composition, as for a given discretization
            self.composition  # noqa: B018 — built first, so that _default_error_at reads its η
        if self.grid_from_question and not from_composition and math.sqrt(self.steps) / self.sigma > NEGLIGIBLE_MU:
            from ..composition.sgm_accuracy import (
                DEFAULT_MAX_SPACING, DELTA_ABS_DEFAULT, DELTA_REL_DEFAULT, delta_to_accuracy)

            a = delta_to_accuracy(self.sigma, self.sampling_rate, self.steps, eps, DELTA_REL_DEFAULT,
                                  DELTA_ABS_DEFAULT, upper_only=upper_only, max_spacing=DEFAULT_MAX_SPACING)
            b = Bracket(a.delta, a.lower)
        else:
            b = profile_bracket(self.composition, eps)
        hi = np.minimum(b.pessimistic, self._gaussian._delta_bounds(eps)[1])
        hi = np.where(eps >= 0.0, np.minimum(hi, self.never_sampled_bound), hi)  # δ(ε) ≤ δ(0) ≤ P(ever sampled)
        # the other certified bounds are consulted where the error bound (per ε) is within TAIL_FACTOR of δ (read
        # off the composition with its far-tail passes where ``eps`` needs them, as profile_bracket reads it)
        eta, h = self._default_error_at(eps, upper_only)
        if np.any(hi <= TAIL_FACTOR * eta):
            hi = np.minimum(hi, tail_bound(self.sigma, self.sampling_rate, self.steps).delta(eps).reshape(hi.shape))
            # the coarser grids ε(δ) consults in the far tail certify δ there too: the views agree, δ(ε(δ)) ≤ δ
            hi = np.minimum(hi, self._coarse_grid_delta(eps, h).reshape(hi.shape))
        out = Bracket(hi, np.minimum(b.optimistic, hi))
        return out.optimistic, out.pessimistic

    def _epsilon_scalar(self, delta: float) -> float:
        if self._closed_form and self._gaussian.mu > HUGE_MU:
            return _huge_gaussian_epsilon(self._gaussian.mu, delta)
        if self._closed_form:
            return float(self._gaussian._epsilon_scalar(delta))
        if delta >= 1.0:
            return 0.0
        if delta >= self.never_sampled_bound:  # δ(ε) ≤ δ(0) ≤ 1 − (1 − p)^N ≤ δ: ε = 0 without a grid
            return 0.0
        from ..composition.sgm_certified import (
            TAIL_FACTOR, PessimisticSide, default_discretization, pessimistic_side, side_for_epsilon, tail_bound,
        )

        c = self.__dict__.get("composition")  # both sides are built already
        if c is not None:
            h = c.discretization
            side = c.pessimistic_side or PessimisticSide(c.pessimistic, c.pessimistic_error, c.reports[0] if c.reports else None)
        else:  # ε(δ) needs the pessimistic side only: the same pair bit for bit, at half the cost
            h = self._grid_spacing
            if h is None:  # resolved here so that a later ``composition`` finds this side in its cache
                h = default_discretization(self.sigma, self.sampling_rate, self.steps)
            side = pessimistic_side(self.sigma, self.sampling_rate, self.steps, h)
        # with the far-tail passes (tradeoff/compose.py step 6″) only where δ is within their reach; consistent with
        # the δ(ε) reader: the default δ(ε) reads h₀ with the slack of the accuracy it asks for (sgm_accuracy.py)
        slack = None
        if self.grid_from_question:
            from ..composition.sgm_accuracy import far_tail_slack

            slack = far_tail_slack()
        side, eps = side_for_epsilon(side, delta, slack=slack)
        if not math.isfinite(eps) or delta <= TAIL_FACTOR * float(side.error_at(eps)):
            eps = min(eps, tail_bound(self.sigma, self.sampling_rate, self.steps).epsilon(delta))
            eps = min(eps, self._coarse_grid_epsilon(delta, h))
        return min(eps, float(self._gaussian._epsilon_scalar(delta)))

    def _default_error_at(self, eps: np.ndarray, upper_only: bool) -> tuple[np.ndarray, float]:
        """(η(ε) of the default grid's pessimistic side, which sets where the tail bound and the coarser grids are
        consulted; the grid spacing). The composition's (with its far-tail passes where ``eps`` needs them), except
        on the grid chosen from the question while the composition is not built (``delta`` composes no optimistic
        side and builds h₀'s passes only where they matter; ``delta_bounds`` none where the maximum-coordinate test
        closes the width: ``delta_to_accuracy``; ``delta_bounds`` there reads η(ε) of the side it read, with the
        passes where they are built and ``side_for_profile`` picks them, as the composition's): for ``delta`` the larger of the side's η(ε) without the passes and,
        where they are built already, with them (the passes tighten η(ε): the other bounds are consulted at least
        wherever either side would consult them; every bound consulted is certified)."""
        from ..composition.sgm_certified import (
            NEGLIGIBLE_MU, composition_for_profile, default_discretization, pessimistic_side, side_for_profile)

        if "composition" not in self.__dict__ and self.grid_from_question \
                and math.sqrt(self.steps) / self.sigma > NEGLIGIBLE_MU:
            h = default_discretization(self.sigma, self.sampling_rate, self.steps)
            side = pessimistic_side(self.sigma, self.sampling_rate, self.steps, h)
            eta = side.error_at(eps)
            if "with_far_tails" in side.__dict__:  # built (cached_property) by ε(δ) or by δ(ε) at another ε
                if upper_only:
                    eta = np.maximum(eta, side.with_far_tails.error_at(eps))
                else:  # the side ``delta_bounds`` read (as the composition's would be: composition_for_profile)
                    eta = side_for_profile(side, eps).error_at(eps)
            return eta, h
        c = self.composition
        return composition_for_profile(c, eps).pessimistic_error_at(eps), c.discretization

    #: coarser grids consulted in the far tail (factors of the composition's spacing)
    FAR_TAIL_FACTORS = (4.0, 16.0, 64.0)

    def _far_tail_factors(self, h: float) -> tuple[float, ...]:
        """FAR_TAIL_FACTORS less the grids whose composition window is not shorter than the finer grid's (their FFT
        is no cheaper and their η no smaller; far beyond the loss spread the split widens the window: at (σ, p, N) =
        (2, 9e-4, 10⁷), h = 4e-5, the 16× grid's is 2.3e7 points and certifies ε = ∞ after ~50 s of CPU):
        composition/sgm_far_grids.py. The same for ε(δ) and δ(ε), so the views agree."""
        from ..composition.sgm_compose import pessimistic_side
        from ..composition.sgm_far_grids import far_tail_factors, report_points

        base = report_points(pessimistic_side(self.sigma, self.sampling_rate, self.steps, h).report, h)
        return far_tail_factors(self.sigma, self.sampling_rate, self.steps, h, self.FAR_TAIL_FACTORS, base)

    def _coarse_grid_epsilon(self, delta: float, h: float) -> float:
        """min over coarser grids of their certified ε(δ) (each an upper bound: tradeoff/compose.py step 7).

        Where δ is within a few orders of the error bound η of the FFT, η (a uniform bound, larger on a
        finer, longer grid) dominates δ − η, and a coarser grid certifies a smaller ε: at (σ, p, N) =
        (1.12, 0.5, 2), δ = 1e-12, the default grid gives 8.074 and 16× coarser 7.917 (then 7.910, 7.9997
        at 32×, 64×). The coarser compositions cost a fraction of the default one's FFT.
        """
        from ..composition.sgm_certified import side_for_epsilon
        from ..composition.sgm_compose import pessimistic_side

        best = math.inf
        for factor in self._far_tail_factors(h):
            try:
                side = pessimistic_side(self.sigma, self.sampling_rate, self.steps, factor * h)
            except ValueError:  # too coarse for this mechanism: the finer grids have answered
                break
            best = min(best, side_for_epsilon(side, delta)[1])
        return best

    def _coarse_grid_delta(self, eps: np.ndarray, h: float) -> np.ndarray:
        """min over the coarser grids of :meth:`_coarse_grid_epsilon` of their certified δ(ε) = max(δ_rem, δ_add)
        + η (each an upper bound of the true δ: tradeoff/compose.py step 7)."""
        from ..composition.sgm_certified import side_for_profile
        from ..composition.sgm_compose import pessimistic_side

        best = np.full(np.shape(eps), np.inf)
        for factor in self._far_tail_factors(h):
            try:
                side = side_for_profile(pessimistic_side(self.sigma, self.sampling_rate, self.steps, factor * h), eps)
            except ValueError:  # too coarse for this mechanism: the finer grids have answered
                break
            d = np.maximum(side.profile.delta(eps), side.swapped.delta(eps)) + side.error_at(eps)
            best = np.minimum(best, d)
        return best

    def bayes_error(self, pi: Any) -> np.ndarray:
        """Minimum Bayes error R(π), lower end of the bracket ([BCP] eq 2): the lower end of :meth:`bayes_error_bounds`
        without its upper end, i.e. min(R_rem(π), R_rem(1 − π)) of the pessimistic pair rounded down, less η
        (``numerical_error``), clipped to [0, min(π, 1 − π)]. The optimistic pair's R is not evaluated: ``describe``'s
        R*, its μ̂ fit on ~3·10⁴ priors and every other reader of the curve alone pay for one side. (The bracket's
        order check — lower ≤ upper up to rounding — is ``bayes_error_bounds``'s, which every Δ still passes through.)

        >>> m = SubsampledGaussian(1.0, 0.01, 100)
        >>> x = np.array([0.01, 0.3, 0.5])
        >>> bool(np.all(m.bayes_error(x) == m.bayes_error_bounds(x)[0]))
        True
        """
        if self._closed_form:
            return super().bayes_error(pi)
        from .._validation import Argument, check_argument

        pi = check_argument(Argument.PI, pi)
        pess = self.composition.pessimistic
        lo = np.minimum(pess.bayes_error_bounds(pi)[0], pess.bayes_error_bounds(1.0 - pi)[0])
        return np.clip(sub_down(lo, self.numerical_error), 0.0, np.minimum(pi, 1.0 - pi))

    def _bayes_error_bounds(self, pi):
        if self._closed_form:
            return self._gaussian._bayes_error_bounds(pi)
        # R_sym(π) = min(R(π), R(1 − π)) of the asymmetric pair (the Bayes error of conv(min(f, f⁻¹)) is the
        # minimum of the two, and the swapped pair has R(1 − π)): no symmetrised curve, no cancellation
        c = self.composition
        pi = np.asarray(pi, dtype=float)
        lo = np.minimum(c.pessimistic.bayes_error_bounds(pi)[0], c.pessimistic.bayes_error_bounds(1.0 - pi)[0])
        hi = np.minimum(c.optimistic.bayes_error_bounds(pi)[1], c.optimistic.bayes_error_bounds(1.0 - pi)[1])
        eta = self.numerical_error
        cap = np.minimum(pi, 1.0 - pi)  # R ≤ min(π, 1 − π)
        return interval_bracket(sub_down(lo, eta), add_up(hi, eta), Sense.LOWER, 0.0, cap, absolute=_ROUNDING_ABS + eta)

    def _tradeoff_bounds(self, alpha):
        if self._closed_form:
            return self._gaussian._tradeoff_bounds(alpha)
        lo, hi = super()._tradeoff_bounds(alpha)
        # f_sym(0) = min(f(0), f⁻¹(0)) = 1 − max(q₊∞, p₋∞) of the pessimistic remove pair (f(0) = Q(ℓ < ∞), and
        # f⁻¹(0) is the add pair's, 1 − P(ℓ > −∞)), exactly; the vertex sum of the symmetrised pair reproduces it
        # only to its rounding (~1e-15 over ~10⁴ atoms), which must not overstate f
        pess = self.composition.pessimistic
        f0 = one_minus_down(max(float(pess.q_pos_inf), float(pess.p_neg_inf)))
        lo = np.where(np.asarray(alpha, dtype=float) <= 0.0, np.minimum(lo, f0), lo)
        cap = 1.0 - np.asarray(alpha, dtype=float)  # every trade-off function has f(α) ≤ 1 − α
        return interval_bracket(lo, hi, Sense.LOWER, 0.0, cap, absolute=_ROUNDING_ABS + float(self.numerical_error))

    @cached_property
    def composition(self):
        """The certified composition (pairs, discretisation, error bound, timings): composition/sgm_certified.py."""
        from ..composition.sgm_certified import compose_subsampled_gaussian

        return compose_subsampled_gaussian(self.sigma, self.sampling_rate, self.steps, self._grid_spacing)

    @property
    def _grid_spacing(self) -> float | None:
        """The grid spacing asked for: ``discretization``, or the one ``tolerance`` needs, or None (default)."""
        if self.tolerance is None or self.sampling_rate >= 1.0:
            return self.discretization
        from ..composition.sgm_certified import discretization_for_tolerance

        return discretization_for_tolerance(self.sigma, self.sampling_rate, self.steps, self.tolerance)

    def accuracy(self, eps) -> float:
        """The accuracy achieved at ε, reported back: the width of the certified δ bracket (≥ the excess of
        the reported δ over the truth). Compare with ``tolerance``."""
        lo, hi = self.delta_bounds(eps)
        return float(np.max(np.asarray(hi) - np.asarray(lo)))

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        c = self.composition
        if c.optimistic is c.pessimistic:  # an exact pair: one object, symmetrised once by the base class
            return c.pessimistic, c.optimistic
        return self._pessimistic_symmetric, c.optimistic  # symmetric already: the base class keeps it as it is

    @cached_property
    def _pessimistic_symmetric(self) -> DiscretePair:
        """The composition's pessimistic pair symmetrised (f_sym = conv(min(f, f⁻¹)): ``DiscretePair.symmetrize``),
        built once: the first of :meth:`pairs` and :meth:`pessimistic_pair` (which needs no optimistic one)."""
        return self.composition.pessimistic.symmetrize()

    def pessimistic_pair(self) -> DiscretePair:
        """``pairs()[0]`` without symmetrising the optimistic pair (or checking the two against each other) when
        :meth:`pairs` has not been asked: the AUC and the breakpoints a prior grid reads need this side only."""
        if "_pair_bracket" in self.__dict__ or self.composition.optimistic is self.composition.pessimistic:
            return self.pairs()[0]
        return self._pessimistic_symmetric

    def _tradeoff_integral(self) -> float:
        if self._closed_form:
            return self._gaussian._tradeoff_integral()
        return super()._tradeoff_integral()  # off ``pessimistic_pair()``: no optimistic pair is symmetrised for it

    @property
    def numerical_error(self) -> float:
        """Bound on the floating-point error of every Bayes error and every δ of both pairs
        (tradeoff/compose.py step 7), already included in the δ and R brackets; Δ brackets add the sum of
        both mechanisms' values. 0 at p = 1 (closed form)."""
        return 0.0 if self._closed_form else self.composition.numerical_error

    @property
    def spec(self) -> str:
        return f"sgm(sigma={format_number(self.sigma)}, p={format_number(self.sampling_rate)}, steps={self.steps})"

    @property
    def gdp_mu(self) -> float:
        """μ* = √N/σ for every sampling rate p — the tightest μ-GDP bound, though for p < 1 only the
        extreme tail reaches it.

        Bound: Poisson subsampling only raises a symmetric f (C((1−p)·Id + p·f) ≥ f, [MIX] Prop E.1,
        Dong et al.'s C_p) and composition is monotone, so f ≥ G_{1/σ}^{⊗N} = G_{√N/σ}. Tightness: with α = 1−Φ(x) and one step,
        1 − f(α) = (1−p)(1−Φ(x)) + p(1−Φ(x−1/σ)), so the GDP gap Φ⁻¹(1−α) − Φ⁻¹(f(α)) =
        1/σ − log(1/p)/x + o(1/x) → 1/σ as α → 0 (for N steps the event "sampled every time", of
        probability p^N, gives √N/σ the same way). The CLT μ = p√(N(e^{1/σ²}−1)) (Dong et al. 2022, §5) is
        an approximation of the bulk of f, not a bound; see ``dpcompare.dpsgd`` for it.
        """
        return math.sqrt(self.steps) / self.sigma


@dataclass(frozen=True, repr=False)
class _SummarySubsampledGaussian(SubsampledGaussian):
    """:meth:`SubsampledGaussian.summary_mechanism`: the same mechanism on its default grid, composed as a summary
    reads it (composition/sgm_summary.py); every view is certified, its optimistic ends a little looser (≤ 1e-12)."""

    @cached_property
    def composition(self):
        from ..composition.sgm_summary import summary_composition

        return summary_composition(self.sigma, self.sampling_rate, self.steps)

    def summary_mechanism(self) -> "SubsampledGaussian":
        return self


#: above this μ = √N/σ (at p = 1) the Gaussian's δ(ε) is evaluated through the bounds below, whose
#: arguments are formed without the cancellation of ε/μ − μ/2 between two numbers of size ~μ
HUGE_MU = 1e6


def _huge_gaussian_delta_bounds(mu: float, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified bracket of δ(ε) = Φ(a) − e^ε Φ(−x) of G_μ, a = μ/2 − ε/μ, x = ε/μ + μ/2 (Balle & Wang 2018,
    Thm 8), for huge μ: δ ≤ Φ(a) and, by the Mills ratio Φ(−x) ≤ φ(x)/x with e^ε φ(x) = φ(a),
    δ ≥ Φ(a) − φ(a)/x ≥ Φ(a) − 1/(√(2π)·x). a = (μ²/2 − ε)/μ is formed with an error ≤ 4u·(μ + |ε|/μ),
    moved outwards."""
    from scipy.special import ndtr

    u = 2.0**-53
    with np.errstate(over="ignore", invalid="ignore"):
        a = (0.5 * mu * mu - eps) / mu
        err = 4 * u * (mu + np.abs(eps) / mu) + 1e-300
        x = np.where(np.isfinite(eps), eps / mu + 0.5 * mu, np.inf)
        hi = np.where(np.isposinf(eps), 0.0, ndtr(a + err))
        lo = np.where(np.isposinf(eps), 0.0, np.maximum(ndtr(a - err) - 1.0 / (math.sqrt(2 * math.pi) * np.maximum(x, 1.0)), 0.0))
    return lo, hi


def _huge_gaussian_epsilon(mu: float, delta: float) -> float:
    """Certified ε(δ) of G_μ for huge μ from δ ≤ Φ(μ/2 − ε/μ): ε = μ·(μ/2 − Φ⁻¹(δ)), rounded up; the
    dropped term e^εΦ(−ε/μ − μ/2) ≤ φ/x is below δ/μ, so this is within O(1/μ²) relative of the exact ε."""
    from scipy.special import ndtri

    if delta >= 1.0:
        return 0.0
    if delta <= 0.0:
        return math.inf
    eps = mu * (0.5 * mu - float(ndtri(delta)))
    return max(0.0, eps * (1.0 + 2.0**-48) + 1e-300)
