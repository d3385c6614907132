"""`dpcompare sweep`: grid validation, streaming CSV with resume and repair, local and Dask backends."""

from __future__ import annotations

import os

import csv
import json

import pytest

from dpcompare.io import cli
from dpcompare.dpsgd.sweep import COLUMNS, parse_grid, pareto_efficient, prepare_results, run_sweep

GRID = """
[target]
epsilon = 2.0
delta = 1e-5

[baseline]
sampling_rate = 0.05
steps = 20

[grid]
sampling_rate = [0.1, 0.3]
steps = [20, 40]

[[accuracy]]
sampling_rate = 0.1
steps = 20
accuracy = 0.6
[[accuracy]]
sampling_rate = 0.3
steps = 40
accuracy = 0.5
"""


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    (d / "grid.toml").write_text(GRID)
    out = d / "r.csv"
    summary = run_sweep(parse_grid(GRID), str(out), workers=1)
    return d, out, summary


def test_sweep_rows(finished):
    _, out, summary = finished
    rows = _rows(out)
    assert summary["computed"] == 4 and len(rows) == 4
    assert list(rows[0]) == list(COLUMNS)
    for r in rows:
        assert 2.0 - 1e-3 <= float(r["epsilon"]) <= 2.0
        assert float(r["delta_base_to_point_lower"]) <= float(r["delta_base_to_point"]) <= float(r["delta_base_to_point_upper"])
    # larger p at the same (ε, δ) is more exposed than the baseline ([BCP] Fig 6)
    by = {r["point"]: r for r in rows}
    assert float(by["sampling_rate=0.3;steps=40"]["delta_base_to_point"]) > float(by["sampling_rate=0.1;steps=20"]["delta_base_to_point"]) > 0
    # accuracy 0.6 with less Δ dominates 0.5 with more Δ
    assert pareto_efficient(rows) == ["sampling_rate=0.1;steps=20"]


def test_resume_skips_and_repairs_half_written_line(finished, tmp_path):
    _, out, _ = finished
    text = out.read_text()
    lines = text.splitlines(keepends=True)
    killed = tmp_path / "killed.csv"
    killed.write_text("".join(lines[:3]) + lines[3][:25])  # header + 2 rows + a half-written third row
    notes: list[str] = []
    s = run_sweep(parse_grid(GRID), str(killed), workers=1, notes=notes)
    assert s["skipped"] == 2 and s["computed"] == 2
    assert any("half-written" in n for n in notes)
    rows = _rows(killed)
    assert len(rows) == 4 and len({r["point"] for r in rows}) == 4
    s2 = run_sweep(parse_grid(GRID), str(killed), workers=1)
    assert s2["computed"] == 0 and s2["skipped"] == 4


def test_foreign_file_is_not_overwritten(tmp_path):
    f = tmp_path / "other.csv"
    f.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        prepare_results(str(f))
    assert f.read_text() == "a,b\n1,2\n"


@pytest.mark.parametrize(
    "edit, match",
    [
        (("[grid]", "[grid]\nbatch = [1]"), "unknown key grid.batch"),
        (("epsilon = 2.0", "epsilon = \"two\""), "target.epsilon must be float"),
        (("epsilon = 2.0", "epsilon = -1.0"), "target.epsilon must be > 0"),
        (("delta = 1e-5", "delta = 1.5"), "target.delta"),
        (("steps = [20, 40]", "steps = [20, 40.5]"), "grid.steps must hold int"),
        (("[baseline]", "[baselin]"), "unknown section"),
        (("sampling_rate = [0.1, 0.3]", "sampling_rate = [0.1, 1.3]"), "sampling_rate must be in"),
        (("accuracy = 0.6", "accuracy = 0.6\nlr = 0.1"), "unknown key"),
        (("[target]", "[target"), "not valid TOML"),
    ],
)
def test_grid_validation(edit, match):
    with pytest.raises(ValueError, match=match):
        parse_grid(GRID.replace(*edit, 1))


def test_cli_sweep_json_and_errors(finished, capsys, tmp_path):
    d, out, _ = finished
    code = cli.main(["sweep", str(d / "grid.toml"), "-o", str(out), "--json"])  # everything done: resumes, 0 computed
    o, e = capsys.readouterr()
    assert code == 0, e
    s = json.loads(o)
    assert s["computed"] == 0 and s["skipped"] == 4 and s["pareto_efficient"] == ["sampling_rate=0.1;steps=20"]
    bad = tmp_path / "bad.toml"
    bad.write_text(GRID.replace("[grid]", "[grid]\nnoise = [1.0]"))
    code = cli.main(["sweep", str(bad), "-o", str(tmp_path / "x.csv")])
    o, e = capsys.readouterr()
    assert code == 2 and "grid.noise" in e and e.count("\n") == 1
    assert not (tmp_path / "x.csv").exists()


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True,
                      dashboard_address=None) as cluster:
        out = tmp_path / "dask.csv"
        s = run_sweep(parse_grid(GRID), str(out), scheduler=cluster.scheduler_address)
        assert s["backend"] == "dask" and s["computed"] == 4
        assert len(_rows(out)) == 4
    del distributed


