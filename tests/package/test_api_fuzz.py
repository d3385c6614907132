"""Seeded API fuzz: every public constructor and function, called with edge values, each outcome classified.

Classes (one per call): ``ok``; ``clean error`` (ValueError/TypeError with a message, not a bare
arithmetic one); ``internal`` (any other exception, or "math domain/range error" surfacing as a
ValueError); ``nan`` (a NaN anywhere in the answer); ``inf_where_finite`` (∞ where the mathematics gives
a finite answer: δ, f, R, Δ always; ε(δ) at δ > 0 of a mechanism without mass at ℓ = ∞); ``out_of_range``
(δ ∉ [0, 1], f(α) ∉ [0, 1 − α], R(π) ∉ [0, min(π, 1 − π)], ε < 0, a bracket with lower > upper);
``over_time`` (a call using more than ``BUDGET`` seconds of this process's CPU time — not wall time, which a
loaded machine inflates many times over: the call is not interrupted, only counted; its wall time is shown).
The test asserts that every class other than ok and clean error is empty.

Values are drawn from a pool that mixes the ordinary with the extremes an audit of this library used:
subnormals (5e-324), 1e-300, 1e-17, the exp-overflow points (709.8, 745), 800, 1e300, ±inf, NaN,
−0.0, 0, negative numbers, huge integers (10¹²), and wrong types.

Profiles: the quick one (default; CI) makes ``QUICK_CALLS`` calls with a fixed seed in a few seconds
and leaves out the slow engines (the FFT compositions); ``DPCOMPARE_FUZZ=deep`` makes ``DEEP_CALLS``
calls including them (``DPCOMPARE_FUZZ_SEED`` chooses the seed) and prints the counts per class and per
target; docs/edges.md has the command and its counts.
"""

from __future__ import annotations

import math
import os
import time
import traceback
import warnings
from collections import Counter
from typing import Any, Callable

import numpy as np
import pytest

import dpcompare as dc
from dpcompare import gaussian, mixtures
from dpcompare.mechanisms.composed import Composed

DEEP = os.environ.get("DPCOMPARE_FUZZ") == "deep"
SEED = int(os.environ.get("DPCOMPARE_FUZZ_SEED", "20261126"))
QUICK_CALLS = 1500
DEEP_CALLS = 20000
BUDGET = 30.0 if DEEP else 5.0  # CPU seconds per call before it counts as over time

#: values for real parameters: ordinary ones and the extremes
EDGES = [5e-324, 1e-310, 1e-300, 1e-17, 1e-12, 1e-6, 1e-3, 0.1, 0.25, 0.5, 0.9738, 1.0, 1.77, 2.0, 5.0, 10.0,
         37.0, 100.0, 700.0, 709.8, 745.0, 800.0, 1e6, 1e300, 0.0, -0.0, -1.0, -1e-300, math.inf, -math.inf, math.nan]
PROBS = [5e-324, 1e-300, 1e-97, 1e-16, 1e-12, 1e-10, 1e-5, 1e-3, 0.05, 0.354, 0.5, 0.9, 1.0 - 1e-16, 1.0,
         0.0, -0.1, 1.1, math.nan, math.inf]
INTS = [1, 2, 3, 10, 1000, 10**6, 10**12, 0, -1, 2.5, True, "3"]
BAD_TYPES = ["1", None, [1.0], object()]

SECONDS: Counter = Counter()  # time per target family (for sizing the profiles)
BAD_CLASSES = ("internal", "nan", "inf_where_finite", "out_of_range")


