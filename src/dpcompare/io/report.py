"""A comparison report as one self-contained HTML file (issue 6): verdict, views, figures, method.

The file needs nothing but a browser: figures are inline SVG (text drawn as paths, so no fonts are
fetched), styles are inline, there is no script, and a Content-Security-Policy of ``default-src
'none'`` forbids the page from loading anything. Its parts, in order:

1. The verdict in one sentence: the two Δ-divergences of A and B with the priors π at which they are
   attained (seed 000 Cor 1: Δ(A‖B) = max_π R_A(π) − R_B(π) is how much more vulnerable B can be than
   A), then the Blackwell verdict (Thm 1) and the priors where the Bayes error functions cross.
2. The views of every mechanism (ε at chosen δ, μ-GDP, advantage, α*, R*, AUC, TPR at chosen FPR),
   with certified brackets for numeric mechanisms, and every Δ between them.
3. The figures of :mod:`dpcompare.plot` (seed 000 Figures 1–4, seed 001 Figure 3).
4. How the numbers were computed: each mechanism's representation and bracket, the Δ method, the
   conventions, the versions of the software, and the command that reproduces the report.

Everything is computed before any HTML is written (:func:`build_report`); :meth:`Report.write`
replaces the output file atomically.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import os
import platform
import re
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import plot as _plot
from .render import num, short
from ..compare import Comparison, DeltaResult, compare, delta_divergence
from ..compare.comparison import VERDICT_TEXT
from ..compare.hyperprior import as_hyperprior
from ..mechanisms import Mechanism

__all__ = ["DEFAULT_DELTAS", "DEFAULT_FPRS", "DEFAULT_HYPERPRIORS", "Report", "build_report", "verdict_sentence"]

DEFAULT_DELTAS = (1e-5, 1e-6)
DEFAULT_FPRS = (1e-3, 1e-2)
DEFAULT_HYPERPRIORS = ("jeffreys", "uquadratic")
_PACKAGES = ("dpcompare", "numpy", "scipy", "matplotlib", "dp-accounting")


# ---------------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class View:
    """One scalar view of a mechanism: its reported value (the side that errs towards less privacy)
    and, for a numeric mechanism, a certified bracket lower ≤ truth ≤ upper."""

    key: str
    label: str
    meaning: str
    value: float | None
    lower: float | None = None
    upper: float | None = None

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
    """The comparison in one sentence, the larger regret first (issue 6):
    "B is up to 0.034 more vulnerable than A, against an adversary with prior π ≈ 0.27 (or 0.73); A is
    up to 0.0053 more vulnerable near π ≈ 0.5." Δ(A‖B) is how much lower B's Bayes error can be
    (seed 000 Cor 1); the two priors are mirror images because f is symmetric (R(π) = R(1−π))."""
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
    out.append(View("gdp_mu", "μ-GDP", "tightest μ with f ≥ G_μ (Gaussian DP; — : none known)", _finite(mu)))
    adv_lo, adv_hi = (float(v) for v in m.delta_bounds(0.0))
    out.append(View("advantage", "advantage", "best attack's TPR − FPR = TV = δ(0) = 2·Δ(PP‖M) (Lemma 3)",
                    adv_hi, *((adv_lo, adv_hi) if numeric else (None, None))))
    r_lo, r_hi = (float(v) for v in m.bayes_error_bounds(0.5))
    for key, label, meaning in (
        ("fixed_point", "fixed point α*", "FPR = FNR of the best attack: f(α*) = α* (Lemma 4)"),
        ("minimax_bayes_error", "minimax Bayes error R*", "best attack's error at prior π = ½ = Δ(M‖BNP) (Lemma 4)"),
    ):
        out.append(View(key, label, meaning, r_lo, *((r_lo, r_hi) if numeric else (None, None))))
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
    specs: list[tuple[str, str, str, Any]] = [
        ("fig-bayes", "Bayes error functions and the Δ rulers",
         "Minimum Bayes error R(π) of the best membership-inference attack against an adversary with prior π "
         "(seed 000 eq 2, Figure 3). Black rulers: Δ(A‖B) = max_π R_A(π) − R_B(π) and Δ(B‖A) at the prior where "
         "each is attained (Cor 1); their values are in the legend.",
         lambda: _plot.bayes_error(mechs, cache=cache)),
        ("fig-difference", "Where one mechanism is more vulnerable than the other",
         "R_A(π) − R_k(π) with its certified band; dashed levels +Δ(A‖k) and −Δ(k‖A) (Cor 1, eq 6), dotted lines "
         "where the Bayes error functions cross. Above 0, k is more vulnerable than A.",
         lambda: _plot.bayes_error_difference(mechs, cache=cache)),
        ("fig-tradeoff", "Trade-off functions and the κ-shift",
         "Type II error f(α) of the most powerful test at Type I error α. Dashed: f shifted left and down by "
         "κ = Δ (seed 000 Def 1, Figure 2), which lies below the other curve everywhere and so restores "
         "Blackwell dominance (Thm 2).",
         lambda: _plot.tradeoff(mechs, cache=cache)),
        ("fig-profile", "Privacy profiles",
         f"δ(ε) on a log axis (seed 000 Figure 1); stars mark (ε, δ) at δ = {_fmt(deltas[0], 3)} for each mechanism. "
         "Profiles that cross have no Blackwell order (Thm 1).",
         lambda: _plot.privacy_profile(mechs, points=eps_points)),
        ("fig-roc", "ROC curves and AUC",
         "TPR = 1 − f(FPR) of the best attack with the area under each curve shaded (seed 001 eq 4.7, 4.9, Figure 3).",
         lambda: _plot.roc(mechs)),
        ("fig-roc-log", "ROC curves at low false-positive rates",
         "The same curves on log–log axes; dots mark the TPR at FPR = 10⁻³ and 10⁻² of the table.",
         lambda: _plot.roc(mechs, log=True)),
    ]
    if n > 1:
        for h in hyperpriors:
            hp = as_hyperprior(h)
            specs.append((f"fig-weighted-{_slug(hp.name)}", f"Bayes errors weighted by the {_plot.prior_title(hp)} hyper-prior",
                          "Ψ(π)·R(π) for a hyper-prior Ψ over the adversary's prior (seed 000 §5, Figure 4), with the "
                          "weighted rulers Δ^Ψ(X‖Y) = max_π Ψ(π)(R_X(π) − R_Y(π)); the inset shows the density Ψ.",
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
    verdict = verdict_sentence(comparisons[0][2], names[0], names[1])
    title = title or "Privacy comparison: " + " vs ".join(m.spec for m in mechs)
    versions = _versions()
    seconds = time.perf_counter() - t0
    doc = _html(title, verdict, names, summaries, comparisons, weighted, figures, versions, seconds, command)
    return Report(title, verdict, summaries, comparisons, weighted, figures, versions, seconds, doc)


# ---------------------------------------------------------------------------------------------- HTML
_CSS = """
:root{--fg:#1a1a1a;--muted:#5a5a5a;--line:#d9d9d9;--accent:#0072B2}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px 28px 48px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:#fff}
h1{font-size:1.45rem;margin:0 0 .6rem}
h2{font-size:1.15rem;margin:2rem 0 .6rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
.verdict{font-size:1.15rem;font-weight:600;border-left:5px solid var(--accent);padding:.5rem .9rem;background:#f2f7fb;margin:.4rem 0 .8rem}
.muted{color:var(--muted)}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.92em}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.93rem}
th,td{border-bottom:1px solid var(--line);padding:.3rem .7rem;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.br{display:block;color:var(--muted);font-size:.8em}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.35em;vertical-align:-.05em}
.figs{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:18px}
figure{margin:0;padding:8px;border:1px solid var(--line);border-radius:6px;background:#fff}
figure svg{display:block;width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted);margin-top:.3rem}
figcaption b{color:var(--fg)}
ul{padding-left:1.2rem}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _cell(v: View) -> str:
    text = _num(v.value)
    if v.value is None and v.key.startswith("epsilon"):
        text = "∞"
    br = ""
    if v.lower is not None or v.upper is not None:
        br = f'<span class="br">[{_num(v.lower)}, {_num(v.upper)}]</span>'
    return f'<td class="num">{_e(text)}{br}</td>'


def _html(title, verdict, names, summaries, comparisons, weighted, figures, versions, seconds, command) -> str:
    n = len(summaries)
    c0 = comparisons[0][2]
    cross = ", ".join(_fmt(x, 3) for x in c0.crossings)
    verdict_text = VERDICT_TEXT[c0.verdict]  # the first comparison is always A against B
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="verdict" id="verdict">{_e(verdict)}</p>',
        f"<p>Blackwell (seed 000 Thm 1): <b>{_e(c0.verdict)}</b> — {_e(verdict_text)}. "
        + (f"The Bayes error functions cross at π ≈ {_e(cross)}." if cross else "The Bayes error functions do not cross.")
        + " Δ(X‖Y) is the worst-case regret of choosing Y over X: how much lower the best attack's Bayes error "
        "can be on Y than on X (seed 000 Cor 1).</p>",
        '<ul class="mechs">',
    ]
    for k, s in enumerate(summaries):
        color = _plot.PALETTE[k % len(_plot.PALETTE)]
        out.append(f'<li><span class="swatch" style="background:{color}"></span><b>{_e(s.name)}</b> = '
                   f'<code>{_e(s.spec)}</code> <span class="muted">({"exact" if s.exact else "numeric, certified bracket"})</span></li>')
    out.append("</ul>")

    # views
    out += ['<section id="views"><h2>Views of each mechanism</h2>', "<table><thead><tr><th>view</th>"]
    out += [f'<th class="num">{_e(s.name)}</th>' for s in summaries]
    out.append("<th>meaning</th></tr></thead><tbody>")
    for r, v0 in enumerate(summaries[0].views):
        out.append(f"<tr><th>{_e(v0.label)}</th>" + "".join(_cell(s.views[r]) for s in summaries) + f"<td>{_e(v0.meaning)}</td></tr>")
    out.append("</tbody></table>")
    if any(not s.exact for s in summaries):
        out.append('<p class="muted">Numeric mechanisms show the reported value (the side that errs towards less '
                   "privacy: ε, δ, advantage, AUC and TPR from above, R* and α* from below) and under it the certified "
                   "bracket [lower, upper] that contains the exact value.</p>")

    # divergences
    out += ['<h2 id="divergences">Δ-divergences</h2>', "<table><thead><tr><th>Δ(X‖Y)</th><th class=\"num\">value</th>"
            '<th class="num">certified bracket</th><th class="num">attained at π</th><th class="num">ε = |log(π/(1−π))|</th>'
            "<th>verdict</th></tr></thead><tbody>"]
    for i, j, c in comparisons:
        for x, y, r in ((i, j, c.delta_ab), (j, i, c.delta_ba)):
            at = _num(r.pi, 4) if r.value > 0 else "—"
            eps = _num(r.eps, 4) if r.value > 0 and math.isfinite(r.eps) else "—"
            out.append(f"<tr><th>Δ({_e(names[x])}‖{_e(names[y])})</th><td class=\"num\">{_e(_num(r.value))}</td>"
                       f'<td class="num">[{_e(_num(r.lower))}, {_e(_num(r.upper))}]</td><td class="num">{_e(at)}</td>'
                       f'<td class="num">{_e(eps)}</td><td>{_e(c.verdict) if x == i else ""}</td></tr>')
    out.append("</tbody></table>")
    if weighted:
        out += ['<table><thead><tr><th>hyper-prior Ψ</th><th>Δ<sup>Ψ</sup>(X‖Y)</th><th class="num">value</th>'
                '<th class="num">certified bracket</th><th class="num">attained at π</th></tr></thead><tbody>']
        for h, i, j, r in weighted:
            out.append(f"<tr><td>{_e(h)}</td><th>Δ<sup>Ψ</sup>({_e(names[i])}‖{_e(names[j])})</th><td class=\"num\">{_e(_num(r.value))}</td>"
                       f'<td class="num">[{_e(_num(r.lower))}, {_e(_num(r.upper))}]</td>'
                       f'<td class="num">{_e(_num(r.pi, 4) if r.value > 0 else "—")}</td></tr>')
        out.append("</tbody></table>")
    out.append("</section>")

    # figures
    out.append('<section id="figures"><h2>Figures</h2><div class="figs">')
    for f in figures:
        out.append(f'<figure id="{_e(f.id)}-box" class="fig">{f.svg}<figcaption><b>{_e(f.title)}.</b> {_e(f.caption)}</figcaption></figure>')
    out.append("</div></section>")

    # method
    out += ['<section id="method"><h2>How the numbers were computed</h2>', "<table><thead><tr><th></th><th>mechanism</th>"
            '<th>representation</th><th class="num">widest R(π) bracket</th></tr></thead><tbody>']
    for s in summaries:
        out.append(f"<tr><th>{_e(s.name)}</th><td><code>{_e(s.spec)}</code> ({_e(s.kind)})</td><td>{_e(s.representation)}</td>"
                   f'<td class="num">{_e(_num(s.max_bracket, 3))}</td></tr>')
    out.append("</tbody></table><ul>")
    out += [
        "<li>Every mechanism is a dominating pair (P, Q) with the symmetrised trade-off function "
        "f = conv(min(f, f⁻¹)); the privacy profile δ(ε), the Bayes error R(π) = min_α πα + (1−π)f(α) and the ROC "
        "are exact transforms of it (seed 000 §1–2).</li>",
        "<li>Δ(X‖Y) = max_π R_X(π) − R_Y(π) (seed 000 Cor 1). Between two discrete pairs it is read off exactly at "
        "the merged breakpoints of the piecewise-linear Bayes error functions; otherwise a branch and bound over π "
        "that uses only the concavity of R returns a certified bracket [lower, upper] (width ≤ 1e-12 for closed "
        "forms). With a hyper-prior Ψ the difference is weighted by Ψ(π) (seed 000 §5).</li>",
        "<li>Numeric mechanisms carry a pessimistic and an optimistic discrete pair; every reported number errs "
        "towards less privacy (δ, ε from above, f and R from below), and every bracket contains the exact value.</li>",
        "<li>Blackwell verdict: X ≥ Y when the certified upper end of Δ(X‖Y) is at most the tolerance "
        f"{_e(_num(c0.tolerance, 3))} (Thm 1). Crossings are the priors where R_X − R_Y changes sign.</li>",
        "<li>AUC = 1 − ∫f; the lower end of its bracket integrates the optimistic f by the trapezoid rule, which "
        "over-estimates the integral of a convex function.</li>",
        "</ul>",
        "<table><thead><tr><th>software</th><th>version</th></tr></thead><tbody>",
    ]
    out += [f"<tr><td>{_e(k)}</td><td><code>{_e(v)}</code></td></tr>" for k, v in versions.items()]
    out.append("</tbody></table>")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if command:
        out.append(f"<p>Reproduce: <code>{_e(shlex.join(['dpcompare', *command]))}</code></p>")
    out.append(f'<p class="muted">Generated by dpcompare {_e(versions.get("dpcompare", ""))} on {_e(stamp)} '
               f"in {seconds:.1f} s; {n} mechanisms.</p></section></body></html>")
    return "\n".join(out) + "\n"
