"""Ours vs dp-accounting for every JAX-Privacy / dp-accounting event of the fixtures (tests/accounting/data/
jax_privacy_events.json): our certified ε at δ (pessimistic side of the bracket) against dp-accounting 0.6's
optimistic and pessimistic PLD ε at the same δ (discretisation 1e-4, its accountant's default), with times.

The check each row must pass (and tests/accounting/test_jax_privacy_events.py asserts on the stored numbers):
dp-accounting optimistic ε ≤ ours ≤ FACTOR × dp-accounting pessimistic ε. Fixed-batch events have no PLD in
dp-accounting; their peer is its RDP accountant (replace-one), an upper bound.

Usage:
    python benchmarks/bench_events.py                  # full table (a few minutes on 2 shared cores)
    python benchmarks/bench_events.py --quick          # smoke test: the three mixture/truncation events, h = 1e-3
    python benchmarks/bench_events.py --json           # one JSON object on stdout
    python benchmarks/bench_events.py --write-fixture  # store dp-accounting's εs in the fixture (test references)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "accounting"))

DELTAS = (1e-5, 1e-8)
#: our ε may exceed dp-accounting's pessimistic PLD ε by at most this factor (stated in docs/events.md)
FACTOR = 1.01
QUICK = ("mixture_of_gaussians", "mixture_of_gaussians_x10", "truncated_subsampled_gaussian")


def _dpacc(ev: dict, h: float) -> dict:
    """dp-accounting's εs: {"pessimistic": [..], "optimistic": [..]} per δ of DELTAS, or {"rdp": [..]}."""
    import test_jax_privacy_events as t  # the test module's reference builders (one definition)

    leaf, _ = t._leaf_and_count(ev)
    if leaf["class_name"].startswith("Sampled"):
        if leaf["class_name"] == "SampledWithReplacementDpEvent":
            return {"rdp": [None for _ in DELTAS], "seconds": 0.0}
        from dp_accounting import NeighboringRelation as NR
        from dp_accounting.rdp import rdp_privacy_accountant as rdp

        t0 = time.perf_counter()
        acc = rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE)
        acc.compose(t._event(ev))
        return {"rdp": [acc.get_epsilon(d) for d in DELTAS], "seconds": time.perf_counter() - t0}
    t0 = time.perf_counter()
    pess = t.dpacc_pld(ev, h, True)
    pe = [pess.get_epsilon_for_delta(d) for d in DELTAS]
    secs = time.perf_counter() - t0
    opt = t.dpacc_pld(ev, h, False)
    return {"pessimistic": pe, "optimistic": [opt.get_epsilon_for_delta(d) for d in DELTAS], "seconds": secs,
            "discretization": h}


def _ours(ev: dict) -> dict:
    import dpcompare as dc

    t0 = time.perf_counter()
    m = dc.FromDpEvent(ev)
    eps = [float(m.epsilon(d)) for d in DELTAS]
    secs = time.perf_counter() - t0
    widths = []
    for e in eps:
        lo, hi = m.delta_bounds(e)
        widths.append(float(hi - lo))
    return {"epsilon": eps, "delta_bracket_width": widths, "guarantee": m.guarantee.value, "seconds": secs}


def run(names, h: float) -> list[dict]:
    import jax_privacy_fixture_specs as specs

    fx = specs.load_fixture()
    rows = []
    for name in names:
        ev = fx[name]["event"]
        ours = _ours(ev)
        ref = _dpacc(ev, h)
        rows.append({"event": name, "ours": ours, "dp_accounting": ref})
    return rows


def _fmt(x) -> str:
    return "—" if x is None else (f"{x:.4f}" if math.isfinite(x) else "∞")


def table(rows: list[dict]) -> str:
    out = ["| event | δ | ours ε (certified) | δ-bracket width | dp-acc optimistic ε | dp-acc pessimistic ε "
           "(RDP for fixed batches) | ours / pessimistic | ours s | dp-acc s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        o, d = r["ours"], r["dp_accounting"]
        for i, delta in enumerate(DELTAS):
            pe = (d.get("pessimistic") or d.get("rdp"))[i]
            op = d.get("optimistic", [None] * len(DELTAS))[i]
            ratio = o["epsilon"][i] / pe if pe else None
            out.append(f"| {r['event']} ({o['guarantee']}) | {delta:g} | {_fmt(o['epsilon'][i])} | "
                       f"{o['delta_bracket_width'][i]:.1e} | {_fmt(op)} | {_fmt(pe)} | {_fmt(ratio)} | "
                       f"{o['seconds']:.2f} | {d['seconds']:.2f} |")
    return "\n".join(out)


def check(rows: list[dict]) -> list[str]:
    bad = []
    for r in rows:
        o, d = r["ours"], r["dp_accounting"]
        for i, delta in enumerate(DELTAS):
            ours = o["epsilon"][i]
            if not math.isfinite(ours):
                bad.append(f"{r['event']}: ε = ∞ at δ = {delta:g}")
            if "optimistic" in d and ours < d["optimistic"][i] - 1e-9:
                bad.append(f"{r['event']}: ours {ours} below dp-accounting's optimistic {d['optimistic'][i]}")
            pe = (d.get("pessimistic") or d.get("rdp"))[i]
            if pe is not None and ours > FACTOR * pe:
                bad.append(f"{r['event']}: ours {ours} above {FACTOR} × dp-accounting's {pe}")
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-fixture", action="store_true")
    a = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import jax_privacy_fixture_specs as specs

    names = QUICK if a.quick else list(specs.load_fixture())
    h = 1e-3 if a.quick else 1e-4
    rows = run(names, h)
    bad = check(rows)
    if a.write_fixture:
        if a.quick:
            print("--write-fixture needs the full run (h = 1e-4)", file=sys.stderr)
            return 2
        doc = specs.load_fixture()
        for r in rows:
            d = dict(r["dp_accounting"])
            d.pop("seconds", None)
            d["deltas"] = list(DELTAS)
            d["version"] = "dp-accounting 0.6.0"
            doc[r["event"]]["dp_accounting"] = d
        Path(specs.FIXTURE).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if a.json:
        print(json.dumps({"deltas": list(DELTAS), "factor": FACTOR, "discretization": h, "rows": rows, "failures": bad}))
    else:
        print(table(rows))
        print(f"\nchecks (dp-acc optimistic ≤ ours ≤ {FACTOR} × dp-acc pessimistic): "
              + ("all pass" if not bad else "; ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
