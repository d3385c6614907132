"""The Opacus accountant warns once when the data loader is not Poisson (shuffled batches), and not otherwise."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'dpcompare[opacus]')")
pytest.importorskip("opacus", reason="opacus is not installed (pip install 'dpcompare[opacus]')")

from dpcompare.integrations import opacus as integration  # noqa: E402


def _train(poisson: bool):
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine, _ = integration.train_private(model, opt, loader, noise_multiplier=1.0, epochs=1,
                                              poisson_sampling=poisson)
        if not poisson:
            assert engine.accountant.observe_data_loader(loader) is False  # a second look does not warn again
    return engine, [w for w in caught if issubclass(w.category, integration.NotPoissonWarning)]


def test_shuffled_loader_warns_once():
    engine, caught = _train(poisson=False)
    assert len(caught) == 1 and "sampling=shuffle" in str(caught[0].message)
    assert engine.get_epsilon(1e-5) > 0


def test_poisson_loader_does_not_warn():
    _, caught = _train(poisson=True)
    assert caught == []
