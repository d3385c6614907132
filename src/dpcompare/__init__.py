"""dpcompare: what a differential-privacy guarantee protects against, beyond a single (ε, δ) pair.

The public names below load on first use (PEP 562 module ``__getattr__``), so ``import dpcompare`` and
the command line's start-up do not pay for scipy until a mechanism is built.

>>> import dpcompare as dc
>>> dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)).verdict
'incomparable'
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name → the module that defines it (relative to this package)
_LAZY = {
    **dict.fromkeys(
        ("ApproxDP", "BlatantlyNonPrivate", "FromDpEvent", "FromPLD", "FromPair", "Gaussian", "Laplace", "Mechanism",
         "PerfectlyPrivate", "PureDP", "RandomizedResponse", "SubsampledGaussian", "TradeoffCurve", "TradeoffOracle",
         "Guarantee"),
        ".mechanisms"),
    **dict.fromkeys(
        ("JEFFREYS", "BetaPrior", "Comparison", "DeltaResult", "UQuadratic", "approximate_dominance", "compare",
         "crossing_points", "delta_divergence", "delta_divergences", "delta_from_perfect_privacy",
         "delta_to_blatant_non_privacy", "levy_distance"),
        ".comparison"),
    **dict.fromkeys(("BallsInBinsGaussian", "ShuffledGaussian"), ".mechanisms.allocation"),
    **dict.fromkeys(("Sampling", "TrainingConfig", "dpsgd_mechanism"), ".dpsgd.training"),
    **dict.fromkeys(("parse", "parse_hyperprior"), ".io.spec"),
    **dict.fromkeys(("DiscretePair", "Rounding"), ".tradeoff"),
    "clear_caches": "._caches",
}

__all__ = sorted(_LAZY)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._caches import clear_caches
    from .comparison import (JEFFREYS, BetaPrior, Comparison, DeltaResult, UQuadratic, approximate_dominance, compare,
                          crossing_points, delta_divergence, delta_divergences, delta_from_perfect_privacy,
                          delta_to_blatant_non_privacy, levy_distance)
    from .dpsgd.training import Sampling, TrainingConfig, dpsgd_mechanism
    from .mechanisms.allocation import BallsInBinsGaussian, ShuffledGaussian
    from .io.spec import parse, parse_hyperprior
    from .mechanisms import (ApproxDP, BlatantlyNonPrivate, FromDpEvent, FromPair, FromPLD, Gaussian, Guarantee, Laplace,
                             Mechanism, PerfectlyPrivate, PureDP, RandomizedResponse, SubsampledGaussian,
                             TradeoffCurve, TradeoffOracle)
    from .tradeoff import DiscretePair, Rounding


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dpcompare' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next lookup is a plain attribute (a cache of an immutable binding)
    return value


def __dir__() -> list[str]:
    return list(__all__)
