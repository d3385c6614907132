"""Comparing two mechanisms beyond the calibration point ([BCP] §3).

- Blackwell dominance (Thm 1): M ≥ M̃ ⇔ f ≤ f̃ ⇔ δ ≥ δ̃ ⇔ R ≤ R̃ everywhere; here decided from the
  certified Δ brackets with an explicit tolerance: "a>=b" when Δ(A‖B) ≤ tol.
- Approximate dominance at level 𝔇 (Def 2, Thm 2): the three equivalent clauses, each checkable.
- Symmetrised Δ↔ = max(Δ(A‖B), Δ(B‖A)) = ‖R − R̃‖_∞ (Def 3, eq 6): a metric (Cor 2).
- Crossing points of the Bayes error functions.
- Extremal comparisons (Lemmas 3–5): Δ(PP‖M) = δ(0)/2, Δ(M‖BNP) = R* = α*, and their sum ½.
"""

from __future__ import annotations

import importlib

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal

from .._validation import Interval
from ..mechanisms import Mechanism
from .delta import (DEFAULT_TOL, DeltaResult, check_mechanisms, delta_divergence, delta_pairs, load_hyperprior, widen,
                    widening)
from .delta_accuracy import check_accuracy, delta_accuracy
from .prior_sweep import FoldedWeight, MaxTarget, RegretTarget, crossing_seeds, crossings as sweep_crossings, sweep

if TYPE_CHECKING:  # the hyper-prior modules load where a hyper-prior is given (``as_hyperprior``, ``weighted``)
    from .hyperprior import HyperPrior
    from .weighted import Weighted

#: bracket width of the weighted Δ^Ψ inside ``compare``
WEIGHTED_TOL = 1e-10

Verdict = Literal["a>=b", "b>=a", "equal", "incomparable"]

#: the verdict in words when the Δ that decides it is 0 (or ≈ 0); who is safer first, the Blackwell term second
VERDICT_TEXT = {
    "a>=b": "B is at least as private as A against every adversary (A Blackwell-dominates B)",
    "b>=a": "A is at least as private as B against every adversary (B Blackwell-dominates A)",
    "equal": "A and B offer the same protection against every adversary (Δ↔ ≈ 0)",
    "incomparable": "neither is at least as private as the other against every adversary: each is more vulnerable "
                    "for some prior",
}

#: the largest tolerance a verdict accepts: Δ lies in [0, ½], and at ½ every pair would count as equal
MAX_TOLERANCE = 0.5
#: the domain of ``compare``'s ``tol``: [0, MAX_TOLERANCE)
_TOL_DOMAIN = Interval(0.0, MAX_TOLERANCE, high_open=True)
#: the unweighted Δ(A‖B) and Δ(B‖A) as sweep targets (immutable NamedTuples: built once)
_BOTH_DIRECTIONS = (MaxTarget(False), MaxTarget(True))


def verdict_text(verdict: Verdict, delta_ab: DeltaResult, delta_ba: DeltaResult, tol: float) -> str:
    """The verdict in words. A claim about every adversary is made only where the Δ that decides it is 0
    (or ≈ 0: below the numerical error); a Δ that is positive but at most ``tol`` is said to be within
    the tolerance, with its value.

    >>> z, d = DeltaResult(0.0, 0.0, 0.0, 0.5), DeltaResult(0.0341, 0.0341, 0.0341, 0.27)
    >>> verdict_text("b>=a", d, z, 1e-9)
    'A is at least as private as B against every adversary (B Blackwell-dominates A)'
    >>> verdict_text("equal", DeltaResult(0.0053, 0.0053, 0.0053, 0.5), d, 0.05)
    'A and B are equal within the tolerance 0.05: their Bayes error functions differ by at most Δ↔ = 0.0341 at any prior, which is not 0'
    """
    def zero(d: DeltaResult) -> bool:
        return d.value == 0 or d.negligible

    if verdict == "incomparable":
        return VERDICT_TEXT[verdict]
    if verdict == "equal":
        if zero(delta_ab) and zero(delta_ba):
            exact = delta_ab.value == 0 and delta_ba.value == 0
            return VERDICT_TEXT[verdict].replace("≈", "=") if exact else VERDICT_TEXT[verdict]
        sym = max(delta_ab.value, delta_ba.value)
        return (f"A and B are equal within the tolerance {tol:.3g}: their Bayes error functions differ by at most "
                f"Δ↔ = {sym:.3g} at any prior, which is not 0")
    d = delta_ab if verdict == "a>=b" else delta_ba
    if zero(d):
        return VERDICT_TEXT[verdict]
    safer, other, label = ("B", "A", "Δ(A‖B)") if verdict == "a>=b" else ("A", "B", "Δ(B‖A)")
    return (f"{safer} is at least as private as {other} within the tolerance {tol:.3g}: {safer} is at most "
            f"{label} = {d.value:.3g} more vulnerable, at prior π ≈ {d.pi:.3g} (not Blackwell dominance, which needs "
            f"{label} = 0)")