class Drawer:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def real(self) -> Any:
        r = self.rng.random()
        if r < 0.45:
            return float(np.exp(self.rng.uniform(-8, 4)))  # ordinary positive values
        if r < 0.97:
            return EDGES[self.rng.integers(len(EDGES))]
        return BAD_TYPES[self.rng.integers(len(BAD_TYPES))]

    def prob(self) -> Any:
        r = self.rng.random()
        if r < 0.45:
            return float(10 ** self.rng.uniform(-14, 0))
        if r < 0.97:
            return PROBS[self.rng.integers(len(PROBS))]
        return BAD_TYPES[self.rng.integers(len(BAD_TYPES))]

    def integer(self, small: bool = False) -> Any:
        if self.rng.random() < 0.6:
            return int(self.rng.integers(1, 20 if small else 2000))
        return INTS[self.rng.integers(len(INTS))]

    def pick(self, items):
        return items[self.rng.integers(len(items))]


# ---------------------------------------------------------------------------------------------- targets
# a target draws its arguments and returns (label, call, kind): kind says which laws the answer obeys


def _real_below(x: Any, limit: float) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) < limit


def _mechanism(d: Drawer, deep: bool):
    """(spec label, constructor thunk, finite_eps): a public mechanism with drawn parameters."""
    kinds = ["gaussian", "gaussian_sigma", "laplace", "rr", "puredp", "approxdp", "pp", "bnp", "shuffle", "fmt"]
    if deep:
        kinds += ["sgm", "composed_laplace", "composed_rr", "composed_gauss", "random_init", "shuffle_pair"]
    k = d.pick(kinds)
    if k == "gaussian":
        mu = d.real()
        # ε(δ) ≈ μ²/2 exceeds the largest double from μ ≈ 1.9e154: ∞ is then the representable answer
        return f"Gaussian(mu={mu!r})", lambda: dc.Gaussian(mu=mu), _real_below(mu, 1e150)
    if k == "gaussian_sigma":
        s, sens = d.real(), d.real()
        ok = _real_below(sens, 1e75) and _real_below(1.0 / s if _real_below(s, math.inf) and s > 1e-75 else math.inf, 1e75)
        return f"Gaussian(sigma={s!r}, sensitivity={sens!r})", lambda: dc.Gaussian(sigma=s, sensitivity=sens), ok
    if k == "laplace":
        b = d.real()
        return f"Laplace(b={b!r})", lambda: dc.Laplace(b=b), True
    if k == "rr":
        e = d.real()
        return f"RandomizedResponse(eps={e!r})", lambda: dc.RandomizedResponse(eps=e), True
    if k == "puredp":
        e = d.real()
        return f"PureDP(eps={e!r})", lambda: dc.PureDP(eps=e), True
    if k == "approxdp":
        e, dl = d.real(), d.prob()
        return f"ApproxDP(eps={e!r}, delta={dl!r})", lambda: dc.ApproxDP(eps=e, delta=dl), False
    if k == "pp":
        return "PerfectlyPrivate()", dc.PerfectlyPrivate, True
    if k == "bnp":
        return "BlatantlyNonPrivate()", dc.BlatantlyNonPrivate, False
    if k in ("shuffle", "shuffle_pair"):
        e0, n = d.real(), d.pick([2, 3, 10, 100, 1000] if deep else [2, 3, 10])
        spec = f"{k}(eps0={e0!r}, n={n})"
        return spec, lambda: dc.parse(spec), True
    if k == "fmt":
        e0, n = d.real(), d.pick([2, 10, 1000] if deep else [2, 3, 10])
        return f"HidingAmongClones(eps0={e0!r}, n={n})", lambda: mixtures.HidingAmongClones(eps0=e0, n=n), True
    if k == "sgm":
        s, p, n = d.real(), d.prob(), d.integer(small=True)
        return f"SubsampledGaussian({s!r}, {p!r}, {n!r})", lambda: dc.SubsampledGaussian(s, p, n), True
    if k == "composed_laplace":
        b, n = d.real(), d.integer()
        return f"Composed(Laplace(b={b!r}), steps={n!r})", lambda: Composed(dc.Laplace(b=b), steps=n), True
    if k == "composed_rr":
        e, n = d.real(), d.integer()
        return f"Composed(RR(eps={e!r}), steps={n!r})", lambda: Composed(dc.RandomizedResponse(eps=e), steps=n), True
    if k == "composed_gauss":
        mu, n = d.real(), d.integer()
        return f"Composed(Gaussian(mu={mu!r}), steps={n!r})", lambda: Composed(dc.Gaussian(mu=mu), steps=n), True
    if k == "random_init":
        from dpcompare.mixtures import Loss, RandomInit, Sensitivity

        a, s = d.real(), d.real()
        # below σ ≈ clip/37 the components' P-masses underflow beyond ℓ ≈ 700 and go to ℓ = +∞ (pessimistic):
        # ε(δ) = ∞ below that mass is the documented limit of the one-step grid
        return (f"RandomInit(clipped, a={a!r}, sigma={s!r})",
                lambda: RandomInit(Sensitivity(Loss.CLIPPED_LEAST_SQUARES, a=a, clip=1.0, sigma=s)),
                isinstance(s, float) and s > 1.0 / 37)
    raise AssertionError(k)


