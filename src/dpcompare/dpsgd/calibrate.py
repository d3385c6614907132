"""Calibration of DP-SGD (the Poisson-subsampled Gaussian mechanism, SGM) with a certified answer.

Every calibration here is one call (or two) of the certified monotone solver
:func:`dpcompare._search.solve`: the returned σ or N is a point where the certified quantity was
*evaluated* and found to meet the target. There is no other search loop and no private cap.

The certified ε of N steps of SGM(σ, p) at δ
--------------------------------------------
ε_hi(σ, N) = ε of the pessimistic PLD pair (composition/sgm_certified.py; [BCP] §5) at grid
spacing h, which is an upper bound of the true ε at *every* h (coarser h: larger, still certified).
Where that engine cannot answer — δ below the mass it puts at ε = +∞ (δ ≲ 1e-12), σ so small that the
loss leaves double precision, more than ``PLD_MAX_STEPS`` steps — ε_hi is the Rényi-DP bound of
:mod:`.rdp_bound` (Mironov et al. 2019; Balle et al. 2020, Thm 21), also certified, looser. Each answer
says which accountant certified it.

1. ``sigma_for_epsilon`` — the σ with target − tol ≤ ε_hi(σ) ≤ target (ε_hi decreasing in σ).
   a. Domain. σ_hi = 4·√N·σ_G(ε, δ), σ_G the exact Gaussian calibration ([SI]): p = 1 is the
      Gaussian with μ = √N/σ, and subsampling never hurts, so σ_hi is feasible with room to spare
      (the factor 4 covers the RDP fallback). σ_lo = ``SIGMA_MIN``.
   b. Coarse solve at grid 64·h_auto(σ) (a few ms per evaluation) on log ε_hi − log target (log ε is close to
      linear in log σ, so the solver's false-position steps land fast), from the CLT guess (Dong, Roth & Su
      2022, Cor. 5.4) with a first step of 10 %, stopping at the first σ with ε_hi within 0.5 % below the
      target (else to 2 % in σ).
   c. Working grid. ε at grid F·h_auto is ≈ ε₀ + a·F^k (the grid excess is ∝ h² for fine grids); a, k are
      read off ε at F = 64, 32, 16 at the coarse answer, and F is the largest with a·F^k ≤ tol/2, at most
      64. The k read off these coarse grids (≈ 1.6) is below the fine grids' k ≈ 2, so the model overstates
      the excess at the chosen F: measured tol/4 to tol/2 at (p, N) = (0.01, 1000) with tol = 1e-3 (2.5e-4 at
      (8, 1e-5), 4.9e-4 at (1, 1e-5)), so ε at the automatic grid lies within ≈ 1.5·tol of the target (0.31e-3
      and 1.39e-3 there; over-noise ≈ excess/|dε/dlog σ| in σ, 0.001 % at (8, 1e-5)). The reported ε is
      certified at the working grid either way.
      The grid spacing is then frozen.
   d. Fine solve at that grid on a narrow domain predicted from the coarse slope (aimed at target −
      tol/2), stopping at the first σ with target − tol ≤ ε_hi(σ) ≤ target (``gtol``) — usually the
      first evaluation. If the prediction missed, the solve runs again on [σ_lo, coarse answer].
2. ``steps_for_sigma`` — the largest N ≤ ``STEPS_MAX`` with ε_hi(N) ≤ target (integer solve,
   ε_hi increasing in N), coarse then at the automatic grid; ``at_limit`` says when even
   ``STEPS_MAX`` steps meet the target (then the answer is "more than that", not a number).
3. ``sigma_for_risk`` — the smallest σ (relative tolerance ``rtol``) whose certified risk — advantage,
   TPR at an FPR, Bayes error at a prior, or Δ(baseline‖SGM) — meets a target; every metric is read off
   the certified pessimistic side (:mod:`.risk`). The domain end σ_hi comes from the Gaussian G_μ with
   μ = √N/σ, which Blackwell-dominates SGM(σ, p, N) (Dong, Roth & Su 2022, §5): a σ that makes G_μ
   meet the target makes the SGM meet it.

Example
-------
>>> c = sigma_for_epsilon(2.0, 1e-5, 1.0, 4)     # p = 1: the Gaussian mechanism with μ = 2/σ
>>> 2.0 - 1e-3 <= c.epsilon <= 2.0, round(c.sigma, 3)
(True, 3.989)
"""

from __future__ import annotations

from .calibrate_risk import RiskCalibration, RiskMetric, sigma_for_risk
from .calibrate_sigma import Calibration, StepsCalibration, sigma_for_epsilon, steps_for_sigma
from .epsilon_bound import (
    COARSE_FACTOR,
    PLD_MAX_STEPS,
    RISK_COARSE_FACTOR,
    SIGMA_MIN,
    STEPS_MAX,
    TINY_DELTA,
    Accountant,
    EpsilonBound,
    Progress,
    certified_epsilon,
    epsilon_upper,
)

__all__ = [
    "COARSE_FACTOR", "PLD_MAX_STEPS", "RISK_COARSE_FACTOR", "SIGMA_MIN", "STEPS_MAX", "TINY_DELTA", "Accountant",
    "Calibration", "EpsilonBound", "Progress", "RiskCalibration", "RiskMetric", "StepsCalibration",
    "certified_epsilon", "epsilon_upper", "sigma_for_epsilon", "sigma_for_risk", "steps_for_sigma",
]
