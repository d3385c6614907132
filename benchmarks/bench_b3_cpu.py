"""The B.3 ratio in CPU time on both sides: [BCP] Appendix B.3's code (tol 1e-3, one worker) against
``compare(Gaussian(μ=1), Laplace(b=1), tol=1e-3)``, in one process.

On a shared machine the wall-time ratio of ``bench_targets.py --only b3`` follows the load (the baseline's
single multi-second run absorbs it, our minimum over 30 calls does not), so this prints CPU times: the
baseline's ``Pool`` worker through ``getrusage(RUSAGE_CHILDREN)``, ours through ``time.process_time`` per call
(30 calls before the baseline and 30 after). Interleave trees to compare versions:

    for t in /tmp/old $PWD; do PYTHONPATH=$t/src python benchmarks/bench_b3_cpu.py; done

``--quick``: both at tol 1e-2 (100 priors for the baseline; a smoke run, not a measurement).
"""
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baseline_b3  # noqa: E402

import dpcompare as dc  # noqa: E402

TOL = 1e-2 if "--quick" in sys.argv else 1e-3


def ours() -> None:
    dc.compare(dc.Gaussian(mu=1.0), dc.Laplace(b=1.0), tol=TOL)


def batch() -> list[float]:
    ts = []
    for _ in range(30):
        t0 = time.process_time()
        ours()
        ts.append(time.process_time() - t0)
    return ts


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


ours()
ts = batch()
c0, k0, w0 = time.process_time(), children_cpu(), time.perf_counter()
baseline_b3.delta_divergences(tol=TOL, mu=1.0, n_jobs=1)
cb, wb = time.process_time() - c0 + children_cpu() - k0, time.perf_counter() - w0
ts += batch()
print(f"load {os.getloadavg()[0]:.1f}: B.3 CPU {cb:.2f} s (wall {wb:.2f} s); ours CPU min {min(ts) * 1e3:.3f} ms "
      f"median {statistics.median(ts) * 1e3:.3f} ms; ratio CPU/min {cb / min(ts):.3g}, CPU/median {cb / statistics.median(ts):.3g}")
