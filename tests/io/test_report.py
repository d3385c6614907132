"""dpcompare.io.report and ``dpcompare report``.

- the verdict sentence comes first and says what the Δ say ([BCP] Cor 1; the Figure 3 values for
  Gaussian μ = 1 vs Laplace b = 1: 0.00527 at π = ½, 0.03414 at π = 1/(1+e));
- the table holds every view the issue lists, equal to the library's, with certified brackets that
  contain the value for numeric mechanisms;
- the file is self-contained: no script, no external reference, unique ids, every internal reference
  resolves, a Content-Security-Policy that forbids loading anything;
- opened in headless Chromium (Debian's ``chromium``, driven over the DevTools protocol through a
  pipe, standard library only) it logs no console error, requests nothing but itself, and every
  figure is visible in a screenshot (non-background and palette-coloured pixels in its box);
- the CLI writes the file whole or not at all and exits 2 with one line on bad input.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import select
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.io import cli
from dpcompare.io.report import build_report, verdict_sentence

pytest.importorskip("matplotlib")

GAUSS, LAP = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
SENTENCE = ("A is up to 0.034 more vulnerable than B, against an adversary with prior π ≈ 0.27 (or 0.73); "
            "B is up to 0.0053 more vulnerable near π ≈ 0.5.")
FIGURE_IDS = ["fig-bayes", "fig-difference", "fig-tradeoff", "fig-profile", "fig-roc", "fig-roc-log",
              "fig-weighted-jeffreys", "fig-weighted-uquadratic"]


@pytest.fixture(scope="module")
def report():
    return build_report([GAUSS, LAP], command=["report", "gaussian(mu=1)", "laplace(b=1)", "-o", "r.html"])


@pytest.fixture(scope="module")
def report_file(report, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    report.write(path)
    return path


# ---------------------------------------------------------------------------------------------- content
def test_verdict_sentence_comes_first(report):
    assert report.verdict == SENTENCE
    body = report.html.split("<body>", 1)[1]
    first_p = re.search(r"<p[^>]*>(.*?)</p>", body, flags=re.S)
    assert 'id="verdict"' in first_p.group(0) and first_p.group(1) == SENTENCE.replace("≈", "≈")
    assert body.index('id="verdict"') < body.index("<table") < body.index("<svg")
    # the crossings π ≈ 0.4185 and 1 − 0.4185 (mpmath in tests/reference_values.py), to 3 digits
    assert "incomparable" in body[: body.index("<table")] and "0.419, 0.581" in body[: body.index("<table")]


def test_verdict_sentence_other_cases():
    c = dc.compare(dc.Gaussian(mu=1), dc.Gaussian(mu=2))  # B (μ = 2) less private everywhere: Δ(B‖A) = 0
    s = verdict_sentence(c)
    assert s.startswith("B is up to ") and s.endswith("; A is nowhere more vulnerable than B.")
    assert verdict_sentence(dc.compare(dc.RandomizedResponse(eps=1), dc.PureDP(eps=1)), "RR", "DP") == (
        "RR and DP offer the same protection against every adversary (Δ = 0 both ways).")


def test_views_table_has_every_view_equal_to_the_library(report):
    rows = [v.label for v in report.summaries[0].views]
    assert rows == ["ε at δ = 1e-5", "ε at δ = 1e-6", "μ-GDP upper bound", "μ describing the curve", "advantage",
                    "fixed point α*", "minimax Bayes error R*", "AUC", "TPR at FPR = 0.001", "TPR at FPR = 0.01"]
    for summary, m in zip(report.summaries, (GAUSS, LAP)):
        v = {x.key: x for x in summary.views}
        d = m.describe(1e-5)
        assert v["epsilon@1e-05"].value == d["epsilon"] and v["epsilon@1e-06"].value == float(m.epsilon(1e-6))
        for key in ("advantage", "fixed_point", "minimax_bayes_error", "auc", "gdp_mu"):
            assert v[key].value == pytest.approx(d[key], rel=1e-12)
        assert v["tpr@0.001"].value == pytest.approx(float(m.tpr(1e-3)), rel=1e-12)
        # the Gaussian through the fixed point α* = Φ(−μ/2) ([GDP]): for a Gaussian it is μ itself
        if m is GAUSS:
            assert v["mu_at_fixed_point"].value == pytest.approx(1.0, rel=1e-12)
        assert all(x.lower is None for x in summary.views)  # closed forms: no bracket shown
        for x in summary.views:
            if x.value is not None:
                assert f"{x.value:.6g}" in report.html
    assert "<th>minimax Bayes error R*</th>" in report.html


def test_divergence_table_and_method_section(report):
    i, j, c = report.comparisons[0]
    assert (i, j) == (0, 1)
    # 0.00527221 and 0.0341385: the mpmath reference of tests/reference_values.py (gauss_laplace_reference)
    assert c.delta_ab.value == pytest.approx(0.00527221, abs=1e-7) and c.delta_ba.value == pytest.approx(0.0341385, abs=1e-6)
    assert "Δ(A‖B)</th><td class=\"num\">0.00527221" in report.html
    assert {h for h, *_ in report.weighted} == {"jeffreys", "uquadratic"}
    method = html.unescape(report.html[report.html.index('id="method"'):])
    for text in ("closed form", "certified", "branch and bound", "numpy", "scipy", "matplotlib", "dp-accounting",
                 "dpcompare report 'gaussian(mu=1)' 'laplace(b=1)' -o r.html"):
        assert text in method, text
    d = report.to_dict()
    assert d["verdict"] == SENTENCE and d["figures"] == FIGURE_IDS and json.dumps(d)


def test_html_is_self_contained(report):
    doc = report.html
    assert doc.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in doc and "default-src 'none'" in doc
    for bad in ("<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "src=", "url(http", "url('http"):
        assert bad not in doc, bad
    # the only absolute URLs are XML namespace names, which are never fetched
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", doc))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls
    assert "<!DOCTYPE svg" not in doc and "<?xml" not in doc
    ids = re.findall(r'\bid="([^"]+)"', doc)
    dup = [k for k, n in Counter(ids).items() if n > 1]
    assert not dup, dup[:5]
    refs = set(re.findall(r'href="#([^"]+)"', doc)) | set(re.findall(r"url\(#([^)]+)\)", doc))
    assert refs and refs <= set(ids)
    assert [f.id for f in report.figures] == FIGURE_IDS
    assert doc.count("<svg") == len(FIGURE_IDS) and doc.count("<figure") == len(FIGURE_IDS)
    # matplotlib's global SVG style rule is scoped to its own figure
    scopes = re.findall(r"(#[\w-]*)?\s*\*\{stroke-linejoin", doc)
    assert scopes == [f"#{i}" for i in FIGURE_IDS], scopes


def test_numeric_mechanisms_show_brackets_that_contain_the_value():
    a, b = dc.parse("sgm(sigma=2, p=0.05, steps=30)"), dc.parse("sgm(sigma=3, p=0.05, steps=70)")
    rep = build_report([a, b], deltas=[1e-5], fprs=[1e-2], hyperpriors=())
    for s in rep.summaries:
        assert not s.exact and "certified numeric bracket" in s.representation and s.max_bracket > 0
        for v in s.views:
            if v.lower is not None:
                assert v.lower <= v.value <= v.upper + 1e-15, v
                # the reported value is the bracket's pessimistic end, whichever side that is
                assert v.bracket.pessimistic == v.value and v.bracket.as_tuple() == (v.lower, v.upper), v
            else:
                assert v.bracket is None
        assert sum(v.lower is not None for v in s.views) >= 6
    assert rep.verdict.startswith("A is up to 0.00")
    assert '<span class="br">[' in rep.html
    assert [f.id for f in rep.figures] == FIGURE_IDS[:-2]  # no hyper-prior, no weighted figure


def test_build_report_rejects_bad_input():
    with pytest.raises(ValueError, match="at least two"):
        build_report([GAUSS])
    with pytest.raises(ValueError, match="delta must be in"):
        build_report([GAUSS, LAP], deltas=[0.0])
    with pytest.raises(ValueError, match="unknown mechanism"):
        build_report([GAUSS, "gauss(mu=1)"])


# ---------------------------------------------------------------------------------------------- CLI
def run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_writes_one_file_and_json(capsys, tmp_path):
    out_path = tmp_path / "r.html"
    code, out, err = run(capsys, "report", "gaussian(mu=1)", "laplace(b=1)", "-o", str(out_path), "--delta", "1e-5",
                         "--fpr", "1e-3", "--hyperprior", "jeffreys", "--title", "Gauss vs Laplace", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert out.count("\n") == 1 and err == ""
    assert d["output"] == str(out_path) and d["verdict"] == SENTENCE and d["bytes"] == out_path.stat().st_size
    assert d["title"] == "Gauss vs Laplace" and d["figures"][-1] == "fig-weighted-jeffreys"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]
    assert oct(out_path.stat().st_mode & 0o777) != oct(0o600)  # not mkstemp's private mode


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "gaussian(mu=1)", "-o", "{d}/r.html"], "at least two"),
        (["report", "gaussian(mu=1)", "laplace(b=1)", "-o", "{d}/r.png"], "-o must end in .html"),
        (["report", "gaussian(mu=1)", "laplace(b=0)", "-o", "{d}/r.html"], "b must be > 0"),
        (["report", "gaussian(mu=1)", "laplace(b=1)", "--delta", "2", "-o", "{d}/r.html"], "--delta must be in (0, 1)"),
        (["report", "gaussian(mu=1)", "laplace(b=1)", "--fpr", "0", "-o", "{d}/r.html"], "--fpr must be in (0, 1)"),
        (["report", "gaussian(mu=1)", "laplace(b=1)", "--hyperprior", "flat", "-o", "{d}/r.html"], "unknown hyperprior"),
        (["report", "gaussian(mu=1)", "laplace(b=1)", "-o", "{d}/no/r.html"], "does not exist"),
        (["report", "gaussian(mu=1)", "laplace(b=1)"], "-o"),
    ],
)
def test_cli_report_user_errors(capsys, tmp_path, args, message):
    code, out, err = run(capsys, *[a.replace("{d}", str(tmp_path)) for a in args])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("exc", "code"), [(ValueError, 2), (RuntimeError, 1)])
def test_cli_report_failure_keeps_the_old_file(capsys, tmp_path, monkeypatch, exc, code):
    import dpcompare.io.report as rep

    target = tmp_path / "r.html"
    target.write_text("old report")

    def broken(*args, **kwargs):
        raise exc("simulated failure")

    monkeypatch.setattr(rep, "build_report", broken)
    got, out, err = run(capsys, "report", "gaussian(mu=1)", "laplace(b=1)", "-o", str(target))
    assert got == code and out == "" and "simulated failure" in err and err.count("\n") == 1
    assert target.read_text() == "old report" and [p.name for p in tmp_path.iterdir()] == ["r.html"]


# ---------------------------------------------------------------------------------------------- Chromium
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``: the browser reads
    NUL-terminated JSON commands on fd 3 and writes responses and events on fd 4."""

    def __init__(self, binary: str, user_data_dir: Path, timeout: float = 60.0) -> None:
        self.deadline = time.monotonic() + timeout
        cmd_r, self._cmd_w = os.pipe()
        self._evt_r, evt_w = os.pipe()

        def child_fds() -> None:  # runs in the child: put the pipe ends on fds 3 and 4
            a, b = os.dup(cmd_r), os.dup(evt_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--hide-scrollbars", "--mute-audio", f"--user-data-dir={user_data_dir}",
                "--remote-debugging-pipe", "--window-size=1280,900", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(evt_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._next()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            e = self._next()
            self.events.append(e)
            if e.get("method") == method:
                return e

    def _next(self) -> dict:
        while b"\0" not in self._buf:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self._evt_r], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._evt_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def close(self) -> None:
        try:
            os.write(self._cmd_w, json.dumps({"id": 0, "method": "Browser.close", "params": {}}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._cmd_w, self._evt_r):
            try:
                os.close(fd)
            except OSError:
                pass


_GEOMETRY = """JSON.stringify({
  first: document.body.firstElementChild.nextElementSibling.id,
  width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
  figures: [...document.querySelectorAll('figure.fig')].map(f => {
    const s = f.querySelector('svg').getBoundingClientRect();
    return {id: f.id, x: s.left + scrollX, y: s.top + scrollY, w: s.width, h: s.height,
            visible: getComputedStyle(f).visibility === 'visible' && getComputedStyle(f).display !== 'none'};
  })
})"""


def test_report_renders_in_headless_chromium(report_file, tmp_path):
    binary = _chromium()
    if binary is None:
        pytest.skip("chromium is not installed (Debian package 'chromium'; .ci/run installs it)")
    from matplotlib import image

    url = report_file.resolve().as_uri()
    dt = DevTools(binary, tmp_path / "profile")
    try:
        target = dt.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = dt.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            dt.send(f"{domain}.enable", session=session)
        dt.send("Emulation.setDeviceMetricsOverride",
                {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        dt.send("Page.navigate", {"url": url}, session=session)
        dt.wait_for("Page.loadEventFired")
        geo = json.loads(dt.send("Runtime.evaluate", {"expression": _GEOMETRY, "returnByValue": True},
                                 session=session)["result"]["value"])
        shot = dt.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": geo["width"], "height": geo["height"], "scale": 1}}, session=session)
    finally:
        dt.close()

    # no console errors, no exceptions, no error log entries (CSP violations land there), no requests
    problems = []
    for e in dt.events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            problems.append(params)
        elif method == "Runtime.exceptionThrown":
            problems.append(params)
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            problems.append(params["entry"])
    assert not problems, problems
    requests = {e["params"]["request"]["url"] for e in dt.events if e.get("method") == "Network.requestWillBeSent"}
    assert requests == {url}, requests

    assert geo["first"] == "verdict"  # the verdict right after the title
    png_path = tmp_path / "shot.png"
    png_path.write_bytes(base64.b64decode(shot["data"]))
    pixels = image.imread(str(png_path))[..., :3]
    assert pixels.shape[1] >= 1000 and pixels.shape[0] >= geo["height"] - 2
    palette = np.array([[0x00, 0x72, 0xB2], [0xD5, 0x5E, 0x00]]) / 255  # the colours of A and B
    assert [f["id"] for f in geo["figures"]] == [f"{i}-box" for i in FIGURE_IDS]
    for f in geo["figures"]:
        assert f["visible"] and f["w"] > 300 and f["h"] > 200, f
        x0, y0 = int(f["x"]), int(f["y"])
        box = pixels[y0:y0 + int(f["h"]), x0:x0 + int(f["w"])]
        assert box.shape[0] > 200 and box.shape[1] > 300, (f, box.shape)
        ink = np.mean(np.abs(box - 1.0).sum(axis=-1) > 0.3)
        assert ink > 0.02, (f["id"], ink)  # axes, text and curves, not a blank box
        drawn = max(np.mean(np.abs(box - c).max(axis=-1) < 0.12) for c in palette)
        assert drawn > 5e-4, (f["id"], drawn)  # the curves themselves are drawn


# ---------------------------------------------------------------------------------------------- k mechanisms
def test_ranking_sentence_total_and_partial_orders():
    from dpcompare.io.report import ranking_sentence

    # Gaussians are totally ordered by μ (R = Φ(−μ/2) pointwise larger for smaller μ); Gauss vs Laplace cross
    ms = [dc.Gaussian(mu=1), dc.Gaussian(mu=2), dc.Laplace(b=1)]
    cs = [(i, j, dc.compare(ms[i], ms[j])) for i in range(3) for j in range(i + 1, 3)]
    text = ranking_sentence("ABC", cs)
    assert text.startswith("No mechanism is the most private against every adversary.")
    assert "Nowhere more vulnerable (and so by transitivity below): A than B" in text
    assert "Incomparable (their Bayes error functions cross): A and C" in text
    worst = max((r.value, x, y) for i, j, c in cs for x, y, r in ((i, j, c.delta_ab), (j, i, c.delta_ba)))
    assert f"Largest regret: Δ({'ABC'[worst[1]]}‖{'ABC'[worst[2]]})" in text
    same = [dc.Gaussian(mu=1), dc.Gaussian(sigma=2, sensitivity=2), dc.Gaussian(mu=1)]
    cs = [(i, j, dc.compare(same[i], same[j])) for i in range(3) for j in range(i + 1, 3)]
    assert ranking_sentence("ABC", cs).endswith("All offer the same protection against every adversary (every Δ = 0).")


def test_more_than_six_mechanisms_get_a_pairwise_heatmap_not_crowded_curves():
    specs = [f"gaussian(mu={m})" for m in (0.5, 1, 2)] + [f"rr(eps={e})" for e in (0.5, 1, 2)] + ["laplace(b=1)"]
    rep = build_report(specs, deltas=[1e-5], fprs=[1e-2], hyperpriors=("jeffreys",))
    assert [f.id for f in rep.figures] == ["fig-delta-heatmap"]
    assert rep.verdict.startswith(("Ranking", "No mechanism")) and "Largest regret" in rep.verdict


def test_report_speaks_in_words_not_verdict_codes(report):
    body = html.unescape(report.html)
    for code in ("a>=b", "b>=a", "a&gt;=b", "b&gt;=a"):
        assert code not in report.html
    assert "A and B are incomparable (each more vulnerable somewhere)" in body
    assert "seed 00" not in body and "[BCP] G. Kaissis" in body.replace("<li>", "")
