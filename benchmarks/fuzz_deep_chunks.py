"""The deep API fuzz (tests/package/test_api_fuzz.py, ``deep=True``) in chunks of seeds, with counts per class.

    nice -n 10 python benchmarks/fuzz_deep_chunks.py --first-seed 20261127 --chunks 8 --calls 300

Each chunk is ``fuzz(calls, seed, deep=True)`` with its own seed (so chunks are independent and a run can
stop at any chunk); prints one line of counts per chunk, the bad outcomes with their calls, and the totals
(``--json`` for a machine-readable summary).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "package"))
os.environ["DPCOMPARE_FUZZ"] = "deep"  # the 30 s (CPU) budget per call

import test_api_fuzz as fz  # noqa: E402

CLASSES = ("ok", "clean_error", "internal", "nan", "inf_where_finite", "out_of_range", "over_time")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first-seed", type=int, default=20261127)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    total: Counter = Counter()
    bad_all: dict[str, list[str]] = {}
    for i in range(a.chunks):
        seed = a.first_seed + i
        t0 = time.perf_counter()
        counts, bad = fz.fuzz(a.calls, seed, deep=True)
        total.update(counts)
        for k, v in bad.items():
            bad_all.setdefault(k, []).extend(f"[seed {seed}] {x}" for x in v)
        line = ", ".join(f"{c} {counts.get(c, 0)}" for c in CLASSES)
        print(f"seed {seed}: {a.calls} calls in {time.perf_counter() - t0:.0f} s: {line}", flush=True)
        for k, v in bad.items():
            for x in v:
                print(f"    {k}: {x}", flush=True)
    print("total: " + ", ".join(f"{c} {total.get(c, 0)}" for c in CLASSES), flush=True)
    if a.json:
        print(json.dumps({"counts": {c: total.get(c, 0) for c in CLASSES}, "bad": bad_all}))


if __name__ == "__main__":
    main()
