"""Re-time the deep fuzz's over-time calls alone, by CPU time (a loaded machine inflates wall time many times).

    python benchmarks/fuzz_retime.py LOG [--limit 120]

LOG: the output of ``benchmarks/fuzz_deep_chunks.py``. Each ``over_time: <call>: …`` line is evaluated in a fresh
process with the fuzz module's names (``tests/package/test_api_fuzz.py``), under an RLIMIT_CPU of ``--limit``
seconds; prints the call's CPU and wall time, or that it hit the limit, and a markdown table (``--markdown``).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = r"""
import sys, time, warnings
sys.path.insert(0, {tests!r})
import numpy as np
from test_api_fuzz import *  # the fuzz's names: dc, gaussian, mixtures, Composed, …
import test_api_fuzz as fz
ns = dict(vars(fz))
for mod in (fz.dc, fz.mixtures, fz.gaussian):
    ns.update({{k: getattr(mod, k) for k in dir(mod) if not k.startswith("_")}})
for spec in ("shuffle", "shuffle_pair"):  # labels the fuzz builds from the spec language
    ns[spec] = (lambda name: lambda **kw: fz.dc.parse(name + "(" + ", ".join(f"{{k}}={{v!r}}" for k, v in kw.items()) + ")"))(spec)
t0, c0 = time.perf_counter(), time.process_time()
with warnings.catch_warnings(), np.errstate(all="ignore"):
    warnings.simplefilter("ignore")
    try:
        eval({call!r}, ns)
        outcome = "ok"
    except (ValueError, TypeError) as exc:
        outcome = "clean error: " + str(exc)[:80]
print(f"{{time.process_time() - c0:.2f}} {{time.perf_counter() - t0:.2f}} {{outcome}}")
"""


def calls_of(log: str) -> list[str]:
    out = []
    for line in open(log, encoding="utf-8"):
        m = re.match(r"\s*over_time: (.*): [0-9.]+ ?s", line)
        if m and m.group(1) not in out:
            out.append(m.group(1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--limit", type=int, default=120, help="CPU seconds per call (RLIMIT_CPU)")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    tests = os.path.join(HERE, "..", "tests", "package")
    rows = []
    for call in calls_of(a.log):
        code = CHILD.format(tests=tests, call=call)

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (a.limit, a.limit + 5))

        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limit)
        if r.returncode == 0 and r.stdout.strip():
            cpu, wall, outcome = r.stdout.strip().splitlines()[-1].split(" ", 2)
            rows.append((call, f"{float(cpu):.1f} s", f"{float(wall):.1f} s", outcome))
        elif r.returncode in (-24, 128 + 24, -9):  # SIGXCPU at the soft limit, SIGKILL at the hard one
            rows.append((call, f"> {a.limit} s (limit)", f"{time.perf_counter() - t0:.0f} s", "-"))
        else:
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            rows.append((call, "-", f"{time.perf_counter() - t0:.0f} s", f"failed: {last[:120]}"))
        print(" | ".join(rows[-1]), flush=True)
    if a.markdown:
        print("\n| call | CPU | wall | outcome |\n| --- | --- | --- | --- |")
        for r_ in rows:
            print("| `" + r_[0] + "` | " + " | ".join(r_[1:]) + " |")


if __name__ == "__main__":
    main()
