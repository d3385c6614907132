"""Exact (Clopper–Pearson) one-sided confidence bounds for a binomial proportion.

Clopper & Pearson, "The use of confidence or fiducial limits illustrated in the case of the binomial",
Biometrika 26 (1934): for k successes in n trials, the one-sided bounds at confidence 1 − a are

    p_lo(k) = B⁻¹(a; k, n − k + 1)        (0 when k = 0)
    p_hi(k) = B⁻¹(1 − a; k + 1, n − k)    (1 when k = n)

where B⁻¹(·; s, t) is the quantile of the Beta(s, t) distribution. They are exact in the sense that
P(p ≤ p_hi(K)) ≥ 1 − a for every p (K ~ Bin(n, p)), and they are the ends of scipy's
``binomtest(k, n).proportion_ci(method="exact")`` interval at a two-sided level 1 − 2a.

>>> lo, hi = clopper_pearson(5, 10, 0.975)
>>> round(float(lo), 4), round(float(hi), 4)
(0.1871, 0.8129)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def clopper_pearson_lower(k: Any, n: Any, confidence: float) -> np.ndarray:
    """One-sided lower bound p_lo with P(p ≥ p_lo) ≥ ``confidence`` (vectorised over k, n)."""
    from scipy.special import betaincinv

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = betaincinv(np.maximum(k, 1.0), n - k + 1.0, a)
    return np.where(k <= 0, 0.0, lo)


def clopper_pearson_upper(k: Any, n: Any, confidence: float) -> np.ndarray:
    """One-sided upper bound p_hi with P(p ≤ p_hi) ≥ ``confidence`` (vectorised over k, n)."""
    from scipy.special import betaincinv

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        hi = betaincinv(k + 1.0, np.maximum(n - k, 1.0), confidence)
    return np.where(k >= n, 1.0, hi)


def clopper_pearson(k: Any, n: Any, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """(p_lo, p_hi), each one-sided at ``confidence`` (the pair is a two-sided interval at 2·confidence − 1)."""
    return clopper_pearson_lower(k, n, confidence), clopper_pearson_upper(k, n, confidence)


def order_statistic_bounds(rank: Any, n: int, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on U₍ₖ₎, the k-th smallest of n independent uniforms, which is Beta(k, n − k + 1) exactly
    (David & Nagaraja, *Order Statistics*, §2.2): (B⁻¹(1 − c; k, n−k+1), B⁻¹(c; k, n−k+1)), each
    one-sided at confidence c. The upper end equals the Clopper–Pearson upper bound at k − 1 successes.

    >>> lo, hi = order_statistic_bounds(1, 100, 0.95)
    >>> round(float(hi), 5) == round(float(clopper_pearson_upper(0, 100, 0.95)), 5)
    True
    """
    from scipy.special import betaincinv

    k = np.asarray(rank, dtype=float)
    return betaincinv(k, n - k + 1.0, 1.0 - confidence), betaincinv(k, n - k + 1.0, confidence)
