"""Mechanisms: immutable values that state their closed forms (or discrete pairs); the base class
derives every view of [BCP] §1–2 and holds the contract (one solver, brackets, ranges)."""

from .base import Mechanism
from .continuous import Gaussian, Laplace, PrivacyLossMechanism
from .discrete import (
    ApproxDP,
    BlatantlyNonPrivate,
    FromPair,
    PerfectlyPrivate,
    PureDP,
    RandomizedResponse,
    TradeoffCurve,
)
from .oracle import TradeoffOracle
from .pair_backed import PairMechanism
from .events import FromDpEvent, FromPLD, Guarantee
from .sgm import SubsampledGaussian

__all__ = [
    "ApproxDP",
    "BlatantlyNonPrivate",
    "FromDpEvent",
    "FromPLD",
    "FromPair",
    "Gaussian",
    "Guarantee",
    "Laplace",
    "Mechanism",
    "PairMechanism",
    "PerfectlyPrivate",
    "PrivacyLossMechanism",
    "PureDP",
    "RandomizedResponse",
    "SubsampledGaussian",
    "TradeoffCurve",
    "TradeoffOracle",
]
