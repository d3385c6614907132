"""dpcompare: what a differential-privacy guarantee protects against, beyond a single (ε, δ) pair.

The public names below load on first use (PEP 562 module ``__getattr__``), so ``import dpcompare`` and
the command line's start-up do not pay for scipy until a mechanism is built.

>>> import dpcompare as dc
>>> dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)).verdict
'incomparable'
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from . import _lean_scipy

_lean_scipy.install()  # scipy's first import skips numpy's unused lazy submodules (see _lean_scipy)

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
        ".compare"),
    **dict.fromkeys(("Sampling", "TrainingConfig", "dpsgd_mechanism"), ".dpsgd.training"),
    **dict.fromkeys(("parse", "parse_hyperprior"), ".io.spec"),
    **dict.fromkeys(("DiscretePair", "Rounding"), ".tradeoff"),
}

__all__ = sorted(_LAZY)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .compare import (JEFFREYS, BetaPrior, Comparison, DeltaResult, UQuadratic, approximate_dominance, compare,
                          crossing_points, delta_divergence, delta_divergences, delta_from_perfect_privacy,
                          delta_to_blatant_non_privacy, levy_distance)
    from .dpsgd.training import Sampling, TrainingConfig, dpsgd_mechanism
    from .io.spec import parse, parse_hyperprior
    from .mechanisms import (ApproxDP, BlatantlyNonPrivate, FromDpEvent, FromPair, FromPLD, Gaussian, Guarantee, Laplace,
                             Mechanism, PerfectlyPrivate, PureDP, RandomizedResponse, SubsampledGaussian,
                             TradeoffCurve, TradeoffOracle)
    from .tradeoff import DiscretePair, Rounding


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dpcompare' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next lookup is a plain attribute (a cache of an immutable binding)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """``dpcompare.compare`` is the function, as it was when this module imported it eagerly: importing
    the subpackage ``dpcompare.compare`` binds the package attribute to the submodule, so the public
    name is a property whose setter ignores that binding (the submodule stays in ``sys.modules``)."""

    @property
    def compare(self) -> Any:
        return importlib.import_module(".compare", __name__).compare

    @compare.setter
    def compare(self, value: Any) -> None:
        pass


sys.modules[__name__].__class__ = _Package


def _show_in_notebooks() -> None:
    """Inside IPython/Jupyter, display mechanisms and comparisons as HTML (io/notebook.py)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    if shell is not None and hasattr(shell, "display_formatter"):
        from .io.notebook import register

        register(shell)


_show_in_notebooks()
