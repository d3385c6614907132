"""The HTML of a report: one self-contained page (inline CSS and SVG, a Content-Security-Policy that
forbids every network request), rendered from what :func:`dpcompare.io.report.build_report` computed.

References are cited by tag on the page and defined at its end: [BCP] *Beyond the Calibration Point*,
[SI] the sensitivity-index paper, [GDP] *Gaussian Differential Privacy*.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import shlex
from typing import TYPE_CHECKING, Any

from . import plot as _plot
from .render import num, short

if TYPE_CHECKING:  # pragma: no cover
    from .report import View

REFERENCES = (
    ("BCP", "G. Kaissis, S. Kolek, B. Balle, J. Hayes, D. Rueckert. Beyond the Calibration Point: Mechanism "
            "Comparison in Differential Privacy. ICML 2024."),
    ("SI", "G. Kaissis, M. Knolle, F. Jungmann, A. Ziller, D. Usynin, D. Rueckert. A Unified Interpretation of the "
           "Gaussian Mechanism for Differential Privacy through the Sensitivity Index. Journal of Privacy and "
           "Confidentiality."),
    ("GDP", "J. Dong, A. Roth, W. J. Su. Gaussian Differential Privacy. Journal of the Royal Statistical Society "
            "Series B, 2022."),
)


def _fmt(x: float | None, digits: int = 2) -> str:
    return short(x, digits, missing="—")


def _num(x: float | None, digits: int = 6) -> str:
    return num(x, digits, missing="—")


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


def verdict_words(verdict: str, x: str, y: str) -> str:
    """The Blackwell verdict of a comparison (x = its A, y = its B) in words with the report's letters,
    never the ``a>=b`` codes of the JSON.

    >>> verdict_words("a>=b", "A", "C")
    'C is nowhere more vulnerable than A'
    """
    return {
        "a>=b": f"{y} is nowhere more vulnerable than {x}",
        "b>=a": f"{x} is nowhere more vulnerable than {y}",
        "equal": f"{x} and {y} offer the same protection",
        "incomparable": f"{x} and {y} are incomparable (each more vulnerable somewhere)",
    }[str(verdict)]


def render_html(title, verdict, names, summaries, comparisons, weighted, figures, versions, seconds, command) -> str:
    n = len(summaries)
    c0 = comparisons[0][2]
    cross = ", ".join(_fmt(x, 3) for x in c0.crossings)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="verdict" id="verdict">{_e(verdict)}</p>',
        f"<p>Blackwell ([BCP] Thm 1): <b>{_e(verdict_words(c0.verdict, names[0], names[1]))}</b>. "
        + (f"The Bayes error functions cross at π ≈ {_e(cross)}." if cross else "The Bayes error functions do not cross.")
        + " Δ(X‖Y) is the worst-case regret of choosing Y over X: how much lower the best attack's Bayes error "
        "can be on Y than on X ([BCP] Cor 1).</p>",
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
                       f'<td class="num">{_e(eps)}</td><td>{_e(verdict_words(c.verdict, names[i], names[j])) if x == i else ""}</td></tr>')
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
        "are exact transforms of it ([BCP] §1–2).</li>",
        "<li>Δ(X‖Y) = max_π R_X(π) − R_Y(π) ([BCP] Cor 1). Between two discrete pairs it is read off exactly at "
        "the merged breakpoints of the piecewise-linear Bayes error functions; otherwise a branch and bound over π "
        "that uses only the concavity of R returns a certified bracket [lower, upper] (width ≤ 1e-12 for closed "
        "forms). With a hyper-prior Ψ the difference is weighted by Ψ(π) ([BCP] §5).</li>",
        "<li>Numeric mechanisms carry a pessimistic and an optimistic discrete pair; every reported number errs "
        "towards less privacy (δ, ε from above, f and R from below), and every bracket contains the exact value.</li>",
        "<li>Blackwell verdict: Y is nowhere more vulnerable than X when the certified upper end of Δ(X‖Y) is at "
        f"most the tolerance {_e(_num(c0.tolerance, 3))} ([BCP] Thm 1). Crossings are the priors where R_X − R_Y "
        "changes sign.</li>",
        "<li>AUC = 1 − ∫f; the lower end of its bracket integrates the optimistic f by the trapezoid rule, which "
        "over-estimates the integral of a convex function.</li>",
        "</ul>",
        "<table><thead><tr><th>software</th><th>version</th></tr></thead><tbody>",
    ]
    out += [f"<tr><td>{_e(k)}</td><td><code>{_e(v)}</code></td></tr>" for k, v in versions.items()]
    out.append("</tbody></table><h3>References</h3><ul>")
    out += [f"<li>[{_e(tag)}] {_e(text)}</li>" for tag, text in REFERENCES]
    out.append("</ul>")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if command:
        out.append(f"<p>Reproduce: <code>{_e(shlex.join(['dpcompare', *command]))}</code></p>")
    out.append(f'<p class="muted">Generated by dpcompare {_e(versions.get("dpcompare", ""))} on {_e(stamp)} '
               f"in {seconds:.1f} s; {n} mechanisms.</p></section></body></html>")
    return "\n".join(out) + "\n"
