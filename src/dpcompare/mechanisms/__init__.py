"""Mechanisms: immutable values that state their closed forms (or discrete pairs); the base class
derives every view of [BCP] §1–2 and holds the contract (one solver, brackets, ranges).

The public names load their submodule on first use (PEP 562, :func:`dpcompare._lazy.lazy_module`): a
comparison of two closed-form mechanisms does not import the subsampled Gaussian, the DpEvent
mechanisms or the trade-off oracle, and ``from dpcompare.mechanisms import X`` works for every name.

>>> from dpcompare.mechanisms import Gaussian
>>> Gaussian(mu=1).mu
1.0
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_module

#: public name → the submodule that defines it (loaded on first use)
_LAZY = {
    "ApproxDP": "discrete",
    "BlatantlyNonPrivate": "discrete",
    "FromDpEvent": "events",
    "FromPLD": "events",
    "FromPair": "discrete",
    "Gaussian": "continuous",
    "Guarantee": "events",
    "Laplace": "continuous",
    "Mechanism": "base",
    "PairMechanism": "pair_backed",
    "PerfectlyPrivate": "discrete",
    "PrivacyLossMechanism": "continuous",
    "PureDP": "discrete",
    "RandomizedResponse": "discrete",
    "SubsampledGaussian": "sgm",
    "TradeoffCurve": "discrete",
    "TradeoffOracle": "oracle",
}

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

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .base import Mechanism
    from .continuous import Gaussian, Laplace, PrivacyLossMechanism
    from .discrete import (ApproxDP, BlatantlyNonPrivate, FromPair, PerfectlyPrivate, PureDP, RandomizedResponse,
                           TradeoffCurve)
    from .events import FromDpEvent, FromPLD, Guarantee
    from .oracle import TradeoffOracle
    from .pair_backed import PairMechanism
    from .sgm import SubsampledGaussian

__getattr__, __dir__ = lazy_module(__name__, _LAZY)
del lazy_module, TYPE_CHECKING  # the package lists only its public names
