"""``dpcompare binormal`` (io/cli/binormal.py): exit codes, one-line errors, and every number equal to
the Python functions of dpcompare.gaussian.binormal_roc (which tests/gaussian/test_binormal_roc.py checks against
numerical integration)."""

from __future__ import annotations

import json
import math

import pytest

from dpcompare.gaussian.binormal_roc import binormal_auc, binormal_params, binormal_roc, optimal_roc, renyi_divergence
from dpcompare.io import cli


def _run(capsys, *args):
    code = cli.main(["binormal", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_equals_the_python_functions(capsys):
    code, out, err = _run(capsys, "--mu0", "0", "--sigma0", "1.2", "--mu1", "1", "--sigma1", "1",
                          "--fpr", "0.001,0.1,0.5", "--orders", "0.5,1,2,4", "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    a, b = binormal_params(0.0, 1.2, 1.0, 1.0)
    assert (d["a"], d["b"]) == (a, b) and d["auc"] == binormal_auc(a, b)
    assert [r["fpr"] for r in d["roc"]] == [0.001, 0.1, 0.5]
    for r in d["roc"]:
        assert r["tpr_threshold"] == binormal_roc(r["fpr"], a, b)
        assert r["tpr_optimal"] == optimal_roc(r["fpr"], a, b)
        assert r["tpr_optimal"] >= r["tpr_threshold"]  # the Neyman–Pearson test is never worse
    for r in d["renyi"]:
        fwd = renyi_divergence(r["alpha"], 1.0, 1.0, 0.0, 1.2)
        back = renyi_divergence(r["alpha"], 0.0, 1.2, 1.0, 1.0)
        assert r["finite_pos_neg"] == math.isfinite(fwd) and r["finite_neg_pos"] == math.isfinite(back)
        assert r["d_pos_neg"] == (fwd if math.isfinite(fwd) else None)
        assert r["d_neg_pos"] == (back if math.isfinite(back) else None)
    # σ_α² = 4·1 + (1 − 4)·1.44 < 0: D_4(negatives ‖ positives) = ∞, reported as null with finite = false
    assert d["renyi"][3]["d_neg_pos"] is None and d["renyi"][3]["finite_neg_pos"] is False


def test_vector_means(capsys):
    code, out, _ = _run(capsys, "--mu0", "0,0", "--mu1", "3,4", "--sigma0", "1", "--sigma1", "2", "--json")
    d = json.loads(out)
    assert code == 0 and d["dimension"] == 2 and (d["a"], d["b"]) == (2.5, 0.5)
    assert d["renyi"][0]["d_pos_neg"] == renyi_divergence(0.5, [3, 4], 2.0, [0, 0], 1.0)
    assert d["renyi"][2]["d_neg_pos"] == renyi_divergence(2.0, [0, 0], 1.0, [3, 4], 2.0)
    assert d["renyi"][2]["d_pos_neg"] is None  # σ_α² = 2·1 − 1·4 < 0: infinite


def test_table_output(capsys):
    code, out, err = _run(capsys, "--sigma0", "2", "--sigma1", "1", "--fpr", "0.1")
    assert code == 0 and err == ""
    assert "0.05901417" in out and "0.23340184" in out  # eq 4.5 and the best test at FPR 0.1 (module doctest)
    assert "σ₀ ≠ σ₁" in out and "∞" in out
    code, out, _ = _run(capsys, "--sigma0", "1", "--sigma1", "1")
    assert code == 0 and "σ₀ = σ₁" in out


@pytest.mark.parametrize("args,word", [
    (["--sigma0", "-1", "--sigma1", "1"], "--sigma0"),
    (["--sigma0", "1", "--sigma1", "0"], "--sigma1"),
    (["--sigma0", "nan", "--sigma1", "1"], "--sigma0"),
    (["--sigma0", "1", "--sigma1", "1", "--fpr", "0.1,,0.2"], "--fpr"),
    (["--sigma0", "1", "--sigma1", "1", "--fpr", "1.5"], "--fpr"),
    (["--sigma0", "1", "--sigma1", "1", "--orders", "0"], "--orders"),
    (["--sigma0", "1", "--sigma1", "1", "--orders", "two"], "--orders"),
    (["--sigma0", "1", "--sigma1", "1", "--mu0", "0", "--mu1", "3,4"], "same length"),
    (["--sigma0", "1", "--sigma1", "1", "--mu1", "inf"], "--mu1"),
    (["--sigma0", "1"], "--sigma1"),
])
def test_bad_input_exits_2_with_one_line(capsys, args, word):
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error:") and word in err
    code, out, err = _run(capsys, *args, "--json")  # with --json: one JSON object on stdout
    assert code == 2 and err == "" and word in json.loads(out)["error"]
