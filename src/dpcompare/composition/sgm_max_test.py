"""A closed-form lower bound of δ(ε) of N steps of the Poisson-subsampled Gaussian: the test "some coordinate
exceeds t".

For the remove pair P = N(0, σ²)^⊗N, Q = ((1 − p)·N(0, σ²) + p·N(1, σ²))^⊗N and the event S_t = {max_i x_i > t},

    P(S_t) = 1 − Φ(t/σ)^N,    Q(S_t) = 1 − (1 − a − p·(b − a))^N,    a = Φ̄(t/σ), b = Φ̄((t − 1)/σ),

and δ_rem(ε) = sup_S Q(S) − e^ε·P(S) ≥ Q(S_t) − e^ε·P(S_t) for every t (the hockey-stick divergence is a
supremum over events); δ(ε) = max(δ_rem, δ_add)(ε) of the symmetrised mechanism ([BCP] eq 25–26) is at least
that. At small p the event is nearly the optimal test (the example is sampled at most once, and then one
coordinate is shifted), so the bound is close to the truth: at (σ, p, N) = (0.0367, 9.9e-8, 18), ε = 0.0417 it
is within 1e-8 relative of P(ever sampled) = 1 − (1 − p)^N, which bounds δ from above. It serves as the lower end of a δ
bracket where the composition's optimistic side (a greedy merge over every grid cell) is not needed for the
width asked (``sgm_accuracy.delta_to_accuracy``).

Rounding: 1 − A^N = −expm1(N·log1p(−(1 − A))), increasing in 1 − A, with Φ̄ by scipy's ``ndtr`` at −x (Cephes;
allowed NDTR_REL = 1e-13 relative where it does not underflow), log1p and expm1 within a few ulps: 1 − A is
rounded down under Q (b − a less NDTR_REL·(a + b) twice, which covers the cancellation of b − a at large σ) and up
under P, and each mass is moved by REL_MARGIN = 1e-9 relative in the direction that lowers the bound (Q down, P and
e^ε up), far more than the elementary functions' errors. t ranges over t/σ ≤ 37, where Φ̄(t/σ) ≥ 1e-300 does not
underflow. The tests check the bound against 40-digit mpmath values of the same events.

>>> lo = max_test_lower_bound(0.0367, 9.9e-8, 18, np.array([0.0417]))
>>> bool(1.78e-6 < lo[0] < 1 - (1 - 9.9e-8) ** 18)
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

#: relative margin on each computed mass (covers log1p's and expm1's rounding many times over)
REL_MARGIN = 1e-9
#: relative error allowed for scipy's ``ndtr`` (Cephes' erfc/ndtr: ~1e-15 relative in its tests; 1e-13 with margin)
NDTR_REL = 1e-13
#: thresholds t tried: z = t/σ on a grid over [Z_MIN, Z_MAX], and t = 1 + σ·z around the shifted mean
Z_MIN, Z_MAX, Z_POINTS = -8.0, 37.0, 4001


def _thresholds(sigma: float) -> np.ndarray:
    z = np.linspace(Z_MIN, Z_MAX, Z_POINTS)
    t = np.concatenate([sigma * z, 1.0 + sigma * np.linspace(Z_MIN, 8.0, 801)])
    return t[t / sigma <= Z_MAX]


def _event_masses(sigma: float, p: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds t, Q(S_t) rounded down, P(S_t) rounded up) by REL_MARGIN each (module docstring)."""
    t = _thresholds(float(sigma))
    a = ndtr(-t / sigma)                      # Φ̄(t/σ)
    b = ndtr((1.0 - t) / sigma)               # Φ̄((t − 1)/σ) ≥ a
    # 1 − A under Q, rounded down: Φ̄ within NDTR_REL each, so b − a within NDTR_REL·(a + b) + u·(a + b) (at large σ
    # b − a is a small difference of the two: the bound, not b − a's own relative error, is what is removed)
    diff_lo = np.maximum((b - a) - 2.0 * NDTR_REL * (a + b), 0.0)
    x_lo = np.minimum((a * (1.0 - NDTR_REL) + p * diff_lo) * (1.0 - REL_MARGIN), 1.0)
    a_hi = np.minimum(a * (1.0 + NDTR_REL), 1.0)
    # Q(S_t) and P(S_t) increase with 1 − A: −expm1(N·log1p(−x)) within a few ulps relative (module docstring)
    with np.errstate(divide="ignore"):  # log1p(−1) = −∞: the mass is 1, and those thresholds are masked below
        q = -np.expm1(steps * np.log1p(-x_lo))
        pp = -np.expm1(steps * np.log1p(-a_hi))
    q_lo = np.where(x_lo < 1.0, q * (1.0 - REL_MARGIN), 0.0)
    p_hi = np.where(a_hi < 1.0, pp * (1.0 + REL_MARGIN), 1.0)
    return t, q_lo, p_hi


def max_test_lower_bound(sigma: float, p: float, steps: int, eps) -> np.ndarray:
    """max over t of Q(S_t) − e^ε·P(S_t) (module docstring), rounded down and clipped to [0, 1]: a certified lower
    bound of δ(ε) at each ``eps`` (an array; ±∞ allowed). ``sigma`` > 0, ``p`` in (0, 1], ``steps`` ≥ 1."""
    eps = np.asarray(eps, dtype=float)
    _, q_lo, p_hi = _event_masses(sigma, p, steps)
    flat = eps.reshape(-1)
    out = np.zeros(flat.shape)
    for i, e in enumerate(flat):
        if e >= 709.0:
            continue  # e^ε·P(S_t) overflows or dominates: 0 is the bound (δ ≥ 0)
        w = math.exp(e) * (1.0 + REL_MARGIN)
        best = float(np.max(q_lo - w * p_hi, initial=0.0))
        out[i] = min(best * (1.0 - REL_MARGIN), 1.0) if best > 0.0 else 0.0
    return out.reshape(eps.shape)
