"""The mechanism interface: a few formulas per mechanism, every other view derived.

A mechanism is characterised by a (tightly) dominating pair (P, Q) whose trade-off function f is
symmetrised as in the paper ([BCP] §1): f_sym = conv(min(f, f⁻¹)). Subclasses provide certified
brackets of three views — Bayes error R(π), privacy profile δ(ε) and trade-off f(α) — and the base
class derives the rest through the exact dualities of [BCP] §1–2:

- R(π) = min_α π·α + (1−π)·f(α)                           ([BCP] eq 2)
- f(α) = max_{0≤π<1} (R(π) − π·α)/(1−π)                  ([BCP] eq 4)
- δ(ε) = 1 + f*(−e^ε) = H_{e^ε}(P‖Q)                      ([BCP] eq 25–26)
- R(π) = π·(1 − δ(log((1−π)/π))) for π ≤ ½, R(π) = R(1−π)  ([BCP] eq 2)
- advantage = TV = δ(0) (eq 29); fixed point α* = f(α*) = R(½) = R* (Lemma 4).

Numerical honesty: the public views return the side of the bracket that errs towards *less*
privacy — δ and ε from above, f and R from below — and the ``*_bounds`` methods return both sides
as a :class:`~dpcompare.tradeoff.Bracket` (which unpacks as ``lo, hi``). Closed forms have
brackets of zero width up to floating point. Every view lies in its mathematical range:
δ ∈ [0, 1], f(α) ∈ [0, 1 − α], R(π) ∈ [0, min(π, 1 − π)], advantage ∈ [0, 1]; a bracket end is
clipped into the range only (the truth lies in it, so the clip moves the end towards the truth).

Arguments (one policy for every mechanism, :func:`dpcompare._validation.check_argument`): numbers
must be real numbers (bool and str raise a ``TypeError``, NaN a ``ValueError``); δ(ε) accepts every
ε ∈ [−∞, ∞] with one meaning for all mechanisms: δ(ε) = H_{e^ε}(P‖Q) = ∫(q − e^ε p)₊, which for ε < 0
equals 1 − e^ε·(1 − δ(−ε)) (f symmetric) and reaches 1 at ε = −∞ ([BCP] Thm 1 compares
profiles over all real ε); δ ∈ [0, 1] for ε(δ) (ε(0) may be ∞, ε(1) = 0); π, α ∈ [0, 1].
"""

from __future__ import annotations

import abc
import importlib
import math
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .._search import Scale, Side, Unreachable, solve
from .._validation import Argument, Interval, check_argument
from ..tradeoff import Bracket, Sense

if TYPE_CHECKING:
    from ..tradeoff import DiscretePair

_DBL_MAX = 1.7976931348623157e308
#: the δ of a summary (``describe``): a target in (0, 1)
_SUMMARY_DELTA = Interval(0.0, 1.0, low_open=True, high_open=True)


#: ends of a bracket inverted by at most this are floating-point rounding of two separately computed
#: values, not a wrong bracket: the interval is then taken between them. δ keeps relative precision
#: where it is small (log space), so its slack is relative plus a few ulp of 1 (tail sums); f and R
#: are sums of O(1) masses (absolute rounding ~ n·u), plus the mechanism's own ``numerical_error``.
_ROUNDING_REL = 1e-12
_ROUNDING_DELTA_ABS = 1e-15
_ROUNDING_ABS = 1e-12


