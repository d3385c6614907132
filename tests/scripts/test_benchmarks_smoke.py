"""Smoke tests of the benchmarks in benchmarks/: they run, print their tables and valid JSON (the big ones with --quick).

No timing is asserted (speed is measured by the benchmark scripts); the B.3 baseline runs at tol = 1e-2 (100 priors).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_gauss_laplace.py"


def _run(*args: str, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(script), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=script.parent.parent,
    )


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_gauss_laplace_quick_prints_table():
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in ("method", "time [s]", "Δ(G‖L)", "Δ(L‖G)", "speed-up", "B.3 (paper)", "dpcompare delta_divergence"):
        assert needle in out
    assert "bracket∋exact" in out and " NO " not in out


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_gauss_laplace_quick_json():
    proc = _run("--json", "--repeat", "1")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)  # one JSON object and nothing else
    assert res["quick"] is True
    methods = [r["method"] for r in res["rows"]]
    # B.3, delta_divergences (one sweep), delta_divergence × 2, compare, oracle
    assert methods[0].startswith("B.3 (paper)") and len(methods) == 5
    for row in res["rows"][1:]:
        assert row["bracket_contains_exact"] is True
        assert row["err_gl"] < 1e-6 and row["err_lg"] < 1e-6
    assert res["rows"][1]["err_gl"] <= 1e-9 and res["rows"][1]["err_lg"] <= 1e-9


ALL = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_all.py"


def _run_all(*args: str) -> subprocess.CompletedProcess:
    return _run("--only", "gauss_laplace", "shuffle", *args, script=ALL)


@pytest.mark.skipif(not ALL.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_all_quick_prints_markdown_table():
    """bench_all --quick: one Markdown table, a row per job with the issue's figure, ours, the peer and a ratio."""
    proc = _run_all()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "| job | before | now | peer (same run) | peer / now |"
    assert lines[1] == "| --- | --- | --- | --- | --- |"
    body = [ln for ln in lines[2:] if ln.startswith("| ")]
    assert len(body) == 4  # compare, delta_divergence, shuffling n = 1e4 and its fresh-process row
    assert all(ln.count("|") == 6 for ln in body)
    assert "B.3" in body[0] and "FMT" in body[2]


@pytest.mark.skipif(not ALL.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_all_quick_json_is_certified_and_accurate():
    proc = _run_all("--json")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["quick"] is True
    rows = {r["key"] + ":" + r["job"]: r for r in res["rows"]}
    gl = [r for r in res["rows"] if r["key"] == "gauss_laplace"]
    assert len(gl) == 2 and all(r["error"] <= 1e-12 and r["ratio"] > 0 for r in gl)
    big = [r for r in res["rows"] if r["key"] == "shuffle_1e9"][0]
    lo, hi = big["delta"]
    assert 0.0 <= lo <= hi <= 1e-6 and big["rss_mb"] > 0  # the reported ε is certified at δ = 1e-6
    assert len(rows) == len(res["rows"])


# ---------------------------------------------------------------------------------------------- the other benchmarks
# The smallest run of each benchmark that has no smoke test above: it runs, and its JSON says what it
# measured. Baselines are this tree itself (the ratio is then ~1; the point is that the script works).
BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _bench_json(name: str, *args: str) -> dict | list:
    proc = subprocess.run([sys.executable, str(BENCH / name), *args, "--json"], capture_output=True, text=True,
                          timeout=300, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_fixed_batch_smoke():
    rows = _bench_json("bench_fixed_batch.py", "--runs", "1")
    for r in rows:  # certified ε ≥ the realised lower ε, and below dp-accounting's (looser) RDP ε
        assert r["epsilon_realised_lower"] <= r["epsilon_certified"] <= r["epsilon_rdp"]


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_composed_laplace_smoke():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_composed_laplace.py")], capture_output=True, text=True,
                          timeout=300, cwd=BENCH.parent)
    assert proc.returncode == 0, proc.stderr
    assert "ratio baseline/ours" in proc.stdout and proc.stdout.count("FFT length") == 3


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_sweep_smoke():
    res = _bench_json("bench_sweep.py", "--baseline", "src", "--size", "2", "--workers", "1")
    assert res["points"] == 4 and res["brackets_disjoint"] == []  # the same tree twice: the brackets agree


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_cli_startup_smoke():
    res = _bench_json("bench_cli_startup.py", "--baseline", ".", "--runs", "1",
                      "--commands", "compare gaussian laplace,--version")
    assert set(res["results"]) == {"compare gaussian laplace", "--version"}
    assert all(r["this_tree_over_floor"] > 0 for r in res["results"].values())


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ not present (installed package)")
def test_bench_mixtures_engine_smoke():
    # two jobs of the eight (the mixture engine's and a random-initialisation one): the script's paths, not its table
    res = _bench_json("bench_mixtures_engine.py", "--baseline-src", "src", "--repeat", "1", "--rounds", "1",
                      "--only", "random_init clipped, T=1;mixture(0.3*rr(eps=1), 0.7*gaussian(mu=2))")
    assert len(res["rows"]) == 2 and all(r["epsilon_this"] == r["epsilon_baseline"] for r in res["rows"])
