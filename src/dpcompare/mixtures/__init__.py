"""Mixture mechanisms in f-DP (seed 002): joint concavity, shuffling, sub-sampling, random initialisation.

Modules, one job each:

- :mod:`.algebra` — trade-off function algebra on discrete pairs: f⁻¹, f*, f**, C(f) (eq 3), Symm(f),
  w·Id + (1−w)·f, swapped mixtures.
- :mod:`.joint_concavity` — Lemma 3.1 / Prop B.2 (mixtures along common likelihood-ratio
  thresholds), Prop B.1 (unequal weights), Prop 6.1 (when the bound is tight).
- :mod:`.shuffling` — Prop 4.1, Thm 4.2, Cor 4.3: the shuffle model (spec ``shuffle(eps0=…, n=…)``).
- :mod:`.clones` — the baseline: Feldman, McMillan & Talwar's numerical bound ("Hiding among the clones").
- :mod:`.subsampling` — Prop E.1, Prop 6.4, Lemma 3.1 vs Lemma 6.3 (Examples F.3, F.4).
- :mod:`.random_init` — Thm 5.1: DP-GD with random initialisation (Examples D.1–D.3), composed.
- :mod:`.f_divergences` — Lemma B.4: F-divergences from a trade-off function; joint convexity.
"""

from .algebra import (
    as_pairs,
    conjugate,
    convex_envelope,
    identity_pair,
    inverse,
    mix_with_identity,
    pair_from_vertices,
    swap_mixture,
    symm,
    symmetrize_conv_min,
    symmetrize_eq3,
)
from .clones import FMTBound, HidingAmongClones, fmt_delta, fmt_epsilon
from .f_divergences import KL, LENGTH, TV, FDivergence, hockey_stick, l_f, l_f_bounds, l_f_quad, power, renyi_bounds
from .joint_concavity import (
    JointConcavity,
    equality_gap,
    mixture_pair,
    mixture_pairs,
    mixture_points,
    ratio_condition,
    unequal_weights_pair,
)
from .random_init import Loss, RandomInit, Sensitivity, theorem51_points
from .shuffling import ShuffleAnalysis, Shuffled, cor43_delta, prop41_pairs, prop41_points, shuffle_weight
from .subsampling import Subsampled, lemma31_bound, lemma63_bound, subsampled_pairs, swapped_mixture_bound

__all__ = [
    "FDivergence",
    "FMTBound",
    "HidingAmongClones",
    "JointConcavity",
    "KL",
    "LENGTH",
    "Loss",
    "RandomInit",
    "Sensitivity",
    "ShuffleAnalysis",
    "Shuffled",
    "Subsampled",
    "TV",
    "as_pairs",
    "conjugate",
    "convex_envelope",
    "cor43_delta",
    "equality_gap",
    "fmt_delta",
    "fmt_epsilon",
    "hockey_stick",
    "identity_pair",
    "inverse",
    "l_f",
    "l_f_bounds",
    "l_f_quad",
    "lemma31_bound",
    "lemma63_bound",
    "mix_with_identity",
    "mixture_pair",
    "mixture_pairs",
    "mixture_points",
    "pair_from_vertices",
    "power",
    "prop41_pairs",
    "prop41_points",
    "ratio_condition",
    "renyi_bounds",
    "shuffle_weight",
    "subsampled_pairs",
    "swap_mixture",
    "swapped_mixture_bound",
    "symm",
    "symmetrize_conv_min",
    "symmetrize_eq3",
    "theorem51_points",
    "unequal_weights_pair",
]
