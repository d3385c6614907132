"""How often the closed-form f(α) and R(π) land above their real value (mpmath at 50 digits), and by how much.

f and R are the adversary's minimal errors: a float above the real number overstates privacy. For each
closed form (Gaussian, Laplace, f_{ε,δ} of randomized response / (ε, δ)-DP) the script draws N seeded
(parameter, α, π) triples over the whole domain (α, π near 0, ½ and 1 included), and prints per view the
number of draws whose reported value is above mpmath ("overstated", must be 0), the worst relative excess,
and the worst relative gap on the pessimistic side. Point PYTHONPATH at another checkout's src/ to count
an older version (the "before" numbers of docs/edges.md came from that).

    PYTHONPATH=src python benchmarks/bench_directed_rounding.py --n 3000 [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import mpmath as mp
import numpy as np
from scipy import special

import dpcompare as dc

mp.mp.dps = 50


def _phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def _ndtri(a):
    a = mp.mpf(a)
    if a == mp.mpf(0.5):
        return mp.mpf(0)
    if a > 0.5:
        return -_ndtri(1 - a)
    x0 = float(special.ndtri(float(a))) if float(a) > 0 else -38.0
    x = mp.mpf(x0 if math.isfinite(x0) else -38.0)
    for _ in range(100):
        dx = (_phi(x) - a) / mp.npdf(x)
        x -= dx
        if abs(dx) < mp.mpf(10) ** -45 * (1 + abs(x)):
            break
    return x


def gauss_f(mu, a):
    mu, a = mp.mpf(mu), mp.mpf(a)
    return mp.mpf(1) if a == 0 else mp.mpf(0) if a == 1 else _phi(-_ndtri(a) - mu)


def gauss_r(mu, p):
    mu, p = mp.mpf(mu), mp.mpf(p)
    if p in (0, 1):
        return mp.mpf(0)
    lam = mp.log(p / (1 - p))
    return p * _phi(-lam / mu - mu / 2) + (1 - p) * _phi(lam / mu - mu / 2)


def laplace_f(m, a):
    m, a = mp.mpf(m), mp.mpf(a)
    if a < mp.exp(-m) / 2:
        return 1 - mp.exp(m) * a
    return mp.exp(-m) / (4 * a) if a <= mp.mpf(0.5) else mp.exp(-m) * (1 - a)


def laplace_r(m, p):
    m, p = mp.mpf(m), mp.mpf(p)
    return min(p, 1 - p, mp.exp(-m / 2) * mp.sqrt(p * (1 - p)))


def eps_delta_f(e, d, a):
    e, d, a = mp.mpf(e), mp.mpf(d), mp.mpf(a)
    return max(mp.mpf(0), 1 - d - mp.exp(e) * a, mp.exp(-e) * (1 - d - a))


def eps_delta_r(e, d, p):
    e, d, p = mp.mpf(e), mp.mpf(d), mp.mpf(p)
    return min(p * (1 - d), (1 - p) * (1 - d), (1 - d) / (1 + mp.exp(e)))


def _unit(rng) -> float:
    k = rng.integers(4)
    if k == 0:
        return float(10 ** rng.uniform(-300, -1))
    if k == 1:
        return float(1 - 10 ** rng.uniform(-16, -1))
    if k == 2:
        return float(rng.uniform(0, 1))
    return float(0.5 + rng.choice([-1, 1]) * 10 ** rng.uniform(-16, -1))


def run(n: int, seed: int = 11) -> list[dict]:
    rng = np.random.default_rng(seed)
    stats: dict[str, list] = {}

    def rec(name, got, truth):
        s = stats.setdefault(name, [0, 0, 0.0, 0.0])
        g = mp.mpf(float(got))
        s[0] += 1
        if g > truth:
            s[1] += 1
            s[2] = max(s[2], float((g - truth) / truth) if truth > 0 else math.inf)
        elif truth > mp.mpf(1e-300):
            s[3] = max(s[3], float((truth - g) / truth))

    for _ in range(n):
        mu = float(10 ** rng.uniform(-3, 1.5))
        g = dc.Gaussian(mu=mu)
        a, p = _unit(rng), _unit(rng)
        rec("gaussian f", g.tradeoff(a), gauss_f(mu, a))
        rec("gaussian R", g.bayes_error(p), gauss_r(mu, p))
        b = float(10 ** rng.uniform(-2.5, 3))
        lap = dc.Laplace(b=b)
        rec("laplace f", lap.tradeoff(a), laplace_f(1 / mp.mpf(b), a))  # at the exact m = 1/b
        rec("laplace R", lap.bayes_error(p), laplace_r(1 / mp.mpf(b), p))
        e0 = float(10 ** rng.uniform(-6, 2.5))
        d0 = float(rng.choice([0.0, 10 ** rng.uniform(-300, -0.5)]))
        m = dc.ApproxDP(eps=e0, delta=d0) if d0 > 0 else dc.RandomizedResponse(eps=e0)
        rec("eps-delta f", m.tradeoff(a), eps_delta_f(e0, d0, a))
        rec("eps-delta R", m.bayes_error(p), eps_delta_r(e0, d0, p))
    return [{"view": k, "draws": v[0], "overstated": v[1], "worst_excess": v[2], "worst_gap": v[3]} for k, v in stats.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000, help="draws per view (default 3000)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    rows = run(args.n, args.seed)
    if args.json:
        print(json.dumps({"rows": rows, "dpcompare": dc.__file__}))
    else:
        print(f"{'view':12s} {'draws':>6s} {'overstated':>10s} {'worst excess':>13s} {'worst gap':>10s}")
        for r in rows:
            print(f"{r['view']:12s} {r['draws']:6d} {r['overstated']:10d} {r['worst_excess']:13.3g} {r['worst_gap']:10.3g}")
    return 1 if any(r["overstated"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
