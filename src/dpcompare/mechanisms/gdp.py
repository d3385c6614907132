"""The tightest μ-GDP bound of a mechanism (Dong et al. 2022, Def 2.6), in closed form.

f ≥ G_μ with G_μ(α) = Φ(Φ⁻¹(1−α) − μ) holds iff μ ≥ g(α) := −Φ⁻¹(α) − Φ⁻¹(f(α)) for every α, so the
tightest μ is μ* = sup_α g(α); it is infinite when f(0) < 1 (mass at ℓ = +∞). At the fixed point
f(α*) = α* the gap is g(α*) = −2Φ⁻¹(α*), so always μ* ≥ −2Φ⁻¹(α*) (the Gaussian with the same
minimax Bayes error). For randomized response and Laplace the supremum *is* at the fixed point:

* ε-DP / randomized response, f(α) = max(1 − e^ε α, e^{−ε}(1 − α)), α* = 1/(1+e^ε):
  for α ≤ α*, g(α) = z(α) − z(e^ε α) with z = −Φ⁻¹; it is increasing because
  g′(α) ≥ 0 ⇔ e^ε φ(z(α)) ≥ φ(z(e^ε α)) ⇔ R(z(e^ε α)) ≥ R(z(α)) for Mills' ratio R = (1−Φ)/φ,
  which is decreasing. f is symmetric, so g(f(α)) = g(α) covers α > α*. Hence
  μ* = −2Φ⁻¹(1/(1+e^ε)); since every ε-DP f is ≥ this f (Dong et al. 2022, Prop 2.5), ε-DP ⇒ μ*-GDP.
* Laplace with m = Δ/b, f as in Laplace's docstring, α* = e^{−m/2}/2: on α < e^{−m}/2 the same
  Mills-ratio argument (with e^m) makes g increasing; on [e^{−m}/2, ½] g = z(α) + z(e^{−m}/(4α)) is
  concave in log α (d z(e^t)/dt = −R(z(e^t)) is decreasing) and symmetric under α ↦ e^{−m}/(4α), so
  its maximum is the fixed point: μ* = −2Φ⁻¹(e^{−m/2}/2).

The arguments are ours (derived for this module); both results are checked in tests against a brute-force supremum of g in mpmath.

>>> round(pure_dp_gdp_mu(1.0), 6), round(laplace_gdp_mu(1.0), 6)
(1.232035, 1.030064)
"""

from __future__ import annotations

import math

from scipy.special import erfinv, ndtri_exp

_SQRT8 = 2.0 * math.sqrt(2.0)


def minus_two_probit(log_a: float, one_minus_two_a: float) -> float:
    """−2Φ⁻¹(a) for a ∈ (0, ½], given log a and 1 − 2a, each computed accurately by the caller.

    Near a = ½ it is 2√2·erf⁻¹(1 − 2a) (no cancellation); in the tail −2·Φ⁻¹(exp(log a)) through
    scipy's ``ndtri_exp`` (no underflow, so ε = 800 still gives a finite μ).
    """
    if one_minus_two_a <= 0.8:  # a ≥ 0.1
        return _SQRT8 * float(erfinv(one_minus_two_a))
    return -2.0 * float(ndtri_exp(log_a))


def pure_dp_gdp_mu(eps: float) -> float:
    """μ* = −2Φ⁻¹(1/(1+e^ε)) of ε-DP (randomized response); module docstring.

    1 − 2α* = tanh(ε/2) and log α* = −log(1 + e^ε) are both exact in floating point.
    """
    return minus_two_probit(-math.log1p(math.exp(eps)) if eps < 700 else -eps - math.log1p(math.exp(-eps)),
                            math.tanh(eps / 2.0))


def laplace_gdp_mu(m: float) -> float:
    """μ* = −2Φ⁻¹(e^{−m/2}/2) of the Laplace mechanism with m = Δ/b; module docstring.

    1 − 2α* = −expm1(−m/2) and log α* = −m/2 − log 2.
    """
    return minus_two_probit(-m / 2.0 - math.log(2.0), -math.expm1(-m / 2.0))
