"""Two Gaussians of *different* variance: the binormal ROC and AUC ([SI] Cor 2–3) and their Rényi
divergence ([SI] Cor 10).

[SI] (Kaissis et al., *A Unified Interpretation of the Gaussian Mechanism for Differential Privacy
through the Sensitivity Index*) states three facts about N(μ₀, σ₀²) ("negatives", database D′) and
N(μ₁, σ₁²) ("positives", D) that it only uses with σ₀ = σ₁. Here they hold for σ₀ ≠ σ₁:

- **Corollary 2, eq 4.5** (adapted from Gonçalves et al. 2014, (3.1)): the binormal ROC

      R(x) = Φ(a + b·Φ⁻¹(x)),  x ∈ (0, 1),  a = ‖μ₁ − μ₀‖₂/σ₁,  b = σ₀/σ₁.

  We derived it: the threshold test "positive iff t > c" on the output t (in d > 1 dimensions: on the
  projection onto μ₁ − μ₀, whose laws are N(·, σ₀²) and N(·, σ₁²)) has FPR x = 1 − Φ((c − μ₀)/σ₀), so
  c = μ₀ − σ₀Φ⁻¹(x), and TPR = Φ((μ₁ − c)/σ₁) = Φ(a + bΦ⁻¹(x)).
- **Corollary 3, eq 4.6**: AUC = ∫₀¹ R = Φ(a/√(1 + b²)) = Φ(‖μ₁ − μ₀‖/√(σ₀² + σ₁²)) = P(Y > X).
- **Corollary 10** (Van Erven and Harremoës 2014), for P_i = N(μ_i, σ_i²I_d), P_j = N(μ_j, σ_j²I_d) and
  σ_α² = α·σ_j² + (1 − α)·σ_i²:

      D_α(P_i‖P_j) = d·log(σ_j/σ_i) + d/(2(α−1))·log(σ_j²/σ_α²) + α‖μ_i − μ_j‖²/(2σ_α²)   if σ_α² > 0,
      D_α(P_i‖P_j) = +∞                                                               if σ_α² ≤ 0.

  What we used, where the seed's text differs: (i) the seed writes the covariance as "σ I" but its
  formula (log(σ_j/σ_i)) treats σ as the standard deviation — so do we; (ii) the seed's formula has
  no factor d on the two log terms: it is the d = 1 case (we derived the d-dimensional form from the
  general formula ½α(μ_i−μ_j)ᵀΣ_α⁻¹(μ_i−μ_j) − 1/(2(α−1))·log(det Σ_α / (det Σ_i^{1−α} det Σ_j^α)) of
  Van Erven and Harremoës with Σ = σ²I_d; the mean term has no d); (iii) the seed does not say that
  for α > 1 and σ_i > σ_j the integral ∫ p_i^α p_j^{1−α} diverges once α ≥ σ_i²/(σ_i² − σ_j²)
  (σ_α² ≤ 0): the divergence is then +∞, and we return ``math.inf`` (a true value, not a cap).
  α = 1 is the KL limit d·log(σ_j/σ_i) + d·(σ_i²/σ_j² − 1)/2 + ‖μ_i − μ_j‖²/(2σ_j²).
  With σ_i = σ_j = σ it is α‖μ_i − μ_j‖²/(2σ²) = αψ²/2 (Lemma 7, :func:`dpcompare.gaussian.rdp`).

**The binormal ROC is not the best test when σ₀ ≠ σ₁.** The likelihood ratio of two Gaussians with
different variances is a quadratic in t, so the Neyman–Pearson test rejects on an interval (or outside
one), not on a half-line. R(x) of eq 4.5 is then the ROC of a sub-optimal (linear) test: it is not
concave (R′(x) = b·e^{−(a+bz)²/2 + z²/2} with z = Φ⁻¹(x) is not monotone when b ≠ 1) and dips below the
diagonal near x = 0 (b > 1) or x = 1 (b < 1). :func:`optimal_roc` gives the Neyman–Pearson ROC of the same
pair (1 − the trade-off function T(N(μ₀,σ₀²), N(μ₁,σ₁²)) of f-DP), which is concave and lies above eq 4.5.
For privacy accounting use the optimal ROC: an attacker is not restricted to thresholds.

>>> round(binormal_roc(0.1, 1.0, 2.0), 6)           # Φ(1 + 2·Φ⁻¹(0.1)): below the diagonal
0.059014
>>> round(binormal_auc(1.0, 2.0), 6)                # Φ(1/√5)
0.67264
>>> round(optimal_roc(0.1, 1.0, 2.0), 6)            # the best test does much better at FPR 0.1
0.233402
>>> round(renyi_divergence(2.0, 0.0, 1.0, 1.0, 1.0), 12)   # equal variances: αψ²/2
1.0
>>> renyi_divergence(3.0, 0.0, 2.0, 0.0, 1.0)       # α ≥ σ_i²/(σ_i² − σ_j²) = 4/3: infinite
inf
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import ndtr, ndtri

from ._psi_checks import scalar_or_array

__all__ = ["binormal_auc", "binormal_params", "binormal_roc", "kl_divergence", "optimal_roc", "renyi_divergence"]


def _real(name: str, value: Any) -> np.ndarray:
    if isinstance(value, (str, bytes, bool)) or value is None:
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or an array of them, got {value!r}") from None


def _check(name: str, value: Any, *, low: float, low_open: bool) -> np.ndarray:
    """A finite number (or array) above ``low`` (strictly if ``low_open``); NaN is rejected."""
    arr = _real(name, value)
    ok = ((arr > low) if low_open else (arr >= low)) & np.isfinite(arr)
    if not np.all(ok):
        bad = float(arr[~ok].flat[0])
        rng = f"{'>' if low_open else '>='} {low:g}"
        raise ValueError(f"{name} must be a finite number {rng}, got {bad:g}")
    return arr


def _check_fpr(fpr: Any) -> np.ndarray:
    x = _real("fpr", fpr)
    bad = ~((x >= 0) & (x <= 1))
    if np.any(bad):
        raise ValueError(f"fpr must be in [0, 1], got {float(x[bad].flat[0]):g}")
    return x


def binormal_params(mu0: Any, sigma0: Any, mu1: Any, sigma1: Any) -> tuple[float, float]:
    """(a, b) of [SI] Cor 2 for N(μ₀, σ₀²I) vs N(μ₁, σ₁²I): a = ‖μ₁ − μ₀‖₂/σ₁, b = σ₀/σ₁.

    ``mu0``/``mu1`` are numbers or equal-length vectors; σ's are standard deviations (> 0).

    >>> binormal_params([0, 0], 1.0, [3, 4], 2.0)
    (2.5, 0.5)
    """
    m0, m1 = np.atleast_1d(_real("mu0", mu0)), np.atleast_1d(_real("mu1", mu1))
    if m0.shape != m1.shape or m0.ndim != 1:
        raise ValueError(f"mu0 and mu1 must be numbers or vectors of the same length, got shapes {m0.shape} and {m1.shape}")
    if not (np.all(np.isfinite(m0)) and np.all(np.isfinite(m1))):
        raise ValueError("mu0 and mu1 must be finite")
    s0 = float(_check("sigma0", sigma0, low=0.0, low_open=True))
    s1 = float(_check("sigma1", sigma1, low=0.0, low_open=True))
    return float(np.linalg.norm(m1 - m0)) / s1, s0 / s1


def binormal_roc(fpr: Any, a: Any, b: Any) -> float | np.ndarray:
    """Binormal ROC R(x) = Φ(a + b·Φ⁻¹(x)) ([SI] Cor 2, eq 4.5); a ≥ 0, b > 0; arrays broadcast.

    The ROC of the threshold test; the best test when b = 1 only (then it is eq 4.7 with ψ = a).
    R(0) = 0 and R(1) = 1.

    >>> round(binormal_roc(0.05, 1.0, 1.0), 6)   # b = 1: the Gaussian mechanism's ROC with ψ = 1
    0.259511
    """
    x = _check_fpr(fpr)
    aa = _check("a", a, low=0.0, low_open=False)
    bb = _check("b", b, low=0.0, low_open=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return scalar_or_array(ndtr(aa + bb * ndtri(x)))


def binormal_auc(a: Any, b: Any) -> float | np.ndarray:
    """Area under the binormal ROC: AUC = Φ(a/√(1 + b²)) ([SI] Cor 3, eq 4.6) ∈ [½, 1).

    Equals P(Y > X) for X ~ N(μ₀, σ₀²), Y ~ N(μ₁, σ₁²), i.e. Φ(‖μ₁ − μ₀‖/√(σ₀² + σ₁²)). With b = 1 it is
    Lemma 3's Φ(ψ/√2).

    >>> round(binormal_auc(1.0, 1.0), 6)
    0.76025
    """
    aa = _check("a", a, low=0.0, low_open=False)
    bb = _check("b", b, low=0.0, low_open=True)
    return scalar_or_array(ndtr(aa / np.sqrt(1.0 + bb * bb)))


def _np_interval(a: float, b: float, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P₀, P₁) of the interval [c − h, c + h] around the log-likelihood ratio's vertex c = a·b²/(b² − 1).

    In units of σ₁ with μ₀ = 0: P₀ = N(0, b²), P₁ = N(a, 1).
    """
    c = a * b * b / (b * b - 1.0)
    return _mass_inside(c / b, h / b), _mass_inside(c - a, h)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)


