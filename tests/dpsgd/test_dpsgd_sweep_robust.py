"""Sweeps that meet trouble: an infeasible point is recorded with its reason and the sweep goes
on; Ctrl-C keeps every finished point, says how to resume, and leaves no results file when nothing finished."""

from __future__ import annotations

import csv

import pytest

import dpcompare.dpsgd.sweep as sweep
from dpcompare.dpsgd.sweep import COLUMNS, SweepInterrupted, parse_grid, run_sweep
from dpcompare.io import cli

BASE = """
[target]
epsilon = 2.0
delta = 1e-5

[baseline]
sampling_rate = 0.05
steps = 20
"""
# σ = 0.01: one step is already far above ε = 2 (infeasible); σ = 1: a finite number of steps
GRID = BASE + "[grid]\nsampling_rate = [0.05]\nsigma = [0.01, 1.0]\n"


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_infeasible_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    out = tmp_path / "r.csv"
    summary = run_sweep(parse_grid(GRID), str(out), workers=1)
    rows = {r["point"]: r for r in _rows(out)}
    assert list(_rows(out)[0]) == list(COLUMNS) and COLUMNS[-1] == "reason"
    bad, good = rows["sigma=0.01;sampling_rate=0.05"], rows["sigma=1;sampling_rate=0.05"]
    assert "single step" in bad["reason"] and bad["epsilon"] == "" and bad["delta_base_to_point"] == ""
    assert good["reason"] == "" and float(good["epsilon"]) <= 2.0 and int(good["steps"]) >= 1
    assert summary["computed"] == 2 and summary["infeasible"] == 1


def test_cli_reports_infeasible_points(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    code = cli.main(["sweep", str(tmp_path / "g.toml"), "-o", str(tmp_path / "r.csv"), "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "1 infeasible point(s)" in out


def test_interrupt_keeps_finished_points_and_resumes(tmp_path):
    out = tmp_path / "r.csv"
    grid = BASE + "[grid]\nsampling_rate = [0.1, 0.3]\nsteps = [20]\n"

    def stop(row, done, total):
        raise KeyboardInterrupt

    with pytest.raises(SweepInterrupted) as info:
        run_sweep(parse_grid(grid), str(out), workers=1, on_row=stop)
    assert info.value.saved == 1 and info.value.total == 2 and "run the same command again" in info.value.message
    assert len(_rows(out)) == 1  # the finished point, whole
    summary = run_sweep(parse_grid(grid), str(out), workers=1)
    assert summary["skipped"] == 1 and summary["computed"] == 1 and len(_rows(out)) == 2


def test_interrupt_before_any_point_leaves_no_file(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep, "evaluate_point", interrupted)
    (tmp_path / "g.toml").write_text(GRID)
    out = tmp_path / "r.csv"
    code = cli.main(["sweep", str(tmp_path / "g.toml"), "-o", str(out), "--workers", "1"])
    _, err = capsys.readouterr()
    assert code == 130 and not out.exists()
    assert "interrupted before any point finished" in err and "Traceback" not in err
