"""CPU time of the steps of ``compare(Gaussian(μ=1), Laplace(b=1), tol=1e-3)`` (the B.3 job), each timed alone:
minimum over 20 batches of 100 calls of ``time.process_time`` (steadier than wall time on a shared machine), µs.

Steps: the whole compare, the initial grid, the R brackets of each mechanism on the 199-point grid and on a
57-point crossing round, the max states of both directions of Δ on one grid, and the crossings (two rounds,
their R evaluations included). Trees whose sweep seeds the crossings (``prior_sweep.crossing_seeds``) add the
steps of that path: the seeds, the seeded first grid (224 points), both R brackets and both max states on it,
and the crossings read off it (no round). Interleave trees to compare versions:

    for t in /tmp/old $PWD; do PYTHONPATH=$t/src python benchmarks/bench_b3_steps.py; done

``--quick``: 2 batches of 5 calls (a smoke run, not a measurement).
"""
import sys
import time

import numpy as np

import dpcompare as dc
from dpcompare.comparison import prior_sweep as ps

g, l = dc.Gaussian(mu=1.0), dc.Laplace(b=1.0)


QUICK = "--quick" in sys.argv


def cpu_us(f, n: int = 5 if QUICK else 100, r: int = 2 if QUICK else 20) -> float:
    best = 1e9
    for _ in range(r):
        t0 = time.process_time()
        for _ in range(n):
            f()
        best = min(best, (time.process_time() - t0) / n)
    return best * 1e6


x = ps.initial_grid(g, l, False)
alo, ahi = ps._bounds(g, x)
blo, bhi = ps._bounds(l, x)
p = np.linspace(0.41, 0.42, 57)
targets = [ps.MaxTarget(False), ps.MaxTarget(True)]


def two_max_states() -> None:
    grid = ps.Grid(x, alo, ahi, blo, bhi)
    for t in targets:
        ps._max_state(grid, t, True, 1e-12)


G = ps.Grid(x, alo, ahi, blo, bhi)
res = dict(compare=cpu_us(lambda: dc.compare(g, l, tol=1e-3)), init=cpu_us(lambda: ps.initial_grid(g, l, False)),
           Gx199=cpu_us(lambda: ps._bounds(g, x)), Lx199=cpu_us(lambda: ps._bounds(l, x)),
           G57=cpu_us(lambda: ps._bounds(g, p)), L57=cpu_us(lambda: ps._bounds(l, p)),
           two_max_states=cpu_us(two_max_states), crossings=cpu_us(lambda: ps.crossings(g, l, G)))
if hasattr(ps, "crossing_seeds"):  # trees with the seeded first grid: its steps (the compare path since then)
    seeds = ps.crossing_seeds(g, l)
    xs = ps.initial_grid(g, l, False, seeds)
    GS = ps.Grid(xs, *ps._bounds(g, xs), *ps._bounds(l, xs))

    def two_max_states_seeded() -> None:
        grid = ps.Grid(xs, GS.alo, GS.ahi, GS.blo, GS.bhi)
        for t in targets:
            ps._max_state(grid, t, True, 1e-12)

    res.update(seeds=cpu_us(lambda: ps.crossing_seeds(g, l)), init_seeded=cpu_us(lambda: ps.initial_grid(g, l, False, seeds)),
               Gx_seeded=cpu_us(lambda: ps._bounds(g, xs)), Lx_seeded=cpu_us(lambda: ps._bounds(l, xs)),
               two_max_states_seeded=cpu_us(two_max_states_seeded), crossings_seeded=cpu_us(lambda: ps.crossings(g, l, GS)))
print("  ".join(f"{k} {v:.0f}" for k, v in res.items()))
