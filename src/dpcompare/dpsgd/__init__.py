"""DP-SGD decisions ([BCP] §4–5): calibration with certified ε, PLRV moments and the Thm 3 bound
(emergent Blackwell dominance), operational risk metrics, and parameter sweeps."""

from .calibrate import (
    Calibration,
    RiskCalibration,
    RiskMetric,
    StepsCalibration,
    certified_epsilon,
    sigma_for_epsilon,
    sigma_for_risk,
    steps_for_sigma,
)
from .risk import advantage, bayes_error, excess_vulnerability, reconstruction_bound, risk_profile, tpr_at_fpr
from .risk_steps import RiskStepsCalibration, steps_for_risk

__all__ = [
    "Calibration", "RiskCalibration", "RiskMetric", "StepsCalibration", "certified_epsilon", "sigma_for_epsilon",
    "sigma_for_risk", "steps_for_sigma", "advantage", "bayes_error", "excess_vulnerability",
    "reconstruction_bound", "risk_profile", "tpr_at_fpr", "RiskStepsCalibration", "steps_for_risk",
]
