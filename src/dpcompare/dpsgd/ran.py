"""What you ran versus what you reported: the certified guarantee of a DP-SGD run's actual batching
(shuffle, balls-in-bins, fixed, Poisson) beside the Poisson-subsampled number trainers usually report.

The reported side is the certified :class:`~dpcompare.SubsampledGaussian` with the same noise multiplier,
rate p = batch_size/dataset_size and ⌈epochs·dataset_size/batch_size⌉ steps (add/remove adjacency), which
is what Opacus' and TF-Privacy's accountants compute for the run. Every number is a certified bracket
[lower, upper] of the truth; for a shuffled run the lower end is a realised worst-case dataset and the
width is open (:mod:`dpcompare.mechanisms.allocation`).

Views: ε at δ, advantage = δ(0) = TV, TPR at a fixed FPR = 1 − f(FPR), μ-GDP upper bound, and the
certified Δ-divergence in both directions ([BCP] Def 1, Cor 1): Δ(reported‖ran) = max_π (R_reported −
R_ran) > 0 means some attacker does better against the run than the report allows.

Verdict: if the lower end of Δ(reported‖ran) is above the numerical slack, the report *understates* the
run's risk (by at least that much Bayes error, and ε_ran ≥ its lower end); if its upper end is at the
slack, the report is a valid bound (the run is Blackwell-dominated by it up to η); otherwise the
certified brackets cannot decide.

>>> from dpcompare.dpsgd.training import TrainingConfig
>>> r = ran_versus_reported(TrainingConfig(2.0, batch_size=10, dataset_size=100, epochs=2, sampling="balls_in_bins"))
>>> r.verdict_kind in ("understates", "valid", "undecided")
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


#: Bayes-error slack under which a Δ counts as zero (floating point of the views; the brackets carry η)
DELTA_SLACK = 1e-9


def _check_run(run: Any):
    """The run as a :class:`~dpcompare.dpsgd.training.TrainingConfig` with a batch size and dataset size;
    ``ValueError`` naming the field otherwise (a spec string is parsed by
    :func:`dpcompare.io.spec_training.parse_training`)."""
    from .training import TrainingConfig

    if not isinstance(run, TrainingConfig):
        raise ValueError(f"run must be a TrainingConfig (parse an sgm(...) spec with "
                         f"dpcompare.io.spec_training.parse_training), got {type(run).__name__}")
    if run.batch_size is None:
        raise ValueError("run needs batch_size and dataset_size (the comparison is between batching schemes)")
    return run


def _epsilon_lower(m, delta: float, eps_hi: float) -> float:
    """Certified lower end of ε(δ): the smallest ε where the optimistic δ is ≤ δ, by bisection on the
    monotone optimistic profile (every ε below the returned point has δ_opt > δ, so the true ε is above it)."""
    if hasattr(m, "epsilon_lower"):
        return float(m.epsilon_lower(delta))
    lo_d = lambda e: float(m.delta_bounds(e).lower)  # noqa: E731
    if lo_d(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, eps_hi if math.isfinite(eps_hi) else 1e3
    if lo_d(hi) > delta:
        return hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if lo_d(mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-10 * max(1.0, hi):
            break
    return lo


@dataclass(frozen=True)
class Side:
    """The certified views of one mechanism (each a [lower, upper] bracket of the truth)."""

    label: str
    spec: str
    adjacency: str
    guarantee: str
    epsilon: tuple[float, float]
    advantage: tuple[float, float]
    tpr: tuple[float, float]
    gdp_mu: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "spec": self.spec, "adjacency": self.adjacency, "guarantee": self.guarantee,
                "epsilon": list(self.epsilon), "advantage": list(self.advantage), "tpr": list(self.tpr),
                "gdp_mu": self.gdp_mu}


def _side(label: str, m, delta: float, fpr: float) -> Side:
    eps_hi = float(m.epsilon(delta))
    eps_lo = min(_epsilon_lower(m, delta, eps_hi), eps_hi)
    adv = m.delta_bounds(0.0)
    f = m.tradeoff_bounds(fpr)
    d = m.describe(delta) if hasattr(m, "describe") else {}
    return Side(label, m.spec, str(d.get("adjacency", "add_remove")), str(d.get("guarantee", "certified")),
                (eps_lo, eps_hi), (float(adv.lower), float(adv.upper)),
                (float(1.0 - f.upper), float(1.0 - f.lower)), m.gdp_mu)


@dataclass(frozen=True)
class RanVersusReported:
    """The comparison (module docstring)."""

    delta: float
    fpr: float
    ran: Side
    reported: Side
    #: Δ(reported‖ran): [lower, upper] and the prior π where the lower end is attained
    delta_reported_ran: tuple[float, float, float]
    #: Δ(ran‖reported)
    delta_ran_reported: tuple[float, float, float]
    verdict_kind: str
    verdict: str
    notes: tuple[str, ...] = field(default=())
    #: the two mechanisms (for figures); not part of the JSON
    mechanisms: tuple[Any, Any] | None = field(default=None, repr=False, compare=False)

    def rows(self) -> list[tuple[str, str, str]]:
        """(view, ran, reported) as text: every number a certified [lower, upper] bracket."""
        def b(v) -> str:
            lo, hi = v
            return f"{hi:.6g}" if lo == hi else f"[{lo:.6g}, {hi:.6g}]"

        mu = lambda x: "-" if x is None else f"{x:.6g}"  # noqa: E731
        return [(f"ε at δ = {self.delta:g}", b(self.ran.epsilon), b(self.reported.epsilon)),
                ("advantage (TV)", b(self.ran.advantage), b(self.reported.advantage)),
                (f"TPR at FPR = {self.fpr:g}", b(self.ran.tpr), b(self.reported.tpr)),
                ("μ-GDP upper bound", mu(self.ran.gdp_mu), mu(self.reported.gdp_mu)),
                ("adjacency", self.ran.adjacency, self.reported.adjacency),
                ("Δ(reported‖ran): run less private by", b(self.delta_reported_ran[:2]), ""),
                ("Δ(ran‖reported): run more private by", b(self.delta_ran_reported[:2]), "")]

    def to_dict(self) -> dict[str, Any]:
        return {"delta": self.delta, "fpr": self.fpr, "ran": self.ran.to_dict(), "reported": self.reported.to_dict(),
                "delta_reported_ran": list(self.delta_reported_ran), "delta_ran_reported": list(self.delta_ran_reported),
                "verdict_kind": self.verdict_kind, "verdict": self.verdict, "notes": list(self.notes)}


def _check_level(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 < v < 1.0):
        raise ValueError(f"{name} must be a number in (0, 1), got {v!r}")
    return float(v)


def ran_versus_reported(run: Any, *, delta: float = 1e-5, fpr: float = 1e-3) -> RanVersusReported:
    """The guarantee of the batching that ran beside the Poisson number usually reported (module docstring)."""
    from ..comparison.delta import delta_divergences
    from ..mechanisms import SubsampledGaussian
    from .training import Sampling

    delta = _check_level("delta", delta)
    fpr = _check_level("fpr", fpr)
    cfg = _check_run(run)
    ran_m = cfg.mechanism
    if cfg.sampling is Sampling.POISSON:  # the report is the run (same rounding of the step count)
        rep_steps = cfg.steps
    else:
        rep_steps = math.ceil(cfg.epochs * cfg.dataset_size / cfg.batch_size) if cfg.epochs is not None else cfg.steps
    rep_m = SubsampledGaussian(cfg.noise_multiplier, cfg.batch_size / cfg.dataset_size, rep_steps)
    ran = _side(f"what you ran (sampling={cfg.sampling.value})", ran_m, delta, fpr)
    rep = _side("what is usually reported (Poisson)", rep_m, delta, fpr)
    rr, ar = delta_divergences(rep_m, ran_m, tol=1e-9)
    d_rep_ran = (rr.lower, rr.upper, rr.pi)
    d_ran_rep = (ar.lower, ar.upper, ar.pi)
    notes = []
    if ran.adjacency != rep.adjacency:
        notes.append(f"adjacency differs: the run is analysed under {ran.adjacency} (the neighbouring datasets "
                     f"its sampling allows), the Poisson report under {rep.adjacency}")
    if cfg.sampling is Sampling.SHUFFLE:
        notes.append("shuffle: lower ends are a realised worst-case dataset, upper ends the Gaussian bound "
                     "G_{2√E/σ}; the width of this bracket is an open research question")
    e_rep = rep.epsilon[1]
    if cfg.sampling is Sampling.POISSON:
        kind = "valid"
        text = f"the Poisson ε you report ({e_rep:.4g}) is the guarantee of this run: it used Poisson sampling"
    elif rr.lower > DELTA_SLACK:
        kind = "understates"
        text = (f"the Poisson ε you report ({e_rep:.4g}) understates this run's risk: some attacker's Bayes error "
                f"is lower by at least {rr.lower:.3g} (prior π = {rr.pi:.3g})")
        if ran.epsilon[0] > e_rep:
            text += f", and this run's ε at δ = {delta:g} is at least {ran.epsilon[0]:.4g}"
        elif ran.epsilon[1] <= rep.epsilon[0]:
            text += (f"; at δ = {delta:g} alone the reported ε is still a valid bound (this run's ε ≤ "
                     f"{ran.epsilon[1]:.4g}): the risk the report misses is at other (ε, δ) pairs")
    elif rr.upper <= DELTA_SLACK + 1e-12:
        kind = "valid"
        text = (f"the Poisson ε you report ({e_rep:.4g}) is a valid bound for this run: the run is dominated by the "
                f"Poisson mechanism (Δ ≤ {rr.upper:.3g})")
    else:
        kind = "undecided"
        text = (f"the certified brackets cannot decide whether the Poisson ε you report ({e_rep:.4g}) is a valid bound "
                f"for this run: Δ(reported‖ran) ∈ [{rr.lower:.3g}, {rr.upper:.3g}]")
    return RanVersusReported(delta, fpr, ran, rep, d_rep_ran, d_ran_rep, kind, text, tuple(notes), (ran_m, rep_m))