def interval_bracket(lower: Any, upper: Any, sense: Sense, low: Any = None, high: Any = None,
                     absolute: float | None = None) -> Bracket:
    """A certified interval lower ≤ truth ≤ upper as a :class:`Bracket` of ``sense``, the form in which
    a mechanism's ``_bayes_error_bounds`` / ``_delta_bounds`` / ``_tradeoff_bounds`` hand their bounds
    to the base class (and a composed or delegating mechanism to its caller).

    ``low``/``high`` (optional) clip both ends into the quantity's mathematical range first (a clip
    towards the range never moves an end past the truth). Ends inverted by rounding only (``absolute``
    if given, else 1e-15 + 1e-12·|x|) become the interval between them; a larger inversion or a NaN
    raises: a wrong bracket, not a rounding.

    >>> b = interval_bracket(0.1, 0.3, Sense.LOWER)     # R or f: the lower end is the pessimistic one
    >>> b.pessimistic, b.optimistic
    (0.1, 0.3)
    >>> interval_bracket(0.2 + 1e-17, 0.2, Sense.UPPER).as_tuple()   # a rounding inversion is ordered
    (0.2, 0.2)
    """
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    if low is not None or high is not None:
        lo, hi = np.clip(lo, low, high), np.clip(hi, low, high)
    diff = lo - hi
    if absolute is None and (diff <= 0.0).all():  # ordered (the slack below is > 0): the same branch, without it
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    else:
        slack = (_ROUNDING_DELTA_ABS + _ROUNDING_REL * np.maximum(np.abs(lo), np.abs(hi))) if absolute is None else absolute
        if (diff <= slack).all():  # False on a NaN
            lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    return Bracket.from_interval(lo[()], hi[()], sense)  # raises, naming the NaN or the inversion


def _bracket(bounds: Any, sense: Sense, low: Any, high: Any, absolute: float | None = None) -> Bracket:
    """A subclass's (lower, upper) tuple or Bracket as a Bracket clipped into [low, high].

    Ends inverted by rounding only (``absolute`` if given, else 1e-15 + 1e-12·|x|) become the interval
    between them; a larger inversion raises (Bracket's own check): a wrong bracket, not a rounding.
    """
    return Bracket.from_interval(*_ordered(bounds, low, high, absolute), sense)


