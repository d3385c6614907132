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

Rounding: 1 − A^N = −expm1(N·log1p(−(1 − A))), with Φ̄ by scipy's ``ndtr`` at −x (Cephes; relative error
≲ 1e-14 where it does not underflow), log1p and expm1 within a few ulps; each mass is moved by REL_MARGIN = 1e-9
relative in the direction that lowers the bound (Q down, P and e^ε up), far more than those errors. t ranges over
t/σ ≤ 37, where Φ̄(t/σ) ≥ 1e-300 does not underflow.

>>> lo = max_test_lower_bound(0.0367, 9.9e-8, 18, np.array([0.0417]))
>>> bool(1.78e-6 < lo[0] < 1 - (1 - 9.9e-8) ** 18)
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

#: relative margin on each computed mass (covers ndtr's, log1p's and expm1's rounding many times over)
REL_MARGIN = 1e-9
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
    one_minus_a_q = np.minimum(a + p * np.maximum(b - a, 0.0), 1.0)  # 1 − A under Q
    q = -np.expm1(steps * np.log1p(-one_minus_a_q))
    pp = -np.expm1(steps * np.log1p(-np.minimum(a, 1.0)))
    q_lo = np.where(one_minus_a_q < 1.0, q * (1.0 - REL_MARGIN), 0.0)
    p_hi = np.where(a < 1.0, pp * (1.0 + REL_MARGIN), 1.0)
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
