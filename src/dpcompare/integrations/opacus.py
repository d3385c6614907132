"""dpcompare inside Opacus: a certified accountant for ``PrivacyEngine(accountant="dpcompare")``.

Importing this module registers :class:`DpcompareAccountant` with Opacus' ``register_accountant`` under the
name ``"dpcompare"`` (Opacus 1.6: ``opacus.accountants.registry``)::

    import dpcompare.integrations.opacus  # registers "dpcompare"
    from opacus import PrivacyEngine
    engine = PrivacyEngine(accountant="dpcompare")
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                   noise_multiplier=1.1, max_grad_norm=1.0)
    ...train...
    engine.get_epsilon(1e-5)                 # certified: never below the true ε of the run
    engine.accountant.tpr_at_fpr(0.01)       # the best membership attack's power at 1% false positives
    engine.accountant.mu_fit().sentence()    # the μ describing the run, with its certified Δ to G_μ
    engine.accountant.observe_data_loader(loader)  # warns once if the batches are not Poisson-sampled
    engine.accountant.ran_bracket(1e-5)      # shuffled loader: the certified bracket of what ran vs the Poisson ε

:func:`train_private` is that set-up and the DP-SGD loop in one call (used by ``examples/opacus_pareto.py``
and the tests)::

    engine, model = train_private(model, optimizer, loader, noise_multiplier=1.1, epochs=5)

The accountant keeps Opacus' history format — a list of (noise_multiplier, sample_rate, steps), one entry
per run of identical steps — and evaluates it as Poisson-subsampled Gaussian steps, add-or-remove-one
adjacency, as Opacus' RDP and PRV accountants do (``get_epsilon`` stays that float whatever the loader, as
Opacus expects; for a shuffled loader, ``ran_bracket(δ)`` is the certified comparison of what ran). One entry is the certified
:class:`~dpcompare.SubsampledGaussian`; several (a noise or rate schedule) are composed by dp-accounting's
PLD (``FromDpEvent``; guarantee ``"dp-accounting PLD"``). Every number is the pessimistic side of the
bracket: ε and δ from above, TPR and advantage from above, Bayes error from below.
"""

from __future__ import annotations

from typing import Any

from opacus.accountants import IAccountant, register_accountant

from .._validation import check_integer, check_positive
from ..comparison import delta_divergence
from ..mechanisms import FromDpEvent, Mechanism, PerfectlyPrivate, SubsampledGaussian

__all__ = ["DpcompareAccountant", "NAME", "NotPoissonWarning", "history_mechanism", "register", "train_private"]

#: the accountant's name in Opacus (``PrivacyEngine(accountant=NAME)``)
NAME = "dpcompare"


def history_mechanism(history: list[tuple[float, float, int]], *, discretization: float | None = None) -> Mechanism:
    """The mechanism of an Opacus accountant history [(noise_multiplier, sample_rate, steps), …]."""
    entries = [(float(s), float(q), int(n)) for s, q, n in history if int(n) > 0]
    if not entries:
        return PerfectlyPrivate()
    if len({(s, q) for s, q, _ in entries}) == 1:
        s, q, _ = entries[0]
        return SubsampledGaussian(s, q, sum(n for _, _, n in entries), discretization=discretization)
    event = {"class_name": "ComposedDpEvent", "events": [
        {"class_name": "SelfComposedDpEvent", "count": n, "event": {
            "class_name": "PoissonSampledDpEvent", "sampling_probability": q,
            "event": {"class_name": "GaussianDpEvent", "noise_multiplier": s}}} for s, q, n in entries]}
    return FromDpEvent(event, discretization=discretization, name="opacus-history")


class _ObservedLoader:
    """What :meth:`DpcompareAccountant.observe_data_loader` keeps of a loader (``problem``: why no certified
    shuffle analysis applies, or None)."""

    def __init__(self, poisson: bool, dataset_size: int, batch_size: int, batches_per_epoch: int,
                 problem: str | None) -> None:
        self.poisson, self.dataset_size, self.batch_size = poisson, dataset_size, batch_size
        self.batches_per_epoch, self.problem = batches_per_epoch, problem


def _observe(loader: Any, poisson: bool) -> _ObservedLoader:
    """The dataset size, batch size and batches per epoch of a loader, and whether its batches are a shuffled (or
    fixed-order) partition of the dataset into batches of ``batch_size`` — what the shuffle analysis covers."""
    from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler

    problem = None
    try:
        n, k = len(loader.dataset), len(loader)
    except TypeError:
        return _ObservedLoader(poisson, 0, 0, 0, "the loader has no length (an iterable dataset): no certified "
                                                  "analysis of its batching")
    b = getattr(loader, "batch_size", None)
    sampler, batch_sampler = getattr(loader, "sampler", None), getattr(loader, "batch_sampler", None)
    if not poisson:
        if b is None or type(batch_sampler) is not BatchSampler:
            problem = "the loader uses a custom batch sampler: no certified analysis of its batching"
        elif type(sampler) is RandomSampler and (sampler.replacement or sampler.num_samples != n):
            problem = "the loader's RandomSampler draws with replacement or not n examples: not shuffled batches"
        elif type(sampler) not in (RandomSampler, SequentialSampler):
            problem = (f"the loader's sampler is {type(sampler).__name__}: only shuffled (RandomSampler) or fixed-order "
                       "(SequentialSampler) batches are covered")
    return _ObservedLoader(poisson, n, int(b or 0), k, problem)


