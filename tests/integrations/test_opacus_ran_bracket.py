"""The Opacus accountant on a shuffled loader: ``get_epsilon`` stays Opacus' float (the Poisson ε), and
``ran_bracket(delta)`` is ``dpcompare ran``'s certified comparison of what ran (dataset size, batch size and
epochs read from the loader and the step count), checked on a tiny real Opacus run against the spec."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'dpcompare[opacus]')")
pytest.importorskip("opacus", reason="opacus is not installed (pip install 'dpcompare[opacus]')")

from dpcompare.dpsgd.ran import ran_versus_reported  # noqa: E402
from dpcompare.integrations import opacus as integration  # noqa: E402
from dpcompare.io.spec_training import parse_training  # noqa: E402

N, B, EPOCHS, SIGMA = 60, 16, 2, 1.5  # 4 batches per epoch (16, 16, 16, 12)


def _loader(**kw):
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    x = torch.randn(N, 3)
    return DataLoader(TensorDataset(x, (x[:, 0] > 0).long()), batch_size=B, **kw)


def _train(poisson: bool, epochs: int = EPOCHS, **kw):
    model = torch.nn.Sequential(torch.nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine, _ = integration.train_private(model, opt, _loader(**kw), noise_multiplier=SIGMA, epochs=epochs,
                                              poisson_sampling=poisson)
    return engine, [str(w.message) for w in caught if issubclass(w.category, integration.NotPoissonWarning)]


def test_shuffled_run_reports_the_certified_bracket_of_what_ran():
    engine, msgs = _train(poisson=False, shuffle=True)
    assert len(msgs) == 1 and "accountant.ran_bracket(delta)" in msgs[0]
    acc = engine.accountant
    assert len(acc) == EPOCHS * 4  # every batch was a step
    eps = engine.get_epsilon(1e-5)
    assert isinstance(eps, float)  # Opacus' contract: get_epsilon is the (Poisson) float
    assert eps == pytest.approx(float(acc.privacy_mechanism.epsilon(1e-5)))
    spec = f"sgm(noise_multiplier={SIGMA}, batch_size={B}, dataset_size={N}, epochs={EPOCHS}, sampling=shuffle)"
    assert acc.ran_config() == parse_training(spec)
    r = acc.ran_bracket(1e-5)
    expected = ran_versus_reported(parse_training(spec), delta=1e-5)
    assert r.ran == expected.ran and r.verdict == expected.verdict
    lo, hi = r.ran.epsilon
    assert 0 < lo < hi and r.ran.adjacency == "replace_one"
    assert hi > eps  # the shuffled run's upper end is above the Poisson ε that get_epsilon reports
    assert any("open research question" in n for n in r.notes)


def test_ran_bracket_refuses_what_it_cannot_certify():
    engine, msgs = _train(poisson=True)
    assert msgs == []
    with pytest.raises(ValueError, match="Poisson-sampled: get_epsilon\\(delta\\) is the certified guarantee"):
        engine.accountant.ran_bracket(1e-5)
    fresh = integration.DpcompareAccountant()
    with pytest.raises(ValueError, match="no data loader observed"):
        fresh.ran_bracket()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integration.NotPoissonWarning)
        fresh.observe_data_loader(_loader(shuffle=True))
    for _ in range(5):  # one epoch (4 batches) and one more step
        fresh.step(noise_multiplier=SIGMA, sample_rate=0.25)
    with pytest.raises(ValueError, match="5 steps, not a whole number of epochs of 4 batches"):
        fresh.ran_bracket()
    from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

    odd = DataLoader(TensorDataset(torch.zeros(N, 1)), batch_size=B, sampler=WeightedRandomSampler([1.0] * N, N))
    acc = integration.DpcompareAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integration.NotPoissonWarning)
        acc.observe_data_loader(odd)
    acc.step(noise_multiplier=SIGMA, sample_rate=0.25)
    with pytest.raises(ValueError, match="WeightedRandomSampler"):
        acc.ran_bracket()


@pytest.mark.parametrize(("kw", "batches"), [({"shuffle": False}, 4), ({"shuffle": True, "drop_last": True}, 3)])
def test_fixed_order_and_drop_last_loaders_are_covered(kw, batches):
    # fixed order: the truth is the bracket's upper end; drop_last: the partial batch is never used (see ran_config)
    acc = integration.DpcompareAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integration.NotPoissonWarning)
        acc.observe_data_loader(_loader(**kw))
    for _ in range(2 * batches):
        acc.step(noise_multiplier=SIGMA, sample_rate=1 / batches)
    c = acc.ran_config()
    assert (c.epochs, c.dataset_size, c.batch_size, c.sampling.value) == (2, N, B, "shuffle")
