"""Mechanism comparison (seed 000 §3–4): Δ-divergence, Blackwell dominance, hyper-priors."""

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
from .delta import DeltaResult, delta_divergence
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
    "DeltaResult",
    "DensityPrior",
    "HyperPrior",
    "UQuadratic",
    "as_hyperprior",
    "delta_divergence",
    "LevyDistance",
    "levy_distance",
    "Regret",
    "Weighted",
]
