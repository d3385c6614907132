"""DP-SGD decisions ([BCP] §4–5): calibration with certified ε, PLRV moments and the Thm 3 bound
(emergent Blackwell dominance), operational risk metrics, and parameter sweeps."""

from .._lazy import lazy_module

#: public name → the submodule that defines it, loaded on first use (PEP 562): the spec language
#: imports the training configuration without the calibrations and their composition engines, and a σ
#: calibration loads neither the risk calibrations nor the Rényi-DP tables
_LAZY = {
    "Calibration": "calibrate_sigma",
    "RiskCalibration": "calibrate_risk",
    "RiskMetric": "calibrate_risk",
    "RiskStepsCalibration": "risk_steps",
    "StepsCalibration": "calibrate_sigma",
    "advantage": "risk",
    "bayes_error": "risk",
    "certified_epsilon": "epsilon_bound",
    "excess_vulnerability": "risk",
    "reconstruction_bound": "risk",
    "risk_profile": "risk",
    "sigma_for_epsilon": "calibrate_sigma",
    "sigma_for_risk": "calibrate_risk",
    "steps_for_risk": "risk_steps",
    "steps_for_sigma": "calibrate_sigma",
    "tpr_at_fpr": "risk",
}

__all__ = [
    "Calibration", "RiskCalibration", "RiskMetric", "StepsCalibration", "certified_epsilon", "sigma_for_epsilon",
    "sigma_for_risk", "steps_for_sigma", "advantage", "bayes_error", "excess_vulnerability",
    "reconstruction_bound", "risk_profile", "tpr_at_fpr", "RiskStepsCalibration", "steps_for_risk",
]

__getattr__, __dir__ = lazy_module(__name__, _LAZY)
del lazy_module  # the package lists only its public names
