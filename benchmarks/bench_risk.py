"""Certified risk answers vs uncertified ones: TPR at FPR, advantage and GDP μ of DP-SGD, values and times.

For one DP-SGD configuration (Poisson-subsampled Gaussian, add/remove adjacency) it prints, in one run:

- **dpcompare**: the certified bracket [optimistic, pessimistic] of TPR = 1 − f(α) at α ∈ {1e-3, 1e-2, 1e-1}
  and of the advantage δ(0); the tightest certified μ-GDP bound (√N/σ) and the μ implied at each α,
  μ(α) = Φ⁻¹(1 − α) − Φ⁻¹(f(α)), as a bracket.
- **dp-accounting** (0.6.0 has *no* TPR or GDP-μ API; checked in its source, ``pld/privacy_loss_distribution.py``):
  its PLDAccountant's advantage δ(0) from the pessimistic PLD (uncertified: FFT rounding unbounded).
- **riskcal** (``get_beta_for_dpsgd``, ``get_advantage_for_dpsgd``, grid 1e-4; built on dp-accounting's PLD,
  uncertified; it renormalises masses).
- **Opacus' GDP accountant** μ (central-limit approximation μ = p√(N(e^{1/σ²} − 1)), not a bound).

Each uncertified value is marked ``in`` when it lies inside our certified bracket (which contains the true
value), ``above`` when it overstates the risk (safe, looser) and ``BELOW`` when it understates it.

    python benchmarks/bench_risk.py [--json] [--sigma 1.0 --p 0.01 --steps 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings

import numpy as np
from scipy.stats import norm

import dpcompare as dc

ALPHAS = (1e-3, 1e-2, 1e-1)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def ours(sigma: float, p: float, steps: int) -> dict:
    def run():
        m = dc.SubsampledGaussian(sigma, p, steps)
        a = np.array(ALPHAS)
        f_lo, f_hi = m.tradeoff_bounds(a)
        adv_lo, adv_hi = m.delta_bounds(0.0)
        mu_lo = norm.isf(a) - norm.ppf(np.maximum(f_hi, 1e-300))
        mu_hi = norm.isf(a) - norm.ppf(np.maximum(f_lo, 1e-300))
        return dict(tpr=[[float(1 - h), float(1 - lo)] for lo, h in zip(f_lo, f_hi)],
                    advantage=[float(adv_lo), float(adv_hi)], gdp_mu_bound=m.gdp_mu,
                    mu_at_alpha=[[float(x), float(y)] for x, y in zip(mu_lo, mu_hi)])
    out, t = timed(run)
    out["seconds"] = t
    return out


def dp_accounting_answer(sigma: float, p: float, steps: int) -> dict:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    def run():
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(p, dp_event.GaussianDpEvent(sigma)), steps))
        return dict(advantage=float(acc.get_delta(0.0)), gdp_mu=None)
    out, t = timed(run)
    out["seconds"] = t
    # no TPR API in 0.6: the TPR of its pessimistic PLD (both directions), read exactly by our adapter
    from dpcompare.accounting import pld_pair, subsampled_gaussian_composed

    pair = pld_pair(subsampled_gaussian_composed(sigma, p, steps)).symmetrize()
    out["tpr_from_pld"] = [float(x) for x in 1 - pair.tradeoff(np.array(ALPHAS))]
    return out


def riskcal_answer(sigma: float, p: float, steps: int) -> dict:
    try:
        from riskcal.calibration.dpsgd import get_advantage_for_dpsgd, get_beta_for_dpsgd
    except ImportError:  # older riskcal layout
        from riskcal import get_advantage_for_dpsgd, get_beta_for_dpsgd

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            beta = get_beta_for_dpsgd(noise_multiplier=sigma, sample_rate=p, num_steps=steps, alpha=np.array(ALPHAS))
            adv = get_advantage_for_dpsgd(noise_multiplier=sigma, sample_rate=p, num_steps=steps)
        return dict(tpr=[float(1 - b) for b in np.atleast_1d(beta)], advantage=float(adv))
    out, t = timed(run)
    out["seconds"] = t
    return out


def opacus_gdp_mu(sigma: float, p: float, steps: int) -> float:
    return p * math.sqrt(steps * (math.exp(1.0 / sigma**2) - 1.0))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = dict(config=dict(sigma=a.sigma, p=a.p, steps=a.steps), alphas=list(ALPHAS),
               dpcompare=ours(a.sigma, a.p, a.steps), dp_accounting=dp_accounting_answer(a.sigma, a.p, a.steps),
               riskcal=riskcal_answer(a.sigma, a.p, a.steps), opacus_gdp_clt_mu=opacus_gdp_mu(a.sigma, a.p, a.steps))
    if a.json:
        print(json.dumps(res))
        return 0
    o, d, r = res["dpcompare"], res["dp_accounting"], res["riskcal"]
    def inside(v: float, br: list[float]) -> str:  # where an uncertified value falls relative to the truth's bracket
        return "in   " if br[0] - 1e-12 <= v <= br[1] + 1e-12 else ("above" if v > br[1] else "BELOW")

    print(f"DP-SGD sigma={a.sigma:g}, p={a.p:g}, steps={a.steps} (add/remove adjacency)")
    print(f"{'quantity':<16} {'dpcompare certified [lo, hi]':<34} {'riskcal':>22} {'dp-accounting':>22}")
    for alpha, br, rv, dv in zip(ALPHAS, o["tpr"], r["tpr"], d["tpr_from_pld"]):
        print(f"TPR @ FPR {alpha:<6g} [{br[0]:.8f}, {br[1]:.8f}]       {rv:.8f} {inside(rv, br)}       "
              f"{dv:.8f} {inside(dv, br)} (its PLD; no TPR API in 0.6)")
    br = o["advantage"]
    print(f"{'advantage':<16} [{br[0]:.8f}, {br[1]:.8f}]       {r['advantage']:.8f} {inside(r['advantage'], br)}"
          f"       {d['advantage']:.8f} {inside(d['advantage'], br)}")
    for alpha, mb in zip(ALPHAS, o["mu_at_alpha"]):
        print(f"GDP mu(α={alpha:<5g}) [{mb[0]:.6f}, {mb[1]:.6f}]")
    print(f"GDP mu: certified tightest bound {o['gdp_mu_bound']:.6f} (= sqrt(N)/sigma); Opacus CLT mu "
          f"{res['opacus_gdp_clt_mu']:.6f} (an approximation, not a bound)")
    print(f"time: dpcompare {o['seconds']:.2f} s, riskcal {r['seconds']:.2f} s, dp-accounting {d['seconds']:.2f} s; "
          f"ratio riskcal/dpcompare {r['seconds'] / o['seconds']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
