"""One-run audits: m canaries, each included in training with probability ½; k guesses, r correct.

1. (ε, δ) test — Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run" (NeurIPS 2023),
   Thm 3.1 with its δ > 0 extension (their Prop. 5.2): under (ε, δ)-DP,

       P[W ≥ r] ≤ β + α·2m·δ,   β = P[Bin(k, q) ≥ r],  q = e^ε/(1 + e^ε),
       α = max_{1≤i≤r} (P[Bin(k, q) ≥ r − i] − β)/i,

   so the claim is rejected at level a = 1 − confidence when this p-value is ≤ a, and the largest
   rejected ε is the ε lower bound (the p-value increases with ε; bisection, rounded towards smaller ε).
2. f-DP test — Mahloujifar, Melis & Chaudhuri, "Auditing f-differential privacy in one run" (2024), the
   capped reconstruction bound: with r̃ = a·r/m, h = a·(k − r)/m and, for i = r−1, …, 0,
   h′ = max(h, f(1 − r̃)), r̃ ← min(r̃ + i/(k − i)·(h′ − h), 1), h ← h′ (stop when h no longer moves),
   the hypothesis "the mechanism is f-DP" is rejected when r̃ + h < k/m fails, i.e. r̃ + h > k/m.
   For f = G_μ, f(1 − x) = Φ(Φ⁻¹(x) − μ) is the paper's inverse blow-up; here f is the claimed curve
   itself (its pessimistic, lower side, so a rejection is certain).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .inputs import OneRun, check_confidence, check_delta


def steinke_p_value(run: OneRun, eps: float, delta: float) -> float:
    """The p-value of "(ε, δ)-DP" given the one-run result (Steinke et al. 2023, Thm 3.1 / Prop 5.2)."""
    from scipy.stats import binom

    k, r = run.k, run.r
    if r == 0:
        return 1.0
    q = 1.0 / (1.0 + math.exp(-eps))
    beta = float(binom.sf(r - 1, k, q))
    if delta == 0:
        return min(beta, 1.0)
    i = np.arange(1, r + 1)
    tails = binom.sf(r - i - 1, k, q)  # P[Bin ≥ r − i]
    alpha = float(np.max((tails - beta) / i, initial=0.0))
    return min(beta + alpha * delta * 2 * run.m, 1.0)


def epsilon_lower_one_run(run: OneRun, confidence: float = 0.95, delta: float = 0.0) -> float:
    """Largest ε whose (ε, δ) claim the one-run result rejects at ``confidence`` (0 if none); bisection to
    1e-9 relative, the reported end is one where the rejection was verified."""
    c, d = check_confidence(confidence), check_delta(delta)
    a = 1.0 - c
    if steinke_p_value(run, 0.0, d) > a:
        return 0.0
    lo, hi = 0.0, 1.0
    while steinke_p_value(run, hi, d) <= a:
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            return lo
    while hi - lo > 1e-9 * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if steinke_p_value(run, mid, d) <= a:
            lo = mid
        else:
            hi = mid
    return lo


def fdp_reconstruction_margin(run: OneRun, tradeoff: Callable[[float], float], confidence: float = 0.95) -> float:
    """r̃ + h − k/m of the capped reconstruction bound (Mahloujifar et al. 2024): > 0 rejects "f-DP"."""
    a = 1.0 - check_confidence(confidence)
    m, k, r = run.m, run.k, run.r
    if k == 0:
        return -1.0
    rt = a * r / m
    h = a * (k - r) / m
    for i in range(r - 1, -1, -1):
        h_new = max(h, float(tradeoff(max(0.0, 1.0 - rt))))
        if h_new == h:
            break
        rt = min(rt + (i / (k - i)) * (h_new - h), 1.0)
        h = h_new
    return rt + h - k / m


def fdp_rejects(run: OneRun, tradeoff: Callable[[float], float], confidence: float = 0.95) -> bool:
    """Whether the one-run result rejects the claim "f-DP" at ``confidence``."""
    return fdp_reconstruction_margin(run, tradeoff, confidence) > 0.0


def approx_dp_tradeoff(eps: float, delta: float) -> Callable[[float], float]:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)), the curve of (ε, δ)-DP (Kairouz et al. 2015)."""
    e = math.exp(eps)

    def f(alpha: float) -> float:
        return max(0.0, 1.0 - delta - e * alpha, (1.0 - delta - alpha) / e)

    return f


def epsilon_lower_one_run_fdp(run: OneRun, confidence: float = 0.95, delta: float = 0.0) -> float:
    """Largest ε for which the f-DP test rejects f_{ε,δ} (every (ε, δ)-DP mechanism is f_{ε,δ}-DP), by
    bisection to 1e-9 relative; 0 if none."""
    c, d = check_confidence(confidence), check_delta(delta)
    if not fdp_rejects(run, approx_dp_tradeoff(0.0, d), c):
        return 0.0
    lo, hi = 0.0, 1.0
    while fdp_rejects(run, approx_dp_tradeoff(hi, d), c):
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            return lo
    while hi - lo > 1e-9 * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if fdp_rejects(run, approx_dp_tradeoff(mid, d), c):
            lo = mid
        else:
            hi = mid
    return lo
