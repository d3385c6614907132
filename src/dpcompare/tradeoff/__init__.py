"""The core: privacy-loss pairs and certified brackets; every numeric view and composition builds on it.

Imports only ``_numerics``/``_search``/``_validation``; nothing here knows about mechanisms or I/O.
"""

from .bracket import Bracket, PairBracket, Sense
from .envelope import lower_envelope
from .pair import DiscretePair, Rounding, bayes_errors_at_breakpoints, delta_between_pairs, max_at_breakpoints

__all__ = ["Bracket", "PairBracket", "DiscretePair", "Rounding", "Sense", "bayes_errors_at_breakpoints",
           "delta_between_pairs", "lower_envelope", "max_at_breakpoints"]
