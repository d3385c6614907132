"""Mixture mechanisms in f-DP ([MIX]): joint concavity, shuffling, sub-sampling, random initialisation.

Modules, one job each:

- :mod:`.algebra` — trade-off function algebra on discrete pairs: f⁻¹, f*, f**, C(f) (eq 3), Symm(f),
  w·Id + (1−w)·f, swapped mixtures.
- :mod:`.joint_concavity` — Lemma 3.1 / Prop B.2 (mixtures along common likelihood-ratio
  thresholds), Prop B.1 (unequal weights), Prop 6.1 (when the bound is tight).
- :mod:`.shuffling` — Prop 4.1, Thm 4.2, Cor 4.3: the shuffle model (spec ``shuffle(eps0=…, n=…)``).
- :mod:`.clones` — the baseline: Feldman, McMillan & Talwar's numerical bound ("Hiding among the clones").
- :mod:`.subsampling` — Prop E.1, Prop 6.4, Lemma 3.1 vs Lemma 6.3 (Examples F.3, F.4).
- :mod:`.advanced` — Lemma 6.2 and Lemma 6.3 in their general form (any γ < w < η).
- :mod:`.random_init` — Thm 5.1: DP-GD with random initialisation (Examples D.1–D.3); T > 1 steps
  composed: heuristic, not a guarantee.
- :mod:`.f_divergences` — Lemma B.4: F-divergences from a trade-off function; joint convexity.
"""

from .advanced import lemma62_terms, lemma63_general, lemma63_profile, split_exponents
from .algebra import (
    as_pairs,
    conjugate,
    convex_envelope,
    identity_pair,
    inverse,
    local_dp_floor,
    mix_with_identity,
    pair_from_vertices,
    swap_mixture,
    symm,
    symmetrize_conv_min,
    symmetrize_eq3,
)
from .clones import FMTBound, HidingAmongClones, fmt_delta, fmt_epsilon
from .f_divergences import (
    KL,
    LENGTH,
    TV,
    FDivergence,
    closed_form,
    hockey_stick,
    l_f,
    l_f_bounds,
    l_f_quad,
    power,
    renyi_bounds,
    renyi_closed_form,
)
from .joint_concavity import (
    JointConcavity,
    equality_gap,
    mixture_pair,
    mixture_pairs,
    mixture_points,
    ratio_condition,
    unequal_weights_pair,
)
from .random_init import Loss, RandomInit, Sensitivity, clipped_composition_mu, theorem51_points
from .shuffling import ShuffleAnalysis, Shuffled, cor43_delta, prop41_pairs, prop41_points, shuffle_weight
from .subsampling import Subsampled, lemma31_bound, lemma63_bound, subsampled_pairs, swapped_mixture_bound

__all__ = [
    "clipped_composition_mu",
    "renyi_closed_form",
    "closed_form",
    "local_dp_floor",
    "split_exponents",
    "lemma63_profile",
    "lemma63_general",
    "lemma62_terms",
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