@dataclass(frozen=True)
class Comparison:
    """Both directions of Δ, the symmetrised Δ↔, the Blackwell verdict and the crossing priors,
    all from one sweep (``dpcompare.comparison.prior_sweep``); ``weighted`` holds the hyper-prior figures.

    The verdict and ``delta_ab``/``delta_ba`` always come from the unweighted Bayes error functions:
    Blackwell dominance is a property of the curves, not of a prior over adversaries.
    """

    a: Mechanism
    b: Mechanism
    delta_ab: DeltaResult
    delta_ba: DeltaResult
    verdict: Verdict
    crossings: tuple[float, ...]
    tolerance: float
    weighted: Weighted | None = None

    @property
    def hyperprior(self) -> str | None:
        """Name of the hyper-prior of ``weighted`` (None without one)."""
        return None if self.weighted is None else self.weighted.hyperprior.name

    @property
    def verdict_certified(self) -> bool:
        """Whether the certified brackets (not only the estimates) decide the verdict."""
        return verdict_certified(self.delta_ab, self.delta_ba, self.tolerance)

    @property
    def verdict_text(self) -> str:
        """The verdict in words (:func:`verdict_text`)."""
        return verdict_text(self.verdict, self.delta_ab, self.delta_ba, self.tolerance)

    def __str__(self) -> str:
        """A readable summary: both Δ with their brackets, the verdict, the crossings, in words.

        >>> import dpcompare as dc
        >>> print(dc.compare(dc.Gaussian(mu=1), dc.Gaussian(mu=2)))
        A = gaussian(mu=1)
        B = gaussian(mu=2)
        Δ(A‖B): Δ = 0.149882, certified in [0.149882, 0.149882], attained at π = 0.5 (ε = 0)
        Δ(B‖A): Δ = 0, certified in [0, 1e-15]
        Verdict (b>=a): A is at least as private as B against every adversary (B Blackwell-dominates A).
        In words: B is up to 0.15 more vulnerable than A, against an adversary with prior π ≈ 0.5.
        """
        lines = [f"A = {self.a.spec}", f"B = {self.b.spec}", f"Δ(A‖B): {self.delta_ab}", f"Δ(B‖A): {self.delta_ba}",
                 f"Verdict ({self.verdict}): {self.verdict_text}."]
        if not self.verdict_certified:
            lines[-1] += " Not certified: a Δ bracket straddles the tolerance."
        if self.crossings:
            lines.append("Crossings: R_A and R_B cross at π ≈ " + ", ".join(f"{x:.4g}" for x in self.crossings) + ".")
        if self.weighted is not None:
            lines.append(str(self.weighted))
        lines.append(f"In words: {self.sentence()}")
        return "\n".join(lines)

    @property
    def symmetric(self) -> float:
        """Δ↔ = max(Δ(A‖B), Δ(B‖A)) (Def 3)."""
        return max(self.delta_ab.value, self.delta_ba.value)

    @property
    def symmetric_bounds(self) -> tuple[float, float]:
        return max(self.delta_ab.lower, self.delta_ba.lower), max(self.delta_ab.upper, self.delta_ba.upper)

    def _repr_html_(self) -> str:
        """Jupyter's display hook: what ``dpcompare compare`` prints, with the Bayes error figure
        (io/notebook.py). The presentation layer is named, not imported, here: comparison/ does not
        depend on io/."""
        return importlib.import_module("dpcompare.io.notebook").comparison_html(self)

    def sentence(self) -> str:
        """One-sentence summary in plain words."""
        parts = []
        if not (self.delta_ab.value == 0 or self.delta_ab.negligible):
            parts.append(
                f"B is up to {self.delta_ab.value:.3g} more vulnerable than A, against an adversary with prior π ≈ {self.delta_ab.pi:.3g}"
            )
        if not (self.delta_ba.value == 0 or self.delta_ba.negligible):
            parts.append(
                f"A is up to {self.delta_ba.value:.3g} more vulnerable than B, against an adversary with prior π ≈ {self.delta_ba.pi:.3g}"
            )
        text = (self.verdict_text + ".") if not parts else "; ".join(parts) + "."
        w = self.weighted
        if w is not None:
            text += (
                f" Averaged over priors drawn from {w.hyperprior.name}, the adversary's Bayes error is lower on B"
                f" than on A by {w.regret_ab.value:.3g} (expected regret of choosing B) and lower on A than on B"
                f" by {w.regret_ba.value:.3g} (of choosing A)."
            )
        return text

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.symmetric_bounds
        return {
            "a": self.a.spec,
            "b": self.b.spec,
            "delta_ab": self.delta_ab.to_dict(),
            "delta_ba": self.delta_ba.to_dict(),
            "symmetric": self.symmetric,
            "symmetric_bounds": [lo, hi],
            "verdict": self.verdict,
            "verdict_certified": self.verdict_certified,
            "verdict_text": self.verdict_text,
            "crossings": list(self.crossings),
            "tolerance": self.tolerance,
            "hyperprior": self.hyperprior,
            "weighted": None if self.weighted is None else self.weighted.to_dict(),
            "summary": self.sentence(),
        }


