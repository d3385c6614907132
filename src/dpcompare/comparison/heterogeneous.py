"""[BCP] Lemma 6 for heterogeneous compositions (e.g. two DP-SGD noise schedules), beside the certified Δ.

Lemma 6 ([BCP], after Dong, Roth & Su 2022, Thm 3.5): for triangular arrays of mechanisms with
Σᵢ v₁(fᵢ) → K, maxᵢ v₁(fᵢ) → 0, Σᵢ v₂(fᵢ) → s², Σᵢ v₄(fᵢ) → 0, the composition converges uniformly to
G_{2K/s} (eq 72); so if K/s > K̃/s̃ the composition M₁ ⊗ … ⊗ M_N eventually Blackwell-dominates
(is less private than) M̃₁ ⊗ … ⊗ M̃_N (eq 13). v₁ = KL(P‖Q), v₂ = E_P[ℓ²], v₄ = E_P|ℓ|³ are the
one-step PLRV moments ([BCP] eq 9–12).

A schedule is a list of parts (one-step mechanism, count nᵢ); the sums are K = Σ nᵢ v₁,ᵢ and
s² = Σ nᵢ v₂,ᵢ. Reported per schedule:

- ``mu_lemma`` = 2K/s, the Lemma's limit μ (eq 72);
- ``mu_variance`` = 2K/√(Σ nᵢ (v₂,ᵢ − v₁,ᵢ²)): the same limit (v₁² → 0 under the Lemma's
  conditions), exact at finite N for Gaussian parts (G_μ: v₁ = μ²/2, v₂ − v₁² = μ²) and equal to
  Thm 3's 2η√N for one part. When the two orderings disagree, the finite-N prediction is unsettled
  and the result says so;
- the diagnostics of the Lemma's conditions at this N: maxᵢ v₁,ᵢ and Σ nᵢ v₄,ᵢ (both should be small).

Beside the prediction, the Δ of the *actual* compositions in both directions: certified where the
composition is (one subsampled-Gaussian part: the certified engine; Gaussian parts: closed form;
one composable part: the certified grid), otherwise dp-accounting's PLD of the composed DpEvent
(sound up to its unbounded FFT rounding; the ``note`` says which). Also the Δ of each composition to
its Lemma 6 limit G_{2K/s}, which says how far from the limit the finite schedule still is.

>>> import dpcompare as dc
>>> h = heterogeneous([(dc.Gaussian(mu=0.1), 100)], [(dc.Gaussian(mu=0.05), 300)], certified=False)
>>> round(h.a.mu_variance, 6), round(h.b.mu_variance, 6), h.prediction
(1.0, 0.866025, 'a>=b')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._validation import check_integer
from ..mechanisms import Gaussian, Laplace, Mechanism, SubsampledGaussian
from .delta import DeltaResult, delta_divergences
from .plrv import Moments, moments_with_method

__all__ = ["Heterogeneous", "Schedule", "heterogeneous", "schedule_parts"]


@dataclass(frozen=True)
class Schedule:
    """One side: parts (one-step mechanism, count), their one-step moments, and the Lemma 6 sums."""

    parts: tuple[tuple[Mechanism, int], ...]
    moments: tuple[Moments, ...]
    K: float  # Σ nᵢ v₁,ᵢ
    s2: float  # Σ nᵢ v₂,ᵢ
    variance: float  # Σ nᵢ (v₂,ᵢ − v₁,ᵢ²)
    max_v1: float
    sum_v4: float

    @property
    def steps(self) -> int:
        return sum(n for _, n in self.parts)

    @property
    def ratio(self) -> float:
        """K/s (Lemma 6's ordering quantity)."""
        return self.K / math.sqrt(self.s2) if self.s2 > 0 else math.inf

    @property
    def mu_lemma(self) -> float:
        """2K/s: the μ of the Gaussian limit G_{2K/s} (eq 72)."""
        return 2.0 * self.ratio

    @property
    def mu_variance(self) -> float:
        """2K/√(Σ nᵢ Var ℓᵢ): the same limit, exact for Gaussian parts at finite N."""
        return 2.0 * self.K / math.sqrt(self.variance) if self.variance > 0 else math.inf

    def describe(self) -> str:
        return " + ".join(f"{n}×{m.spec}" for m, n in self.parts)

    def to_dict(self) -> dict[str, Any]:
        return {"schedule": self.describe(), "steps": self.steps,
                "parts": [{"mechanism": m.spec, "steps": n, "moments": mo.to_dict()} for (m, n), mo in zip(self.parts, self.moments)],
                "K": self.K, "s": math.sqrt(self.s2), "K_over_s": self.ratio, "mu_lemma": self.mu_lemma,
                "mu_variance": self.mu_variance, "max_v1": self.max_v1, "sum_v4": self.sum_v4}


@dataclass(frozen=True)
class Heterogeneous:
    """Lemma 6's prediction for two schedules, with the Δ of the actual compositions beside it."""

    a: Schedule
    b: Schedule
    prediction: str  # "a>=b" (A eventually less private), "b>=a", or "equal"
    variance_agrees: bool  # the finite-N ordering by 2K/√Var is the same
    delta_ab: DeltaResult | None  # Δ(A‖B) of the actual compositions
    delta_ba: DeltaResult | None
    to_limit_a: tuple[DeltaResult, DeltaResult] | None  # (Δ(A‖G), Δ(G‖A)), G = G_{2K/s}
    to_limit_b: tuple[DeltaResult, DeltaResult] | None
    note: str

    def sentence(self) -> str:
        ka, kb = self.a.ratio, self.b.ratio
        if self.prediction == "equal":
            head = f"K/s = {ka:.6g} = K̃/s̃: Lemma 6 predicts no dominance"
        else:
            more, less = ("A", "B") if self.prediction == "a>=b" else ("B", "A")
            head = (f"K/s = {ka:.6g} {'>' if ka > kb else '<'} K̃/s̃ = {kb:.6g}: Lemma 6 predicts that {more}'s composition "
                    f"eventually Blackwell-dominates {less}'s (is less private against every prior)")
        if not self.variance_agrees:
            head += "; the finite-N μ = 2K/√Var orders them the other way, so at this N the prediction is unsettled"
        return head + "."

    def to_dict(self) -> dict[str, Any]:
        def pair(x):
            return None if x is None else {"delta_to_limit": x[0].to_dict(), "delta_from_limit": x[1].to_dict()}

        return {"a": self.a.to_dict(), "b": self.b.to_dict(), "prediction": self.prediction,
                "variance_agrees": self.variance_agrees,
                "delta_ab": None if self.delta_ab is None else self.delta_ab.to_dict(),
                "delta_ba": None if self.delta_ba is None else self.delta_ba.to_dict(),
                "limit_a": pair(self.to_limit_a), "limit_b": pair(self.to_limit_b),
                "note": self.note, "sentence": self.sentence()}


def schedule_parts(mechanisms: Sequence[Mechanism]) -> list[tuple[Mechanism, int]]:
    """Split mechanisms into (one step, count): ``sgm(…, steps=N)`` → (sgm(…, steps=1), N);
    ``compose(M, steps=N)`` → (M, N); anything else is one step."""
    from ..mechanisms.composed import Composed

    out: list[tuple[Mechanism, int]] = []
    for m in mechanisms:
        if not isinstance(m, Mechanism):
            raise TypeError(f"schedule parts must be dpcompare mechanisms, got {type(m).__name__}")
        if isinstance(m, SubsampledGaussian):
            out.append((SubsampledGaussian(m.sigma, m.sampling_rate, 1), int(m.steps)))
        elif isinstance(m, Composed):
            out.append((m.mechanism, int(m.steps)))
        else:
            out.append((m, 1))
    return out


def _schedule(parts: Sequence[tuple[Mechanism, int]], name: str) -> Schedule:
    if len(parts) == 0:
        raise ValueError(f"schedule {name} must have at least one part")
    clean, moms = [], []
    for m, n in parts:
        n = check_integer(f"steps of a part of schedule {name}", n, minimum=1)
        mo, _ = moments_with_method(m)
        if not mo.finite:
            raise ValueError(f"{m.spec} has an infinite PLRV moment (v₄ = ∞): Lemma 6 does not apply to schedule {name}")
        clean.append((m, n))
        moms.append(mo)
    K = sum(n * mo.v1 for (_, n), mo in zip(clean, moms))
    s2 = sum(n * mo.v2 for (_, n), mo in zip(clean, moms))
    var = sum(n * mo.variance for (_, n), mo in zip(clean, moms))
    return Schedule(tuple(clean), tuple(moms), K, s2, var, max(mo.v1 for mo in moms),
                    sum(n * mo.v4 for (_, n), mo in zip(clean, moms)))


def _event(m: Mechanism, n: int) -> dict | None:
    if isinstance(m, SubsampledGaussian):
        inner = {"class_name": "PoissonSampledDpEvent", "sampling_probability": m.sampling_rate,
                 "event": {"class_name": "GaussianDpEvent", "noise_multiplier": m.sigma}}
    elif isinstance(m, Gaussian):
        inner = {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0 / m.mu}
    elif isinstance(m, Laplace):
        inner = {"class_name": "LaplaceDpEvent", "noise_multiplier": 1.0 / m.m}
    else:
        return None
    return {"class_name": "SelfComposedDpEvent", "count": n, "event": inner}


def compose_schedule(s: Schedule) -> tuple[Mechanism | None, str]:
    """The composed mechanism of a schedule and how good it is (module docstring)."""
    from ..mechanisms import FromDpEvent
    from ..mechanisms.composed import Composed, composable

    parts = s.parts
    if all(isinstance(m, Gaussian) for m, _ in parts):
        return Gaussian(mu=math.sqrt(sum(n * m.mu**2 for m, n in parts))), "closed form (Gaussian parts)"
    if len(parts) == 1:
        m, n = parts[0]
        if isinstance(m, SubsampledGaussian):
            return SubsampledGaussian(m.sigma, m.sampling_rate, n), "certified engine"
        if composable(m) is None:
            try:
                return Composed(m, n), "certified grid composition"
            except ValueError as exc:
                return None, str(exc)
    events = [_event(m, n) for m, n in parts]
    if any(e is None for e in events):
        bad = next(m for (m, _), e in zip(parts, events) if e is None)
        return None, f"no composition of {bad.spec} with the other parts is available"
    return (FromDpEvent({"class_name": "ComposedDpEvent", "events": events}, name=s.describe()),
            "dp-accounting PLD (pessimistic/optimistic; its FFT rounding is not bounded)")


def heterogeneous(a_parts: Sequence[tuple[Mechanism, int]], b_parts: Sequence[tuple[Mechanism, int]], *,
                  certified: bool = True) -> Heterogeneous:
    """Lemma 6 for schedules A and B (lists of (one-step mechanism, count)); module docstring.
    ``certified=False`` skips composing the schedules (moments and prediction only)."""
    a, b = _schedule(a_parts, "A"), _schedule(b_parts, "B")
    ra, rb = a.ratio, b.ratio
    tol = 1e-12 * max(ra, rb)
    pred = "equal" if abs(ra - rb) <= tol else ("a>=b" if ra > rb else "b>=a")
    va, vb = a.mu_variance, b.mu_variance
    agrees = pred == ("equal" if abs(va - vb) <= 1e-12 * max(va, vb) else ("a>=b" if va > vb else "b>=a"))
    dab = dba = la = lb = None
    note = "composition skipped"
    if certified:
        ca, why_a = compose_schedule(a)
        cb, why_b = compose_schedule(b)
        note = f"A: {why_a}; B: {why_b}"
        if ca is not None and cb is not None:
            dab, dba = delta_divergences(ca, cb)
        if ca is not None:
            la = delta_divergences(ca, Gaussian(mu=a.mu_lemma))
        if cb is not None:
            lb = delta_divergences(cb, Gaussian(mu=b.mu_lemma))
    return Heterogeneous(a, b, pred, agrees, dab, dba, la, lb, note)
