"""``describe``, ``card`` and the Opacus accountant lead with the μ that describes the curve and its
certified Δ both ways (``dpcompare.gaussian.fit``), the strict μ second with its reason."""

from __future__ import annotations

import json
import math

import pytest

import dpcompare as dc
from dpcompare.gaussian.fit import gdp_fit
from dpcompare.io import cli

SGM = "sgm(sigma=1, p=0.01, steps=1000)"


def _json(capsys, *args):
    code = cli.main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_describe_reports_the_fit_and_both_certified_deltas(capsys):
    d = _json(capsys, "describe", SGM)
    fit = gdp_fit(dc.parse(SGM))
    assert d["mu_fit"] == pytest.approx(fit.mu, rel=1e-9)
    for key, ref in (("mu_fit_excess", fit.excess), ("mu_fit_slack", fit.slack)):
        assert d[key]["lower"] <= d[key]["value"] <= d[key]["upper"]
        assert d[key]["upper"] == pytest.approx(ref.upper, rel=1e-6)
        assert 0 < d[key]["pi"] <= 0.5
    assert d["gdp_mu"] == pytest.approx(math.sqrt(1000)) and "sampled at every step" in d["gdp_mu_reason"]
    code = cli.main(["describe", SGM])
    out, _ = capsys.readouterr()
    assert code == 0 and "more vulnerable than" in out and "Why not the strict μ" in out


def test_describe_has_null_fit_for_blatant_non_privacy(capsys):
    d = _json(capsys, "describe", "bnp()")
    assert d["mu_fit"] is None and d["mu_fit_excess"] is None and d["gdp_mu_reason"] is None


def test_card_leads_with_the_fit_then_the_strict_bound(capsys):
    d = _json(capsys, "card", SGM)
    keys = list(d["numbers"])
    assert keys.index("gdp_mu_fit") < keys.index("gdp_excess") < keys.index("gdp_slack") < keys.index("gdp_mu")
    assert d["numbers"]["gdp_mu_fit"]["direction"] == "≈"
    assert d["numbers"]["gdp_excess"]["direction"] == "≤" and "prior" in d["numbers"]["gdp_excess"]["where"]
    assert "sampled at every step" in d["numbers"]["gdp_mu"]["meaning"]
    assert len(d["notes"]) == 2 and "more vulnerable" in d["notes"][0]


def test_opacus_accountant_reports_the_fit():
    pytest.importorskip("opacus", reason="the Opacus integration needs opacus")
    from dpcompare.integrations import opacus as integration

    acc = integration.DpcompareAccountant()
    acc.history = [(1.0, 0.01, 1000)]
    fit = acc.mu_fit()
    ref = gdp_fit(dc.SubsampledGaussian(1.0, 0.01, 1000))
    assert fit.mu == pytest.approx(ref.mu, rel=1e-9) and fit.mu < acc.gdp_mu() / 10
    assert fit.excess.lower <= fit.excess.value <= fit.excess.upper
