"""An audit next to a claim: does it contradict the claim, and how much room does the claim leave?

For an audit E (:class:`~.empirical.EmpiricalMechanism`) and a claimed mechanism C (symmetric f_C):

- **contradicts** — the audit's certified curve lies below the claim's pessimistic curve somewhere:
  Δ(C‖E_cert).lower > 0, i.e. max_π (R_C,pess(π) − R_E,opt(π)) > 0 ([BCP] Cor 1; R and f determine each
  other, eq 2 and eq 4, so R_E,opt < R_C somewhere ⇔ f_E,opt < f_C somewhere). With probability ≥ the
  confidence the true f is ≤ f_E,opt, so a true claim f ≥ f_C would be violated: a contradiction at that
  confidence. Both sides err towards *not* contradicting (the claim's pessimistic side, the audit's
  optimistic side). For a one-run audit, the f-DP test of :mod:`.one_run` with f = f_C,pess.
- **gap** — Δ(E‖C) = max_π (R_E(π) − R_C(π)) ([BCP] Def 1): the largest Bayes-error room the claim allows
  that the attack did not reach, and the prior π at which it is largest. Value from the point estimate,
  bracket [max_π(R_E,pess − R_C,opt), max_π(R_E,opt − R_C,pess)] from the band (each end at the confidence).
- **epsilon_lower** — the ε the audit proves at δ (:meth:`.EmpiricalMechanism.epsilon_lower`; for one run,
  Steinke et al.'s bound), next to the claimed ε(δ) (upper end, as every ε we report).
- **gdp_mu_lower** — the largest μ whose μ-GDP claim the audit contradicts (the strongest Gaussian claim
  it rules out).
- **TPR at FPR** — the attack's TPR (estimate and certified lower bound) next to the claim's maximum
  1 − f_C(α).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..comparison.delta import delta_divergence
from ..mechanisms.base import Mechanism
from .empirical import DEFAULT_THRESHOLDS, EmpiricalMechanism
from .inputs import Counts, OneRun, Scores, check_confidence, check_delta
from .one_run import epsilon_lower_one_run, epsilon_lower_one_run_fdp, fdp_reconstruction_margin

#: the FPRs at which TPRs are reported
DEFAULT_FPRS = (1e-3, 1e-2)


def _finite(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Gap:
    """Δ(audit‖claim): the largest Bayes-error room the claim leaves that the attack did not reach."""

    value: float | None
    lower: float | None
    upper: float | None
    pi: float | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {"value": self.value, "lower": self.lower, "upper": self.upper, "pi": self.pi}
        if self.note:
            d["note"] = self.note
        return d


@dataclass(frozen=True)
class AuditResult:
    """The comparison of an audit with a claim (see the module docstring); ``to_dict`` is the CLI's JSON."""

    claim: str
    kind: str
    confidence: float
    delta: float
    method: str
    contradicts: bool
    contradiction: dict[str, Any]
    epsilon_lower: float
    claimed_epsilon: float
    gap: Gap
    tpr_at_fpr: tuple[dict[str, Any], ...]
    extra: dict[str, Any] = field(default_factory=dict)
    empirical: EmpiricalMechanism | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "input": self.kind,
            "confidence": self.confidence,
            "delta": self.delta,
            "method": self.method,
            "contradicts": bool(self.contradicts),
            "contradiction": self.contradiction,
            "epsilon_lower": _finite(self.epsilon_lower),
            "claimed_epsilon": _finite(self.claimed_epsilon),
            "gap": self.gap.to_dict(),
            "tpr_at_fpr": [dict(r) for r in self.tpr_at_fpr],
            **self.extra,
        }


