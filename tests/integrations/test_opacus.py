"""The Opacus accountant (integrations/opacus.py): a real PrivacyEngine trains a tiny model on CPU for a
few steps; our certified ε must lie between Opacus' PRV lower and upper estimates and below its RDP ε."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'dpcompare[opacus]')")
opacus = pytest.importorskip("opacus", reason="opacus is not installed (pip install 'dpcompare[opacus]')")

import dpcompare as dc  # noqa: E402
from dpcompare.integrations import opacus as integration  # noqa: E402

DELTA = 1e-5


def _train(accountant: str, steps_noise=1.0):
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x[:, 0] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(x, y), batch_size=32)
    engine, _ = integration.train_private(model, opt, loader, noise_multiplier=steps_noise, epochs=2,
                                          accountant=accountant)
    return engine


def test_privacy_engine_accepts_the_dpcompare_accountant_and_is_certified():
    engine = _train("dpcompare")
    acc = engine.accountant
    assert isinstance(acc, integration.DpcompareAccountant) and acc.mechanism() == "dpcompare"
    (sigma, q, n), = acc.history
    assert (sigma, q) == (1.0, 32 / 256) and n == len(acc) > 0
    ours = engine.get_epsilon(DELTA)

    from opacus.accountants import PRVAccountant, RDPAccountant

    prv, rdp = PRVAccountant(), RDPAccountant()
    prv.history = list(acc.history)
    rdp.history = list(acc.history)
    eps_error, delta_error = 0.01, DELTA / 1000
    lo, _, up = prv._get_dprv(eps_error, delta_error).compute_epsilon(DELTA, delta_error, eps_error)
    assert lo <= ours <= up  # PRV brackets the truth (Gopi et al. 2021); ours is certified and tight
    assert ours <= rdp.get_epsilon(DELTA)  # RDP conversion is looser

    # the other views are those of the same certified mechanism
    m = dc.SubsampledGaussian(sigma, q, n)
    assert acc.advantage() == pytest.approx(m.advantage)
    assert acc.tpr_at_fpr(0.01) == pytest.approx(float(m.tpr(0.01)))
    assert acc.gdp_mu() == pytest.approx(math.sqrt(n) / sigma)
    assert acc.bayes_error(0.5) == pytest.approx(float(m.bayes_error(0.5)))
    d = acc.delta_from(f"sgm(sigma=2, p={q}, steps={n})")  # a more private reference
    assert d.lower <= d.value <= d.upper and d.value > 0


def test_schedules_compose_and_empty_history_is_private():
    acc = integration.DpcompareAccountant()
    assert acc.get_epsilon(DELTA) == 0.0
    acc.step(noise_multiplier=1.0, sample_rate=0.1)
    acc.step(noise_multiplier=2.0, sample_rate=0.1)
    assert acc.history == [(1.0, 0.1, 1), (2.0, 0.1, 1)]
    eps = acc.get_epsilon(DELTA)
    single = dc.SubsampledGaussian(1.0, 0.1, 1).epsilon(DELTA)
    assert single < eps < dc.SubsampledGaussian(1.0, 0.1, 2).epsilon(DELTA)
    assert acc.get_privacy_spent(delta=DELTA) == (eps, DELTA)  # Opacus' IAccountant interface


def test_train_private_counts_every_step_and_rejects_bad_input():
    engine = _train("rdp")  # Opacus' own accountant sees the same steps
    assert engine.accountant.history == [(1.0, 32 / 256, 2 * 256 // 32)]  # 2 epochs of 8 Poisson batches
    from torch.utils.data import DataLoader, TensorDataset

    # 8 records at p = 1/8 draw an empty batch in about a third of the rounds (seeded: 14 of 40 here);
    # each is still a sampling round of the mechanism, so the accountant must count all 5 × 8 of them
    torch.manual_seed(1)
    tiny = DataLoader(TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,))), batch_size=1)
    model = torch.nn.Linear(3, 2)
    engine, trained = integration.train_private(model, torch.optim.SGD(model.parameters(), lr=0.1), tiny,
                                                noise_multiplier=1.0, epochs=5)
    assert engine.accountant.history == [(1.0, 1 / 8, 5 * 8)]
    assert all(bool(torch.isfinite(w).all()) for w in trained.parameters())

    loader = DataLoader(TensorDataset(torch.zeros(4, 2), torch.zeros(4).long()), batch_size=2)
    model = torch.nn.Linear(2, 2)
    for kw, match in (({"noise_multiplier": 0.0, "epochs": 1}, "noise_multiplier"),
                      ({"noise_multiplier": 1.0, "epochs": 0}, "epochs"),
                      ({"noise_multiplier": 1.0, "epochs": 1, "max_grad_norm": -1.0}, "max_grad_norm")):
        with pytest.raises(ValueError, match=match):
            integration.train_private(model, torch.optim.SGD(model.parameters(), lr=0.1), loader, **kw)
