"""No overlapping labels: every plot kind is rendered (Agg) and the bounding boxes of all its visible
texts — tick labels, axis labels, titles, legend entries, ruler names, Δ annotations, heat-map cells,
the inset's ticks — are checked pairwise for overlap."""

from __future__ import annotations

import itertools

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from dpcompare.io import plot as P

SETS = {
    "two": ["gaussian(mu=1)", "laplace(b=1)"],
    "three": ["gaussian(mu=1)", "laplace(b=1)", "rr(eps=1)"],
    "sgm": ["sgm(sigma=1, p=0.01, steps=100)", "gaussian(mu=1)"],
}
KINDS = {
    "bayes": P.bayes_error,
    "difference": P.bayes_error_difference,
    "tradeoff": P.tradeoff,
    "profile": P.privacy_profile,
    "roc": P.roc,
    "roc-log": lambda m: P.roc(m, log=True),
    "weighted": P.weighted_bayes_error,
    "heatmap": P.delta_heatmap,
}


def text_overlaps(fig: Figure, pad: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of visible, non-empty texts whose rendered boxes overlap by more than ``pad`` pixels."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return [(a, b) for (a, p), (b, q) in itertools.combinations(boxes, 2)
            if p.x0 + pad < q.x1 and q.x0 + pad < p.x1 and p.y0 + pad < q.y1 and q.y0 + pad < p.y1]


def test_the_detector_finds_an_overlap():
    fig = Figure()
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.5, 0.5, "another")
    assert text_overlaps(fig) == [("one label", "another")]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("which", sorted(SETS))
def test_no_text_overlaps(kind, which):
    fig = KINDS[kind](SETS[which])
    assert text_overlaps(fig) == []


def test_six_mechanisms_move_the_legend_beside_the_axes_and_labels_apart():
    specs = ["gaussian(mu=1)", "laplace(b=1)", "rr(eps=1)", "gaussian(mu=2)", "laplace(b=0.5)", "puredp(eps=1)"]
    fig = P.bayes_error(specs)
    assert text_overlaps(fig) == []
    ax = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1  # beside, not on
