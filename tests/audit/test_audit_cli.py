"""``dpcompare audit``: the three input kinds, --json, --plot and one-line errors (exit 2, no partial file)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dpcompare as dc
from dpcompare.audit import Counts, OneRun, Scores, audit
from dpcompare.io import cli


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def score_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("scores")
    rng = np.random.default_rng(5)
    ins, outs = rng.normal(1.0, 1, 4000), rng.normal(0, 1, 4000)
    np.save(d / "in.npy", ins)
    np.savetxt(d / "out.csv", outs[None, :], delimiter=",")
    return d / "in.npy", d / "out.csv", ins, outs


def test_scores_json_matches_python(capsys, score_files):
    fin, fout, ins, outs = score_files
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--scores", str(fin), str(fout), "--json")
    assert code == 0, err
    d = json.loads(out)
    r = audit(dc.Gaussian(mu=1), Scores(ins, outs)).to_dict()
    for key in ("contradicts", "epsilon_lower", "claimed_epsilon"):
        assert d[key] == pytest.approx(r[key], rel=1e-9) if isinstance(r[key], float) else d[key] == r[key]
    assert set(d["gap"]) >= {"value", "pi"}
    assert d["contradicts"] is False
    assert 0 < d["epsilon_lower"] < d["claimed_epsilon"]
    assert d["gap"]["lower"] <= d["gap"]["value"] <= d["gap"]["upper"]


def test_counts_several_points_and_contradiction(capsys):
    # a strong attack against a claim far more private than it: contradicted
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=0.5)", "--counts", "900,1000,10,1000",
                         "--counts", "50,100,1,100", "--confidence", "0.99", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["contradicts"] is True and d["epsilon_lower"] > d["claimed_epsilon"]
    assert d["points"] == 2 and d["confidence"] == 0.99


def test_one_run(capsys):
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--one-run", "1000,200,180", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["input"] == "one_run" and d["gap"]["value"] is None and "note" in d["gap"]
    # Steinke et al.'s bound (checked against JAX-Privacy in test_audit_jax_privacy.py)
    assert d["epsilon_lower"] == pytest.approx(1.7962850707, abs=1e-6)


def test_human_output_and_plot(capsys, tmp_path, score_files):
    fin, fout, *_ = score_files
    png = tmp_path / "audit.png"
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--scores", str(fin), str(fout), "--plot", str(png))
    assert code == 0, err
    assert "contradicts the claim?" in out and "ε proved" in out
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_dpevent_file_as_claim(capsys, tmp_path):
    code, out, err = run(capsys, "event", "gaussian(sigma=2)")
    assert code == 0, err
    f = tmp_path / "run.json"
    f.write_text(out)
    code, out, err = run(capsys, "audit", "--claim", str(f), "--counts", "60,100,5,100", "--json")
    assert code == 0, err
    assert json.loads(out)["claimed_epsilon"] == pytest.approx(float(dc.Gaussian(mu=0.5).epsilon(1e-5)), rel=1e-3)


BAD = [
    (["--claim", "gaussian(mu=1)", "--counts", "5,4,0,10"], "tp must satisfy 0 <= tp <= positives"),
    (["--claim", "gaussian(mu=1)", "--counts", "5,10,0"], "--counts must be TP,P,FP,N"),
    (["--claim", "gauss(mu=1)", "--counts", "5,10,0,10"], "unknown mechanism 'gauss'"),
    (["--claim", "gaussian(mu=1)", "--counts", "5,10,0,10", "--confidence", "1.5"], "--confidence must be in (0, 1)"),
    (["--claim", "gaussian(mu=1)", "--counts", "5,10,0,10", "--confidence", "0"], "--confidence must be in (0, 1)"),
    (["--claim", "gaussian(mu=1)", "--counts", "5,10,0,10", "--delta", "1"], "--delta must be in [0, 1)"),
    (["--counts", "5,10,0,10"], "--claim is required"),
    (["--claim", "gaussian(mu=1)"], "give exactly one of"),
    (["--claim", "gaussian(mu=1)", "--one-run", "10,11,0"], "k (guesses) must satisfy"),
]


@pytest.mark.parametrize("args, message", BAD)
@pytest.mark.parametrize("as_json", [False, True])
def test_bad_input_one_line_exit_2(capsys, tmp_path, args, message, as_json):
    png = tmp_path / "fig.png"
    code, out, err = run(capsys, "audit", *args, "--plot", str(png), *(["--json"] if as_json else []))
    assert code == 2
    assert not png.exists()
    if as_json:
        d = json.loads(out)
        assert list(d) == ["error"] and message in d["error"]
    else:
        assert out == ""
        assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("content, message", [
    (np.array([1.0, np.nan]), "members must be finite numbers, got nan"),
    (np.array([]), "members must not be empty"),
])
def test_bad_scores_files(capsys, tmp_path, score_files, content, message):
    f = tmp_path / "bad.npy"
    np.save(f, content)
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--scores", str(f), str(score_files[1]), "--json")
    assert code == 2 and message in json.loads(out)["error"]


def test_python_inputs_round_trip():
    r = audit(dc.Gaussian(mu=1), Counts([60], [100], [5], [100]), confidence=0.9, delta=0.0)
    assert r.delta == 0.0 and math.isinf(r.claimed_epsilon) and r.to_dict()["claimed_epsilon"] is None
    r1 = audit(dc.Gaussian(mu=1), OneRun(100, 10, 10))
    assert r1.kind == "one_run" and not r1.contradicts


def test_report_section(capsys, tmp_path, score_files):
    fin, fout, *_ = score_files
    page = tmp_path / "audit.html"
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--scores", str(fin), str(fout),
                         "--report", str(page), "--json")
    assert code == 0, err
    text = page.read_text()
    assert json.loads(out)["report"] == str(page)
    assert '<section id="audit">' in text and "<svg" in text and "does not contradict the claim" in text
    # a one-run audit has a section without a figure
    code, out, err = run(capsys, "audit", "--claim", "gaussian(mu=1)", "--one-run", "1000,200,180", "--report", str(page))
    assert code == 0, err
    assert "<svg" not in page.read_text() and "ε proved" in page.read_text()
