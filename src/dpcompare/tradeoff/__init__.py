"""The core: privacy-loss pairs and certified brackets; every numeric view and composition builds on it.

Imports only ``_lazy``/``_numerics``/``_search``/``_validation``; nothing here knows about mechanisms or I/O.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_module

#: public name → the submodule that defines it (loaded on first use, PEP 562): a closed-form mechanism needs
#: only the brackets, not the discrete pairs and their envelope
_LAZY = {
    "Bracket": "bracket",
    "PairBracket": "pair_bracket",
    "Sense": "bracket",
    "lower_envelope": "envelope",
    "DiscretePair": "pair",
    "Rounding": "pair",
    "bayes_errors_at_breakpoints": "pair",
    "delta_between_pairs": "pair",
    "max_at_breakpoints": "pair",
}

__all__ = ["Bracket", "PairBracket", "DiscretePair", "Rounding", "Sense", "bayes_errors_at_breakpoints",
           "delta_between_pairs", "lower_envelope", "max_at_breakpoints"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .bracket import Bracket, Sense
    from .pair_bracket import PairBracket
    from .envelope import lower_envelope
    from .pair import DiscretePair, Rounding, bayes_errors_at_breakpoints, delta_between_pairs, max_at_breakpoints

__getattr__, __dir__ = lazy_module(__name__, _LAZY)
del lazy_module, TYPE_CHECKING  # the package lists only its public names
