"""ψ as a ROC curve: the best membership test's ROC (eq 4.7), its AUC (eq 4.9) and tangents (Lemma 4).

- ROC ([SI] Lemma 2, eq 4.7 / 7.2): TPR at FPR x of the most powerful test, R(x) = Φ(ψ + Φ⁻¹(x)).
- Lemma 5 (eq 5.3): R(x) = 1 − G_ψ(x), with G_ψ(α) = Φ(Φ⁻¹(1 − α) − ψ) the GDP trade-off (eq 3.10/5.2).
- AUC (Lemma 3, eq 4.9 / 7.3): ∫₀¹ R = Φ(ψ/√2); conversely ψ = √2·Φ⁻¹(AUC) for AUC ∈ (½, 1).
- Tangent (Lemma 4): the tangent to R with slope e^ε touches at FPR x* = Φ(−ψ/2 − ε/ψ), where
  TPR R(x*) = Φ(ψ/2 − ε/ψ) (Lemma 1's tail, the quantity the seed's proof arrives at), and its
  intercept R(x*) − e^ε·x* is δ(ε; ψ) of eq 7.1 — the smallest δ with TPR ≤ e^ε·FPR + δ for every
  test (Cor 4). (The seed's proof stops at the touching point's TPR; the intercept subtracts e^ε·x*.
  We derived it from R′(x) = e^{−ψ·Φ⁻¹(x) − ψ²/2} = e^ε.) For slope e^{−ε} the tangent is the mirror
  image in the anti-diagonal (symmetry of f-DP), with the same intercept on the other axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics import ndtr, ndtri
from ._psi_checks import check_eps, check_psi, check_unit_open, scalar_or_array
from .profile import _log_delta

__all__ = ["Tangent", "auc", "psi_from_auc", "roc", "tangent", "tradeoff"]


def _check_unit_closed(name: str, x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    bad = ~((arr >= 0) & (arr <= 1))
    if np.any(bad):
        raise ValueError(f"{name} must be in [0, 1], got {float(arr[bad].flat[0]):g}")
    return arr


def roc(psi: Any, fpr: Any) -> float | np.ndarray:
    """ROC curve of the best test against the Gaussian mechanism: R(x) = Φ(ψ + Φ⁻¹(x)) ([SI] eq 4.7).

    x ∈ [0, 1] is the false-positive rate; R(0) = 0, R(1) = 1.

    >>> round(roc(1.0, 0.05), 6)   # Φ(1 − 1.644854)
    0.259511
    """
    p = check_psi(psi)
    x = _check_unit_closed("fpr", fpr)
    with np.errstate(divide="ignore"):
        return scalar_or_array(ndtr(p + ndtri(x)))


def tradeoff(psi: Any, alpha: Any) -> float | np.ndarray:
    """GDP trade-off G_ψ(α) = Φ(Φ⁻¹(1 − α) − ψ) ([SI] eq 3.10 / 5.2); R(x) = 1 − G_ψ(x) (Lemma 5).

    >>> round(tradeoff(1.0, 0.05), 6)
    0.740489
    """
    p = check_psi(psi)
    a = _check_unit_closed("alpha", alpha)
    with np.errstate(divide="ignore"):
        return scalar_or_array(ndtr(-ndtri(a) - p))


def auc(psi: Any) -> float | np.ndarray:
    """Area under the ROC curve: AUC = Φ(ψ/√2) ([SI] Lemma 3, eq 4.9).

    >>> round(auc(1.0), 6)   # Φ(1/√2)
    0.76025
    """
    p = check_psi(psi)
    return scalar_or_array(ndtr(p / math.sqrt(2.0)))


def psi_from_auc(value: Any) -> float | np.ndarray:
    """Inverse of eq 4.9: ψ = √2·Φ⁻¹(AUC), for AUC ∈ (½, 1).

    AUC = ½ is perfect privacy (ψ = 0, no Gaussian mechanism), AUC = 1 no privacy (ψ = ∞).

    >>> round(psi_from_auc(0.76025), 4)
    1.0
    """
    a = check_unit_open(value, "auc", 0.5, 1.0)
    return scalar_or_array(math.sqrt(2.0) * ndtri(a))


@dataclass(frozen=True)
class Tangent:
    """Tangent to the ROC curve with slope e^ε ([SI] Lemma 4): TPR = slope·FPR + intercept.

    ``fpr``, ``tpr``: the touching point; ``intercept`` = δ(ε; ψ) (eq 7.1).
    """

    psi: float
    eps: float
    slope: float
    fpr: float
    tpr: float
    intercept: float


def tangent(psi: Any, eps: Any) -> Tangent:
    """The tangent of slope e^ε to R(x) = Φ(ψ + Φ⁻¹(x)) ([SI] Lemma 4): touching point and intercept δ(ε).

    x* = Φ(−ψ/2 − ε/ψ), R(x*) = Φ(ψ/2 − ε/ψ), intercept = R(x*) − e^ε·x* = δ(ε; ψ) (computed stably).

    >>> t = tangent(1.0, 1.0)
    >>> round(t.fpr, 6), round(t.tpr, 6), round(t.intercept, 6)
    (0.066807, 0.308538, 0.126937)
    """
    p = float(check_psi(psi)) if np.ndim(psi) == 0 else _scalar("psi")
    e = float(check_eps(eps)) if np.ndim(eps) == 0 else _scalar("eps")
    if math.isinf(e):
        raise ValueError("eps must be finite for a tangent (slope e^eps), got inf")
    slope = math.exp(e) if e < 709.0 else math.inf
    return Tangent(
        psi=p,
        eps=e,
        slope=slope,
        fpr=float(ndtr(-0.5 * p - e / p)),
        tpr=float(ndtr(0.5 * p - e / p)),
        intercept=float(np.exp(_log_delta(p, e))),
    )


def _scalar(name: str):
    raise ValueError(f"{name} must be a single number, got an array")
