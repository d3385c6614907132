"""The privacy card (``dpcompare card``, :mod:`dpcompare.io.privacy_card`).

Every number is checked against an independent closed form for the Gaussian mechanism (Dong, Roth &
Su 2022: f = G_μ, TPR(α) = Φ(Φ⁻¹(α) + μ), R(½) = Φ(−μ/2), advantage = 2Φ(μ/2) − 1) and randomized
response (Kairouz et al. 2015: the exact two-point pair, brute force), each with the direction the
card states; the HTML opens in headless Chromium without console errors; CLI errors exit 2 and
leave no file.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

import dpcompare as dc
from dpcompare.io.privacy_card import CARD_FPRS, Direction, build_card
from dpcompare.io.cli import main

N = NormalDist()


def _numbers(card):
    return {c.key: c for c in card.numbers}


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gaussian_card_matches_closed_forms(mu):
    card = build_card(dc.Gaussian(mu=mu), n=10_000, figures=False)
    k = _numbers(card)
    for a in CARD_FPRS:  # TPR of the best test at FPR α: 1 − G_μ(α) = Φ(Φ⁻¹(α) + μ)
        c = k[f"tpr@{a:g}"]
        assert c.direction is Direction.AT_MOST and c.value == pytest.approx(N.cdf(N.inv_cdf(a) + mu), rel=1e-9)
    assert k["bayes_error@0.5"].value == pytest.approx(N.cdf(-mu / 2), rel=1e-9)
    assert k["bayes_error@0.5"].direction is Direction.AT_LEAST
    assert k["advantage"].value == pytest.approx(2 * N.cdf(mu / 2) - 1, rel=1e-9)
    assert k["gdp_mu"].value == pytest.approx(mu) and k["mu_at_fixed_point"].value == pytest.approx(mu, rel=1e-9)
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for d in (1e-5, 1e-6, 1e-4):  # ε(δ) certified: δ(ε) ≤ δ by the Balle–Wang closed form ([SI] eq 7.1), in 40 digits
        e = mpmath.mpf(k[f"epsilon@{d:g}"].value)
        delta = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        # the float δ exactly; 1e-14 relative slack: the Gaussian ε(δ) of mechanisms/ is certified only to a few
        # ulps of δ (μ = 1, δ = 1e-5: δ(ε) − δ = 4e-21, reported to the integrator as a finding)
        assert d * 0.999 <= delta <= mpmath.mpf(d) * (1 + 1e-14)
    assert k["epsilon@0.0001"].where == "at δ = 0.0001 = 1/n"


def test_randomized_response_card_by_brute_force():
    eps = 1.5
    card = build_card("rr(eps=1.5)", figures=False)
    k = _numbers(card)
    p = math.exp(eps) / (1 + math.exp(eps))  # P(report truth)
    # the Neyman–Pearson tests of two Bernoullis (p vs 1−p), randomised: TPR(α) = α·p/(1−p) for α ≤ 1−p
    for a in CARD_FPRS:
        assert k[f"tpr@{a:g}"].value == pytest.approx(min(a * p / (1 - p), 1.0), rel=1e-9)
    for pi in (0.5, 0.01):  # Bayes error: min over the deterministic rules of π·FPR + (1−π)·FNR
        rules = [(0, 1), (1, 0), (1 - p, 1 - p), (p, p)]  # (FPR, FNR) of never, always, follow, invert
        brute = min(pi * x + (1 - pi) * y for x, y in rules)
        assert k[f"bayes_error@{pi:g}"].value == pytest.approx(brute, rel=1e-9, abs=1e-15)
    # δ(ε′) = p − e^ε′·(1 − p) for ε′ ≤ ε (the hockey-stick divergence of the two Bernoullis)
    assert k["epsilon@1e-05"].value == pytest.approx(math.log((p - 1e-5) / (1 - p)), rel=1e-9)


def test_every_number_is_labelled_with_its_direction():
    card = build_card("sgm(sigma=1, sampling_rate=0.05, steps=50)", figures=False)
    for c in card.numbers:
        assert c.text().startswith(c.symbol) and (c.direction.value in c.text() or c.value is None)
    d = card.to_dict()
    assert set(d["registry"]) == {"mechanism", "unit of privacy", "epsilon", "delta", "accounting method", "implementation"}
    assert d["registry"]["epsilon"].startswith("≤ ")
    assert "pessimistic" in d["registry"]["accounting method"]
    # the tightest μ-GDP bound of the SGM is √N/σ; the matched μ describes the bulk and is much smaller
    k = _numbers(card)
    assert k["gdp_mu"].value == pytest.approx(math.sqrt(50)) and k["mu_at_fixed_point"].value < 1.0


@pytest.mark.parametrize("n", [1, 0, 2.5, True, "100"])
def test_bad_n_is_rejected(n):
    with pytest.raises((ValueError, TypeError), match="n "):
        build_card("laplace(b=1)", n=n, figures=False)


def test_cli_card_json_and_html(tmp_path, capsys):
    out = tmp_path / "card.html"
    assert main(["card", "gaussian(mu=1)", "--n", "1000", "--json", "--html", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["numbers"]["epsilon@0.001"]["direction"] == "≤" and d["html"] == str(out)
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") == 2 and "http" not in text.replace("http://www.w3.org", "")


@pytest.mark.parametrize("args", [["card", "gaussian(mu=-1)"], ["card", "laplace(b=1)", "--n", "1"],
                                  ["card", "laplace(b=1)", "--html", "x.txt"]])
def test_cli_card_errors_exit_2_and_write_nothing(args, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_card_opens_in_headless_chromium_without_console_errors(tmp_path):
    from test_report import DevTools, _chromium

    binary = _chromium()
    if binary is None:
        pytest.skip("chromium is not installed")
    path = tmp_path / "card.html"
    build_card("sgm(sigma=1, p=0.01, steps=200)", n=10_000).write_html(path)
    dt = DevTools(binary, tmp_path / "profile")
    try:
        target = dt.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = dt.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            dt.send(f"{domain}.enable", session=session)
        dt.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        dt.wait_for("Page.loadEventFired")
        svgs = dt.send("Runtime.evaluate", {"expression": "document.querySelectorAll('figure svg').length",
                                            "returnByValue": True}, session=session)["result"]["value"]
    finally:
        dt.close()
    problems = [e for e in dt.events
                if (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") in ("error", "warning"))
                or e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") in ("error", "warning"))]
    assert not problems, problems
    requests = {e["params"]["request"]["url"] for e in dt.events if e.get("method") == "Network.requestWillBeSent"}
    assert requests == {path.resolve().as_uri()}
    assert svgs == 2
