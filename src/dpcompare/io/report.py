"""A comparison report as one self-contained HTML file : verdict, views, figures, method.

The file needs nothing but a browser: figures are inline SVG (text drawn as paths, so no fonts are
fetched), styles are inline, there is no script, and a Content-Security-Policy of ``default-src
'none'`` forbids the page from loading anything. Its parts, in order:

1. The verdict in one sentence: the two Δ-divergences of A and B with the priors π at which they are
   attained ([BCP] Cor 1: Δ(A‖B) = max_π R_A(π) − R_B(π) is how much more vulnerable B can be than
   A), then the Blackwell verdict (Thm 1) and the priors where the Bayes error functions cross.
2. The views of every mechanism (ε at chosen δ, μ-GDP, advantage, α*, R*, AUC, TPR at chosen FPR),
   with certified brackets for numeric mechanisms, and every Δ between them.
3. The figures of :mod:`dpcompare.plot` ([BCP] Figures 1–4, [SI] Figure 3).
4. How the numbers were computed: each mechanism's representation and bracket, the Δ method, the
   conventions, the versions of the software, and the command that reproduces the report.

Everything is computed before any HTML is written (:func:`build_report`); :meth:`Report.write`
replaces the output file atomically.
"""

from __future__ import annotations

import html
import math
import os
import platform
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import plot as _plot
from .privacy_card import mu_at_fixed_point
from .render import num, short
from .report_html import render_html
from ..comparison import Comparison, DeltaResult, compare, delta_divergence
from ..comparison.hyperprior import as_hyperprior as _as_hyperprior_object
from ..mechanisms import Mechanism
from ..tradeoff import Bracket, Sense
from .spec import parse_hyperprior


def as_hyperprior(h: Any) -> Any:
    """io parses hyper-prior text; compare takes HyperPrior objects (comparison/ never imports io/)."""
    return parse_hyperprior(h) if isinstance(h, str) else _as_hyperprior_object(h)

__all__ = ["DEFAULT_DELTAS", "DEFAULT_FPRS", "DEFAULT_HYPERPRIORS", "Report", "build_report", "ranking_sentence",
           "verdict_sentence"]

DEFAULT_DELTAS = (1e-5, 1e-6)
DEFAULT_FPRS = (1e-3, 1e-2)
DEFAULT_HYPERPRIORS = ("jeffreys", "uquadratic")
CROWDED = 6  # more mechanisms than this: a pairwise Δ heat-map instead of curves that cannot be told apart
_PACKAGES = ("dpcompare", "numpy", "scipy", "matplotlib", "dp-accounting")


# ---------------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class View:
    """One scalar view of a mechanism: its reported value (the side that errs towards less privacy)
    and, for a numeric mechanism, a certified bracket lower ≤ truth ≤ upper.

    ``sense`` says which end is the pessimistic one (``Sense.UPPER`` for ε, advantage, AUC, TPR;
    ``Sense.LOWER`` for the fixed point and the Bayes error); ``bracket`` is the interval as a
    :class:`~dpcompare.tradeoff.Bracket` of that sense (``None`` for a closed form)."""

    key: str
    label: str
    meaning: str
    value: float | None
    lower: float | None = None
    upper: float | None = None
    sense: Sense = Sense.UPPER

    @property
    def bracket(self) -> Bracket | None:
        if self.lower is None or self.upper is None:
            return None
        return Bracket.from_interval(self.lower, self.upper, self.sense)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class MechanismSummary:
    name: str
    spec: str
    kind: str
    representation: str
    exact: bool
    views: tuple[View, ...]
    max_bracket: float  # largest width of the certified R(π) bracket on the plotting grid

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "kind": self.kind, "representation": self.representation,
                "exact": self.exact, "max_bayes_error_bracket": self.max_bracket,
                "views": {v.key: v.to_dict() for v in self.views}}


@dataclass(frozen=True)
class FigureSVG:
    id: str
    title: str
    caption: str
    svg: str = field(repr=False)


