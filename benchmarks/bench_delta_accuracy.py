"""Δ between two subsampled Gaussians with the grid chosen from Δ vs the mechanisms' default grids, and
dp-accounting's PLD accountant at its default grid composing the same two mechanisms, in the same run.

Job: ``compare(SubsampledGaussian(1, 0.01, N), SubsampledGaussian(1.5, 0.02, N))`` ([BCP] Def 1, Cor 1: Δ both
ways, Blackwell verdict, crossings), N = 10³, each variant a cold process (numpy and scipy.special imported
before the clock starts; the clock includes importing dpcompare), alternating, medians of ``--repeat``:

  chosen     the default: the grid chosen from Δ (``comparison/delta_accuracy.py``: a probe 8× coarser than the
             default grid, then the least-cost grids by the h² law for a certified width max(1e-3·Δ, 1e-6));
  default    the mechanisms' default grids everywhere (``discretization`` = the default spacing, given
             explicitly: the behaviour before the grid was chosen from Δ);
  accuracy   ``compare(..., accuracy=1e-7)`` (an explicit absolute width: grids finer than the default;
             4e-7 with --quick);
  peer       dp-accounting ``PLDAccountant()`` (default value_discretization_interval 1e-4) composing both
             mechanisms and reading ε(1e-5), plus δ(0) of both; Δ at π = ½ is (δ_B(0) − δ_A(0))/2 (Thm 2 at
             ε = 0, where this Δ is attained), uncertified.

Reference: the certified bracket of the same code on grids 8× finer than the default (``delta_bracket``;
computed once, not timed). Every bracket printed must contain it (column "contains the 8× finer bracket").

With ``--weighted`` the job is the hyper-prior weighted Δ^Ψ ([BCP] §5) of the same pair, Ψ = Beta(2, 2):
``compare(a, b, hyperprior=Ψ)`` on the default grids (the default), ``compare(..., hyperprior=Ψ,
accuracy=1e-7)`` (grids chosen for Δ^Ψ from the default grid on, ``WEIGHTED_PROBE_FACTOR`` = 1) and the same
with a probe 8× coarser first (``WEIGHTED_PROBE_FACTOR`` = 8, what the unweighted Δ does); reference: the
certified Δ^Ψ bracket of the same sweep on grids 8× finer than the default (not timed).

Usage:
    python benchmarks/bench_delta_accuracy.py [--repeat 3] [--json] [--weighted]
    python benchmarks/bench_delta_accuracy.py --quick [--weighted]       # smoke test: N = 100, one round
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_targets import STOP, _child, _interleaved  # noqa: E402  (the same cold-process harness)

A, B = (1.0, 0.01), (1.5, 0.02)
#: the explicit accuracy of the third variant (quick: just below the default grid's width at N = 100, 7e-7)
ACCURACY = {False: 1e-7, True: 4e-7}


def _ours(n: int, grid: str, extra: str = "") -> str:
    return ("import dpcompare as dc\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian as S\n"
            "from dpcompare.composition.sgm_grid import default_discretization as dd\n"
            f"a, b = S({A[0]}, {A[1]}, {n}{grid.format(*A, n)}), S({B[0]}, {B[1]}, {n}{grid.format(*B, n)})\n"
            f"r = dc.compare(a, b{extra})\n" + STOP +
            "from dpcompare.comparison.delta_accuracy import delta_accuracy\n"
            f"d = delta_accuracy(a, b{extra}, decide=r.tolerance)\n"
            "f = [None, None] if d is None else list(d.factors)\n"
            "print(json.dumps({'seconds': t, 'cpu': c, 'value': r.delta_ab.value, 'lower': r.delta_ab.lower, "
            "'upper': r.delta_ab.upper, 'ba_upper': r.delta_ba.upper, 'verdict': r.verdict, 'factor_a': f[0], "
            "'factor_b': f[1]}))\n")


def _peer(n: int) -> str:
    return ("import dp_accounting\nfrom dp_accounting.pld import pld_privacy_accountant as P\n"
            "es, d0 = [], []\n"
            f"for s, q in (({A[0]}, {A[1]}), ({B[0]}, {B[1]})):\n    a = P.PLDAccountant()\n"
            f"    a.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), {n}))\n"
            "    es.append(a.get_epsilon(1e-5)); d0.append(a.get_delta(0.0))\n" + STOP +
            "print(json.dumps({'seconds': t, 'cpu': c, 'value': 0.5 * (d0[1] - d0[0])}))\n")


def _reference(n: int) -> dict:
    return _child("from dpcompare.comparison import delta_bracket\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian as S\n"
                  "from dpcompare.composition.sgm_grid import default_discretization as dd\n"
                  f"a = S({A[0]}, {A[1]}, {n}, discretization=dd({A[0]}, {A[1]}, {n}) / 8)\n"
                  f"b = S({B[0]}, {B[1]}, {n}, discretization=dd({B[0]}, {B[1]}, {n}) / 8)\n"
                  "r = delta_bracket(a, b)\n" + STOP +
                  "print(json.dumps({'seconds': t, 'lower': r.lower, 'upper': r.upper}))\n", timeout=1800)


#: the hyper-prior of ``--weighted`` and its explicit accuracy (quick: N = 100)
HYPERPRIOR = "dc.BetaPrior(2.0, 2.0)"
W_ACCURACY = {False: 1e-7, True: 1e-7}


def _weighted(n: int, extra: str = "", probe: float | None = None) -> str:
    patch = "" if probe is None else f"import dpcompare.comparison.delta_accuracy as da\nda.WEIGHTED_PROBE_FACTOR = {probe}\n"
    return ("import dpcompare as dc\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian as S\n"
            "import dpcompare.comparison.comparison as cm\n" + patch +
            "seen = []\ninner = cm.delta_accuracy\n"
            "def spy(*a, **k):\n    r = inner(*a, **k)\n    seen.append(r)\n    return r\n"
            "cm.delta_accuracy = spy\n"
            f"a, b = S({A[0]}, {A[1]}, {n}), S({B[0]}, {B[1]}, {n})\n"
            f"r = dc.compare(a, b, hyperprior={HYPERPRIOR}{extra})\n" + STOP +
            "d = next((x for x in seen if x is not None and x.target is not None), None)\n"
            "f = [None, None] if d is None else list(d.factors)\nw = r.weighted.delta_ab\n"
            "print(json.dumps({'seconds': t, 'cpu': c, 'value': w.value, 'lower': w.lower, 'upper': w.upper, "
            "'ba_width': r.weighted.delta_ba.width, 'attempts': None if d is None else d.attempts, "
            "'factor_a': f[0], 'factor_b': f[1]}))\n")


def _weighted_reference(n: int) -> dict:
    return _child("import dpcompare as dc\nfrom dpcompare.mechanisms.sgm import SubsampledGaussian as S\n"
                  "from dpcompare.composition.sgm_grid import default_discretization as dd\n"
                  f"a = S({A[0]}, {A[1]}, {n}, discretization=dd({A[0]}, {A[1]}, {n}) / 8)\n"
                  f"b = S({B[0]}, {B[1]}, {n}, discretization=dd({B[0]}, {B[1]}, {n}) / 8)\n"
                  f"r = dc.delta_divergence(a, b, {HYPERPRIOR})\n" + STOP +
                  "print(json.dumps({'seconds': t, 'lower': r.lower, 'upper': r.upper}))\n", timeout=1800)


def run_weighted(quick: bool, repeat: int) -> dict:
    n = 100 if quick else 1000
    acc = f", accuracy={W_ACCURACY[quick]:g}"
    jobs = {"w-default": _weighted(n), "w-accuracy": _weighted(n, acc), "w-probe8": _weighted(n, acc, probe=8.0)}
    res = _interleaved(jobs, repeat)
    ref = _weighted_reference(n)
    for o in res.values():
        if "error" not in o and "error" not in ref:
            o["contains_reference"] = bool(o["lower"] <= ref["lower"] and ref["upper"] <= o["upper"])
    return {"n": n, "repeat": repeat, "accuracy": W_ACCURACY[quick], "results": res, "reference": ref, "weighted": True}


def markdown_weighted(out: dict, load: tuple) -> str:
    res, ref = out["results"], out["reference"]
    lines = [f"N = {out['n']}, Ψ = Beta(2, 2), {out['repeat']} interleaved cold runs (medians); load average (1, 5, 15 "
             f"min) at start {load[0]}, at end {load[1]}; {os.cpu_count()} cores", ""]
    if "error" not in ref:
        lines += [f"reference (8× finer grids, certified): Δ^Ψ(A‖B) ∈ [{ref['lower']:.9f}, {ref['upper']:.9f}]", ""]
    lines += ["| variant | wall [s] | CPU [s] | Δ^Ψ(A‖B) | certified width | Δ^Ψ(B‖A) width | grid (× default) A / B | "
              "compositions | contains the 8× finer bracket |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k, label in (("w-default", "default grids (default)"), ("w-accuracy", f"accuracy={out['accuracy']:g}"),
                     ("w-probe8", f"accuracy={out['accuracy']:g}, probe 8× coarser first")):
        o = res[k]
        if "error" in o:
            lines.append(f"| {label} | {o['error']} | | | | | | | |")
            continue
        grid = " / ".join("default" if f is None else f"{f:.3g}" for f in (o.get("factor_a"), o.get("factor_b")))
        att = "1" if o.get("attempts") is None else f"{o['attempts']:g}"
        lines.append(f"| {label} | {o['seconds']:.3f} | {o['cpu']:.3f} | {o['value']:.8f} | {o['upper'] - o['lower']:.2e} | "
                     f"{o['ba_width']:.2e} | {grid} | {att} | {'yes' if o.get('contains_reference') else '**no**'} |")
    return "\n".join(lines)


def run(quick: bool, repeat: int) -> dict:
    n = 100 if quick else 1000
    jobs = {"chosen": _ours(n, ""), "default": _ours(n, ", discretization=dd({}, {}, {})"),
            "accuracy": _ours(n, "", f", accuracy={ACCURACY[quick]:g}"), "peer": _peer(n)}
    res = _interleaved(jobs, repeat)
    ref = _reference(n)
    for k in ("chosen", "default", "accuracy"):
        o = res[k]
        if "error" not in o and "error" not in ref:
            o["contains_reference"] = bool(o["lower"] <= ref["upper"] and ref["lower"] <= o["upper"])
    return {"n": n, "repeat": repeat, "accuracy": ACCURACY[quick], "results": res, "reference": ref}


def markdown(out: dict, load: tuple) -> str:
    res, ref = out["results"], out["reference"]
    lines = [f"N = {out['n']}, {out['repeat']} interleaved cold runs (medians); load average (1, 5, 15 min) at start "
             f"{load[0]}, at end {load[1]}; {os.cpu_count()} cores", ""]
    if "error" not in ref:
        lines.append(f"reference (8× finer grids, certified): Δ(A‖B) ∈ [{ref['lower']:.9f}, {ref['upper']:.9f}]")
        lines.append("")
    lines += ["| variant | wall [s] | CPU [s] | Δ(A‖B) | certified width | grid (× default) A / B | contains the 8× finer bracket | PLD wall ÷ ours |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    peer = res["peer"]
    for k, label in (("chosen", "grid chosen from Δ (default)"), ("default", "default grids (before)"),
                     ("accuracy", f"accuracy={out['accuracy']:g}"), ("peer", "dp-accounting PLD default grid (uncertified Δ at π = ½)")):
        o = res[k]
        if "error" in o:
            lines.append(f"| {label} | {o['error']} | | | | | | |")
            continue
        if k == "peer":
            lines.append(f"| {label} | {o['seconds']:.3f} | {o['cpu']:.3f} | {o['value']:.7f} | — | — | — | 1 |")
            continue
        grid = " / ".join("default" if f is None else f"{f:.3g}" for f in (o.get("factor_a"), o.get("factor_b")))
        ratio = "—" if "error" in peer else f"{peer['seconds'] / o['seconds']:.2f}×"
        lines.append(f"| {label} | {o['seconds']:.3f} | {o['cpu']:.3f} | {o['value']:.7f} | {o['upper'] - o['lower']:.2e} | "
                     f"{grid} | {'yes' if o.get('contains_reference') else '**no**'} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="N = 100, one round (smoke test; not the numbers to quote)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--weighted", action="store_true", help="the hyper-prior weighted Δ^Ψ (Ψ = Beta(2, 2)) instead")
    args = ap.parse_args(argv)
    repeat = 1 if args.quick else max(1, args.repeat)
    load0 = tuple(round(x, 2) for x in os.getloadavg())
    out = (run_weighted if args.weighted else run)(args.quick, repeat)
    load1 = tuple(round(x, 2) for x in os.getloadavg())
    if args.json:
        print(json.dumps({"quick": args.quick, "load": [load0, load1], "cpus": os.cpu_count(), **out}, default=str))
    else:
        print((markdown_weighted if args.weighted else markdown)(out, (load0, load1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
