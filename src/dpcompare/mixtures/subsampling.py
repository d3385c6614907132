"""Sub-sampling and other two-point mixtures ([MIX] Prop E.1, Prop 6.4, Lemma 6.3, Examples F.3, F.4).

**Prop E.1** (sub-sampling; Dong et al.'s C_p): for P = (1−w)P₀ + wP₁ and Q = (1−w)P₀ + wQ₁,

    T(P, Q) ≥ C((1−w)·Id + w·T(P₁, Q₁)),

C the symmetrisation of eq 3 (``algebra.symmetrize_eq3``). The derivation bounds the hockey-stick
divergence in each ordering for ε ≥ 0 (Balle et al.'s advanced joint convexity, [MIX] Lemma
A.4), so it needs the component's trade-off in both orderings: a mechanism's (symmetric) trade-off
function is used as is, an asymmetric pair is first replaced by its conv(min(f, f⁻¹)) ≤ f, f⁻¹.
``Subsampled`` is this operator on any mechanism.

Prop E.1 is printed for an arbitrary P₀, but its proof (via H_γ(P₁‖(1−η)P₀ + ηQ₁) ≤ H_γ(P₁‖Q₁))
needs P₀ to be a neighbour of P₁ and Q₁ too — as in sub-sampling, where P₀ is the output on a
sample without the individual (for Poisson add/remove, Q₁ = P₀), so that f bounds T(P₁, P₀) as
well. Without it the bound fails: P₀ = δ₃, P₁ = (0, 0, .2, .8), Q₁ uniform on 4 points, w = ½ give
T(P, Q)(0.1) = 0.625 < 0.6375 = C(½·Id + ½·f)(0.1) (tested).

**Prop 6.4** (swapped mixture, the step of Thm 4.2): for P = (1−w)P₀ + wQ₀, Q = (1−w)Q₀ + wP₀ with
w ≤ ½, T(P, Q) ≥ C(2w·Id + (1−2w)·T(P₀, Q₀)); ``swapped_mixture_bound``. The exact value,
``algebra.swap_mixture``, is larger in general (see :mod:`.shuffling`).

**Lemma 6.3 vs Lemma 3.1** (Example F.3): T(P₀, wP₀ + (1−w)Q₀) with P₀ = N(0, 1), Q₀ = N(μ, 1).

- Lemma 6.3 (advanced joint concavity, evaluated through Prop E.1 with P₁ = P₀, Q₁ = Q₀):
  C(w·Id + (1−w)·T(P₀, Q₀)) — ``lemma63_bound``.
- Lemma 3.1 (joint concavity; components (P₀, P₀) with weight w and (P₀, Q₀) with 1−w):
  the Id component has one atom at ℓ = 0, so the bound is
  w + (1−w)·f(x/(1−w)) for x < (1−w)·f*, a segment, then (1−w)·f((x − w)/(1−w)) with f* = α₀(0)
  (the closed form printed in Example F.3 for f = G_μ) — ``lemma31_bound`` (any component) and
  ``example_f3_lemma31`` (the printed closed form, as an independent check).
- The exact value: the likelihood ratio w + (1−w)e^{μx − μ²/2} is monotone in x, so
  T(P₀, wP₀ + (1−w)Q₀) = w·Id + (1−w)·T(P₀, Q₀) pointwise (``algebra.mix_with_identity``). Both
  bounds lie below it; Lemma 6.3's is the tighter (Figure 4).

**Example F.4**: T(½P + ½Q, ½Q + ½P) = Id. Prop 6.4 with w = ½ gives exactly Id; Lemma 3.1 gives the
joint-concavity combination of f and f⁻¹, which is loose unless P = Q.

Note: the equal-weights case η = γ = w of Lemma 6.3 as printed in App. E.1 ("T(…) ≥ (1−w)F₁ + wF₂"
pointwise) is not a valid bound without C(·) (its derivation restricts the conjugates to slopes
≤ −1): for P₁ = Q, P₂ ⟂ Q, w = ½ the exact T(½Q + ½P₂, Q) is 1 − 2x on [0, ½] while ½F₁ + ½F₂ =
½(1 − x). It is therefore not offered here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import ndtr, ndtri
from .._validation import format_number
from ..mechanisms import Mechanism
from ..mechanisms.pair_backed import PairMechanism
from ..tradeoff import DiscretePair
from ._checks import check_weight
from .algebra import as_pairs, identity_pair, map_pairs, mix_with_identity, symmetrize_eq3
from .joint_concavity import mixture_pair


def _symmetric_pairs(component: Any) -> tuple[DiscretePair, DiscretePair]:
    pess, opt = as_pairs(component)
    if pess.is_symmetric and opt.is_symmetric:
        return pess, opt
    return map_pairs(lambda pr: pr.symmetrize(), (pess, opt))


def subsampled_pairs(component: Any, w: float) -> tuple[DiscretePair, DiscretePair]:
    """(pessimistic, optimistic) pairs of C((1−w)·Id + w·f) ([MIX] Prop E.1), w = sampling probability.

    >>> rr = DiscretePair.from_masses([0.75, 0.25], [0.25, 0.75])
    >>> pess, _ = subsampled_pairs(rr, 0.5)
    >>> round(float(pess.delta(0.0)), 12)            # TV halves: w·δ_f(0)
    0.25
    """
    w = check_weight("w", w)
    return map_pairs(lambda pr: symmetrize_eq3(mix_with_identity(pr, 1.0 - w)), _symmetric_pairs(component))


@dataclass(frozen=True, repr=False, eq=False)
class Subsampled(PairMechanism):
    """A mechanism run on a w-sub-sample: T ≥ C((1−w)·Id + w·f) ([MIX] Prop E.1).

    >>> import dpcompare as dc
    >>> m = Subsampled(dc.RandomizedResponse(eps=2.0), 0.1)
    >>> round(float(m.delta(0.0)), 6)          # TV of the sub-sampled mechanism: w·TV
    0.076159
    """

    component: Mechanism
    w: float

    def __post_init__(self) -> None:
        if not isinstance(self.component, Mechanism):
            raise ValueError(f"component must be a mechanism, got {type(self.component).__name__}")
        object.__setattr__(self, "w", check_weight("w (sampling probability)", self.w))

    def _build_pairs(self) -> tuple[DiscretePair, DiscretePair]:
        return subsampled_pairs(self.component, self.w)

    @property
    def spec(self) -> str:
        return f"subsample({self.component.spec}, w={format_number(self.w)})"


def swapped_mixture_bound(component: Any, w: float) -> tuple[DiscretePair, DiscretePair]:
    """C(2w·Id + (1−2w)·f) ([MIX] Prop 6.4), for T((1−w)P₀ + wQ₀, (1−w)Q₀ + wP₀), w ∈ [0, ½].

    Example F.4 (w = ½) gives Id exactly.
    """
    w = check_weight("w", w, high=0.5)
    return map_pairs(lambda pr: symmetrize_eq3(mix_with_identity(pr, 2.0 * w)), _symmetric_pairs(component))


def lemma63_bound(component: Any, w: float) -> tuple[DiscretePair, DiscretePair]:
    """C(w·Id + (1−w)·f): the Lemma 6.3 / Prop E.1 bound on T(P₀, wP₀ + (1−w)Q₀) (Example F.3)."""
    w = check_weight("w", w)
    return map_pairs(lambda pr: symmetrize_eq3(mix_with_identity(pr, w)), _symmetric_pairs(component))


def lemma31_bound(component: Any, w: float) -> tuple[DiscretePair, DiscretePair]:
    """Lemma 3.1 bound on T(P₀, wP₀ + (1−w)Q₀): joint concavity of Id (weight w) and f (weight 1−w)."""
    w = check_weight("w", w)
    return map_pairs(lambda pr: mixture_pair([w, 1.0 - w], [identity_pair(), pr]), as_pairs(component))


def exact_mixture_with_identity(component: Any, w: float) -> tuple[DiscretePair, DiscretePair]:
    """T(P₀, wP₀ + (1−w)Q₀) = w·Id + (1−w)·f exactly (monotone likelihood ratio; Example F.3)."""
    w = check_weight("w", w)
    return map_pairs(lambda pr: mix_with_identity(pr, w), as_pairs(component))


def example_f3_lemma31(mu: float, w: float, alpha: Any) -> np.ndarray:
    """The Lemma 3.1 bound of [MIX] Example F.3 as printed (f = G_μ), for an independent check:

        (1−w)·Φ(Φ⁻¹((1−α)/(1−w)) − μ)        for α > 1 − (1−w)Φ(μ/2),
        w + (1−w)·Φ(Φ⁻¹(1 − α/(1−w)) − μ)   for α < (1−w)(1 − Φ(μ/2)),
        linear in between.
    """
    w = check_weight("w", w, high=1.0 - 1e-12)
    a = np.asarray(alpha, dtype=float)
    lo_end = (1 - w) * (1 - float(ndtr(mu / 2)))
    hi_end = 1 - (1 - w) * float(ndtr(mu / 2))

    def upper(x):
        return w + (1 - w) * ndtr(ndtri(1 - x / (1 - w)) - mu)

    def lower(x):
        return (1 - w) * ndtr(ndtri((1 - x) / (1 - w)) - mu)

    y_lo, y_hi = float(upper(lo_end)), float(lower(hi_end))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(
            a < lo_end,
            upper(np.minimum(a, lo_end)),
            np.where(a > hi_end, lower(np.maximum(a, hi_end)), y_lo + (a - lo_end) * (y_hi - y_lo) / (hi_end - lo_end)),
        )
    return out


__all__ = [
    "Subsampled",
    "example_f3_lemma31",
    "exact_mixture_with_identity",
    "lemma31_bound",
    "lemma63_bound",
    "subsampled_pairs",
    "swapped_mixture_bound",
]

