"""Jupyter rendering: ``_repr_html_`` of mechanisms and of ``Comparison`` shows what the CLI shows."""

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
    page = c._repr_html_()
    for r in (c.delta_ab, c.delta_ba):  # the same numbers, in the same formatter, as `dpcompare compare`
        assert f"{num(r.value)} [{num(r.lower)}, {num(r.upper)}]" in page
    assert "gaussian(mu=1)" in page and "laplace(b=1)" in page and c.sentence() in page
    svgs = _svgs(page)
    assert len(svgs) == 1
    ET.fromstring(svgs[0])  # well-formed inline SVG
    assert page == comparison_html(c) or len(_svgs(comparison_html(c))) == 1


def test_mechanism_html_table_and_figure():
    m = dc.Laplace(b=1)
    page = m._repr_html_()
    assert num(m.epsilon(1e-5)) in page and num(m.advantage) in page and "laplace(b=1)" in page
    assert len(_svgs(page)) == 1
    assert "<svg" not in mechanism_html(m, figure=False)
