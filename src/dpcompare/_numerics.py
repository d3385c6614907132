"""Log-space helpers: the one home of the stable elementary functions.

Everything that subtracts probabilities close to each other, or works with masses
below ~1e-300, goes through these functions.

- ``log1mexp(x) = log(1 − eˣ)`` for x ≤ 0 (Mächler, "Accurately computing log(1 − exp(−|a|))", 2012).
- ``logsubexp(a, b) = log(eᵃ − eᵇ)`` for a ≥ b.
- ``log_ndtr`` / ``ndtr`` / ``ndtri`` re-exported from scipy.special (accurate tails).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

log_ndtr = special.log_ndtr
ndtr = special.ndtr
ndtri = special.ndtri

LOG_HALF = float(np.log(0.5))


def log1mexp(x: np.ndarray | float) -> np.ndarray:
    """log(1 − eˣ) for x ≤ 0, accurate for x near 0 and for x → −∞.

    Example: ``log1mexp(-1e-20)`` ≈ log(1e-20) = −46.05.
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -0.6931471805599453, np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def logsubexp(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """log(eᵃ − eᵇ) for a ≥ b; −inf where a == b (including a == b == −inf)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        d = np.where(np.isneginf(a), -np.inf, b - a)
    d = np.minimum(d, 0.0)
    return np.where(np.isneginf(a), -np.inf, a + log1mexp(d))


def logit(p: np.ndarray | float) -> np.ndarray:
    """log(p / (1 − p)), ±inf at the end points."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


def expit(x: np.ndarray | float) -> np.ndarray:
    """1 / (1 + e^{−x})."""
    return special.expit(np.asarray(x, dtype=float))


def divide_up(a: float, b: float) -> float:
    """a/b for a, b > 0 rounded *up* (the smallest double ≥ the exact quotient).

    Privacy parameters such as μ = Δ/σ and m = Δ/b only lose privacy as they grow, so the quotient a
    guarantee is computed from must not be rounded down.

    The exact comparison q < a/b is made on the doubles' integer ratios (q = qₙ/q_d, a = aₙ/a_d, b = bₙ/b_d, all
    denominators > 0): q < a/b ⇔ qₙ·a_d·bₙ < aₙ·b_d·q_d when bₙ > 0 (the inequality turns when bₙ < 0) — the
    comparison ``fractions.Fraction`` makes, without importing it on every command's path.

    >>> from fractions import Fraction
    >>> divide_up(1.0, 1e-9) > 1.0 / 1e-9 and Fraction(divide_up(1.0, 1e-9)) >= Fraction(1) / Fraction(1e-9)
    True
    """
    q = a / b
    if math.isfinite(q) and q > 0:
        (qn, qd), (an, ad), (bn, bd) = q.as_integer_ratio(), a.as_integer_ratio(), b.as_integer_ratio()
        lhs, rhs = qn * ad * bn, an * bd * qd
        if (lhs < rhs) if bn > 0 else (lhs > rhs):
            q = math.nextafter(q, math.inf)
    return q
