"""Jupyter rendering: mechanisms and ``Comparison`` display as HTML showing what the CLI shows."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import dpcompare as dc
from dpcompare.io.notebook import comparison_html, mechanism_html
from dpcompare.io.render import num


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", page, flags=re.S)


def test_comparison_html_carries_the_cli_numbers_and_one_figure():
    c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1))
    page = comparison_html(c)
    for r in (c.delta_ab, c.delta_ba):  # the same numbers, in the same formatter, as `dpcompare compare`
        assert f"{num(r.value)} [{num(r.lower)}, {num(r.upper)}]" in page
    assert "gaussian(mu=1)" in page and "laplace(b=1)" in page and c.sentence() in page
    svgs = _svgs(page)
    assert len(svgs) == 1
    ET.fromstring(svgs[0])  # well-formed inline SVG


def test_mechanism_html_table_and_figure():
    m = dc.Laplace(b=1)
    page = mechanism_html(m)
    assert num(m.epsilon(1e-5)) in page and num(m.advantage) in page and "laplace(b=1)" in page
    assert len(_svgs(page)) == 1
    assert "<svg" not in mechanism_html(m, figure=False)


def test_ipython_displays_mechanisms_and_comparisons_as_html():
    """Mechanisms (any subclass) and ``Comparison`` carry ``_repr_html_``, which IPython's real HTML
    formatter calls; nothing is registered on import."""
    import pytest

    formatters = pytest.importorskip("IPython.core.formatters")
    html_formatter = formatters.HTMLFormatter()
    page = html_formatter(dc.SubsampledGaussian(sigma=1.0, sampling_rate=0.01, steps=10))
    assert page is not None and "sgm(" in page and "<svg" in page
    c = dc.compare(dc.Gaussian(mu=1), dc.Laplace(b=1))
    assert html_formatter(c) == comparison_html(c)
