"""Figures of the papers' constructions: [MIX] Example F.3 (Figure 4) and [BCP] eq 4 (f from R(π)).

- :func:`example_f3`: T(P₀, wP₀ + (1−w)Q₀) for a component f = T(P₀, Q₀) (Example F.3: f = G_μ,
  μ = 1, w = 1/3, the paper's Figure 4): the exact curve w·Id + (1−w)·f, Lemma 6.3's bound
  C(w·Id + (1−w)·f) and Lemma 3.1's bound, each drawn from its certified pessimistic discrete pair
  (a polygon, so the drawing is exact), with the Δ of each bound to the exact curve in the legend.
- :func:`bayes_construction`: the lines (Rₖ − πₖα)/(1 − πₖ) of [BCP] eq 4, their upper envelope f̂ and,
  when given, the original trade-off function; beside it the values Rₖ and the Bayes error of f̂.

matplotlib is imported lazily; every function returns a ``Figure`` (render it with ``dpcompare.io.plot.render``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._figure import _styled

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..comparison.bayes_construction import BayesConstruction
    from ..comparison.delta import DeltaResult
    from ..mechanisms import Mechanism

__all__ = ["F3Result", "bayes_construction", "example_f3", "f3_result"]


@dataclass(frozen=True)
class F3Result:
    """[MIX] Example F.3 for one component and weight: the three curves as mechanisms (pessimistic,
    optimistic pairs) and the certified Δ from each bound to the exact curve (how much the bound
    understates the Bayes error of the best attack; 0 would be tight)."""

    component: "Mechanism"
    w: float
    exact: "Mechanism"
    lemma63: "Mechanism"
    lemma31: "Mechanism"
    swapped: "Mechanism | None"  # Prop 6.4 bound C(2w·Id + (1−2w)·f) for the swapped mixture (w ≤ ½)
    swapped_exact: "Mechanism | None"
    delta_lemma63: "DeltaResult"  # Δ(exact ‖ Lemma 6.3 bound)
    delta_lemma31: "DeltaResult"
    delta_swapped: "DeltaResult | None"

    def to_dict(self) -> dict[str, Any]:
        d = lambda r: None if r is None else r.to_dict()  # noqa: E731
        return {"component": self.component.spec, "w": self.w,
                "exact": {"epsilon@1e-5": float(self.exact.epsilon(1e-5)), "advantage": float(self.exact.advantage)},
                "lemma63": {"epsilon@1e-5": float(self.lemma63.epsilon(1e-5)), "advantage": float(self.lemma63.advantage),
                            "delta_from_exact": d(self.delta_lemma63)},
                "lemma31": {"epsilon@1e-5": float(self.lemma31.epsilon(1e-5)), "advantage": float(self.lemma31.advantage),
                            "delta_from_exact": d(self.delta_lemma31)},
                "prop64": None if self.swapped is None else {
                    "epsilon@1e-5": float(self.swapped.epsilon(1e-5)), "advantage": float(self.swapped.advantage),
                    "exact_epsilon@1e-5": float(self.swapped_exact.epsilon(1e-5)),
                    "delta_from_exact": d(self.delta_swapped)}}


def f3_result(component: "Mechanism", w: float) -> F3Result:
    """Compute Example F.3 ([MIX] App. F.3; Lemma 3.1, Lemma 6.3 via Prop E.1) and, for w ≤ ½, Prop 6.4's
    swapped-mixture bound against the exact swapped mixture (``mixtures.algebra.swap_mixture``)."""
    from ..comparison.delta import delta_divergence
    from ..mechanisms import FromPair
    from ..mixtures.algebra import as_pairs, swap_mixture
    from ..mixtures.subsampling import (exact_mixture_with_identity, lemma31_bound, lemma63_bound,
                                        swapped_mixture_bound)

    def mech(pairs, name):
        pess, opt = pairs
        return FromPair(pessimistic=pess, optimistic=None if opt is pess else opt, name=name)

    exact = mech(exact_mixture_with_identity(component, w), "exact")
    l63 = mech(lemma63_bound(component, w), "lemma63")
    l31 = mech(lemma31_bound(component, w), "lemma31")
    sw = swe = dsw = None
    if w <= 0.5:
        sw = mech(swapped_mixture_bound(component, w), "prop64")
        pess, opt = as_pairs(component)
        ex_p = swap_mixture(pess, w)
        ex_o = ex_p if opt is pess else swap_mixture(opt, w)
        swe = FromPair(pessimistic=ex_p, optimistic=None if ex_o is ex_p else ex_o, name="swapped")
        dsw = delta_divergence(swe, sw)
    return F3Result(component, float(w), exact, l63, l31, sw, swe, delta_divergence(exact, l63),
                    delta_divergence(exact, l31), dsw)


def _d(r: "DeltaResult") -> str:
    from .render import short

    return "0" if r.value <= 1e-9 else short(r.value, 3)


def _polygon(m: "Mechanism") -> tuple[np.ndarray, np.ndarray]:
    from ..mixtures.algebra import vertices

    pess, _ = m.pairs()
    return vertices(pess)


@_styled
def example_f3(result: F3Result) -> "Figure":
    """[MIX] Figure 4 / Example F.3: the exact T(P₀, wP₀ + (1−w)Q₀) and the two lower bounds."""
    from matplotlib.figure import Figure

    from .render import short

    fig = Figure(figsize=(6.4, 5.0), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [1, 0], color="0.75", lw=0.8, ls=":", label="Id (perfect privacy)")
    for m, label, style in (
        (result.exact, "exact: w·Id + (1−w)·f", dict(color="k", lw=2.0)),
        (result.lemma63, f"Lemma 6.3: C(w·Id + (1−w)·f)  (Δ = {_d(result.delta_lemma63)})",
         dict(color="tab:blue", lw=1.6, ls="--")),
        (result.lemma31, f"Lemma 3.1 (joint concavity)  (Δ = {_d(result.delta_lemma31)})",
         dict(color="tab:red", lw=1.6, ls="-.")),
    ):
        a, b = _polygon(m)
        ax.plot(a, b, label=label, **style)
    a, b = _polygon(result.component) if result.component.pairs() is not None else (None, None)
    if a is not None:
        ax.plot(a, b, color="0.5", lw=1.0, label=f"f = {result.component.spec}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("Type I error α")
    ax.set_ylabel("Type II error β")
    ax.set_title(f"[MIX] Example F.3: T(P₀, wP₀ + (1−w)Q₀), w = {short(result.w, 3)}")
    ax.legend(loc="upper right", fontsize=8)
    return fig


@_styled
def bayes_construction(c: "BayesConstruction", original: "Mechanism | None" = None) -> "Figure":
    """[BCP] eq 4: the lines of the priors, their envelope f̂ and (optionally) the original curve; right:
    the given Rₖ and the Bayes error of f̂ (and of the original)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 4.6), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    alpha = np.linspace(0, 1, 801)
    show = np.argsort(c.priors)
    step = max(1, show.size // 40)  # at most ~40 lines drawn
    for i, k in enumerate(show[::step]):
        ax.plot(alpha, c.line(int(k), alpha), color="0.7", lw=0.6, label="lines (R(π) − πα)/(1 − π)" if i == 0 else None)
    ax.plot(c.alpha, c.beta, color="k", lw=2.0, label="f̂ = max(0, max of the lines)")
    if original is not None:
        ax.plot(alpha, np.asarray(original.tradeoff(alpha), dtype=float), color="tab:orange", lw=1.4, ls="--",
                label=f"original f ({original.spec})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("Type I error α")
    ax.set_ylabel("Type II error β")
    ax.set_title("[BCP] eq 4: f(α) = max_π (R(π) − πα)/(1 − π)")
    ax.legend(loc="upper right", fontsize=8)
    pi = np.linspace(0, 1, 801)
    r_hat = np.min(pi[:, None] * c.alpha[None, :] + (1 - pi[:, None]) * c.beta[None, :], axis=1)  # polygon: vertices
    bx.plot(pi, r_hat, color="k", lw=2.0, label="R of f̂")
    if original is not None:
        bx.plot(pi, np.asarray(original.bayes_error(pi), dtype=float), color="tab:orange", lw=1.4, ls="--", label="R of the original")
    bx.scatter(c.priors, c.values, s=14, color="tab:blue", zorder=3, label="given R(πₖ)")
    bx.set_xlim(0, 1)
    bx.set_ylim(0, 0.5)
    bx.set_xlabel("prior π")
    bx.set_ylabel("Bayes error R(π)")
    bx.set_title("Bayes error values and the rebuilt mechanism's")
    bx.legend(loc="upper right", fontsize=8)
    return fig
