"""dpcompare: what a differential-privacy guarantee protects against, beyond a single (ε, δ) pair."""

from .mechanisms import (
    ApproxDP,
    BlatantlyNonPrivate,
    FromPair,
    Gaussian,
    Laplace,
    Mechanism,
    PerfectlyPrivate,
    PureDP,
    RandomizedResponse,
    TradeoffCurve,
)
from .tradeoff import DiscretePair, Rounding

__version__ = "0.1.0"

__all__ = [
    "ApproxDP",
    "BlatantlyNonPrivate",
    "DiscretePair",
    "FromPair",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "PerfectlyPrivate",
    "PureDP",
    "RandomizedResponse",
    "Rounding",
    "TradeoffCurve",
]
