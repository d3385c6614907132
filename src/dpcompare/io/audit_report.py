"""The audit section of a report (HTML), and a one-page audit report around it.

:func:`audit_section` is one ``<section>``: the verdict in one sentence, the table of what the audit
proves next to the claim, the figure (inline SVG) and the method. :func:`audit_report` wraps it into a
self-contained page with the report's style (``dpcompare audit … --report FILE.html``).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..audit.claim import AuditResult
    from ..mechanisms import Mechanism


def _e(x: object) -> str:
    return html.escape(str(x))


def _n(x: float | None, digits: int = 4) -> str:
    return "∞" if x is None else f"{x:.{digits}g}"


def verdict_sentence(d: dict) -> str:
    """One sentence: contradiction or not, ε proved against ε claimed, and the gap with its prior."""
    conf = f"{d['confidence']:g}"
    head = (f"At confidence {conf}, the audit contradicts the claim {d['claim']}"
            if d["contradicts"] else f"At confidence {conf}, the audit does not contradict the claim {d['claim']}")
    eps = (f"; it proves ε ≥ {_n(d['epsilon_lower'])} at δ = {d['delta']:g}, where the claim allows "
           f"ε = {_n(d['claimed_epsilon'])}")
    g = d["gap"]
    if g.get("value") is None:
        gap = "."
    elif g.get("pi") is None:
        gap = (f"; the attack reaches the claim's Bayes error at every prior (gap 0, band [{_n(g['lower'], 3)}, "
               f"{_n(g['upper'], 3)}]).")
    else:
        gap = (f"; the claim leaves a Bayes-error room of {_n(g['value'], 3)} (band [{_n(g['lower'], 3)}, "
               f"{_n(g['upper'], 3)}]) that the attack did not reach, largest at prior π = {_n(g['pi'], 3)}.")
    return head + eps + gap


def audit_section(result: "AuditResult", claim: "Mechanism", *, figure: bool = True) -> str:
    """The ``<section id="audit">`` of a report for one audit."""
    d = result.to_dict()
    rows = [("contradicts the claim?", "yes" if d["contradicts"] else "no"),
            (f"ε proved at δ = {d['delta']:g}", _n(d["epsilon_lower"])),
            (f"ε claimed at δ = {d['delta']:g}", _n(d["claimed_epsilon"]))]
    g = d["gap"]
    if g.get("value") is not None:
        at = f" at π = {_n(g['pi'], 3)}" if g.get("pi") is not None else ""
        rows.append(("gap Δ(attack‖claim)", f"{_n(g['value'], 3)}{at} (band [{_n(g['lower'], 3)}, {_n(g['upper'], 3)}])"))
    for r in d.get("tpr_at_fpr", []):
        rows.append((f"TPR at FPR {r['fpr']:g}", f"{_n(r['attack'])} (certified ≥ {_n(r['attack_lower'])}; "
                                                  f"the claim allows ≤ {_n(r['claimed_max'])})"))
    out = ['<section id="audit">', "<h2>Audit against the claim</h2>",
           f'<p class="verdict">{_e(verdict_sentence(d))}</p>', "<table>"]
    out += [f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows]
    out.append("</table>")
    if figure and result.empirical is not None:
        from . import _figure
        from .audit_figure import audit_figure
        from .report import inline_svg

        svg = _figure.render(audit_figure(result, claim), "svg")
        out.append(f'<figure>{inline_svg(svg, "fig-audit", "audit against the claim")}<figcaption>Left: the '
                   "claimed trade-off curve (pessimistic side) and the attack's confidence band; the dashed "
                   "curve is what the audit certifies. Right: the Bayes-error room R_attack − R_claim; "
                   "the gap is its maximum.</figcaption></figure>")
    out.append(f"<p class=\"method\">Method: {_e(d['method'])}. Contradiction: the audit's certified curve "
               "below the claim's pessimistic curve somewhere ([BCP] Cor 1). Gap: Δ(attack‖claim) ([BCP] Def 1).</p>")
    out.append("</section>")
    return "\n".join(out)


def audit_report(result: "AuditResult", claim: "Mechanism") -> str:
    """A self-contained HTML page holding :func:`audit_section` (the report's CSS, no external resources)."""
    from .report_html import _CSS

    title = f"Audit of {result.claim}"
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        audit_section(result, claim),
        "</body></html>",
    ])


def add_to_report(report, result: "AuditResult", claim: "Mechanism"):
    """A :class:`~dpcompare.io.report.Report` with the audit's section inserted before "How the numbers
    were computed" (or at the end of the body), everything else unchanged.

    >>> import dpcompare as dc
    >>> from dpcompare.audit import Counts, audit
    >>> from dpcompare.io.report import Report
    >>> rep = Report("t", "v", (), (), (), (), {}, 0.0, '<body><section id="method"></section></body>')
    >>> r = audit(dc.Gaussian(mu=1), Counts([300], [1000], [20], [1000]))
    >>> html = add_to_report(rep, r, dc.Gaussian(mu=1)).html
    >>> html.index('<section id="audit">') < html.index('<section id="method">')
    True
    """
    import dataclasses

    section = audit_section(result, claim)
    doc = report.html
    marker = '<section id="method">'
    if marker in doc:
        doc = doc.replace(marker, section + "\n" + marker, 1)
    else:
        doc = doc.replace("</body>", section + "\n</body>", 1)
    return dataclasses.replace(report, html=doc)
