"""Per-call time of the directed Bayes error brackets and of the compare that sweeps them (no baseline:
run it against an older checkout, interleaved, and compare the medians).

    git archive <old-commit> src | tar -x -C /tmp/old
    for i in 1 2 3 4 5 6; do
        PYTHONPATH=/tmp/old/src python benchmarks/bench_bayes_directed.py
        PYTHONPATH=$PWD/src     python benchmarks/bench_bayes_directed.py
    done

Prints one line: median ms per ``compare(Gaussian(μ=1), Laplace(b=1), tol=1e-3)`` (15 batches of 20), and
the best µs per ``bayes_error_interval`` on 50 priors for each mechanism. ``--profile`` prints cProfile's
top 25 (tottime) over 200 compares instead.
"""
import cProfile
import pstats
import statistics
import sys
import time
import timeit

import numpy as np

import dpcompare as dc

g, l = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)
for _ in range(20):
    dc.compare(g, l, tol=1e-3)
if "--profile" in sys.argv:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        dc.compare(g, l, tol=1e-3)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    sys.exit(0)
ts = []
for _ in range(15):
    t0 = time.perf_counter()
    for _ in range(20):
        dc.compare(g, l, tol=1e-3)
    ts.append((time.perf_counter() - t0) / 20)
p = np.linspace(0.0, 1.0, 50)
best = {m: min(timeit.repeat(lambda: m.bayes_error_interval(p), number=200, repeat=7)) / 200 for m in (g, l)}
print(f"compare {statistics.median(ts) * 1e3:.3f} ms   R interval: Gaussian {best[g] * 1e6:.1f} µs, Laplace {best[l] * 1e6:.1f} µs")
