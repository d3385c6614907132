"""A second certified upper bound on ε(δ) of DP-SGD, from Rényi DP — for where the PLD engine cannot go.

The PLD accountant (composition/sgm_certified.py) is tight but has a numerical range: below δ ≈ 1e-12 its
pessimistic pair carries a mass ≥ δ at ε = +∞ (so it certifies only ε = ∞), and beyond ~10⁸ steps or
at σ ≲ 0.01 its grid cannot be built. Rényi DP gives a looser bound that holds everywhere:

1. RDP of one step at integer order α ≥ 2 (Mironov, Talwar & Zhang 2019, "Rényi Differential Privacy
   of the Sampled Gaussian Mechanism", §3.3, integer α; the same quantity Opacus and TF-Privacy use):

       A_α = Σ_{k=0}^{α} C(α, k) (1 − p)^{α−k} p^k exp((k² − k)/(2σ²)),   ε_α = log A_α / (α − 1),

   evaluated in log space (log-sum-exp of lgamma terms), so no term overflows.
2. N steps compose additively: N·ε_α (Mironov 2017, "Rényi Differential Privacy", Prop. 1).
3. Conversion to (ε, δ) (Balle, Barthe, Gaboardi, Hsu & Sato 2020, "Hypothesis testing
   interpretations and Rényi differential privacy", Thm 21; Opacus' ``get_privacy_spent``):

       ε(δ) = min_α  N·ε_α + log((α − 1)/α) − (log δ + log α)/(α − 1).

Rounding: every term carries ≤ ~50 ulp of relative error; the result is increased by
``SAFETY`` = 1e-9 relative + 1e-12 absolute, far above that, so it is never understated.

Example (Opacus' RDP accountant gives the same number, up to its coarser order grid):

>>> round(rdp_epsilon(1.0, 0.01, 1000, 1e-5), 3)
2.108
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import gammaln

#: integer Rényi orders tried (2 … 10⁴, ~9 % apart; large orders matter only at tiny δ)
ORDERS = np.unique(np.round(np.geomspace(2, 10_000, 100)).astype(np.int64))
SAFETY_REL, SAFETY_ABS = 1e-9, 1e-12

# flattened (order, k) index of every binomial term, k = 2 … α (k = 0, 1 contribute e^0 − 1 = 0)
_K = np.concatenate([np.arange(2, a + 1) for a in ORDERS]).astype(float)
_A = np.repeat(ORDERS, ORDERS - 1).astype(float)
_STARTS = np.concatenate([[0], np.cumsum(ORDERS - 1)[:-1]])
_LOG_BINOM = gammaln(_A + 1.0) - gammaln(_K + 1.0) - gammaln(_A - _K + 1.0)


@functools.lru_cache(maxsize=64)
def _rdp_orders_cached(sigma: float, p: float) -> np.ndarray:
    if p >= 1.0:
        return ORDERS / (2.0 * sigma * sigma)
    # A_α = 1 + S_α with S_α = Σ_k C(α,k)(1−p)^{α−k}p^k (e^{c_k} − 1), c_k = (k² − k)/(2σ²) ≥ 0: every term
    # is ≥ 0 (Σ_k C(α,k)(1−p)^{α−k}p^k = 1), so log A_α = log1p(S_α) has no cancellation even when
    # A_α − 1 ≈ 1e-17 (large σ), where log Σ_k (…)e^{c_k} would lose all digits.
    c = (_K * _K - _K) / (2.0 * sigma * sigma)
    with np.errstate(divide="ignore", over="ignore"):
        log_expm1 = np.where(c > 30.0, c + np.log1p(-np.exp(-np.minimum(c, 700.0))), np.log(np.expm1(np.minimum(c, 30.0))))
    terms = _LOG_BINOM + _K * math.log(p) + (_A - _K) * math.log1p(-p) + log_expm1
    m = np.maximum.reduceat(terms, _STARTS)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        log_s = m_safe + np.log(np.add.reduceat(np.exp(terms - np.repeat(m_safe, ORDERS - 1)), _STARTS))
    log_a = np.where(log_s > 30.0, log_s + np.log1p(np.exp(-np.minimum(log_s, 700.0))), np.log1p(np.exp(np.minimum(log_s, 30.0))))
    return np.maximum(log_a / (ORDERS - 1.0), 0.0)


def rdp_orders(sigma: float, p: float) -> np.ndarray:
    """ε_α of one step of the Poisson-subsampled Gaussian at every order of ``ORDERS`` (step 1)."""
    return _rdp_orders_cached(float(sigma), float(p))


def rdp_epsilon(sigma: float, p: float, steps: float, delta: float) -> float:
    """Certified upper bound on ε(δ) of N steps of SGM(σ, p) from Rényi DP (module docstring, steps 1–3)."""
    a = ORDERS.astype(float)
    per_step = rdp_orders(sigma, p)
    with np.errstate(over="ignore", invalid="ignore"):
        eps = float(steps) * per_step + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)
    eps = eps[np.isfinite(eps)]
    if eps.size == 0:
        return math.inf
    best = max(float(eps.min()), 0.0)
    return best * (1.0 + SAFETY_REL) + SAFETY_ABS