def test_sigma_axis_calibrates_steps(tmp_path):
    text = GRID.split("[grid]")[0] + "[grid]\nsampling_rate = [0.05]\nsigma = [1.0, 2.0]\n"
    cfg = parse_grid(text)
    out = tmp_path / "s.csv"
    run_sweep(cfg, str(out), workers=1)
    rows = {r["point"]: r for r in _rows(out)}
    assert set(rows) == {"sigma=1;sampling_rate=0.05", "sigma=2;sampling_rate=0.05"}
    assert int(rows["sigma=2;sampling_rate=0.05"]["steps"]) > int(rows["sigma=1;sampling_rate=0.05"]["steps"])
    assert all(float(r["epsilon"]) <= 2.0 for r in rows.values())


def test_parquet_results_match_csv_and_resume(finished, tmp_path, capsys):
    """A .parquet results file holds the same rows as the CSV run, typed, and resumes like it."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from dpcompare.dpsgd.sweep import read_results

    _, csv_out, _ = finished
    cfg = parse_grid(GRID)
    out = tmp_path / "r.parquet"
    s = run_sweep(cfg, str(out), workers=1)
    assert s["computed"] == 4
    table = pq.read_table(out)
    assert table.schema.names == list(COLUMNS)
    assert table.schema.field("steps").type == pa.int64() and table.schema.field("point").type == pa.string()
    by_csv = {r["point"]: r for r in _rows(csv_out)}
    rows = read_results(str(out))
    for r in rows:  # the computation is deterministic: same numbers as the CSV run (up to CSV's repr)
        c = by_csv[r["point"]]
        assert r["sigma"] == pytest.approx(float(c["sigma"]), rel=1e-12)
        assert r["delta_base_to_point"] == pytest.approx(float(c["delta_base_to_point"]), rel=1e-12)
        assert (r["accuracy"] is None) == (c["accuracy"] == "")
    assert pareto_efficient(rows) == ["sampling_rate=0.1;steps=20"]
    # a run killed mid-write leaves a temporary file, never a damaged results file: both are handled
    pq.write_table(table.slice(0, 2), out)  # as if killed after two points
    (tmp_path / "r.parquet.tmp").write_bytes(b"PAR1 half a file")
    notes: list[str] = []
    s2 = run_sweep(cfg, str(out), workers=1, notes=notes)
    assert s2["skipped"] == 2 and s2["computed"] == 2
    assert any("temporary file" in n for n in notes) and not (tmp_path / "r.parquet.tmp").exists()
    assert sorted(r["point"] for r in read_results(str(out))) == sorted(by_csv)
    (tmp_path / "grid.toml").write_text(GRID)
    assert cli.main(["sweep", str(tmp_path / "grid.toml"), "-o", str(out), "--json"]) == 0  # all done: resumes
    s3 = json.loads(capsys.readouterr().out)
    assert s3["computed"] == 0 and s3["pareto_efficient"] == ["sampling_rate=0.1;steps=20"]


def test_damaged_parquet_is_not_overwritten(tmp_path):
    pytest.importorskip("pyarrow")
    f = tmp_path / "bad.parquet"
    f.write_bytes(b"not parquet at all")
    with pytest.raises(ValueError, match="not a readable Parquet file"):
        prepare_results(str(f))
    assert f.read_bytes() == b"not parquet at all"
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        prepare_results(str(tmp_path / "r.txt"))


def test_parallel_points_use_one_fft_thread(tmp_path, monkeypatch):
    """evaluate_point(fft_threads=1) (what parallel sweeps pass) composes with one FFT thread; results
    do not depend on the thread count."""
    from dpcompare.composition import sgm_certified as acc
    from dpcompare.composition import sgm_compose
    from dpcompare.dpsgd.sweep import evaluate_point

    from dpcompare import clear_caches

    seen: list[int] = []
    build = sgm_compose._build_side
    monkeypatch.setattr(sgm_compose, "_build_side", lambda part, steps, h, r, workers, **kw: (
        seen.append(workers), build(part, steps, h, r, workers, **kw))[1])
    cfg = parse_grid(GRID)
    pt = cfg.points()[0]
    clear_caches()
    a = evaluate_point(cfg, pt)
    assert seen and set(seen) == {os.cpu_count() or 1}  # every composition built here, on all cores
    seen.clear()
    clear_caches()
    b = evaluate_point(cfg, pt, 1)
    assert seen and set(seen) == {1}  # rebuilt from scratch, each with one FFT thread
    with acc.fft_workers_scope(1):
        assert acc.fft_workers() == 1
    assert acc.fft_workers() == (os.cpu_count() or 1)  # the scope does not leak
    for k in ("sigma", "delta_base_to_point", "advantage"):
        assert a[k] == pytest.approx(b[k], rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError, match="workers must be"):
        acc.set_fft_workers(0)
