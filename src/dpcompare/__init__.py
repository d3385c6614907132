"""dpcompare: what a differential-privacy guarantee protects against, beyond a single (ε, δ) pair."""

from .mechanisms import (
    ApproxDP,
    BlatantlyNonPrivate,
    FromDpEvent,
    FromPLD,
    FromPair,
    Gaussian,
    Guarantee,
    Laplace,
    Mechanism,
    PerfectlyPrivate,
    PureDP,
    RandomizedResponse,
    SubsampledGaussian,
    TradeoffCurve,
    TradeoffOracle,
)
from .compare import (
    JEFFREYS,
    BetaPrior,
    Comparison,
    DeltaResult,
    UQuadratic,
    approximate_dominance,
    compare,
    crossing_points,
    delta_divergence,
    delta_from_perfect_privacy,
    delta_to_blatant_non_privacy,
)
from .io.spec import parse, parse_hyperprior
from .dpsgd.training import Sampling, TrainingConfig, dpsgd_mechanism
from .tradeoff import DiscretePair, Rounding

__version__ = "0.1.0"

__all__ = [
    "parse",
    "parse_hyperprior",
    "Sampling",
    "TrainingConfig",
    "dpsgd_mechanism",
    "Guarantee",
    "JEFFREYS",
    "BetaPrior",
    "Comparison",
    "DeltaResult",
    "UQuadratic",
    "approximate_dominance",
    "compare",
    "crossing_points",
    "delta_divergence",
    "delta_from_perfect_privacy",
    "delta_to_blatant_non_privacy",
    "ApproxDP",
    "BlatantlyNonPrivate",
    "DiscretePair",
    "FromDpEvent",
    "FromPLD",
    "FromPair",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "PerfectlyPrivate",
    "PureDP",
    "RandomizedResponse",
    "SubsampledGaussian",
    "Rounding",
    "TradeoffCurve",
    "TradeoffOracle",
]
