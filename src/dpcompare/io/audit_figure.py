"""The audit figure: the claimed trade-off curve with its certified band next to the audit's points,
confidence boxes and certified curve (left), and the Bayes-error room R_audit − R_claim with the gap
Δ(audit‖claim) marked at its prior (right; [BCP] Def 1, Cor 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._figure import PALETTE, style

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..audit.claim import AuditResult
    from ..mechanisms import Mechanism


def audit_figure(result: "AuditResult", claim: "Mechanism") -> "Figure":
    """Two panels (see the module docstring); ``result`` from :func:`dpcompare.audit.audit` with scores or counts."""
    from matplotlib.figure import Figure

    emp = result.empirical
    if emp is None:
        raise ValueError("a one-run audit has no trade-off curve to draw; the figure needs --scores or --counts")
    c_claim, c_audit, c_est = PALETTE[0], PALETTE[1 % len(PALETTE)], PALETTE[2 % len(PALETTE)]
    with style():
        fig = Figure(figsize=(11, 4.6), layout="constrained")
        ax, bx = fig.subplots(1, 2)
        alpha = np.unique(np.concatenate([np.geomspace(1e-5, 1, 600), np.linspace(0, 1, 201)]))
        lo, hi = claim.tradeoff_bounds(alpha)
        ax.fill_between(alpha, lo, hi, color=c_claim, alpha=0.25, lw=0)
        ax.plot(alpha, lo, color=c_claim, label=f"claim {result.claim} (pessimistic side)")
        pess, opt = emp.attack_pairs
        ax.fill_between(alpha, pess.tradeoff(alpha), opt.tradeoff(alpha), color=c_audit, alpha=0.15, lw=0,
                        label=f"attack: {result.confidence:g} confidence band")
        ax.plot(alpha, opt.tradeoff(alpha), color=c_audit, ls="--", label="attack: certified (weakest consistent)")
        ax.plot(emp.observed_fpr, 1 - emp.observed_tpr, "o", ms=3, color=c_est, label="attack: observed points")
        for a0, a1, t0, t1 in zip(emp.fpr_low, emp.fpr_high, emp.tpr_low, emp.tpr_high):
            ax.add_patch(_rect(a0, 1 - t1, a1 - a0, t1 - t0, c_est))
        ax.set_xscale("symlog", linthresh=1e-4)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("α (false-positive rate)")
        ax.set_ylabel("f(α) = 1 − TPR")
        verdict = "contradicts the claim" if result.contradicts else "does not contradict the claim"
        ax.set_title(f"the audit {verdict} (confidence {result.confidence:g})")
        ax.legend(fontsize=8, loc="lower left")

        pi = np.linspace(0.0, 1.0, 1001)
        r_claim = claim.bayes_error(pi)
        r_lo, r_hi = emp.bayes_error_bounds(pi)
        bx.fill_between(pi, r_lo - r_claim, r_hi - r_claim, color=c_audit, alpha=0.15, lw=0,
                        label="R_attack − R_claim, confidence band")
        bx.plot(pi, emp.estimate.bayes_error(pi) - r_claim, color=c_est, label="R_attack − R_claim, estimate")
        bx.axhline(0.0, color="0.4", lw=0.8)
        g = result.gap
        if g.value is not None and g.pi is not None and g.value > 0:
            bx.annotate(f"gap Δ = {g.value:.3g}\n[{g.lower:.3g}, {g.upper:.3g}] at π = {g.pi:.3g}",
                        xy=(g.pi, g.value), xytext=(0.55, 0.85), textcoords="axes fraction",
                        arrowprops={"arrowstyle": "->", "color": "0.2"}, fontsize=8)
            bx.plot([g.pi], [g.value], "o", color="k", ms=4)
        bx.set_xlabel("prior π of membership")
        bx.set_ylabel("Bayes-error room the claim leaves")
        bx.set_title(f"ε ≥ {result.epsilon_lower:.3g} proved vs ε = {result.claimed_epsilon:.3g} claimed "
                     f"(δ = {result.delta:g})")
        bx.legend(fontsize=8, loc="lower left")
    return fig


def _rect(x: float, y: float, w: float, h: float, color: str):
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), max(w, 0.0), max(h, 0.0), fill=False, ec=color, lw=0.6, alpha=0.7)
