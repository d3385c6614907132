"""Mechanism comparison ([BCP] §3–5): Δ-divergence, Blackwell verdict, crossings and hyper-prior figures
from one certified sweep; Lévy distance (Lemma B.1); PLRV moments and emergent dominance (Theorem 3)."""

from typing import TYPE_CHECKING

from .._lazy import lazy_module

#: public name → the submodule that defines it (loaded on first use, PEP 562): the ``compare`` command loads
#: the comparison and its Δ sweep, not the Lévy distance, approximate dominance, the pair-backed Δ bracket or the
#: hyper-prior's figures
_LAZY = {
    **dict.fromkeys(
        ("VERDICT_TEXT", "Comparison", "blackwell_verdict", "compare", "crossing_points", "delta_from_perfect_privacy",
         "delta_to_blatant_non_privacy"),
        "comparison"),
    **dict.fromkeys(("ApproximateDominance", "approximate_dominance"), "dominance"),
    **dict.fromkeys(("Regret", "Weighted"), "weighted"),
    **dict.fromkeys(("DeltaResult", "delta_divergence", "delta_divergences"), "delta"),
    **dict.fromkeys(("DeltaBracket", "delta_bracket"), "pair_delta"),
    **dict.fromkeys(("LevyDistance", "levy_distance"), "levy"),
    **dict.fromkeys(("JEFFREYS", "BetaPrior", "DensityPrior", "HyperPrior", "UQuadratic", "as_hyperprior"), "hyperprior"),
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .comparison import (VERDICT_TEXT, Comparison, blackwell_verdict, compare, crossing_points,
                             delta_from_perfect_privacy, delta_to_blatant_non_privacy)
    from .delta import DeltaResult, delta_divergence, delta_divergences
    from .dominance import ApproximateDominance, approximate_dominance
    from .pair_delta import DeltaBracket, delta_bracket
    from .weighted import Regret, Weighted
    from .hyperprior import JEFFREYS, BetaPrior, DensityPrior, HyperPrior, UQuadratic, as_hyperprior
    from .levy import LevyDistance, levy_distance

__all__ = [
    "VERDICT_TEXT",
    "ApproximateDominance",
    "Comparison",
    "approximate_dominance",
    "blackwell_verdict",
    "compare",
    "crossing_points",
    "delta_from_perfect_privacy",
    "delta_to_blatant_non_privacy",
    "JEFFREYS",
    "BetaPrior",
    "DeltaBracket",
    "DeltaResult",
    "delta_bracket",
    "DensityPrior",
    "HyperPrior",
    "UQuadratic",
    "as_hyperprior",
    "delta_divergence",
    "delta_divergences",
    "LevyDistance",
    "levy_distance",
    "Regret",
    "Weighted",
]

__getattr__, __dir__ = lazy_module(__name__, _LAZY)
del lazy_module, TYPE_CHECKING  # the package lists only its public names