class NotPoissonWarning(UserWarning):
    """The run's batches are not Poisson-sampled, so the accountant's Poisson ε does not cover it."""


class DpcompareAccountant(IAccountant):
    """Opacus accountant backed by dpcompare's certified analysis (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._cache: tuple[tuple, Mechanism] | None = None
        self._warned_sampling = False
        self._loader: _ObservedLoader | None = None

    def observe_data_loader(self, loader: Any) -> bool:
        """Check that ``loader`` (what ``make_private`` returned) samples Poisson batches; warn once if not.

        The accountant sees only (noise multiplier, sample rate) per step, so :meth:`get_epsilon` always
        evaluates Poisson sampling (what Opacus expects of an accountant). With ``poisson_sampling=False`` Opacus
        trains on shuffled batches, and the Poisson ε is not a valid bound for them (Chua et al., "How private
        are DP-SGD implementations?", ICML 2024): the warning says so, and :meth:`ran_bracket` then reports the
        certified bracket of what ran. Returns whether the loader is Poisson.
        """
        from opacus.data_loader import DPDataLoader

        poisson = isinstance(loader, DPDataLoader)
        self._loader = _observe(loader, poisson)
        if not poisson and not self._warned_sampling:
            import warnings

            self._warned_sampling = True
            warnings.warn(
                "the data loader is not Poisson-sampled (poisson_sampling=False: shuffled batches); this accountant's "
                "get_epsilon reports the Poisson ε, which is not a valid bound for shuffled batches. For what ran, "
                "call accountant.ran_bracket(delta) (the certified bracket of the shuffled run beside the Poisson "
                "number), or see `dpcompare ran \"sgm(noise_multiplier=…, batch_size=…, dataset_size=…, epochs=…, "
                "sampling=shuffle)\"`",
                NotPoissonWarning, stacklevel=2)
        return poisson

    def ran_config(self):
        """The run the accountant has seen on the observed shuffled loader, as a
        :class:`~dpcompare.dpsgd.training.TrainingConfig` with ``sampling="shuffle"``: the noise multiplier of
        the history, ``dataset_size = len(loader.dataset)``, ``batch_size = loader.batch_size`` and ``epochs`` =
        steps taken / batches per epoch (``len(loader)``). ``ValueError`` naming what is missing: no loader
        observed, a Poisson loader (then :meth:`get_epsilon` is the guarantee of what ran), a sampler other than
        a shuffling or sequential one, a noise schedule, or a step count that is not whole epochs.

        With ``drop_last=True`` the partial batch is never used; the bracket of the run that keeps it still
        holds: the upper end G_{2√E/σ} needs only that each example is in at most one step per epoch, and the
        lower end's realised dataset already discards the partial batch's output
        (:mod:`dpcompare.mechanisms.allocation`). A fixed-order loader (``shuffle=False``) is covered too: its
        truth is the upper end (the example's step is known), which the bracket contains."""
        from ..dpsgd.training import TrainingConfig

        seen = self._loader
        if seen is None:
            raise ValueError("no data loader observed: call accountant.observe_data_loader(loader) with the loader "
                             "make_private returned (train_private does)")
        if seen.poisson:
            raise ValueError("the observed loader is Poisson-sampled: get_epsilon(delta) is the certified guarantee of "
                             "what ran (ran_bracket is for shuffled loaders)")
        if seen.problem:
            raise ValueError(seen.problem)
        sigmas = {float(s) for s, _, n in self.history if int(n) > 0}
        if not sigmas:
            raise ValueError("the accountant has seen no step yet: ran_bracket describes a run after training")
        if len(sigmas) > 1:
            raise ValueError(f"the history has {len(sigmas)} noise multipliers (a schedule); ran_bracket needs one "
                             "noise multiplier throughout (sampling=shuffle)")
        steps, k = len(self), seen.batches_per_epoch
        if steps % k:
            raise ValueError(f"the accountant has seen {steps} steps, not a whole number of epochs of {k} batches "
                             "(len(loader)); ran_bracket needs whole epochs (each example once per epoch)")
        return TrainingConfig(sigmas.pop(), batch_size=seen.batch_size, dataset_size=seen.dataset_size,
                              epochs=steps // k, sampling="shuffle")

    def ran_bracket(self, delta: float = 1e-5, *, fpr: float = 1e-3):
        """What ran versus what :meth:`get_epsilon` reports, for a shuffled loader: ``dpcompare ran``'s
        comparison (:func:`dpcompare.dpsgd.ran.ran_versus_reported`) of :meth:`ran_config` at ``delta`` —
        ``.ran.epsilon`` is the certified bracket [realised worst-case dataset, Gaussian μ = 2√E/σ] (replace-one;
        its width is an open research question), ``.reported`` the Poisson side, ``.verdict`` one sentence and
        ``.rows()`` the table. ``ValueError`` as :meth:`ran_config`."""
        from ..dpsgd.ran import ran_versus_reported

        return ran_versus_reported(self.ran_config(), delta=delta, fpr=fpr)

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One optimiser step (same history merging as Opacus' RDP accountant)."""
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return int(sum(n for _, _, n in self.history))

    @classmethod
    def mechanism(cls) -> str:
        return NAME

    # ------------------------------------------------------------------ the views
    @property
    def privacy_mechanism(self) -> Mechanism:
        """The dpcompare mechanism of the steps taken so far (cached per history)."""
        key = tuple(tuple(h) for h in self.history)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, history_mechanism(self.history))
        return self._cache[1]

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """Certified ε at ``delta``: the smallest ε whose pessimistic δ(ε) ≤ delta (never below the truth)."""
        return float(self.privacy_mechanism.epsilon(delta))

    def get_privacy_spent(self, *, delta: float, **kwargs: Any) -> tuple[float, float]:
        return self.get_epsilon(delta), float(delta)

    def advantage(self) -> float:
        """Membership-inference advantage TPR − FPR of the best attack (= δ(0), total variation)."""
        return float(self.privacy_mechanism.advantage)

    def tpr_at_fpr(self, fpr: float) -> float:
        """Power of the best membership test at false-positive rate ``fpr``: 1 − f(fpr), from above."""
        return float(self.privacy_mechanism.tpr(fpr))

    def gdp_mu(self) -> float | None:
        """μ of the tightest μ-GDP bound (None when no finite μ is known). For DP-SGD this is √N/σ, the
        full-batch Gaussian's, attained only in the extreme tail: to *describe* the run, use
        :meth:`mu_fit`."""
        return self.privacy_mechanism.gdp_mu

    def mu_fit(self):
        """The μ that describes the run's curve with its certified Δ-divergences to G_μ in both
        directions (``dpcompare.gaussian.fit.GdpFit``): ``.mu``; ``.excess`` = Δ(G_μ‖run), how much more
        vulnerable the run is than μ-GDP says (``.upper``, at prior ``.pi``); ``.slack`` = Δ(run‖G_μ);
        ``.strict_mu`` and ``.strict_reason()``; ``.sentence()`` says it in one line."""
        from ..gaussian.fit import gdp_fit

        return gdp_fit(self.privacy_mechanism)

    def bayes_error(self, prior: float) -> float:
        """The best attack's Bayes error at membership prior π = ``prior`` (from below)."""
        return float(self.privacy_mechanism.bayes_error(prior))

    def delta_from(self, reference: Mechanism | str):
        """Δ(reference‖this run): how much lower the best attack's Bayes error can be on this run than on
        ``reference`` (a mechanism or a spec such as ``"sgm(noise_multiplier=2, batch_size=64,
        dataset_size=60000, epochs=5)"``); a ``DeltaResult`` with its certified bracket."""
        if isinstance(reference, str):
            from ..io.spec import parse

            reference = parse(reference)
        return delta_divergence(reference, self.privacy_mechanism)


def train_private(
    model: Any,
    optimizer: Any,
    loader: Any,
    *,
    noise_multiplier: float,
    epochs: int,
    max_grad_norm: float = 1.0,
    loss_fn: Any = None,
    accountant: str = NAME,
    poisson_sampling: bool = True,
) -> tuple[Any, Any]:
    """Train ``model`` with Opacus' DP-SGD for ``epochs`` passes; returns ``(engine, private_model)``.

    ``PrivacyEngine(accountant=accountant).make_private(…)`` (Poisson sampling at rate batch size /
    dataset size, per-example clipping to ``max_grad_norm``, Gaussian noise of standard deviation
    ``noise_multiplier · max_grad_norm``), then for each epoch one pass over the private loader with
    ``loss_fn`` (cross-entropy by default). Poisson sampling can draw an empty batch; it goes through
    the optimizer like any other (Opacus gives it zero per-example gradients and adds the noise), so
    every sampling round is a step of the accountant, as the subsampled Gaussian's accounting
    requires. Skipping it would leave the round uncounted and ε understated (and whether a round
    updates the model would depend on the data). ``engine.get_epsilon(δ)`` then reads the accountant.
    ``poisson_sampling=False`` trains on shuffled batches; the accountant then warns once
    (:class:`NotPoissonWarning`) that its Poisson ε does not cover the run.
    """
    import torch
    from opacus import PrivacyEngine

    noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
    epochs = check_integer("epochs", epochs, minimum=1)
    max_grad_norm = check_positive("max_grad_norm", max_grad_norm)
    engine = PrivacyEngine(accountant=accountant)
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                   noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
                                                   poisson_sampling=poisson_sampling)
    if isinstance(engine.accountant, DpcompareAccountant):
        engine.accountant.observe_data_loader(loader)  # warns once for shuffled batches
    loss_fn = torch.nn.CrossEntropyLoss() if loss_fn is None else loss_fn
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
    return engine, model


def register() -> None:
    """Register the accountant with Opacus under ``"dpcompare"`` (idempotent)."""
    register_accountant(NAME, DpcompareAccountant, force=True)


register()
