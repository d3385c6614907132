"""Mechanism comparison ([BCP] §3–5): Δ-divergence, Blackwell verdict, crossings and hyper-prior figures
from one certified sweep; Lévy distance (Lemma B.1); PLRV moments and emergent dominance (Theorem 3)."""

from .comparison import (
    VERDICT_TEXT,
    ApproximateDominance,
    Comparison,
    Regret,
    Weighted,
    approximate_dominance,
    blackwell_verdict,
    compare,
    crossing_points,
    delta_from_perfect_privacy,
    delta_to_blatant_non_privacy,
)
from .delta import DeltaBracket, DeltaResult, delta_bracket, delta_divergence, delta_divergences
from .levy import LevyDistance, levy_distance
from .hyperprior import JEFFREYS, BetaPrior, DensityPrior, HyperPrior, UQuadratic, as_hyperprior

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
