"""Mixture mechanisms in f-DP ([MIX]): joint concavity, shuffling, sub-sampling, random initialisation.

Modules, one job each:

- :mod:`.algebra` — trade-off function algebra on discrete pairs: f⁻¹, f*, f**, C(f) (eq 3), Symm(f),
  w·Id + (1−w)·f, swapped mixtures.
- :mod:`.joint_concavity` — Lemma 3.1 / Prop B.2 (mixtures along common likelihood-ratio
  thresholds), Prop B.1 (unequal weights), Prop 6.1 (when the bound is tight).
- :mod:`.shuffling` — Prop 4.1, Thm 4.2, Cor 4.3: the shuffle model (spec ``shuffle(eps0=…, n=…)``).
- :mod:`.clones` — the baseline: Feldman, McMillan & Talwar's numerical bound ("Hiding among the clones").
- :mod:`.clone_pairs` — the engine of both: the clone-count pair (P₀, Q₀), exactly or as a certified bracket.
- :mod:`.subsampling` — Prop E.1, Prop 6.4, Lemma 3.1 vs Lemma 6.3 (Examples F.3, F.4).
- :mod:`.advanced` — Lemma 6.2 and Lemma 6.3 in their general form (any γ < w < η).
- :mod:`.random_init` — Thm 5.1: DP-GD with random initialisation (Examples D.1–D.3); T > 1 steps
  composed: heuristic, not a guarantee.
- :mod:`.f_divergences` — Lemma B.4: F-divergences from a trade-off function; joint convexity.
"""

from .._lazy import lazy_module

#: public name → the submodule that defines it (loaded on first use, PEP 562: importing one submodule,
#: e.g. the shuffle model for the spec language, does not import the others and their scipy parts)
_LAZY = {
    "FDivergence": "f_divergences",
    "FMTBound": "clones",
    "HidingAmongClones": "clones",
    "JointConcavity": "joint_concavity",
    "KL": "f_divergences",
    "LENGTH": "f_divergences",
    "Loss": "random_init",
    "RandomInit": "random_init",
    "Sensitivity": "random_init",
    "ShuffleAnalysis": "shuffling",
    "Shuffled": "shuffling",
    "Subsampled": "subsampling",
    "TV": "f_divergences",
    "as_pairs": "algebra",
    "clipped_composition_mu": "random_init",
    "closed_form": "f_divergences",
    "conjugate": "algebra",
    "convex_envelope": "algebra",
    "cor43_delta": "shuffling",
    "equality_gap": "joint_concavity",
    "fmt_delta": "clones",
    "fmt_epsilon": "clones",
    "hockey_stick": "f_divergences",
    "identity_pair": "algebra",
    "inverse": "algebra",
    "l_f": "f_divergences",
    "l_f_bounds": "f_divergences",
    "l_f_quad": "f_divergences",
    "lemma31_bound": "subsampling",
    "lemma62_terms": "advanced",
    "lemma63_bound": "subsampling",
    "lemma63_general": "advanced",
    "lemma63_profile": "advanced",
    "local_dp_floor": "algebra",
    "mix_with_identity": "algebra",
    "mixture_pair": "joint_concavity",
    "mixture_pairs": "joint_concavity",
    "mixture_points": "joint_concavity",
    "pair_from_vertices": "algebra",
    "power": "f_divergences",
    "prop41_pairs": "shuffling",
    "prop41_points": "shuffling",
    "ratio_condition": "joint_concavity",
    "renyi_bounds": "f_divergences",
    "renyi_closed_form": "f_divergences",
    "shuffle_weight": "shuffling",
    "split_exponents": "advanced",
    "subsampled_pairs": "subsampling",
    "swap_mixture": "algebra",
    "swapped_mixture_bound": "subsampling",
    "symm": "algebra",
    "symmetrize_conv_min": "algebra",
    "symmetrize_eq3": "algebra",
    "theorem51_points": "random_init",
    "unequal_weights_pair": "joint_concavity",
}

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

__getattr__, __dir__ = lazy_module(__name__, _LAZY)
del lazy_module  # the package lists only its public names
