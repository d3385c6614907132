"""Benchmark: wall time of whole ``dpcompare`` processes (start-up included), this tree against a baseline tree.

In one run, for each command below it starts ``python -m dpcompare …`` ``--runs`` times alternately
with ``PYTHONPATH=<baseline>/src`` and ``PYTHONPATH=<this tree>/src`` (alternating, so load on the
shared machine hits both alike) and prints the median wall time of each, and their ratio:

  - ``compare "gaussian(mu=1)" "laplace(b=1)"`` — the README's main job;
  - ``describe "sgm(sigma=1, p=0.01, steps=1000)"`` and ``compare`` of two such specs — DP-SGD jobs, whose
    time is mostly the certified composition (and, for describe, the μ̂ fit), not start-up;
  - ``--help`` and ``--version`` — start-up alone.

Each row is also divided by the floor ``python -c "import numpy, scipy.special"`` timed in the same rounds
(the target of every job: ≤ 1.3× that floor); the load average is printed with the table, and a second
table gives each process's CPU time (user + system, from ``getrusage`` of the children), which moves less
than wall time when the machine is shared.

With ``--floors`` it also times, in the same run, processes that only start Python and import what any
``compare`` must load — the floor no lazy import in dpcompare can go below: the interpreter (with this
environment's ``site`` and ``.pth`` files), numpy, scipy.special (the Gaussian's Φ) both as scipy imports
itself (scipy ≥ 1.16 clones the numpy namespace at import, which loads numpy.f2py, numpy.testing, numpy.random…;
dpcompare no longer patches that at import), and typer + rich (the pydantic typer ≥ 0.29 builds
an adapter with for every command parameter is timed too when it is installed; dpcompare pins typer < 0.29).

With ``--importtime`` it also prints the largest cumulative import costs of this tree's ``compare``
(``python -X importtime``), which names what start-up still pays for.

With ``--instructions`` it also counts the instructions of one process of each tree and of the floor per command
(valgrind's cachegrind without cache simulation, ``PYTHONHASHSEED=0``, ``OMP_NUM_THREADS=1``; ≈ 20 s a process).
The count repeats to the instruction whatever the load (one tree gave 1453.0 M in two runs minutes apart, at load 2–4), so a
change of 0.5 % of the floor is seen in one run where CPU times need dozens of rounds; it leaves out what CPU time
adds on top (page faults, cache misses, system calls: the CPU ratio of ``compare`` read ≈ 1.3× where the
instruction ratio read 1.25×), so the target stays stated in CPU and this is the tool for before/after.

Usage:
    python benchmarks/bench_cli_startup.py                      # baseline /work/main, 11 runs each
    python benchmarks/bench_cli_startup.py --baseline PATH --runs 5 --importtime
    python benchmarks/bench_cli_startup.py --floors --runs 5
    python benchmarks/bench_cli_startup.py --instructions --runs 1 --commands "compare gaussian laplace"
    python benchmarks/bench_cli_startup.py --json
    python benchmarks/bench_cli_startup.py --commands "compare gaussian laplace,describe sgm"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
COMMANDS = {
    "compare gaussian laplace": ["compare", "gaussian(mu=1)", "laplace(b=1)"],
    "describe sgm": ["describe", "sgm(sigma=1, p=0.01, steps=1000)"],
    "compare sgm sgm": ["compare", "sgm(sigma=1, p=0.01, steps=1000)", "sgm(sigma=1.2, p=0.01, steps=1000)"],
    "--help": ["--help"],
    "--version": ["--version"],
}
#: the floor every row is divided by (target: ≤ 1.3×), timed interleaved with the rows
FLOOR_CODE = "import numpy, scipy.special"


#: processes that import only what ``compare`` cannot do without (``--floors``)
FLOORS = {
    "python (site, .pth files)": "pass",
    "+ numpy": "import numpy",
    "+ scipy.special (as scipy imports it)": "import numpy, scipy.special",
    "+ typer, rich": "import dpcompare, numpy, scipy.special, typer, rich.table",
}
try:  # typer ≥ 0.29 imports pydantic to coerce every parameter
    import importlib.util
    if importlib.util.find_spec("typer._adapters") is not None:
        FLOORS["+ typer's pydantic adapters"] = FLOORS["+ typer, rich"] + ", typer._adapters"
except ImportError:  # pragma: no cover
    pass


#: CPU seconds (user + system) of the last child run by _run or _run_code: steadier than wall time under load
_LAST_CPU = [0.0]


def _quartiles(xs: list[float]) -> tuple[float, float]:
    """(lower, upper) quartile of ``xs`` (inclusive method); (x, x) for a single value."""
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run_code(code: str) -> float:
    env = _env(HERE / "src")
    c0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    dt = time.perf_counter() - t0
    _LAST_CPU[0] = _children_cpu() - c0
    return dt


def _env(src: Path) -> dict[str, str]:
    """PYTHONPATH = the tree; bytecode caching on (as for a user), whatever this shell says, so that both
    trees are timed from their cached .pyc after the warm-up run."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _run(src: Path, args: list[str]) -> float:
    env = _env(src)
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpcompare", *args], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    _LAST_CPU[0] = _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{src}: dpcompare {' '.join(args)} failed: {proc.stderr.strip()}")
    return dt


