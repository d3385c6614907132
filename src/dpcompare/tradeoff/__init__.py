"""The numeric representation of trade-off curves: discrete dominating pairs."""

from .pair import DiscretePair, Rounding, delta_between_pairs

__all__ = ["DiscretePair", "Rounding", "delta_between_pairs"]
