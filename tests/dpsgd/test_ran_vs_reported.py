"""``dpcompare ran``: what ran vs the Poisson number usually reported (library and command line)."""

from __future__ import annotations

import json

import pytest

from dpcompare.dpsgd.ran import ran_versus_reported
from dpcompare.io import cli
from dpcompare.io.spec_training import parse_training

SHUFFLE = "sgm(noise_multiplier=0.8, batch_size=100, dataset_size=1000, epochs=1, sampling=shuffle)"


def test_shuffle_at_small_sigma_understates():
    r = ran_versus_reported(parse_training(SHUFFLE))
    assert r.verdict_kind == "understates" and "understates" in r.verdict
    assert r.ran.epsilon[0] > r.reported.epsilon[1]  # the realised dataset alone beats the Poisson ε
    assert r.ran.adjacency == "replace_one" and any("adjacency differs" in n for n in r.notes)
    for side in (r.ran, r.reported):
        for lo, hi in (side.epsilon, side.advantage, side.tpr):
            assert 0 <= lo <= hi
    assert r.delta_reported_ran[0] <= r.delta_reported_ran[1]


def test_poisson_run_is_its_own_report():
    r = ran_versus_reported(parse_training("sgm(noise_multiplier=1, batch_size=100, dataset_size=1000, epochs=1)"))
    assert r.verdict_kind == "valid"
    assert r.ran.epsilon == r.reported.epsilon


def test_cli_json_and_bad_input(capsys):
    code = cli.main(["ran", SHUFFLE, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and out.count("\n") == 1
    d = json.loads(out)
    assert d["verdict_kind"] == "understates" and d["ran"]["adjacency"] == "replace_one"
    code = cli.main(["ran", SHUFFLE.replace("epochs=1", "epochs=1.5")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "epochs must be a whole number" in err
    code = cli.main(["ran", "gaussian(mu=1)"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "run must be sgm" in err


@pytest.mark.parametrize("opt,val,words", [("--delta", "2", "delta must be"), ("--fpr", "0", "fpr must be")])
def test_cli_levels(capsys, opt, val, words):
    code = cli.main(["ran", SHUFFLE, opt, val])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and words in err


def test_plot_html_and_card_carry_the_section(capsys, tmp_path):
    png, page = tmp_path / "ran.png", tmp_path / "ran.html"
    code = cli.main(["ran", SHUFFLE, "--plot", str(png), "--html", str(page), "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = page.read_text(encoding="utf-8")
    assert "What you ran / what you reported" in text and "understates" in text and "<svg" in text
    code = cli.main(["card", SHUFFLE, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["ran_vs_reported"]["verdict_kind"] == "understates"
    code = cli.main(["card", "gaussian(mu=1)", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0 and "ran_vs_reported" not in json.loads(out)


def test_bad_output_suffix_fails_before_computing(capsys, tmp_path):
    code = cli.main(["ran", SHUFFLE, "--plot", str(tmp_path / "x.txt")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith("error:") and not (tmp_path / "x.txt").exists()


def test_report_carries_the_section(capsys, tmp_path):
    page = tmp_path / "r.html"
    code = cli.main(["report", SHUFFLE, "sgm(noise_multiplier=0.8, p=0.1, steps=10)", "-o", str(page), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    assert d["ran_vs_reported"][0]["verdict_kind"] == "understates"
    assert "What you ran / what you reported" in page.read_text(encoding="utf-8")
