"""PLRV moments and Theorem 3 for DP-SGD ([BCP] §4): the implementation lives in ``dpcompare.comparison.plrv``
(it serves every mechanism, see ``dpcompare.comparison.emergent_dominance``); these names stay importable from here."""

from ..comparison.plrv import (
    BERRY_ESSEEN,
    Direction,
    Moments,
    Thm3Result,
    gaussian_moments,
    moments_of,
    subsampled_gaussian_moments,
    thm3,
)

__all__ = ["BERRY_ESSEEN", "Direction", "Moments", "Thm3Result", "gaussian_moments", "moments_of",
           "subsampled_gaussian_moments", "thm3"]