def audit(claim: Mechanism, data: Counts | Scores | OneRun | EmpiricalMechanism, *, confidence: float = 0.95,
          delta: float = 1e-5, fprs: tuple[float, ...] = DEFAULT_FPRS,
          thresholds: int = DEFAULT_THRESHOLDS) -> AuditResult:
    """Compare an audit with a claimed mechanism.

    >>> import dpcompare as dc
    >>> r = audit(dc.Gaussian(mu=1), Counts(tp=[900], positives=[1000], fp=[10], negatives=[1000]))
    >>> r.contradicts, round(r.epsilon_lower, 3), round(r.claimed_epsilon, 3)
    (True, 3.872, 4.377)
    """
    if not isinstance(claim, Mechanism):
        raise TypeError(f"claim must be a dpcompare Mechanism, got {type(claim).__name__}")
    c, d = check_confidence(confidence), check_delta(delta)
    fprs = tuple(float(x) for x in fprs)
    for x in fprs:
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"fprs must be in [0, 1], got {x!r}")
    claimed_eps = float(claim.epsilon(d)) if d > 0 else float(claim.epsilon(0.0))
    if isinstance(data, OneRun):
        return _audit_one_run(claim, data, c, d, claimed_eps)
    if isinstance(data, Counts):
        emp, kind = EmpiricalMechanism.from_counts(data, c), "counts"
    elif isinstance(data, Scores):
        emp, kind = EmpiricalMechanism.from_scores(data, c, thresholds=thresholds), "scores"
    elif isinstance(data, EmpiricalMechanism):
        emp, kind = data, ("scores" if data.staircase else "counts")
        if emp.confidence != c:
            raise ValueError(f"confidence {c} differs from the audit's own ({emp.confidence})")
    else:
        raise TypeError(f"data must be Counts, Scores, OneRun or an EmpiricalMechanism, got {type(data).__name__}")

    # contradiction: Δ(C‖E_cert).lower > 0
    below = delta_divergence(claim, emp.certified)
    contradicts = below.lower > 0.0
    contradiction = {"bayes_error_excess": below.lower, "pi": below.pi if contradicts else None}
    # gap: Δ(E‖C), value from the estimate, bracket from the band
    # (each side as an exact pair, so that the bracket is the band's and not a search tolerance)
    low = delta_divergence(emp.strongest, claim).lower
    high = delta_divergence(emp.certified, claim)
    est = delta_divergence(emp.estimate, claim)
    value = min(max(est.value, low), high.upper)
    gap = Gap(value=value, lower=low, upper=high.upper, pi=est.pi if value > 0 else None)
    fa = np.asarray(fprs, dtype=float)
    tpr_est, tpr_lo, tpr_claim = emp.tpr_estimate(fa), emp.tpr_lower(fa), claim.tpr(fa)
    rows = tuple({"fpr": float(a), "attack": float(e), "attack_lower": float(lo), "claimed_max": float(cm)}
                 for a, e, lo, cm in zip(fa, tpr_est, tpr_lo, tpr_claim))
    return AuditResult(claim=claim.spec, kind=kind, confidence=c, delta=d, method=emp.method,
                       contradicts=contradicts, contradiction=contradiction, epsilon_lower=emp.epsilon_lower(d),
                       claimed_epsilon=claimed_eps, gap=gap, tpr_at_fpr=rows,
                       extra={"points": int(emp.observed_fpr.size), "gdp_mu_lower": emp.gdp_mu_lower()},
                       empirical=emp)


def _audit_one_run(claim: Mechanism, run: OneRun, c: float, d: float, claimed_eps: float) -> AuditResult:
    def f(alpha: float) -> float:
        return float(claim.tradeoff(alpha))

    margin = fdp_reconstruction_margin(run, f, c)
    return AuditResult(
        claim=claim.spec, kind="one_run", confidence=c, delta=d,
        method=("one run: Steinke, Nasr & Jagielski (2023) for epsilon_lower; the f-DP reconstruction test of "
                "Mahloujifar, Melis & Chaudhuri (2024) with the claimed curve for contradicts"),
        contradicts=margin > 0.0, contradiction={"reconstruction_margin": margin},
        epsilon_lower=epsilon_lower_one_run(run, c, d), claimed_epsilon=claimed_eps,
        gap=Gap(None, None, None, None, note="a one-run audit certifies no trade-off curve, so no Bayes-error gap"),
        tpr_at_fpr=(),
        extra={"epsilon_lower_fdp": epsilon_lower_one_run_fdp(run, c, d), "m": run.m, "k": run.k, "r": run.r},
    )