def importtime(src: Path, args: list[str], top: int = 12) -> list[tuple[float, str]]:
    """(cumulative seconds, module) of the ``top`` most expensive top-level-or-nested imports."""
    env = _env(src)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "dpcompare", *args], env=env,
                          capture_output=True, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+\s+\|\s+(\d+)\s+\|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(1)) / 1e6, m.group(3)))
    return sorted(rows, reverse=True)[:top]


def parse_instructions(valgrind_stderr: str) -> int | None:
    """The total instruction count ("I refs") cachegrind prints at exit, or None when there is none.

    >>> parse_instructions("==1== \\n==1== I   refs:      1,158,123,456\\n")
    1158123456
    """
    m = re.search(r"I\s+refs:\s+([\d,]+)", valgrind_stderr)
    return int(m.group(1).replace(",", "")) if m else None


def instructions(argv: list[str], src: Path) -> int:
    """Instructions executed by the whole process ``argv`` (valgrind's cachegrind, no cache simulation), with
    ``PYTHONPATH=src``, hash randomisation off and one OpenMP thread, so that the count repeats."""
    env = {**_env(src), "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
                          env=env, capture_output=True, text=True)
    n = parse_instructions(proc.stderr)
    if proc.returncode != 0 or n is None:
        raise SystemExit(f"valgrind {' '.join(argv)} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="/work/main", help="baseline tree (its src/ goes on PYTHONPATH)")
    ap.add_argument("--runs", type=int, default=11, help="runs per command and tree (median reported)")
    ap.add_argument("--importtime", action="store_true", help="also list this tree's largest import costs")
    ap.add_argument("--floors", action="store_true", help="also time processes that only import the unavoidable")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--instructions", action="store_true",
                    help="also count each process's instructions (valgrind; one process per tree and command)")
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help="comma-separated rows to time (default: all): " + ", ".join(COMMANDS))
    args = ap.parse_args(argv)
    chosen = [c.strip() for c in args.commands.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in COMMANDS]
    if unknown or not chosen:
        ap.error(f"--commands: unknown row(s) {unknown}; known: {', '.join(COMMANDS)}")
    if args.runs < 1:
        ap.error("--runs must be ≥ 1")
    if args.instructions and shutil.which("valgrind") is None:
        ap.error("--instructions needs valgrind on PATH")
    trees = {"baseline": Path(args.baseline).resolve() / "src", "this tree": HERE / "src"}
    for name, src in trees.items():
        if not (src / "dpcompare" / "__init__.py").exists():
            ap.error(f"{name}: no dpcompare package under {src}")
    results = {}
    load = os.getloadavg()[0]
    for label in chosen:
        cmd = COMMANDS[label]
        times: dict[str, list[float]] = {k: [] for k in (*trees, "floor")}
        cpu: dict[str, list[float]] = {k: [] for k in (*trees, "floor")}
        for name, src in trees.items():  # one warm-up each (file cache), not counted
            _run(src, cmd)
        _run_code(FLOOR_CODE)
        for _ in range(args.runs):
            for name, src in trees.items():
                times[name].append(_run(src, cmd))
                cpu[name].append(_LAST_CPU[0])
            times["floor"].append(_run_code(FLOOR_CODE))
            cpu["floor"].append(_LAST_CPU[0])
        med = {k: statistics.median(v) for k, v in times.items()}
        mcpu = {k: statistics.median(v) for k, v in cpu.items()}
        # spread: the quartiles of the per-round ratios (each process ÷ the floor timed in the same round)
        q = {k: _quartiles([x / f for x, f in zip(cpu[k], cpu["floor"])]) for k in trees}
        results[label] = {"baseline_s": med["baseline"], "this_tree_s": med["this tree"], "floor_s": med["floor"],
                          "speedup": med["baseline"] / med["this tree"],
                          "baseline_over_floor": med["baseline"] / med["floor"],
                          "this_tree_over_floor": med["this tree"] / med["floor"],
                          "cpu_baseline_s": mcpu["baseline"], "cpu_this_tree_s": mcpu["this tree"],
                          "cpu_floor_s": mcpu["floor"], "cpu_this_tree_over_floor": mcpu["this tree"] / mcpu["floor"],
                          "cpu_baseline_over_floor": mcpu["baseline"] / mcpu["floor"], "runs": args.runs,
                          "cpu_this_tree_over_floor_quartiles": list(q["this tree"]),
                          "cpu_baseline_over_floor_quartiles": list(q["baseline"]),
                          "cpu_floor_range_s": [min(cpu["floor"]), max(cpu["floor"])]}
    load = max(load, os.getloadavg()[0])
    floors = {}
    if args.floors:
        for label, code in FLOORS.items():
            _run_code(code)  # warm-up
            floors[label] = statistics.median(_run_code(code) for _ in range(args.runs))
    imports = importtime(trees["this tree"], COMMANDS["compare gaussian laplace"]) if args.importtime else []
    counts: dict[str, dict[str, int]] = {}
    if args.instructions:  # after the timed rounds: every tree's .pyc is written
        floor_n = instructions([sys.executable, "-c", FLOOR_CODE], HERE / "src")
        for label in chosen:
            counts[label] = {"floor": floor_n, **{name: instructions([sys.executable, "-m", "dpcompare", *COMMANDS[label]], src)
                                                 for name, src in trees.items()}}
    if args.json:
        print(json.dumps({"baseline": str(trees["baseline"]), "load": load, "results": results, "floors": floors,
                          "importtime": [{"seconds": s, "module": m} for s, m in imports], "instructions": counts}))
        return 0
    print(f"baseline: {trees['baseline']}   this tree: {trees['this tree']}   median of {args.runs} interleaved runs"
          f"   load average (1 min, highest seen): {load:.2f}")
    print(f"floor: python -c {FLOOR_CODE!r}, timed in the same rounds as each row (target: ≤ 1.3× floor)")
    print(f"{'command':26} {'baseline [s]':>12} {'this tree [s]':>13} {'floor [s]':>9} {'speed-up':>8} "
          f"{'base/floor':>10} {'this/floor':>10}")
    for label, r in results.items():
        print(f"{label:26} {r['baseline_s']:12.3f} {r['this_tree_s']:13.3f} {r['floor_s']:9.3f} {r['speedup']:7.2f}× "
              f"{r['baseline_over_floor']:9.2f}× {r['this_tree_over_floor']:9.2f}×")
    print("\nCPU (user + system of each process, median; steadier than wall time on a loaded machine); the ratio of the"
          "\nmedians, and in brackets the quartiles of the per-round ratios (each process ÷ the floor of its round)")
    print(f"{'command':26} {'baseline [s]':>12} {'this tree [s]':>13} {'floor [s]':>9} {'base/floor':>10} "
          f"{'this/floor':>10} {'this/floor quartiles':>21}")
    for label, r in results.items():
        lo, hi = r["cpu_this_tree_over_floor_quartiles"]
        print(f"{label:26} {r['cpu_baseline_s']:12.3f} {r['cpu_this_tree_s']:13.3f} {r['cpu_floor_s']:9.3f} "
              f"{r['cpu_baseline_over_floor']:9.2f}× {r['cpu_this_tree_over_floor']:9.2f}× {f'[{lo:.2f}, {hi:.2f}]×':>21}")
    if floors:
        print("\nfloor: processes importing only what `compare` needs anyway (median, same run)")
        for label, t in floors.items():
            print(f"  {label:46} {t:7.3f} s")
    if counts:
        print("\ninstructions of one process each (valgrind cachegrind; repeat exactly, whatever the load), M = 10⁶")
        print(f"{'command':26} {'baseline':>10} {'this tree':>10} {'floor':>10} {'base/floor':>10} {'this/floor':>10}")
        for label, c in counts.items():
            print(f"{label:26} {c['baseline'] / 1e6:9.1f}M {c['this tree'] / 1e6:9.1f}M {c['floor'] / 1e6:9.1f}M "
                  f"{c['baseline'] / c['floor']:9.4f}× {c['this tree'] / c['floor']:9.4f}×")
    if imports:
        print("\nlargest cumulative imports of `compare` in this tree (python -X importtime):")
        for s, m in imports:
            print(f"  {s:7.3f} s  {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
