"""Emergent Blackwell dominance for any two mechanisms ([BCP] §4: eq 8–14, Lemma 6, Theorem 3).

For M composed N times and M̃ composed Ñ times:

- the one-step PLRV moments v₁…v₄ and η = v₁/√(v₂ − v₁²) of each (``dpcompare.comparison.plrv``);
- the CLT proxies G_μ and G_μ̃ with μ = 2η√N, μ̃ = 2η̃√Ñ (proof eq 77–78); Gaussians are always
  Blackwell ordered (Lemma B.2), the larger μ is the less private: that mechanism is the predicted
  winner (it comes to Blackwell-dominate as N, Ñ grow at a fixed ratio, Lemma 6);
- Theorem 3 for each ordering: if N/Ñ ≥ η̃²/η² (⇔ μ ≥ μ̃) and v₄, ṽ₄ < ∞, then
  Δ(M^⊗N ‖ M̃^⊗Ñ) ≤ γ + γ̃ with γ = 0.56·v₃/(√N (v₂ − v₁²)^{3/2}) (eq 14, 85). Otherwise the theorem
  does not apply to that ordering, and nothing is claimed;
- beside it, the certified Δ in both directions between the composed mechanisms, where a certified
  composition exists: Gaussian (closed form G_{μ√N}), subsampled Gaussian (the certified engine,
  ``sgm(..., steps=1)`` composed N times), randomized response and ε-DP (exact binomial pair),
  Laplace and every other mechanism with an exact discrete pair (the certified grid composition of
  composition/closed_form.py: pessimistic split / optimistic merge of one step, FFT, error bound η,
  :class:`~dpcompare.mechanisms.composed.Composed`). The certified Δ(A‖B) is then the bracket
  [Δ(A_pess‖B_opt) − η, Δ(A_opt‖B_pess) + η] (R_A high and R_B low give the upper end). Other kinds
  are reported as "not composed" with the reason, never approximated.

>>> import dpcompare as dc
>>> e = emergent(dc.Gaussian(mu=1), dc.Gaussian(mu=0.5), 100, 100)
>>> e.winner, round(e.clt_mu_a, 6), e.forward.applies, e.backward.applies
('A', 10.0, True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln

from .._validation import check_integer
from ..mechanisms import FromPair, Gaussian, Mechanism, RandomizedResponse, SubsampledGaussian
from ..mechanisms.composed import Composed as ComposedMechanism, composable
from ..tradeoff import DiscretePair
from .delta import DeltaResult, check_mechanisms, delta_divergences
from .plrv import Moments, MomentsMethod, moments_with_method

#: the largest N for which randomized response is composed exactly (N + 1 atoms)
MAX_RR_STEPS = 10_000_000


@dataclass(frozen=True)
class Ordering:
    """Theorem 3 for Δ(X^⊗n ‖ Y^⊗m): the precondition n/m ≥ η_Y²/η_X², and the bound when it holds."""

    ratio: float  # n/m
    needed: float  # η_Y²/η_X²
    applies: bool
    gamma_x: float
    gamma_y: float
    reason: str

    @property
    def bound(self) -> float | None:
        """γ_X + γ_Y when the theorem applies, else None (no claim)."""
        return self.gamma_x + self.gamma_y if self.applies else None

    def to_dict(self) -> dict[str, Any]:
        return {"ratio": self.ratio, "needed": self.needed, "precondition": self.applies,
                "bound": self.bound, "reason": self.reason}


@dataclass(frozen=True)
class Composed:
    """The certified Δ between the composed mechanisms, or why it is not available."""

    delta_ab: DeltaResult | None
    delta_ba: DeltaResult | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"delta_ab": None if self.delta_ab is None else self.delta_ab.to_dict(),
                "delta_ba": None if self.delta_ba is None else self.delta_ba.to_dict(), "note": self.note}


@dataclass(frozen=True)
class Emergent:
    """[BCP] Theorem 3 for A^⊗N vs B^⊗Ñ, with the certified Δ beside it (module docstring)."""

    def __str__(self) -> str:
        """A readable summary (``print(result)``)."""
        c = self.composed
        extra = {"Δ(A^⊗N ‖ B^⊗Ñ), Theorem 3": self.forward.reason, "Δ(B^⊗Ñ ‖ A^⊗N), Theorem 3": self.backward.reason,
                 "certified Δ(A^⊗N ‖ B^⊗Ñ)": c.delta_ab if c.delta_ab is not None else "not computed",
                 "certified Δ(B^⊗Ñ ‖ A^⊗N)": c.delta_ba if c.delta_ba is not None else "not computed",
                 "how": c.note}
        lines = ["[BCP] Theorem 3 for A^⊗N vs B^⊗Ñ, with the certified Δ", f"  A = {self.a.spec}, N = {self.steps_a}",
                 f"  B = {self.b.spec}, Ñ = {self.steps_b}"]
        return "\n".join(lines + [f"  {k}: {v}" for k, v in extra.items()])

    a: Mechanism
    b: Mechanism
    steps_a: int
    steps_b: int
    moments_a: Moments
    moments_b: Moments
    method_a: MomentsMethod
    method_b: MomentsMethod
    forward: Ordering  # Δ(A^⊗N ‖ B^⊗Ñ)
    backward: Ordering  # Δ(B^⊗Ñ ‖ A^⊗N)
    composed: Composed

    @property
    def clt_mu_a(self) -> float:
        return 2.0 * self.moments_a.eta * math.sqrt(self.steps_a) if self.moments_a.finite else math.inf

    @property
    def clt_mu_b(self) -> float:
        return 2.0 * self.moments_b.eta * math.sqrt(self.steps_b) if self.moments_b.finite else math.inf

    @property
    def winner(self) -> str:
        """'A' or 'B': whose CLT proxy has the larger μ (less private, predicted to Blackwell-dominate);
        'equal' on a tie; 'none' when a moment is infinite (no CLT proxy)."""
        if not (self.moments_a.finite and self.moments_b.finite):
            return "none"
        ma, mb = self.clt_mu_a, self.clt_mu_b
        return "equal" if ma == mb else ("A" if ma > mb else "B")

    def sentence(self) -> str:
        if self.winner == "none":
            return "A moment is infinite (v₄ = ∞): the CLT proxy and Theorem 3 do not apply to this pair."
        if self.winner == "equal":
            return "The CLT proxies coincide (μ = μ̃): no mechanism is predicted to dominate."
        w, l = ("A", "B") if self.winner == "A" else ("B", "A")
        o = self.forward if self.winner == "A" else self.backward
        return (f"{w} is predicted to Blackwell-dominate (be less private than) {l} at these step counts; "
                f"Theorem 3 bounds Δ({w}‖{l}) by {o.bound:.3g}.")

    def to_dict(self) -> dict[str, Any]:
        def side(m, n, mom, meth, mu):
            return {"spec": m.spec, "steps": n, "moments": mom.to_dict() if mom.finite else
                    {"v1": None, "v2": None, "v3": None, "v4": None, "eta": None, "variance": None},
                    "moments_method": meth.value, "clt_mu": mu if math.isfinite(mu) else None}

        return {
            "a": side(self.a, self.steps_a, self.moments_a, self.method_a, self.clt_mu_a),
            "b": side(self.b, self.steps_b, self.moments_b, self.method_b, self.clt_mu_b),
            "theorem3_ab": self.forward.to_dict(),
            "theorem3_ba": self.backward.to_dict(),
            "winner": self.winner,
            "certified": self.composed.to_dict(),
            "summary": self.sentence(),
        }


def _ordering(mx: Moments, n: int, my: Moments, m: int) -> Ordering:
    if not (mx.finite and my.finite):
        return Ordering(n / m, math.nan, False, math.nan, math.nan,
                        "a PLRV moment is infinite (v₄ = ∞): the theorem does not apply")
    needed = my.eta ** 2 / mx.eta ** 2
    gx = mx.berry_esseen_gamma(n)
    gy = my.berry_esseen_gamma(m)
    ok = n / m >= needed
    reason = (f"N/Ñ = {n / m:.6g} ≥ η̃²/η² = {needed:.6g}: the theorem applies" if ok else
              f"N/Ñ = {n / m:.6g} < η̃²/η² = {needed:.6g}: the theorem does not apply")
    return Ordering(n / m, needed, ok, gx, gy, reason)


def _rr_composed(eps: float, n: int) -> FromPair:
    """n-fold randomized response, exactly: k ~ Bin(n, 1/(1+e^ε)) outcomes '1', loss ℓ = (2k − n)ε."""
    k = np.arange(n + 1, dtype=float)
    log_c = gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
    log_p = log_c + (n - k) * eps - n * np.logaddexp(0.0, eps)
    return FromPair(DiscretePair.from_atoms((2 * k - n) * eps, log_p), name=f"rr(eps={eps:g})^{n}")


def compose_n(m: Mechanism, n: int) -> tuple[Mechanism | None, str]:
    """m^⊗n where a certified composition exists, else (None, the reason)."""
    if isinstance(m, Gaussian):
        return Gaussian(mu=m.mu * math.sqrt(n)), "closed form G_{μ√N}"
    if isinstance(m, SubsampledGaussian):
        return SubsampledGaussian(sigma=m.sigma, sampling_rate=m.sampling_rate, steps=n), "certified engine"
    if isinstance(m, RandomizedResponse):
        if n > MAX_RR_STEPS:
            return None, f"rr composed {n} times needs {n + 1} atoms (limit {MAX_RR_STEPS})"
        return _rr_composed(m.eps, n), "exact binomial pair"
    why = composable(m)
    if why is not None:
        return None, why
    try:
        return ComposedMechanism(m, n), "certified grid composition"
    except ValueError as exc:  # outside the range the grid composition supports
        return None, str(exc)


def _as_pairs(ca: Mechanism, why_a: str, cb: Mechanism, why_b: str) -> tuple[Mechanism, str, Mechanism, str]:
    """A closed-form composed Gaussian facing a pair-backed mechanism is replaced by its certified pairs
    (``Composed(G, N)``): Δ between pairs is an exact merge of breakpoints, the branch and bound against
    a closed form is slower for the same bracket (8.5× with the pairs built:
    benchmarks/bench_composed_laplace.py). Falls back to the closed form if the grid cannot hold it
    (huge μ√N)."""
    def paired(c: Mechanism, why: str, other: Mechanism) -> tuple[Mechanism, str]:
        if isinstance(c, Gaussian) and other.pairs() is not None:
            try:
                g = ComposedMechanism(c, 1)
                g.pairs()
                return g, why + " (as certified pairs)"
            except ValueError:
                return c, why
        return c, why

    ca2, why_a2 = paired(ca, why_a, cb)
    cb2, why_b2 = paired(cb, why_b, ca)
    return ca2, why_a2, cb2, why_b2


def emergent(a: Mechanism, b: Mechanism, steps_a: int, steps_b: int, *, certified: bool = True) -> Emergent:
    """Theorem 3 of [BCP] for A^⊗N vs B^⊗Ñ, with the certified Δ of the compositions (module docstring).

    A and B describe one step: a subsampled Gaussian must have ``steps=1`` (it is composed ``steps_a``
    times here). ``certified=False`` skips the composition (the moments side only).
    """
    check_mechanisms(a, b)
    n = check_integer("steps_a", steps_a)
    m = check_integer("steps_b", steps_b)
    for name, x in (("a", a), ("b", b)):
        if isinstance(x, SubsampledGaussian) and x.steps != 1:
            raise ValueError(f"{name} must describe one step: give sgm(..., steps=1) and the step count "
                             f"separately (got steps={x.steps})")
    ma, meth_a = moments_with_method(a)
    mb, meth_b = moments_with_method(b)
    forward = _ordering(ma, n, mb, m)
    backward = _ordering(mb, m, ma, n)
    if certified:
        ca, why_a = compose_n(a, n)
        cb, why_b = compose_n(b, m)
        if ca is not None and cb is not None:
            try:
                ca, why_a, cb, why_b = _as_pairs(ca, why_a, cb, why_b)
                comp = Composed(*delta_divergences(ca, cb), f"A: {why_a}; B: {why_b}")
            except ValueError as exc:  # e.g. DiscretizationTooFine (does not fit in memory): say so, keep the rest
                comp = Composed(None, None, f"not composed: {exc}")
        else:
            comp = Composed(None, None, "; ".join(w for c, w in ((ca, why_a), (cb, why_b)) if c is None))
    else:
        comp = Composed(None, None, "not computed (certified=False)")
    return Emergent(a, b, n, m, ma, mb, meth_a, meth_b, forward, backward, comp)
