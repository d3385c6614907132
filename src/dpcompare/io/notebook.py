"""HTML for Jupyter: ``Mechanism._repr_html_`` and ``Comparison._repr_html_`` delegate here, so a
notebook shows what the CLI shows — a small table and an inline SVG figure (matplotlib loads only
when a notebook asks for the picture).

>>> import dpcompare as dc
>>> page = comparison_html(dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1)), figure=False)
>>> "Δ(A‖B)" in page and "laplace(b=1)" in page
True
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .render import num

if TYPE_CHECKING:  # pragma: no cover
    from ..comparison import Comparison
    from ..mechanisms import Mechanism

__all__ = ["comparison_html", "mechanism_html"]


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _svg(fig: Any, fid: str, title: str) -> str:
    from . import plot
    from .report import inline_svg

    return f'<div style="max-width:520px">{inline_svg(plot.render(fig, "svg"), fid, title)}</div>'


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><td style="text-align:left">{_e(k)}</td><td style="text-align:right">{_e(v)}</td></tr>'
                   for k, v in rows)
    return f"<table>{body}</table>"


def mechanism_html(m: "Mechanism", *, delta: float = 1e-5, figure: bool = True) -> str:
    """The ``describe`` views of ``m`` as an HTML table, with its ROC curve (log–log) as inline SVG."""
    d = m.describe(delta)
    rows = [
        (f"ε ≤ (at δ = {num(delta, 3)})", "∞" if d["epsilon"] is None else num(d["epsilon"])),
        ("advantage ≤", num(d["advantage"])),
        ("minimax Bayes error R* ≥", num(d["minimax_bayes_error"])),
        ("AUC ≤", num(d["auc"])),
        ("μ-GDP ≤ (tightest bound)", num(d["gdp_mu"])),
    ]
    kind = "exact" if d["exact"] else "certified bracket, pessimistic side"
    out = f"<div><b>{_e(m.spec)}</b> <small>({_e(kind)})</small>{_table(rows)}"
    if figure:
        from . import plot

        out += _svg(plot.roc([m], log=True), f"m{id(m):x}", f"ROC of {m.spec}")
    return out + "</div>"


def comparison_html(c: "Comparison", *, figure: bool = True) -> str:
    """``dpcompare compare`` as HTML: A and B, both Δ with their brackets and π, the verdict, the
    crossings, and the Bayes error functions with the Δ rulers ([BCP] Figure 3) as inline SVG."""
    rows = []
    for label, r in (("Δ(A‖B)", c.delta_ab), ("Δ(B‖A)", c.delta_ba)):
        at = f" at π ≈ {num(r.pi, 4)}" if r.value > c.tolerance else ""
        rows.append((label, f"{num(r.value)} [{num(r.lower)}, {num(r.upper)}]{at}"))
    lo, hi = c.symmetric_bounds
    rows.append(("Δ↔ symmetric", f"{num(c.symmetric)} [{num(lo)}, {num(hi)}]"))
    cross = ", ".join(num(x, 4) for x in c.crossings) or "none"
    out = (f"<div><div><b>A</b> = {_e(c.a.spec)}<br><b>B</b> = {_e(c.b.spec)}</div>{_table(rows)}"
           f"<div><b>Verdict</b>: {_e(c.sentence())}</div><div><b>Crossings</b> of R_A and R_B at π ≈ {_e(cross)}</div>")
    if figure:
        from . import plot

        cache = plot.DeltaCache()
        if c.hyperprior is None:  # the figure draws unweighted rulers: reuse only unweighted Δ
            cache.put(c.a, c.b, c.delta_ab)
            cache.put(c.b, c.a, c.delta_ba)
        out += _svg(plot.bayes_error([c.a, c.b], cache=cache), f"c{id(c):x}", "Bayes error functions")
    return out + "</div>"
