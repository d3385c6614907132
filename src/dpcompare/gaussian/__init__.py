"""The Gaussian mechanism through its sensitivity index ψ = Δ/σ ([SI], Kaissis et al., JPC).

One number fixes the Gaussian mechanism; every view below is a lossless transform of ψ, except the
RDP conversions and the classical bound, which are (flagged) lossy bounds:

| view | function | [SI] |
| --- | --- | --- |
| mechanism (a core ``dpcompare.Gaussian``) | :func:`mechanism` | Def 2, 6 |
| privacy profile δ(ε; ψ), log δ | :func:`delta`, :func:`log_delta` | eq 7.1, Cor 14 |
| ε(δ; ψ) (lossless) | :func:`epsilon` | eq 6.7 |
| classical ε = ψ√(2 log(1.25/δ)), valid for ε < 1 | :func:`classical_epsilon` | eq 3.5 |
| ψ / σ for an (ε, δ) target (analytic Gaussian mechanism) | :func:`psi_for`, :func:`sigma_for` | Cor 14 |
| RDP ρ(α) = αψ²/2 | :func:`rdp` | Lemma 7 |
| RDP → (ε, δ): standard, improved A, improved B | :func:`rdp_epsilon`, :func:`conversion_epsilon` | Cor 11–13 |
| ψ-GDP, group kψ, composition √Σψᵢ² | :func:`is_gdp`, :func:`group`, :func:`compose` | Lemma 6, Cor 7–8 |
| DP-SGD CLTs (uniform: eq 5.7; Poisson) and each against the accountant for the same sampling | :func:`clt_psi`, :func:`clt_mu_poisson`, :func:`clt_mu_uniform`, :func:`compare_clt` | Cor 9, eq 5.7 |
| the μ-GDP curve closest to any mechanism, with certified Δ both ways | :func:`gdp_fit` | — ([BCP] Def 1, Cor 1) |
| ROC, GDP trade-off, AUC, ψ from AUC | :func:`roc`, :func:`tradeoff`, :func:`auc`, :func:`psi_from_auc` | eq 4.7, 5.3, 4.9 |
| tangent of slope e^ε (intercept δ(ε)) | :func:`tangent` | Lemma 4 |
| all of the above at once | :func:`views`, :func:`resolve_psi` | §7 |

>>> import dpcompare.gaussian as dg
>>> round(dg.epsilon(1.0, 1e-5), 4), round(dg.sigma_for(1.0, 1e-5), 4), round(dg.auc(1.0), 4)
(4.3772, 3.7306, 0.7602)
"""

from .clt import Sampling, clt_mu, clt_mu_poisson, clt_mu_uniform
from .fit import GdpFit, gdp_fit
from .psi_calibration import ClassicalEpsilon, classical_epsilon, psi_for, sigma_for
from .psi_gdp import CLTComparison, clt_psi, compare_clt, compose, group, is_gdp
from .profile import delta, epsilon, log_delta, log_loss_tail, loss_tail
from .rdp import (
    DEFAULT_ALPHA_MAX,
    Conversion,
    RDPEpsilon,
    asoodeh_epsilon,
    balle_epsilon,
    conversion_epsilon,
    rdp,
    rdp_epsilon,
    standard_epsilon,
)
from .roc import Tangent, auc, psi_from_auc, roc, tangent, tradeoff
from .views import DEFAULT_ORDERS, GaussianViews, Source, mechanism, resolve_psi, views

__all__ = [
    "CLTComparison",
    "GdpFit",
    "Sampling",
    "clt_mu",
    "clt_mu_poisson",
    "clt_mu_uniform",
    "gdp_fit",
    "ClassicalEpsilon",
    "Conversion",
    "DEFAULT_ALPHA_MAX",
    "DEFAULT_ORDERS",
    "GaussianViews",
    "RDPEpsilon",
    "Source",
    "Tangent",
    "asoodeh_epsilon",
    "auc",
    "balle_epsilon",
    "classical_epsilon",
    "clt_psi",
    "compare_clt",
    "compose",
    "conversion_epsilon",
    "delta",
    "epsilon",
    "group",
    "is_gdp",
    "log_delta",
    "log_loss_tail",
    "loss_tail",
    "mechanism",
    "psi_for",
    "psi_from_auc",
    "rdp",
    "rdp_epsilon",
    "resolve_psi",
    "roc",
    "sigma_for",
    "standard_epsilon",
    "tangent",
    "tradeoff",
    "views",
]
