"""The "what you ran / what you reported" section (:mod:`dpcompare.dpsgd.ran`) as a figure and as HTML, for
the ``ran`` command, the privacy card and the report."""

from __future__ import annotations

import html as _html
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..dpsgd.ran import RanVersusReported

__all__ = ["ran_figure", "ran_html"]


def ran_figure(r: "RanVersusReported") -> "Figure":
    """ROC curves (log–log, low FPR) of what ran and of the Poisson report, certified brackets as bands."""
    from . import plot

    return plot.roc(list(r.mechanisms), labels=["ran", "reported (Poisson)"], log=True)


def ran_html(r: "RanVersusReported") -> str:
    """The comparison as one self-contained HTML section (table, verdict, notes, figure inline as SVG)."""
    from . import plot
    from .report import inline_svg

    def e(x: object) -> str:
        return _html.escape(str(x), quote=True)

    rows = "".join(f"<tr><td>{e(k)}</td><td class=\"num\">{e(a)}</td><td class=\"num\">{e(b)}</td></tr>"
                   for k, a, b in r.rows())
    notes = "".join(f"<p class=\"muted\">{e(n)}</p>" for n in r.notes)
    svg = inline_svg(plot.render(ran_figure(r), "svg"), "ran-roc", "ROC of what ran and of the Poisson report")
    return (f"<h2>What you ran / what you reported</h2><table><tr><th>view</th><th>{e(r.ran.label)}</th>"
            f"<th>{e(r.reported.label)}</th></tr>{rows}</table><p><b>verdict:</b> {e(r.verdict)}</p>{notes}"
            f"<figure>{svg}<figcaption>ROC (log–log) of the best membership attack; bands are the certified "
            "brackets</figcaption></figure>")