@dataclass(frozen=True)
class Report:
    """Everything the HTML shows, computed; ``html`` is the finished document."""

    title: str
    verdict: str
    summaries: tuple[MechanismSummary, ...]
    comparisons: tuple[tuple[int, int, Comparison], ...]
    weighted: tuple[tuple[str, int, int, DeltaResult], ...]
    figures: tuple[FigureSVG, ...]
    versions: dict[str, str]
    seconds: float
    html: str = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        names = [s.name for s in self.summaries]
        return {
            "title": self.title,
            "verdict": self.verdict,
            "mechanisms": [s.to_dict() for s in self.summaries],
            "comparisons": [{"a": names[i], "b": names[j], **c.to_dict()} for i, j, c in self.comparisons],
            "weighted": [{"hyperprior": h, "a": names[i], "b": names[j], **r.to_dict()} for h, i, j, r in self.weighted],
            "figures": [f.id for f in self.figures],
            "versions": self.versions,
            "seconds": self.seconds,
        }

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the HTML to ``path`` atomically (a temporary file in the same directory, then a rename)."""
        from .files import atomic_write

        atomic_write(path, self.html.encode("utf-8"))


# ---------------------------------------------------------------------------------------------- numbers
def _fmt(x: float | None, digits: int = 2) -> str:
    return short(x, digits, missing="—")


def _num(x: float | None, digits: int = 6) -> str:
    return num(x, digits, missing="—")


def _finite(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _prior_phrase(pi: float) -> str:
    if abs(pi - 0.5) < 5e-4:
        return "π ≈ 0.5"
    return f"π ≈ {_fmt(pi)} (or {_fmt(1 - pi)})"


def verdict_sentence(c: Comparison, a: str = "A", b: str = "B") -> str:
    """The comparison in one sentence, the larger regret first:
    "B is up to 0.034 more vulnerable than A, against an adversary with prior π ≈ 0.27 (or 0.73); A is
    up to 0.0053 more vulnerable near π ≈ 0.5." Δ(A‖B) is how much lower B's Bayes error can be
    ([BCP] Cor 1); the two priors are mirror images because f is symmetric (R(π) = R(1−π))."""
    tol = c.tolerance
    parts = [(c.delta_ab, b, a), (c.delta_ba, a, b)]  # (Δ, the more vulnerable one, the other)
    parts = sorted((p for p in parts if p[0].value > tol), key=lambda p: -p[0].value)
    if not parts:
        return f"{a} and {b} offer the same protection against every adversary (Δ = 0 both ways)."
    r, worse, other = parts[0]
    text = (f"{worse} is up to {_fmt(r.value)} more vulnerable than {other}, "
            f"against an adversary with prior {_prior_phrase(r.pi)}")
    if len(parts) == 2:
        r2, worse2, _ = parts[1]
        text += f"; {worse2} is up to {_fmt(r2.value)} more vulnerable near {_prior_phrase(r2.pi)}"
    else:
        text += f"; {other} is nowhere more vulnerable than {worse}"
    return text + "."


def ranking_sentence(names: Sequence[str], comparisons: Sequence[tuple[int, int, Comparison]]) -> str:
    """The headline for k ≥ 2 mechanisms: the full ranking when Blackwell dominance orders them all,
    otherwise the partial order (who is nowhere more vulnerable than whom, and which pairs are
    incomparable), then the worst pairwise regret.

    X is *nowhere more vulnerable* than Y when Δ(Y‖X) ≤ tolerance ([BCP] Thm 1: R_X ≥ R_Y at every prior).

    >>> import dpcompare as dc
    >>> ms = [dc.Gaussian(mu=1), dc.Gaussian(mu=2), dc.Gaussian(mu=0.5)]
    >>> cs = [(i, j, dc.compare(ms[i], ms[j])) for i in range(3) for j in range(i + 1, 3)]
    >>> ranking_sentence("ABC", cs)  # Δ(C‖B) = Φ(−0.25) − Φ(−1) = 0.2426 at π = ½ (R = Φ(−μ/2) for Gaussians)
    'Ranking, most private first: C, A, B (each nowhere more vulnerable than the ones after it). Largest regret: Δ(C‖B) = 0.24 — B is up to 0.24 more vulnerable than C, against an adversary with prior π ≈ 0.5.'
    """
    k = len(names)
    safer = [[i == j for j in range(k)] for i in range(k)]  # safer[x][y]: x nowhere more vulnerable than y
    worst: tuple[float, int, int, Any] | None = None
    for i, j, c in comparisons:
        if c.delta_ab.value <= c.tolerance:
            safer[j][i] = True
        if c.delta_ba.value <= c.tolerance:
            safer[i][j] = True
        for x, y, r in ((i, j, c.delta_ab), (j, i, c.delta_ba)):
            if worst is None or r.value > worst[0]:
                worst = (r.value, x, y, r)
    total = all(safer[x][y] or safer[y][x] for x in range(k) for y in range(k))
    if total:
        order = sorted(range(k), key=lambda x: -sum(safer[x]))
        text = ("Ranking, most private first: " + ", ".join(names[x] for x in order)
                + " (each nowhere more vulnerable than the ones after it).")
    else:
        strict = [[x != y and safer[x][y] and not safer[y][x] for y in range(k)] for x in range(k)]
        # the covering pairs only (transitive reduction): x over y unless some z sits between them
        cover = [[strict[x][y] and not any(strict[x][z] and strict[z][y] for z in range(k)) for y in range(k)]
                 for x in range(k)]
        dom = [f"{names[x]} than " + ", ".join(names[y] for y in range(k) if cover[x][y])
               for x in range(k) if any(cover[x])]
        inc = [f"{names[x]} and {names[y]}" for x in range(k) for y in range(x + 1, k)
               if not safer[x][y] and not safer[y][x]]
        text = "No mechanism is the most private against every adversary."
        if dom:
            text += " Nowhere more vulnerable (and so by transitivity below): " + "; ".join(dom) + "."
        text += " Incomparable (their Bayes error functions cross): " + "; ".join(inc) + "."
    assert worst is not None
    v, x, y, r = worst
    if v <= comparisons[0][2].tolerance:
        return text + " All offer the same protection against every adversary (every Δ = 0)."
    return (text + f" Largest regret: Δ({names[x]}‖{names[y]}) = {_fmt(v)} — {names[y]} is up to {_fmt(v)} more "
            f"vulnerable than {names[x]}, against an adversary with prior {_prior_phrase(r.pi)}.")


# ---------------------------------------------------------------------------------------------- views
def _representation(m: Mechanism) -> str:
    pairs = m.pairs()
    if pairs is None:
        return "closed form (privacy-loss distribution in log space)"
    pess, opt = pairs
    if pess is opt:
        return f"exact discrete pair ({pess.size} atoms)"
    text = f"certified numeric bracket: pessimistic pair ({pess.size} atoms) and optimistic pair ({opt.size} atoms)"
    comp = getattr(m, "composition", None)
    if comp is not None:
        extra = []
        h = getattr(comp, "discretization", None)
        if h is not None:
            extra.append(f"privacy-loss grid h = {_num(h, 3)}")
        err = getattr(comp, "numerical_error", None)
        if err is not None:
            extra.append(f"floating-point error ≤ {_num(err, 2)}")
        secs = getattr(comp, "seconds", None)
        if secs is not None:
            extra.append(f"composed in {secs:.2f} s")
        if extra:
            text += "; certified composition of the subsampled Gaussian, " + ", ".join(extra)
    return text


def _auc_lower(m: Mechanism) -> float:
    """A certified lower bound of the AUC: 1 − trapezoid(f_hi); the trapezoid over-estimates the
    integral of a convex function, so this errs low."""
    a = np.unique(np.concatenate([np.linspace(0, 1, 4001), np.logspace(-10, 0, 400)]))
    hi = np.asarray(m.tradeoff_bounds(a)[1], dtype=float)
    return float(1.0 - np.sum(0.5 * (hi[1:] + hi[:-1]) * np.diff(a)))


def _views(m: Mechanism, deltas: Sequence[float], fprs: Sequence[float]) -> tuple[View, ...]:
    pairs = m.pairs()
    numeric = not m.exact
    out = []
    for d in deltas:
        eps = _finite(m.epsilon(d))
        lo = _finite(pairs[1].epsilon(d)) if numeric and pairs is not None else None
        out.append(View(f"epsilon@{d:g}", f"ε at δ = {_fmt(d, 3)}",
                        "smallest ε with δ(ε) ≤ δ on the privacy profile (— : none)", eps, lo, eps if lo is not None else None))
    mu = m.gdp_mu
    out.append(View("gdp_mu", "μ-GDP upper bound", "tightest μ with f ≥ G_μ at every FPR, the extreme tail included "
                    "([GDP] Def 2.6; for DP-SGD √N/σ, reached only by the event 'sampled at every step'; — : none known)",
                    _finite(mu)))
    out.append(View("mu_at_fixed_point", "μ describing the curve",
                    "μ of the Gaussian trade-off G_μ through this curve's fixed point α* (μ = −2Φ⁻¹(α*)): the μ that "
                    "matches the bulk of the curve; a description, not a bound", mu_at_fixed_point(float(m.fixed_point))))
    adv_lo, adv_hi = (float(v) for v in m.delta_bounds(0.0))
    out.append(View("advantage", "advantage", "best attack's TPR − FPR = TV = δ(0) = 2·Δ(PP‖M) (Lemma 3)",
                    adv_hi, *((adv_lo, adv_hi) if numeric else (None, None))))
    r_lo, r_hi = (float(v) for v in m.bayes_error_bounds(0.5))
    for key, label, meaning in (
        ("fixed_point", "fixed point α*", "FPR = FNR of the best attack: f(α*) = α* (Lemma 4)"),
        ("minimax_bayes_error", "minimax Bayes error R*", "best attack's error at prior π = ½ = Δ(M‖BNP) (Lemma 4)"),
    ):
        out.append(View(key, label, meaning, r_lo, *((r_lo, r_hi) if numeric else (None, None)), sense=Sense.LOWER))
    auc = float(m.auc)
    out.append(View("auc", "AUC", "area under the best attack's ROC curve", auc,
                    *((min(_auc_lower(m), auc), auc) if numeric else (None, None))))
    for x in fprs:
        f_lo, f_hi = (float(v) for v in m.tradeoff_bounds(x))
        out.append(View(f"tpr@{x:g}", f"TPR at FPR = {_fmt(x, 3)}", "power of the best test at this false-positive rate",
                        1 - f_lo, *((1 - f_hi, 1 - f_lo) if numeric else (None, None))))
    return tuple(out)


def _max_bracket(m: Mechanism) -> float:
    if m.exact:
        return 0.0
    pi = np.linspace(0, 1, 2001)
    lo, hi = m.bayes_error_bounds(pi)
    return float(np.max(np.asarray(hi) - np.asarray(lo)))


# ---------------------------------------------------------------------------------------------- figures
def inline_svg(svg: bytes, prefix: str, title: str) -> str:
    """Matplotlib's SVG made safe to inline next to others: no XML prolog or metadata, every id
    prefixed (references too), its global ``*{…}`` style scoped to this figure, sized by CSS."""
    text = svg.decode("utf-8")
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text, flags=re.S)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', lambda mm: f'id="{prefix}-{mm.group(1)}"', text)
    text = re.sub(r'((?:xlink:)?href)="#([^"]+)"', lambda mm: f'{mm.group(1)}="#{prefix}-{mm.group(2)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda mm: f"url(#{prefix}-{mm.group(1)})", text)
    text = text.replace("*{", f"#{prefix} *{{", 1)
    return re.sub(r"<svg\b", f'<svg id="{prefix}" role="img" aria-label="{html.escape(title)}"', text, count=1).strip()


def _figures(mechs: Sequence[Mechanism], hyperpriors: Sequence[Any], deltas: Sequence[float],
             eps_points: Sequence[tuple[float, float]], cache: "_plot.DeltaCache") -> tuple[FigureSVG, ...]:
    n = len(mechs)
    others = ", ".join(chr(ord("A") + i) for i in range(1, min(n, 26)))
    specs: list[tuple[str, str, str, Any]] = [
        ("fig-bayes", "Bayes error functions and the Δ rulers",
         "Minimum Bayes error R(π) of the best membership-inference attack against an adversary with prior π "
         "([BCP] eq 2, Figure 3), for each mechanism A, B, … of the tables. Black rulers: Δ(A‖X) = "
         "max_π R_A(π) − R_X(π) and Δ(X‖A) for every other mechanism X, drawn at the prior π where each is "
         "attained (Cor 1); their values are in the legend. Dotted grey: perfect privacy, R = min(π, 1 − π).",
         lambda: _plot.bayes_error(mechs, cache=cache)),
        ("fig-difference", "Where one mechanism is more vulnerable than the other",
         f"R_A(π) − R_X(π) for each other mechanism X ({others}) in X's colour, with its certified band; dashed "
         "levels +Δ(A‖X) and −Δ(X‖A) (Cor 1, eq 6); dotted vertical lines where the two Bayes error functions "
         "cross. Above 0, X is more vulnerable than A at that prior; below 0, A is.",
         lambda: _plot.bayes_error_difference(mechs, cache=cache)),
        ("fig-tradeoff", "Trade-off functions and the κ-shift",
         "Type II error f(α) of the most powerful test at Type I error α (false-positive rate), per mechanism. "
         "Dashed: X's curve shifted left and down by κ = Δ(X‖Y) ([BCP] Def 1, Figure 2), which then lies below "
         "Y's curve everywhere and so restores Blackwell dominance (Thm 2).",
         lambda: _plot.tradeoff(mechs, cache=cache)),
        ("fig-profile", "Privacy profiles",
         f"δ(ε) on a log axis ([BCP] Figure 1); stars mark (ε, δ) at δ = {_fmt(deltas[0], 3)} for each mechanism. "
         "Profiles that cross have no Blackwell order (Thm 1).",
         lambda: _plot.privacy_profile(mechs, points=eps_points)),
        ("fig-roc", "ROC curves and AUC",
         "TPR = 1 − f(FPR) of the best attack with the area under each curve shaded ([SI] eq 4.7, 4.9, Figure 3).",
         lambda: _plot.roc(mechs)),
        ("fig-roc-log", "ROC curves at low false-positive rates",
         "The same curves on log–log axes; dots mark the TPR at FPR = 10⁻³ and 10⁻² of the table.",
         lambda: _plot.roc(mechs, log=True)),
    ]
    if n > CROWDED:  # one curve per mechanism would be unreadable: the pairwise Δ instead, then the ROC
        specs = [("fig-delta-heatmap", "Pairwise Δ-divergences",
                  f"Δ(X‖Y) for every ordered pair of the {n} mechanisms ([BCP] Cor 1): row X, column Y, how much more "
                  "vulnerable Y can be than X; ≈0 means Y is nowhere more vulnerable than X (Thm 1). Letters as in "
                  "the tables.", lambda: _plot.delta_heatmap(mechs, cache=cache))]
        hyperpriors = ()
    if n > 1:
        for h in hyperpriors:
            hp = as_hyperprior(h)
            specs.append((f"fig-weighted-{_slug(hp.name)}", f"Bayes errors weighted by the {_plot.prior_title(hp)} hyper-prior",
                          "Ψ(π)·R(π) for a hyper-prior Ψ over the adversary's prior ([BCP] §5, Figure 4), with the "
                          "weighted rulers Δ^Ψ(A‖X) = max_π Ψ(π)(R_A(π) − R_X(π)) and Δ^Ψ(X‖A) for every other mechanism X; the "
         "inset shows the density Ψ.",
                          lambda hp=hp: _plot.weighted_bayes_error(mechs, hp, cache=cache)))
    else:
        specs = [s for s in specs if s[0] != "fig-difference"]
    out = []
    for fid, title, caption, make in specs:
        fig = make()
        out.append(FigureSVG(fid, title, caption, inline_svg(_plot.render(fig, "svg"), fid, title)))
    return tuple(out)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "prior"


# ---------------------------------------------------------------------------------------------- build
def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for pkg in _PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    if out.get("dpcompare") in (None, "not installed"):
        from .. import __version__

        out["dpcompare"] = __version__
    out["platform"] = platform.platform()
    return out


def _check_levels(name: str, values: Sequence[float]) -> tuple[float, ...]:
    out = []
    for v in values:
        v = float(v)
        if not (0.0 < v < 1.0):
            raise ValueError(f"{name} must be in (0, 1), got {v:g}")
        out.append(v)
    if not out:
        raise ValueError(f"{name} must list at least one value")
    return tuple(out)


def build_report(mechanisms: Sequence[Mechanism | str], *, deltas: Sequence[float] = DEFAULT_DELTAS,
                 fprs: Sequence[float] = DEFAULT_FPRS, hyperpriors: Sequence[Any] = DEFAULT_HYPERPRIORS,
                 title: str | None = None, command: Sequence[str] | None = None) -> Report:
    """Compute everything a report shows for two or more mechanisms (the first one is A, the reference
    of the figures), and render the HTML.

    ``deltas``: δ values at which ε is reported; ``fprs``: false-positive rates at which the TPR is
    reported; ``hyperpriors``: one weighted figure and Δ^Ψ each; ``command``: the argument list that
    reproduced the report, shown in the method section.
    """
    t0 = time.perf_counter()
    mechs, names, _ = _plot._mechanisms(mechanisms, None)
    if len(mechs) < 2:
        raise ValueError(f"a report compares at least two mechanisms, got {len(mechs)}")
    deltas = _check_levels("delta", deltas)
    fprs = _check_levels("fpr", fprs)
    hps = [as_hyperprior(h) for h in hyperpriors]
    if any(h is None for h in hps):
        raise ValueError("hyperpriors must name hyper-priors (jeffreys, uquadratic, beta(a,b))")
    summaries = tuple(
        MechanismSummary(n, m.spec, type(m).__name__, _representation(m), bool(m.exact), _views(m, deltas, fprs),
                         _max_bracket(m))
        for n, m in zip(names, mechs))
    comparisons = tuple((i, j, compare(mechs[i], mechs[j])) for i in range(len(mechs)) for j in range(i + 1, len(mechs)))
    weighted_raw = [(h, i, j, delta_divergence(mechs[i], mechs[j], h))
                    for h in hps for k in range(1, len(mechs)) for i, j in ((0, k), (k, 0))]
    first = deltas[0]
    points = [(e, first) for e in (_finite(m.epsilon(first)) for m in mechs) if e is not None]
    cache = _plot.DeltaCache()  # the figures reuse the Δ computed above
    for i, j, c in comparisons:
        cache.put(mechs[i], mechs[j], c.delta_ab)
        cache.put(mechs[j], mechs[i], c.delta_ba)
    for h, i, j, r in weighted_raw:
        cache.put(mechs[i], mechs[j], r, h)
    figures = _figures(mechs, hps, deltas, sorted(set(points)), cache)
    weighted = tuple((h.name, i, j, r) for h, i, j, r in weighted_raw)
    verdict = (verdict_sentence(comparisons[0][2], names[0], names[1]) if len(mechs) == 2
               else ranking_sentence(names, comparisons))
    title = title or "Privacy comparison: " + " vs ".join(m.spec for m in mechs)
    versions = _versions()
    seconds = time.perf_counter() - t0
    doc = render_html(title, verdict, names, summaries, comparisons, weighted, figures, versions, seconds, command)
    return Report(title, verdict, summaries, comparisons, weighted, figures, versions, seconds, doc)
