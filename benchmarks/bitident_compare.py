"""Bit-identity check of ``compare`` across a code change of the prior sweep or the closed-form views (no timing).

    git archive <old-commit> src | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old/src python benchmarks/bitident_compare.py dump /tmp/old.npz
    PYTHONPATH=$PWD/src     python benchmarks/bitident_compare.py dump /tmp/new.npz
    python benchmarks/bitident_views.py compare /tmp/old.npz /tmp/new.npz

Dumps every float of ``compare(A, B)`` (both Δ brackets with their π, the crossings, and with a hyper-prior the
weighted Δ^Ψ and regrets) for pairs of Gaussian, Laplace, RandomizedResponse, PureDP, ApproxDP mechanisms, at
two tolerances and with/without a Beta hyper-prior; the ``compare`` step of ``bitident_views.py`` lists every
array that differs.
"""
import sys

import numpy as np

import dpcompare as dc


def flat(c) -> np.ndarray:
    vals = []
    for d in (c.delta_ab, c.delta_ba):
        vals += [d.value, d.lower, d.upper, d.pi]
    vals += list(c.crossings) + [float(len(c.crossings))]
    if c.weighted is not None:
        w = c.weighted
        for d in (w.delta_ab, w.delta_ba, w.regret_ab, w.regret_ba):
            vals += [d.value, d.lower, d.upper]
    return np.array(vals, dtype=float)


mechs = {f"g{mu}": dc.Gaussian(mu=mu) for mu in (1e-3, 0.25, 0.5, 1.0, 2.0, 5.0, 20.0)}
mechs.update({f"l{b}": dc.Laplace(b=b) for b in (0.05, 0.5, 1.0, 2.0, 10.0)})
mechs.update({"rr1": dc.RandomizedResponse(1.0), "pd2": dc.PureDP(2.0), "ad": dc.ApproxDP(0.5, 1e-3)})
names = list(mechs)
res = {}
for i, na in enumerate(names):
    for nb in names[i + 1:]:
        for tol in (1e-3, 1e-9):
            res[f"{na}|{nb}|{tol}"] = flat(dc.compare(mechs[na], mechs[nb], tol=tol))
for na, nb in [("g1.0", "l1.0"), ("g0.5", "l2.0"), ("g2.0", "rr1"), ("l0.5", "pd2")]:
    res[f"{na}|{nb}|beta"] = flat(dc.compare(mechs[na], mechs[nb], hyperprior=dc.BetaPrior(2.0, 5.0)))
np.savez(sys.argv[2], **res)
print(len(res), "comparisons", file=sys.stderr)