def blackwell_verdict(delta_ab: DeltaResult, delta_ba: DeltaResult, tol: float) -> Verdict:
    """Thm 1 with a tolerance: A ≥ B iff Δ(A‖B) = 0, decided as Δ(A‖B) ≤ tol on the estimate.

    Whether the brackets certify the verdict is ``verdict_certified``.
    """
    ab = delta_ab.value <= tol
    ba = delta_ba.value <= tol
    if ab and ba:
        return "equal"
    if ab:
        return "a>=b"
    if ba:
        return "b>=a"
    return "incomparable"


def verdict_certified(delta_ab: DeltaResult, delta_ba: DeltaResult, tol: float) -> bool:
    """True when both brackets lie on one side of ``tol``: each Δ is certified ≤ tol or > tol."""
    return all(d.upper <= tol or d.lower > tol for d in (delta_ab, delta_ba))


def compare(
    a: Mechanism, b: Mechanism, *, hyperprior: HyperPrior | Callable | None = None, tol: float = 1e-9,
    crossings: bool = True, accuracy: float | None = None,
) -> Comparison:
    """Compare A and B in one sweep: Δ(A‖B), Δ(B‖A), Δ↔, Blackwell verdict (tolerance ``tol``),
    crossings, and with a hyper-prior Ψ the weighted Δ^Ψ and the expected regrets E_Ψ[(R_A − R_B)₊].

    Without a hyper-prior, numeric mechanisms whose grid is not given choose it from Δ (as
    :func:`delta_divergence`, ``accuracy`` likewise; the brackets must also decide the verdict where the grid
    allows), and the crossings are read on those grids. With a hyper-prior and ``accuracy`` the grids are
    chosen for the weighted Δ^Ψ (both ways, that absolute width: ``delta_accuracy``), and Δ, the verdict, the
    regrets and the crossings are read on them (certified, not to that width); without ``accuracy``, on the
    mechanisms' default grids.

    >>> import dpcompare as dc
    >>> c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1))
    >>> c.verdict, [round(x, 4) for x in c.crossings]
    ('incomparable', [0.4185, 0.5815])
    >>> w = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1), hyperprior=dc.BetaPrior(1e6, 1e6))
    >>> w.verdict, round(w.weighted.delta_ab.value, 2), round(w.weighted.regret_ab.value, 4)
    ('incomparable', 5.95, 0.0053)
    """
    check_mechanisms(a, b)
    tol = _TOL_DOMAIN.check("tol", tol)  # (check_in_interval with its Interval built once)
    h = None if hyperprior is None else load_hyperprior(hyperprior)
    accuracy = check_accuracy(accuracy)
    chosen = delta_accuracy(a, b, accuracy=accuracy, decide=tol) if h is None else None
    # with a hyper-prior and an accuracy: Δ^Ψ's grids chosen for it, every other figure read on those grids
    chosen_w = None if h is None or accuracy is None else delta_accuracy(a, b, accuracy=accuracy, hyperprior=h,
                                                                         tol=WEIGHTED_TOL)
    if chosen is not None:  # Δ on the grids chosen from it; the crossings on the same grids
        cross: tuple[float, ...] = ()
        if crossings:
            grid, _ = sweep(*chosen.mechanisms, [], tol=DEFAULT_TOL)
            cross = tuple(sweep_crossings(*chosen.mechanisms, grid))
        dab, dba = chosen.ab, chosen.ba
        return Comparison(a, b, dab, dba, blackwell_verdict(dab, dba, tol), cross, tol, None)
    ma, mb = (a, b) if chosen_w is None else chosen_w.mechanisms
    pa, pb = ma.pairs(), mb.pairs()
    discrete = pa is not None and pb is not None
    targets: list = [] if discrete else list(_BOTH_DIRECTIONS)
    if h is not None:
        w = FoldedWeight(h)
        # weighted figures to 1e-10 (they are reported to 3–4 digits; 1e-12 costs a 50 000-point grid)
        if chosen_w is None:
            targets += [MaxTarget(False, w, WEIGHTED_TOL), MaxTarget(True, w, WEIGHTED_TOL)]
        targets += [RegretTarget(False, w), RegretTarget(True, w)]
    # the crossings' roots located from the mechanisms' plain estimates and seeded into the first grid: their
    # certified brackets then come with the sweep's one evaluation instead of refinement rounds of their own
    # (not with a hyper-prior: its regrets refine the grid over many rounds, which the seeds would only move)
    seeds = crossing_seeds(ma, mb) if crossings and h is None else None
    grid, outs = sweep(ma, mb, targets, tol=DEFAULT_TOL, extra=seeds)

    eta_w = widening(ma, mb)

    def as_delta(o) -> DeltaResult:
        # ``widen`` of the outcome, without building the intermediate DeltaResult (the outcome, a MaxOutcome, has
        # checked its own bracket): the same operations on the same doubles
        lower = max(0.0, o.lower - eta_w)
        upper = o.upper + eta_w
        return DeltaResult(min(max(o.value, lower), upper), lower, upper, o.pi, o.certified)

    if discrete:
        dab, dba = (widen(r, ma, mb) for r in delta_pairs(pa, pb))
    else:
        dab, dba = as_delta(outs[0]), as_delta(outs[1])
        outs = outs[2:]
    weighted = None
    if h is not None:
        from .weighted import Regret, Weighted  # (their module is loaded with a hyper-prior only)

        def as_regret(o) -> Regret:
            eta = float(ma.numerical_error) + float(mb.numerical_error)
            return Regret(o.value, max(0.0, o.lower - eta), o.upper + eta, o.certified)

        if chosen_w is None:
            wab, wba = as_delta(outs[0]), as_delta(outs[1])
            outs = outs[2:]
        else:
            wab, wba = chosen_w.ab, chosen_w.ba
        weighted = Weighted(h, wab, wba, as_regret(outs[0]), as_regret(outs[1]))
    verdict = blackwell_verdict(dab, dba, tol)
    cross = sweep_crossings(ma, mb, grid) if crossings else ()
    return Comparison(a, b, dab, dba, verdict, cross, tol, weighted)


def crossing_points(a: Mechanism, b: Mechanism) -> list[float]:
    """Priors π ∈ (0, 1) where R_A − R_B changes sign, certified (``dpcompare.comparison.prior_sweep.crossings``).

    >>> import dpcompare as dc
    >>> [round(x, 6) for x in dc.crossing_points(dc.Gaussian(mu=1), dc.Laplace(b=1))]
    [0.418539, 0.581461]
    """
    check_mechanisms(a, b)
    return list(compare(a, b).crossings)


def delta_from_perfect_privacy(m: Mechanism) -> DeltaResult:
    """Δ(M_PP‖M) = ½·TV = ½·δ(0) ([BCP] Lemma 3), computed as a Δ-divergence."""
    from ..mechanisms import PerfectlyPrivate  # here: a comparison of two mechanisms does not load the discrete ones

    return delta_divergence(PerfectlyPrivate(), m)


def delta_to_blatant_non_privacy(m: Mechanism) -> DeltaResult:
    """Δ(M‖M_BNP) = R* = α* ([BCP] Lemma 4), computed as a Δ-divergence."""
    from ..mechanisms import BlatantlyNonPrivate

    return delta_divergence(m, BlatantlyNonPrivate())
