"""Audit a real DP-SGD run: does a loss-threshold attack on canaries contradict the claimed ε?

A small classifier is trained with Opacus (DP-SGD: Poisson sampling, clipping norm 1, noise multiplier σ)
on scikit-learn's digits dataset (shipped with scikit-learn, no download). Before training, m canaries —
training images with a *wrong* random label, the easiest examples to memorise — are each put into the
training set with probability ½. After training, the attack scores each canary by minus its loss under
its canary label (members should have lower loss). The audit then puts this attack on the claim:

- the claim is the run's own accounting, ``sgm(sigma=σ, p=1/(batches per epoch), steps=…)`` (the
  subsampled Gaussian under add/remove adjacency, what Opacus' Poisson sampling gives);
- the canary scores are audited as a score ROC (``dpcompare.audit.audit(claim, Scores(...))``), and the
  guesses on the top-scored canaries as a one-run audit (Steinke et al. 2023).

    pip install 'dpcompare[opacus]' scikit-learn
    python examples/audit_opacus.py -o out/            # full run (a few minutes on 2 cores)
    python examples/audit_opacus.py --quick -o out/    # smoke test (seconds)

Outputs: ``audit_opacus.json`` (the audit, as ``dpcompare audit --json`` prints it) and ``audit_opacus.png``
(the figure) in the output directory; the table is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

FULL = dict(canaries=500, sigma=1.0, batch=64, epochs=30, lr=0.5, confidence=0.95, delta=1e-5)
QUICK = dict(canaries=60, sigma=0.8, batch=128, epochs=2, lr=0.5, confidence=0.95, delta=1e-5)


def load_data(seed: int):
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    x, y = load_digits(return_X_y=True)
    x = StandardScaler().fit_transform(x).astype(np.float32)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    return x[order], y[order]


def run(cfg: dict, seed: int = 0) -> tuple[dict, object, object]:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    import dpcompare as dc
    from dpcompare.audit import OneRun, Scores, audit
    from dpcompare.integrations.opacus import train_private

    x, y = load_data(seed)
    m = cfg["canaries"]
    rng = np.random.default_rng(seed + 1)
    cx = x[:m]
    cy = (y[:m] + rng.integers(1, 10, m)) % 10  # a wrong label: the canary
    member = rng.random(m) < 0.5  # each canary is in the training set with probability ½
    base_x, base_y = x[m:], y[m:]
    tx = np.concatenate([base_x, cx[member]])
    ty = np.concatenate([base_y, cy[member]])
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    loader = DataLoader(TensorDataset(torch.from_numpy(tx), torch.from_numpy(ty).long()), batch_size=cfg["batch"])
    batches = len(loader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine, model = train_private(model, opt, loader, noise_multiplier=cfg["sigma"], epochs=cfg["epochs"],
                                      max_grad_norm=1.0)
    with torch.no_grad():
        logits = model(torch.from_numpy(cx))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(cy).long(), reduction="none").numpy()
    scores = -loss.astype(float)
    # the claim: Opacus samples each example with probability 1/batches per step, batches steps per epoch
    spec = f"sgm(sigma={cfg['sigma']}, p={1.0 / batches!r}, steps={batches * cfg['epochs']})"
    claim = dc.parse(spec)
    result = audit(claim, Scores(scores[member], scores[~member]), confidence=cfg["confidence"],
                   delta=cfg["delta"], thresholds=20)
    # one-run: guess "member" for the k top-scored canaries, k = m/10 (chosen before looking at the scores)
    k = max(1, m // 10)
    top = np.argsort(-scores)[:k]
    one = audit(claim, OneRun(m, k, int(member[top].sum())), confidence=cfg["confidence"], delta=cfg["delta"])
    d = result.to_dict()
    d["one_run"] = {key: one.to_dict()[key] for key in ("contradicts", "epsilon_lower", "m", "k", "r")}
    d["opacus_epsilon"] = float(engine.get_epsilon(cfg["delta"]))
    d["training"] = {**cfg, "members": int(member.sum()), "nonmembers": int((~member).sum()),
                     "dataset_size": int(len(ty)), "batches_per_epoch": batches}
    return d, result, claim


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=".", help="output directory")
    ap.add_argument("--quick", action="store_true", help="a few seconds: fewer canaries, 2 epochs")
    ap.add_argument("--json", action="store_true", help="print the audit as one JSON object")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    cfg = QUICK if a.quick else FULL
    os.makedirs(a.output, exist_ok=True)
    t0 = time.perf_counter()
    d, result, claim = run(cfg, a.seed)
    d["seconds"] = time.perf_counter() - t0

    from dpcompare.io import _figure
    from dpcompare.io.audit_figure import audit_figure
    from dpcompare.io.files import atomic_write

    atomic_write(os.path.join(a.output, "audit_opacus.png"), _figure.render(audit_figure(result, claim), "png"))
    atomic_write(os.path.join(a.output, "audit_opacus.json"), json.dumps(d, indent=1).encode())
    if a.json:
        print(json.dumps(d))
        return
    from dpcompare.io.audit_report import verdict_sentence

    print(f"claim: {d['claim']}  (Opacus' accountant with dpcompare: ε = {d['opacus_epsilon']:.3f} at δ = {d['delta']:g})")
    print(f"canaries: {d['training']['members']} members, {d['training']['nonmembers']} non-members")
    print(verdict_sentence(d))
    for r in d["tpr_at_fpr"]:
        print(f"TPR at FPR {r['fpr']:g}: {r['attack']:.3f} (certified ≥ {r['attack_lower']:.3f}; "
              f"the claim allows ≤ {r['claimed_max']:.3f})")
    o = d["one_run"]
    print(f"one run (top {o['k']} of {o['m']} canaries guessed, {o['r']} correct): ε ≥ {o['epsilon_lower']:.3f}, "
          f"contradicts: {o['contradicts']}")
    print(f"wrote {os.path.join(a.output, 'audit_opacus.png')} and audit_opacus.json ({d['seconds']:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