def _view(d: Drawer, deep: bool):
    label, make, finite_eps = _mechanism(d, deep)
    v = d.pick(["delta", "epsilon", "tradeoff", "bayes_error", "auc", "delta_bounds", "tradeoff_bounds"])
    if v == "delta" or v == "delta_bounds":
        x = d.real()
        return f"{label}.{v}({x!r})", lambda: getattr(make(), v)(x), ("delta", x)
    if v == "epsilon":
        x = d.prob()
        return f"{label}.epsilon({x!r})", lambda: make().epsilon(x), ("epsilon", x, finite_eps)
    if v in ("tradeoff", "tradeoff_bounds"):
        x = d.prob()
        return f"{label}.{v}({x!r})", lambda: getattr(make(), v)(x), ("tradeoff", x)
    if v == "bayes_error":
        x = d.prob()
        return f"{label}.bayes_error({x!r})", lambda: make().bayes_error(x), ("bayes", x)
    return f"{label}.auc", lambda: make().auc, ("unit",)


def _function(d: Drawer, deep: bool):
    f = d.pick(["sigma_for", "psi_for", "fmt_epsilon", "fmt_delta", "l_f_bounds", "renyi_bounds", "delta_divergence",
                "compare", "levy", "dominance", "oracle"])
    if f == "sigma_for":
        e, dl, s = d.real(), d.prob(), d.real()
        return (f"gaussian.sigma_for({e!r}, {dl!r}, sensitivity={s!r})",
                lambda: gaussian.sigma_for(e, dl, sensitivity=s), ("positive",))
    if f == "psi_for":
        e, dl = d.real(), d.prob()
        return f"gaussian.psi_for({e!r}, {dl!r})", lambda: gaussian.psi_for(e, dl), ("positive",)
    if f in ("fmt_epsilon", "fmt_delta"):
        x, e0, n = (d.prob() if f == "fmt_epsilon" else d.real()), d.real(), d.pick([2, 10, 1000, 0, 1] if deep else [2, 10, 0, 1])
        fun = getattr(mixtures, f)
        kind = ("epsilon", x, True) if f == "fmt_epsilon" else ("delta", x)
        return f"mixtures.{f}({x!r}, eps0={e0!r}, n={n!r})", lambda: fun(x, eps0=e0, n=n), kind
    if f in ("l_f_bounds", "renyi_bounds"):
        label, make, _ = _mechanism(d, deep)
        if f == "l_f_bounds":
            div = d.pick([mixtures.TV, mixtures.KL])
            return f"l_f_bounds({label}, {div.name})", lambda: mixtures.l_f_bounds(make(), div), ("bracket_nonneg",)
        a = d.pick([1.5, 2.0, 10.0, 1.0, 0.5, math.inf])
        return f"renyi_bounds({label}, {a!r})", lambda: mixtures.renyi_bounds(make(), a), ("bracket_nonneg",)
    la, ma, _ = _mechanism(d, deep)
    lb, mb, _ = _mechanism(d, deep)
    if f == "delta_divergence":
        return f"delta_divergence({la}, {lb})", lambda: dc.delta_divergence(ma(), mb()), ("delta_result",)
    if f == "compare":
        return f"compare({la}, {lb})", lambda: dc.compare(ma(), mb()).verdict, ("any",)
    if f == "levy":
        mp_ = d.pick([30_000, 10**9, 10, 1.5] if deep else [1000, 10**9, 10, 1.5])
        return f"levy_distance({la}, {lb}, max_points={mp_!r})", lambda: dc.levy_distance(ma(), mb(), max_points=mp_).value, ("unit",)
    if f == "dominance":
        g = d.pick([2001, 10**10, 1, 2.5])
        lvl = d.pick([0.0, 0.1, -1.0, math.nan])
        return f"approximate_dominance({la}, {lb}, {lvl!r}, grid={g!r})", lambda: dc.approximate_dominance(ma(), mb(), lvl, grid=g).bayes_clause, ("any",)
    pts = d.pick([64, 10**9, 8, 2.5])
    return f"TradeoffOracle(1 − α, points={pts!r})", lambda: dc.TradeoffOracle(lambda a: 1.0 - np.asarray(a), points=pts).tradeoff(0.3), ("tradeoff", 0.3)