def _mass_inside(mid: Any, half: Any) -> np.ndarray:
    """Φ(mid + half) − Φ(mid − half) without cancellation: 16-point Gauss–Legendre quadrature of φ when the
    interval is shorter than 1 (the difference of two close CDF values, or of the rounded end points,
    would lose the digits of a tiny mass), otherwise the difference of the tails on the side away from 0."""
    mid, half = np.broadcast_arrays(np.asarray(mid, dtype=float), np.asarray(half, dtype=float))
    lo, hi = mid - half, mid + half
    nodes = mid[..., None] + half[..., None] * _GL_X
    quad = half * np.sum(_GL_W * np.exp(-0.5 * nodes * nodes), axis=-1) / np.sqrt(2.0 * np.pi)
    diff = np.where(lo > 0, ndtr(-lo) - ndtr(-hi), ndtr(hi) - ndtr(lo))
    return np.where(half < 0.5, quad, diff)


def _mass_outside(a: float, b: float, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P₀, P₁) of the complement of [c − h, c + h]: two tails summed, never 1 − (something near 1)."""
    c = a * b * b / (b * b - 1.0)
    return (ndtr((c - h) / b) + ndtr(-(c + h) / b), ndtr(c - h - a) + ndtr(-(c + h - a)))


def _optimal_scalar(x: float, a: float, b: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if b == 1.0:
        return float(ndtr(a + ndtri(x)))
    # Neyman–Pearson: reject H₀ (declare "positive") where log p₁/p₀ is large. For b > 1 (negatives
    # wider) that set is an interval [c − h, c + h]; for b < 1 it is the outside of one. FPR is
    # monotone in h, so solve FPR(h) = x for h and read off TPR.
    inside = b > 1.0

    region = _np_interval if inside else _mass_outside

    def fpr_of(h: float) -> float:
        return float(region(a, b, np.array(h))[0])

    def g(h: float) -> float:
        return fpr_of(h) - x

    # at h = |c| + 40·max(b, 1) the interval holds all but e^{−800} of P₀: g changes sign on [0, h]
    hi = abs(a * b * b / (b * b - 1.0)) + 40.0 * max(b, 1.0)
    h = optimize.brentq(g, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=1000)
    return float(region(a, b, np.array(h))[1])


def optimal_roc(fpr: Any, a: Any, b: Any) -> float | np.ndarray:
    """ROC of the most powerful (Neyman–Pearson) test between N(μ₀, σ₀²) and N(μ₁, σ₁²) in one dimension.

    (a, b) as in Cor 2 (a = |μ₁ − μ₀|/σ₁, b = σ₀/σ₁). The log-likelihood ratio is quadratic, so the best
    test rejects on an interval around c = a·b²/(b² − 1) (b > 1) or outside one (b < 1); we solve
    FPR = x for its half-width by Brent's method. This is 1 − T(P₀, P₁)(x), concave, ≥ eq 4.5, and equal
    to it when b = 1 (Lemma 2). Derived here (Neyman–Pearson lemma); not in the seed. Scalar ``a``, ``b``.
    The region's masses are computed without cancellation (Gauss–Legendre for short intervals, tails
    summed outside): relative error ≤ 1e-12 against 40-digit mpmath down to FPR 1e-14 (tests).

    >>> round(optimal_roc(0.05, 1.0, 1.0), 6)
    0.259511
    """
    x = _check_fpr(fpr)
    aa = float(_check("a", a, low=0.0, low_open=False)) if np.ndim(a) == 0 else _scalar_only("a")
    bb = float(_check("b", b, low=0.0, low_open=True)) if np.ndim(b) == 0 else _scalar_only("b")
    out = np.vectorize(lambda v: _optimal_scalar(float(v), aa, bb), otypes=[float])(x)
    return scalar_or_array(out)


def _scalar_only(name: str):
    raise ValueError(f"{name} must be a single number here, got an array")


def renyi_divergence(alpha: Any, mu_i: Any, sigma_i: Any, mu_j: Any, sigma_j: Any) -> float:
    """Rényi divergence D_α(N(μ_i, σ_i²I_d) ‖ N(μ_j, σ_j²I_d)) ([SI] Cor 10; Van Erven and Harremoës 2014).

    D_α = d·log(σ_j/σ_i) + d/(2(α−1))·log(σ_j²/σ_α²) + α‖μ_i − μ_j‖²/(2σ_α²), σ_α² = ασ_j² + (1−α)σ_i²,
    and +∞ when σ_α² ≤ 0 (only possible for α > 1, σ_i > σ_j). α > 0; α = 1 gives the KL divergence.
    d is the length of the mean vectors (1 for numbers). See the module docstring for what differs from
    the seed's printed formula. The definition is eq 3.6: (1/(α−1))·log E_{x∼P_j}[(p_i/p_j)^α].

    >>> round(renyi_divergence(2.0, 0.0, 1.2, 1.0, 1.0), 6)    # mpmath quadrature: 1.8933019765468
    1.893302
    >>> round(renyi_divergence(2.0, 1.0, 1.0, 0.0, 1.2), 6)    # the other direction: 0.580922118784002
    0.580922
    """
    aval = float(_check("alpha", alpha, low=0.0, low_open=True)) if np.ndim(alpha) == 0 else _scalar_only("alpha")
    mi, mj = np.atleast_1d(_real("mu_i", mu_i)), np.atleast_1d(_real("mu_j", mu_j))
    if mi.shape != mj.shape or mi.ndim != 1:
        raise ValueError(f"mu_i and mu_j must be numbers or vectors of the same length, got shapes {mi.shape} and {mj.shape}")
    if not (np.all(np.isfinite(mi)) and np.all(np.isfinite(mj))):
        raise ValueError("mu_i and mu_j must be finite")
    si = float(_check("sigma_i", sigma_i, low=0.0, low_open=True)) if np.ndim(sigma_i) == 0 else _scalar_only("sigma_i")
    sj = float(_check("sigma_j", sigma_j, low=0.0, low_open=True)) if np.ndim(sigma_j) == 0 else _scalar_only("sigma_j")
    d = mi.size
    sq = float(np.sum((mi - mj) ** 2))
    if aval == 1.0:
        return kl_divergence(mu_i, sigma_i, mu_j, sigma_j)
    r2 = (si / sj) ** 2  # σ_i²/σ_j²
    # σ_α²/σ_j² = α + (1 − α)·r2 = 1 − (α − 1)(r2 − 1): computed without cancellation when r2 ≈ 1
    s_alpha_rel = 1.0 - (aval - 1.0) * (r2 - 1.0)
    if s_alpha_rel <= 0.0:
        return math.inf
    log_ratio = math.log(sj / si)
    # log(σ_j²/σ_α²)/(α−1) = −log1p(−(α−1)(r2−1))/(α−1): stable as α → 1
    t = -(aval - 1.0) * (r2 - 1.0)
    log_term = -math.log1p(t) / (aval - 1.0) if t != 0.0 else 0.0
    return d * log_ratio + 0.5 * d * log_term + aval * sq / (2.0 * sj * sj * s_alpha_rel)


def kl_divergence(mu_i: Any, sigma_i: Any, mu_j: Any, sigma_j: Any) -> float:
    """KL(N(μ_i, σ_i²I_d) ‖ N(μ_j, σ_j²I_d)) = d·log(σ_j/σ_i) + d(σ_i²/σ_j² − 1)/2 + ‖μ_i − μ_j‖²/(2σ_j²).

    The α → 1 limit of Cor 10 ([SI] Def 4: "at α = 1, defined by continuity").

    >>> round(kl_divergence(0.0, 1.0, 1.0, 1.0), 12)
    0.5
    """
    mi, mj = np.atleast_1d(_real("mu_i", mu_i)), np.atleast_1d(_real("mu_j", mu_j))
    if mi.shape != mj.shape or mi.ndim != 1:
        raise ValueError(f"mu_i and mu_j must be numbers or vectors of the same length, got shapes {mi.shape} and {mj.shape}")
    si = float(_check("sigma_i", sigma_i, low=0.0, low_open=True))
    sj = float(_check("sigma_j", sigma_j, low=0.0, low_open=True))
    d = mi.size
    r2 = (si / sj) ** 2
    sq = float(np.sum((mi - mj) ** 2))
    return d * math.log(sj / si) + 0.5 * d * (r2 - 1.0) + sq / (2.0 * sj * sj)
