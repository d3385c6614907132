"""Operational risk metrics of any mechanism, read off its certified pessimistic side.

Every value here is a *risk* (an attacker's success), so it is taken from the side that never understates it
(certified numerics: tradeoff/bracket.py): the lower trade-off curve f_lo, the upper profile δ_hi, the lower
Bayes error R_lo.

- ``tpr_at_fpr``: TPR = 1 − f(α) at FPR α (Dong, Roth & Su 2022, Def 2.1: f(α) is the smallest type II
  error at type I error α).
- ``advantage``: membership advantage max(TPR − FPR) = TV(P, Q) = δ(0) ([BCP] eq 29; Yeom et al. 2018).
- ``bayes_error``: R(π) = min_α (π α + (1 − π) f(α)) ([BCP] eq 3), the lowest error of an adversary with
  prior π on membership.
- ``reconstruction_bound``: Hayes, Mahloujifar & Balle (2023), "Bounding training data reconstruction in
  DP-SGD" (NeurIPS 2023): the success of any reconstruction attack whose baseline (prior-only) success
  probability is κ is at most the blow-up sup{Q(E) : P(E) ≤ κ} of the mechanism's pair, which by
  Neyman–Pearson is 1 − f(κ) (the hypothesis-testing form: Kaissis et al. 2023, "Bounding data
  reconstruction attacks with the hypothesis testing interpretation of DP"). This is the quantity on the
  vertical axis of [BCP] Figure 7. We evaluate it with the symmetrised, pessimistic f (f_sym ≤ f), so it
  is a valid upper bound, possibly slightly above Hayes et al.'s one-direction value.
- ``excess_vulnerability``: Δ(baseline‖M), the certified upper end ([BCP] Def 1 / Cor 1): how much lower
  the best attack's Bayes error can be on M than on the baseline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_probabilities


def tpr_at_fpr(mechanism: Any, fpr: Any) -> np.ndarray | float:
    """TPR = 1 − f_lo(FPR) of the most powerful membership test (Dong et al. 2022, Def 2.1)."""
    out = mechanism.tpr(fpr)
    return float(out) if np.ndim(out) == 0 else out


def advantage(mechanism: Any) -> float:
    """max_α (TPR(α) − α) = TV(P, Q) = δ_hi(0) ([BCP] eq 29)."""
    return float(mechanism.advantage)


def bayes_error(mechanism: Any, pi: Any) -> np.ndarray | float:
    """R_lo(π): the certified lower end of the minimum Bayes error at prior π ([BCP] eq 3)."""
    out = mechanism.bayes_error_bounds(pi)[0]
    return float(out) if np.ndim(out) == 0 else out


def reconstruction_bound(mechanism: Any, kappa: Any) -> np.ndarray | float:
    """Upper bound 1 − f_lo(κ) on the success probability of a reconstruction attack whose baseline success is κ
    (Hayes, Mahloujifar & Balle 2023: the blow-up sup{Q(E) : P(E) ≤ κ} = 1 − f(κ))."""
    kappa = check_probabilities("kappa", kappa)
    out = 1.0 - mechanism.tradeoff_bounds(kappa)[0]
    return float(out) if np.ndim(out) == 0 else out


def excess_vulnerability(baseline: Any, mechanism: Any) -> float:
    """Certified upper end of Δ(baseline‖mechanism) ([BCP] Def 1): the regret of choosing ``mechanism``."""
    from ..comparison import delta_divergence

    return float(delta_divergence(baseline, mechanism).upper)


def risk_profile(mechanism: Any, *, fpr: float = 1e-3, pi: float = 0.5, kappa: float = 1e-3) -> dict[str, float]:
    """All metrics of one mechanism at once (for sweeps and reports)."""
    return {
        "advantage": advantage(mechanism),
        "tpr_at_fpr": float(tpr_at_fpr(mechanism, fpr)),
        "bayes_error": float(bayes_error(mechanism, pi)),
        "rero_bound": float(reconstruction_bound(mechanism, kappa)),
    }
