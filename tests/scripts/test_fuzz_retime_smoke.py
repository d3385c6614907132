"""Smoke test of benchmarks/fuzz_retime.py: it reads a deep-fuzz log, re-runs each over-time call alone and reports
its CPU time and outcome (a clean error is reported as such, a call over the CPU limit as the limit)."""

from __future__ import annotations

from run_script import BENCHMARKS, needs_benchmarks, run_script

SCRIPT = BENCHMARKS / "fuzz_retime.py"


@needs_benchmarks
def test_fuzz_retime_reads_a_log(tmp_path):
    log = tmp_path / "fuzz.log"
    log.write_text(
        "seed 1: 250 calls in 9 s: ok 1, clean_error 0, internal 0, nan 0, inf_where_finite 0, out_of_range 0, over_time 2\n"
        "    over_time: dc.Gaussian(mu=1.0).delta(0.5): 31.0s\n"
        "    over_time: dc.Gaussian(mu=-1.0): 40.2 s CPU (50.0 s wall)\n",
        encoding="utf-8")
    proc = run_script(SCRIPT, str(log), "--limit", "60", "--markdown", timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("dc.Gaussian(mu=1.0).delta(0.5) | ") and lines[0].endswith("| ok")
    assert lines[1].startswith("dc.Gaussian(mu=-1.0) | ") and "clean error: mu must be" in lines[1]
    assert "| call | CPU | wall | outcome |" in proc.stdout
