"""Scaling of the certified SGM answers: time and peak memory of ε(δ) and of Δ against the number of steps N,
and of ε against the requested relative accuracy. Each point is a fresh process (numpy and scipy.special
imported before the clock; the clock includes importing dpcompare); sizes that cannot be served are
refused up front with the error message, which is printed instead of a time.

    ε:  SubsampledGaussian(1, 0.01, N).epsilon(1e-5)                       N = 10³ … 10⁷
    Δ:  delta_bracket(SGM(1, 0.01, N), SGM(1.5, 0.02, N)), one direction    N = 10³ … 10⁷
    ε to accuracy: epsilon_to_accuracy(1, 0.01, 10⁴, 1e-5, rel_tol)       rel_tol = 1e-2 … 1e-5
    limits (not with --quick): the largest sizes around the 1 GiB per-call budget (src/dpcompare/_limits.py),
    one that fits and one refused up front, for the subsampled Gaussian, ``Composed`` and ε to accuracy at N = 10⁷

Usage:
    python benchmarks/bench_scaling.py [--json] [--plot docs/img/scaling.png] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

PRE = ("import json, time\nimport numpy, scipy.special\nt0, c0 = time.perf_counter(), time.process_time()\n"
       "try:\n{body}\nexcept (ValueError, MemoryError) as exc:\n"
       "    print(json.dumps({{'refused': str(exc)[:400]}})); raise SystemExit(0)\n"
       "t, c = time.perf_counter() - t0, time.process_time() - c0\n"
       "rss = [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
       "print(json.dumps({{'seconds': t, 'cpu': c, 'rss_mb': rss, 'value': v, 'width': w}}))\n")

EPS = ("    from dpcompare.mechanisms.sgm import SubsampledGaussian\n"
       "    m = SubsampledGaussian(1.0, 0.01, {n}); v = float(m.epsilon(1e-5)); w = float('nan')")
DELTA = ("    from dpcompare.comparison import delta_bracket\n    from dpcompare.mechanisms.sgm import SubsampledGaussian\n"
         "    r = delta_bracket(SubsampledGaussian(1.0, 0.01, {n}), SubsampledGaussian(1.5, 0.02, {n}))\n"
         "    v, w = float(r.upper), float(r.width)")
ACC = ("    from dpcompare.composition.sgm_accuracy import epsilon_to_accuracy\n"
       "    a = epsilon_to_accuracy(1.0, 0.01, 10000, 1e-5, rel_tol={tol}); v, w = a.epsilon, a.rel_accuracy")


SGM_H = ("    from dpcompare.mechanisms.sgm import SubsampledGaussian\n"
         "    m = SubsampledGaussian(1.0, 0.01, 10**7, discretization={h}); v = float(m.epsilon(1e-5)); w = float('nan')")
LAP_H = ("    import dpcompare as dc\n    from dpcompare.mechanisms.composed import Composed\n"
         "    m = Composed(dc.Laplace(b=1.0), steps=10**5, discretization={h}); v = float(m.delta(1.0)); w = float('nan')")
#: (label, body): sizes around the memory budget; the refused ones fail before allocating
LIMITS = [
    ("SGM(1, 0.01, 10⁷, discretization=1e-4).epsilon(1e-5)", SGM_H.format(h=1e-4)),
    ("SGM(1, 0.01, 10⁷, discretization=7.5e-5).epsilon(1e-5)", SGM_H.format(h=7.5e-5)),
    ("Composed(Laplace(b=1), 10⁵, discretization=0.01).delta(1)", LAP_H.format(h=0.01)),
    ("Composed(Laplace(b=1), 10⁵, discretization=0.005).delta(1)", LAP_H.format(h=0.005)),
    ("epsilon_to_accuracy(1, 0.01, 10⁷, 1e-5, rel_tol=1e-3)", ACC.format(tol=1e-3).replace("10000,", "10**7,")),
]


def _run(body: str, timeout: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC), "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run([sys.executable, "-c", PRE.format(body=body)], capture_output=True, text=True, env=env,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"refused": f"not finished in {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cell(r: dict) -> str:
    if "seconds" in r:
        return f"{r['seconds']:.2f} s (CPU {r['cpu']:.2f}), {r['rss_mb']:.0f} MB"
    return "refused: " + r.get("refused", r.get("error", "?"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="N ≤ 10⁴ and two accuracies only (smoke test)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--plot", default=None, help="write a PNG of time and memory against N there")
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    ns = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6, 10**7]
    tols = [1e-2, 1e-3] if args.quick else [1e-2, 1e-3, 1e-4, 1e-5]
    load0 = os.getloadavg()
    res = {"eps": {n: _run(EPS.format(n=n), args.timeout) for n in ns},
           "delta": {n: _run(DELTA.format(n=n), args.timeout) for n in ns},
           "acc": {t: _run(ACC.format(tol=t), args.timeout) for t in tols}}
    if not args.quick:
        res["limits"] = {label: _run(body, args.timeout) for label, body in LIMITS}
    load1 = os.getloadavg()
    if args.json:
        print(json.dumps({"load": [load0, load1], **{k: {str(a): b for a, b in v.items()} for k, v in res.items()}}))
    else:
        print(f"load average at start {tuple(round(x, 2) for x in load0)}, at end {tuple(round(x, 2) for x in load1)}; "
              f"{os.cpu_count()} cores\n")
        print("| N | ε(1e-5) of SGM(1, 0.01, N) | ε | Δ(SGM(1, 0.01, N) ‖ SGM(1.5, 0.02, N)) | Δ (upper, width) |")
        print("| --- | --- | --- | --- | --- |")
        for n in ns:
            e, d = res["eps"][n], res["delta"][n]
            print(f"| {n:.0e} | {_cell(e)} | {e.get('value', float('nan')):.6g} | {_cell(d)} | "
                  f"{d.get('value', float('nan')):.6g} ± {d.get('width', float('nan')):.1e} |")
        print("\n| rel_tol | epsilon_to_accuracy(1, 0.01, 10⁴, 1e-5) | ε (upper) | accuracy achieved |")
        print("| --- | --- | --- | --- |")
        for t in tols:
            a = res["acc"][t]
            print(f"| {t:g} | {_cell(a)} | {a.get('value', float('nan')):.7g} | {a.get('width', float('nan')):.1e} |")
        if "limits" in res:
            print("\n| around the 1 GiB budget | time, peak memory (or the refusal) | value |")
            print("| --- | --- | --- |")
            for label, r in res["limits"].items():
                print(f"| `{label}` | {_cell(r)} | {r.get('value', float('nan')):.7g} |")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
        for key, label in (("eps", "ε(δ)"), ("delta", "Δ")):
            pts = [(n, r["seconds"], r["rss_mb"]) for n, r in res[key].items() if "seconds" in r]
            if pts:
                ax1.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
                ax2.semilogx([p[0] for p in pts], [p[2] for p in pts], "o-", label=label)
        ax1.set_xlabel("steps N")
        ax1.set_ylabel("wall time, cold process [s]")
        ax2.set_xlabel("steps N")
        ax2.set_ylabel("peak RSS [MB]")
        ax1.legend()
        ax2.legend()
        fig.tight_layout()
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.plot, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