def _ordered(bounds: Any, low: Any, high: Any, absolute: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The (lower, upper) arrays of ``_bracket``, checked as a Bracket checks them (no NaN, no inversion
    beyond rounding), without building one."""
    lo, hi = bounds
    lo, hi = np.clip(lo, low, high), np.clip(hi, low, high)
    if absolute is None:
        slack = _ROUNDING_DELTA_ABS + _ROUNDING_REL * np.maximum(np.abs(lo), np.abs(hi))
    else:
        slack = absolute
    if np.asarray(lo - hi <= slack).all():  # False on a NaN
        return np.minimum(lo, hi), np.maximum(lo, hi)
    Bracket.from_interval(lo, hi, Sense.UPPER)  # raises, naming the NaN or the inversion
    raise AssertionError("unreachable: an inverted bracket passed the Bracket check")  # pragma: no cover


class Mechanism(abc.ABC):
    """Base class of every mechanism (immutable; subclasses are frozen dataclasses).

    Subclasses implement ``_bayes_error_bounds``, ``_delta_bounds`` and ``_tradeoff_bounds`` and a
    ``spec`` string in the CLI spec language; they may override any derived view with a closed form.
    The three bound methods return a :class:`~dpcompare.tradeoff.Bracket` (build it with
    :func:`interval_bracket`), which unpacks and indexes as the ordered interval ``(lower, upper)``;
    a plain ``(lower, upper)`` tuple is still accepted from subclasses defined outside dpcompare.
    """

    #: whether the views are closed forms (bracket of zero width)
    exact: bool = True

    # ------------------------------------------------------------------ the few formulas
    @abc.abstractmethod
    def _bayes_error_bounds(self, pi: np.ndarray) -> Bracket:
        """R_lo ≤ R_sym ≤ R_hi at π ∈ [0, 1] (already validated): ``Sense.LOWER``, R_lo is the pessimistic end."""

    @abc.abstractmethod
    def _delta_bounds(self, eps: np.ndarray) -> Bracket:
        """δ_lo ≤ δ ≤ δ_hi of the symmetrised profile at ε ∈ ℝ ∪ {+∞}: ``Sense.UPPER``, δ_hi is the pessimistic end."""

    @abc.abstractmethod
    def _tradeoff_bounds(self, alpha: np.ndarray) -> Bracket:
        """f_lo ≤ f_sym ≤ f_hi at α ∈ [0, 1]: ``Sense.LOWER``, f_lo is the pessimistic end."""

    @property
    @abc.abstractmethod
    def spec(self) -> str:
        """The mechanism in the CLI spec language, e.g. ``gaussian(mu=1)``."""

    def bayes_error_kinks(self) -> np.ndarray:
        """Priors π where R is not differentiable (atoms of the privacy loss); seeds the Δ search."""
        return np.array([])

    def pairs(self) -> tuple["DiscretePair", "DiscretePair"] | None:
        """(pessimistic, optimistic) symmetric discrete pairs when the mechanism is discrete or
        numeric; ``None`` for closed forms with a continuous privacy loss."""
        return None

    def pessimistic_pair(self) -> "DiscretePair | None":
        """``pairs()[0]``, the pessimistic symmetric pair alone (None where :meth:`pairs` is None), for a reader of the
        lower curve or of its breakpoints (the AUC, a prior grid). A numeric mechanism may answer it without building
        or checking the optimistic pair (``SubsampledGaussian``); the pair is the same object either way.

        >>> from dpcompare.mechanisms import Gaussian, RandomizedResponse
        >>> Gaussian(mu=1.0).pessimistic_pair() is None
        True
        >>> m = RandomizedResponse(eps=1.0)
        >>> m.pessimistic_pair() is m.pairs()[0]
        True
        """
        pairs = self.pairs()
        return None if pairs is None else pairs[0]

    # ------------------------------------------------------------------ public views (vectorised)
    def bayes_error_bounds(self, pi: Any) -> Bracket:
        """Certified bracket of R(π) (Sense.LOWER: the lower end is the pessimistic one), in [0, min(π, 1−π)].

        Unpacks as ``lo, hi``; an inverted bracket raises instead of being returned."""
        return Bracket.from_interval(*self.bayes_error_interval(check_argument(Argument.PI, pi)), Sense.LOWER)

    def bayes_error_interval(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) of ``bayes_error_bounds`` at a float array π ∈ [0, 1] the caller has validated (the
        sweep's own grids): the same clipping and checks, without argument parsing or a Bracket. The fast
        path for callers that build their own π grid (comparison/prior_sweep.py); others use
        ``bayes_error_bounds``."""
        return _ordered(self._bayes_error_bounds(pi), 0.0, np.minimum(pi, 1.0 - pi),
                        absolute=_ROUNDING_ABS + float(self.numerical_error))

    def bayes_error_interval_unchecked(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(lower, upper) that ``bayes_error_interval`` returns as they are wherever lower ≤ upper holds at every
        π, for a caller that checks lower − upper ≤ 0 itself (the prior sweep, on the rows of two mechanisms at
        once) and otherwise calls ``bayes_error_interval``; None where a mechanism has no such pair (the default)."""
        return None

    # -- uncertified estimates: they only place points (the prior sweep's crossing seeds), never a reported number
    def bayes_error_estimate(self, pi: np.ndarray) -> np.ndarray | None:
        """R(π) plainly in floating point at a float array π ∈ [0, 1], with no error bound (a location, never a
        reported value); None where a mechanism has no closed form for it (the default)."""
        return None

    def bayes_error_and_slope(self, pi: float) -> tuple[float, float] | None:
        """(R(π), R′(π)) plainly in floating point at a float π ∈ (0, 1), with no error bound (a root search's
        location); None where a mechanism has no closed form for it (the default)."""
        return None

    def bayes_error(self, pi: Any) -> np.ndarray:
        """Minimum Bayes error R(π) = min_α π·α + (1−π)·f(α) ([BCP] eq 2), lower end of the bracket.

        >>> import dpcompare as dc
        >>> round(float(dc.Gaussian(mu=1).bayes_error(0.5)), 6)
        0.308538
        """
        pi = check_argument(Argument.PI, pi)
        return np.clip(self._bayes_error_bounds(pi)[0], 0.0, np.minimum(pi, 1.0 - pi))

    def tradeoff_bounds(self, alpha: Any) -> Bracket:
        """Certified bracket of f(α) (Sense.LOWER), in [0, 1 − α]."""
        alpha = check_argument(Argument.ALPHA, alpha)
        return _bracket(self._tradeoff_bounds(alpha), Sense.LOWER, 0.0, 1.0 - alpha,
                        absolute=_ROUNDING_ABS + float(self.numerical_error))

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """Trade-off f(α) = inf{β_φ : α_φ ≤ α} ([BCP] eq 20), lower end of the bracket (pessimistic)."""
        alpha = check_argument(Argument.ALPHA, alpha)
        return np.clip(self._tradeoff_bounds(alpha)[0], 0.0, 1.0 - alpha)

    def tpr(self, fpr: Any) -> np.ndarray:
        """Power of the best membership test at false-positive rate α: TPR = 1 − f(α) (upper end), in [α, 1]."""
        fpr = check_argument(Argument.ALPHA, fpr, "fpr")
        return np.clip(1.0 - self._tradeoff_bounds(fpr)[0], fpr, 1.0)

    def delta_bounds(self, eps: Any) -> Bracket:
        """Certified bracket of δ(ε) (Sense.UPPER), in [0, 1]; ε ∈ [−∞, ∞]."""
        return _bracket(self._delta_bounds(check_argument(Argument.EPS, eps)), Sense.UPPER, 0.0, 1.0)

    def delta(self, eps: Any) -> np.ndarray:
        """Privacy profile δ(ε) = H_{e^ε}(P‖Q) of f_sym ([BCP] eq 25–26), upper end (never understated).

        Every real ε (and ±∞) is accepted, with the meaning in the module docstring (one policy for
        every mechanism).
        """
        return np.clip(self._delta_bounds(check_argument(Argument.EPS, eps))[1], 0.0, 1.0)

    def epsilon(self, delta: Any) -> np.ndarray | float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta, from the upper profile (never understated).

        Returns ``inf`` where no finite ε reaches ``delta`` (e.g. below the mass at ℓ = ∞, or where ε
        exceeds the largest double). The answer is always a point where δ_hi(ε) ≤ delta was
        evaluated (:func:`dpcompare._search.solve`).
        """
        arr = check_argument(Argument.DELTA, delta)
        flat = [self._epsilon_scalar(float(d)) for d in arr.ravel()]
        out = np.array(flat, dtype=float).reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def _epsilon_scalar(self, delta: float) -> float:
        """Default: the certified solver on log δ_hi(ε) − log delta over ε ∈ [0, largest double].

        Subclasses with a closed form or a better start override this, still through ``solve``.
        """
        if delta >= 1.0:
            return 0.0

        def hi_at(e: float) -> float:
            return float(self._delta_bounds(np.asarray(e, dtype=float))[1])

        return epsilon_by_search(hi_at, delta)
    # ------------------------------------------------------------------ scalar summaries
    @cached_property
    def advantage(self) -> float:
        """MIA advantage = TV(P, Q) = δ(0) ([BCP] eq 29), upper end."""
        return float(self.delta(0.0))

    @cached_property
    def minimax_bayes_error(self) -> float:
        """R* = max_π R(π) = R(½) for a symmetric f ([BCP] eq 3), lower end."""
        return float(self.bayes_error(0.5))

    @cached_property
    def fixed_point(self) -> float:
        """α* with f(α*) = α*; equals R* ([BCP] Lemma 4), lower end."""
        return self.minimax_bayes_error

    @cached_property
    def auc(self) -> float:
        """Area under the ROC curve TPR = 1 − f(FPR): AUC = 1 − ∫₀¹ f(α) dα, from the lower f (upper AUC), in [½, 1]."""
        return float(min(max(1.0 - self._tradeoff_integral(), 0.5), 1.0))

    def _tradeoff_integral(self) -> float:
        from scipy import integrate

        val, _ = integrate.quad(
            lambda a: float(self._tradeoff_bounds(np.asarray(a))[0]), 0.0, 1.0, epsabs=1e-13, epsrel=1e-11, limit=400
        )
        return float(val)

    def describe(self, delta: float = 1e-5) -> dict[str, Any]:
        """The scalar views as a dict (the keys of ``dpcompare describe --json``, which asks them of
        :meth:`summary_mechanism`).

        The advantage is :meth:`summary_advantage`: δ(0) read where the other views are read (for a numeric
        composition: its pair), a certified upper end like ``advantage``."""
        _SUMMARY_DELTA.check("delta", delta)
        return {
            "mechanism": self.spec,
            "delta": delta,
            "epsilon": _finite_or_none(self.epsilon(delta)),
            "advantage": self.summary_advantage(),
            "fixed_point": self.fixed_point,
            "minimax_bayes_error": self.minimax_bayes_error,
            "auc": self.auc,
            "gdp_mu": self.gdp_mu,
            "exact": self.exact,
            "numerical_error": self.numerical_error,
        }

    def summary_mechanism(self) -> "Mechanism":
        """The same mechanism with its certified brackets built to the accuracy a summary prints rather than to the far
        tail's: what ``dpcompare describe`` asks its views (:meth:`describe`) and its μ̂ fit of, when nothing else of
        the mechanism is asked in the process. Default: ``self``. ``SubsampledGaussian`` on its default grid answers
        with the same (σ, p, N) whose optimistic pair's single step is cut where that moves no Bayes error by more
        than 1e-12 (composition/sgm_summary.py): every number it reports is still a certified bound. (A caller that
        also reads other views of ``self`` would compose twice: it keeps ``self``.)

        >>> from dpcompare.mechanisms import Laplace
        >>> m = Laplace(b=1.0)
        >>> m.summary_mechanism() is m
        True
        """
        return self

    def summary_advantage(self) -> float:
        """The advantage δ(0) as ``describe`` reports it: a certified upper end of TV(P, Q) ([BCP] eq 29).

        Default: :attr:`advantage`. A mechanism whose ``advantage`` composes on a grid of its own (finer than
        the pair its other views read) overrides this to read δ(0) off that pair instead: the same guarantee
        (never below the truth), one composition fewer for a summary.

        >>> from dpcompare.mechanisms import Laplace
        >>> Laplace(b=1.0).summary_advantage() == Laplace(b=1.0).advantage
        True
        """
        return self.advantage

    @property
    def numerical_error(self) -> float:
        """A priori bound on floating-point error in R (uniform in π) not already inside the
        brackets (the FFT rounding of numeric compositions); 0 for closed forms and exact pairs.
        Δ brackets include it; δ and ε views do not (they are reported with it)."""
        return 0.0

    @property
    def gdp_mu(self) -> float | None:
        """μ of the tightest μ-GDP bound f ≥ G_μ (Dong et al. 2022, Def 2.6), or None.

        None means no finite μ is known: none exists (f(0) < 1, e.g. approxdp with δ > 0, or a
        numeric pair whose certified side puts its truncated tail at ℓ = +∞), or this mechanism kind
        has no closed form for it. Closed forms: Gaussian μ, Laplace, ε-DP and randomized response
        (mechanisms/gdp.py), the subsampled Gaussian √N/σ, perfectly private 0.
        """
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def _repr_html_(self) -> str:
        """Jupyter's display hook: the ``describe`` table and the ROC figure (io/notebook.py). The
        presentation layer is named, not imported, here: mechanisms/ does not depend on io/."""
        return importlib.import_module("dpcompare.io.notebook").mechanism_html(self)


def _finite_or_none(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None



def epsilon_by_search(
    delta_at: Any, delta: float, *, log_delta_at: Any = None, hi: float = _DBL_MAX, start: float | None = None,
    step: float | None = None, rtol: float = 1e-13,
) -> float:
    """min{ε ∈ [0, hi] : δ(ε) ≤ delta} through :func:`dpcompare._search.solve` (log scale), ``inf`` if none.

    ``delta_at(ε)`` is the reported δ (a double), ``log_delta_at(ε)`` optionally its logarithm (for
    δ below 1e-300); the predicate demands both ≤ the target, so the answer is certified as the user
    will check it. ``start``/``step`` seed the search with an accurate estimate (a closed form).
    """
    if delta >= 1.0:
        return 0.0
    lt = math.log(delta) if delta > 0 else -math.inf

    def g(e: float) -> float:
        d = delta_at(e)
        if log_delta_at is None:
            if delta > 0:
                return math.log(d) - lt if d > 0 else -math.inf
            return 0.0 if d <= 0 else 1.0
        ld = log_delta_at(e)
        if d > delta:
            return max(ld - lt, 1e-300) if delta > 0 else 1.0
        return ld - lt if delta > 0 else (0.0 if ld == -math.inf else 1.0)

    try:
        res = solve(g, 0.0, hi, side=Side.ABOVE, scale=Scale.LOG, start=start, step=step, rtol=rtol)
    except Unreachable:
        return math.inf
    return float(res.feasible)
