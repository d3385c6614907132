"""Bit-identity check of the closed-form views across a code change (no timing).

    git archive <old-commit> src | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old/src python benchmarks/bitident_views.py dump /tmp/old.npz
    PYTHONPATH=$PWD/src     python benchmarks/bitident_views.py dump /tmp/new.npz
    python benchmarks/bitident_views.py compare /tmp/old.npz /tmp/new.npz

Dumps the R, f and δ brackets (array, scalar and ``bayes_error_interval`` paths) of Gaussian, Laplace,
RandomizedResponse, PureDP and ApproxDP on ~5·10⁴ seeded inputs per view, extremes included; ``compare``
lists every array that is not ``np.array_equal`` and every NaN.
"""
import sys

import numpy as np

if sys.argv[1] == "compare":
    a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
    assert set(a.files) == set(b.files)
    bad = [k for k in a.files if not np.array_equal(a[k], b[k])]
    nan = [k for k in b.files if np.isnan(b[k]).any()]
    print("compared", len(a.files), "arrays,", sum(a[k].size for k in a.files), "values; differing:", bad[:10], "NaN:", nan[:10])
    sys.exit(1 if bad or nan else 0)

import dpcompare as dc

out = sys.argv[2]
rng = np.random.default_rng(12345)
n = 20000
def grid():
    u = rng.random(n)
    ext = np.array([0.0, 1.0, 0.5, 5e-324, 1e-300, 1e-200, 1e-17, 1e-16, 1e-12, 1e-8, 0.25, 0.75, 0.2500000001,
                    1 - 1e-16, 1 - 2**-53, 1 - 1e-12, 0.49999999999, 0.5000000001, np.nextafter(0.5, 0), np.nextafter(0.5, 1)])
    lg = 10.0 ** rng.uniform(-320, 0, n // 4)
    return np.concatenate([u, ext, lg, 1 - lg, 0.5 + (rng.random(n // 8) - .5) * 1e-6])
x = grid()
eps = np.concatenate([rng.normal(0, 3, n), 10.0 ** rng.uniform(-10, 3, n // 4), [0.0, -1.0, 1e-300, 1e3, 50, 700, np.inf, -50]])
mechs = {}
for mu in [1e-8, 1e-3, 0.5, 1.0, 3.0, 10.0, 37.0, 60.0]:
    mechs[f"g{mu}"] = dc.Gaussian(mu=mu)
for b in [1e-3, 0.1, 1.0, 3.0, 100.0]:
    mechs[f"l{b}"] = dc.Laplace(b=b)
for name in ["RandomizedResponse", "PureDP", "ApproxDP"]:
    if not hasattr(dc, name): print("missing", name, file=sys.stderr)
for e in [0.1, 1.0, 5.0]:
    mechs[f"rr{e}"] = dc.RandomizedResponse(e)
    mechs[f"pd{e}"] = dc.PureDP(e)
    mechs[f"ad{e}"] = dc.ApproxDP(e, 1e-6)
res = {}
for k, m in mechs.items():
    if m is None: continue
    for nm, fn, arg in [("R", m.bayes_error_bounds, x), ("f", m.tradeoff_bounds, x), ("d", m.delta_bounds, eps)]:
        b = fn(arg)
        res[f"{k}.{nm}.lo"], res[f"{k}.{nm}.hi"] = np.asarray(b.lower), np.asarray(b.upper)
    lo, hi = m.bayes_error_interval(x)
    res[f"{k}.Ri.lo"], res[f"{k}.Ri.hi"] = lo, hi
    # scalar calls too
    sc = np.array([[float(v) for v in m.bayes_error_bounds(float(p))] for p in x[::97]])
    res[f"{k}.Rs"] = sc
    res[f"{k}.tol"] = np.array([m.bayes_error(0.5), getattr(m, "auc", 0.0)], dtype=float)
np.savez(out, **res)
print(len(res), "arrays,", sum(v.size for v in res.values()), "values", file=sys.stderr)