# ---------------------------------------------------------------------------------------------- classification
_INTERNAL_MESSAGES = ("math domain error", "math range error", "division by zero", "could not be broadcast",
                      "index", "ssize_t", "overflow", "nan")


def _values(x: Any) -> list[float]:
    if isinstance(x, (bool, str)):
        return []
    if hasattr(x, "pessimistic") and hasattr(x, "optimistic"):
        return np.concatenate([np.ravel(np.asarray(x.pessimistic, dtype=float)),
                               np.ravel(np.asarray(x.optimistic, dtype=float))]).tolist()
    if hasattr(x, "lower") and hasattr(x, "upper"):
        return [float(x.lower), float(x.upper)]
    if isinstance(x, tuple):
        return [float(v) for v in x]
    if isinstance(x, (bool, str)):
        return []
    arr = np.asarray(x, dtype=float)
    return arr.ravel().tolist()


def _arg(x: Any) -> float | None:
    """The drawn argument as a float, or None where it is not a real number (no range law then)."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def classify(result: Any, kind: tuple) -> str:
    vals = _values(result)
    if any(math.isnan(v) for v in vals):
        return "nan"
    name = kind[0]
    if name == "delta":
        if any(math.isinf(v) for v in vals):
            return "inf_where_finite"
        if any(not 0.0 <= v <= 1.0 for v in vals):
            return "out_of_range"
        if len(vals) == 2 and hasattr(result, "pessimistic") and vals[0] < vals[1]:
            return "out_of_range"  # the pessimistic δ is the larger
    elif name == "epsilon":
        x, finite = kind[1], kind[2]
        if any(v < 0 for v in vals):
            return "out_of_range"
        if finite and _arg(x) is not None and 0.0 < x and any(math.isinf(v) for v in vals):
            return "inf_where_finite"
    elif name == "tradeoff":
        a = _arg(kind[1])
        if any(math.isinf(v) for v in vals):
            return "inf_where_finite"
        if a is None:
            return "ok"
        if any(math.isinf(v) for v in vals):
            return "inf_where_finite"
        if any(not (0.0 <= v <= 1.0 - a + 1e-15) for v in vals):
            return "out_of_range"
        if len(vals) == 2 and hasattr(result, "pessimistic") and vals[0] > vals[1]:
            return "out_of_range"  # the pessimistic f is the smaller
    elif name == "bayes":
        pi = _arg(kind[1])
        if any(math.isinf(v) for v in vals):
            return "inf_where_finite"
        if pi is None:
            return "ok"
        if any(not (0.0 <= v <= min(pi, 1.0 - pi) + 1e-15) for v in vals):
            return "out_of_range"
    elif name == "unit":
        if any(not (0.0 <= v <= 1.0) for v in vals):
            return "out_of_range"
    elif name == "positive":
        if any(not (v > 0) for v in vals):
            return "out_of_range"
    elif name == "bracket_nonneg":
        lo, hi = vals
        if lo < 0 or hi < lo * (1 - 1e-12) - 1e-300:
            return "out_of_range"
    elif name == "delta_result":
        if any(math.isinf(v) for v in vals):
            return "inf_where_finite"
        if any(not (0.0 <= v <= 1.0) for v in vals) or vals[0] > vals[1] + 1e-15:
            return "out_of_range"
    return "ok"


def run_call(call: Callable[[], Any], kind: tuple) -> tuple[str, str]:
    """(class, detail) of one call."""
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a numpy warning is not an outcome; the answer is
            with np.errstate(all="ignore"):
                result = call()
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        low = msg.lower()
        if not msg or any(m in low for m in ("math domain error", "math range error")) or type(exc).__module__ == "numpy":
            return "internal", f"{type(exc).__name__}: {msg[:160]}"
        return "clean_error", f"{type(exc).__name__}: {msg[:80]}"
    except Exception as exc:  # noqa: BLE001 - every other exception is an internal error
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return "internal", f"{type(exc).__name__}: {str(exc)[:120]} at {os.path.basename(tb.filename)}:{tb.lineno}"
    cpu = time.process_time() - c0
    if cpu > BUDGET:
        return "over_time", f"{cpu:.1f} s CPU ({time.perf_counter() - t0:.1f} s wall)"
    return classify(result, kind), ""


def fuzz(calls: int, seed: int, deep: bool) -> tuple[Counter, dict[str, list[str]]]:
    d = Drawer(np.random.default_rng(seed))
    counts: Counter = Counter()
    bad: dict[str, list[str]] = {}
    for _ in range(calls):
        label, call, kind = (_view if d.rng.random() < 0.7 else _function)(d, deep)
        t0 = time.perf_counter()
        cls, detail = run_call(call, kind)
        SECONDS[label.split("(")[0]] += time.perf_counter() - t0
        counts[cls] += 1
        if cls not in ("ok", "clean_error"):
            bad.setdefault(cls, []).append(f"{label}: {detail}")
    return counts, bad


def test_api_fuzz_quick_profile():
    counts, bad = fuzz(DEEP_CALLS if DEEP else QUICK_CALLS, SEED, DEEP)
    if DEEP:
        print(f"\nAPI fuzz (seed {SEED}, {sum(counts.values())} calls): {dict(counts)}")
    problems = {k: v[:10] for k, v in bad.items() if k in BAD_CLASSES or (k == "over_time" and not DEEP)}
    assert not problems, f"{dict(counts)}\n" + "\n".join(f"{k}: {x}" for k, v in problems.items() for x in v)
    assert counts["ok"] > 0.3 * sum(counts.values())  # the fuzz reaches the library, not only its checks


@pytest.mark.parametrize("cls, result, kind", [
    ("nan", (math.nan, 1.0), ("bracket_nonneg",)),
    ("inf_where_finite", math.inf, ("epsilon", 1e-5, True)),
    ("ok", math.inf, ("epsilon", 1e-5, False)),
    ("out_of_range", 1.5, ("delta", 0.0)),
    ("out_of_range", 0.9, ("tradeoff", 0.5)),
    ("out_of_range", 0.4, ("bayes", 0.3)),
    ("ok", 0.2, ("bayes", 0.3)),
])
def test_classifier_flags_each_bad_class(cls, result, kind):
    assert classify(result, kind) == cls


def test_runner_flags_internal_errors():
    assert run_call(lambda: 1 / 0, ("any",))[0] == "internal"
    assert run_call(lambda: math.log(0.0), ("any",))[0] == "internal"  # "math domain error"
    assert run_call(lambda: dc.Gaussian(mu=-1), ("any",))[0] == "clean_error"
