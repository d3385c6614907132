"""The JAX-Privacy events our fixtures hold: which builder of ``jax_privacy.experimental.accounting`` (2.0.0)
made each, with which arguments (its keyword defaults otherwise), plus two events reported to answer ∞ before
that motivated the certified routes and the per-user event of ``jax_privacy.accounting.analysis``'s
``DpsgdTrainingUserLevelAccountant`` (built inside ``_compute_epsilon``, not by a public function, so it is
rebuilt here with that code's formula: sensitivities 0…k, probabilities Binomial(k, q) pmf).

``tests/accounting/data/jax_privacy_events.json`` is the stored output (plain DpEvent JSON, no jax-privacy
needed to read it); ``test_jax_privacy_fixtures.py`` regenerates it when jax-privacy is installed.
"""

from __future__ import annotations

import json
import os

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "jax_privacy_events.json")

#: name → (builder in jax_privacy.experimental.accounting, positional args, keyword args)
JAX_BUILDERS: dict[str, tuple[str, list, dict]] = {
    "dpsgd_event": ("dpsgd_event", [1.0, 1000], {"sampling_prob": 0.01}),
    "fixed_dpsgd_event": ("fixed_dpsgd_event", [1.0, 1000], {"dataset_size": 10000, "batch_size": 100}),
    "fixed_dpsgd_event_replace": ("fixed_dpsgd_event", [1.0, 50],
                                  {"dataset_size": 10000, "batch_size": 100, "replace": True}),
    "truncated_dpsgd_event": ("truncated_dpsgd_event", [1.0, 200],
                              {"sampling_prob": 0.01, "num_examples": 10000, "truncated_batch_size": 110}),
    "amplified_bandmf_event": ("amplified_bandmf_event", [1.0, 1000], {"num_bands": 4, "sampling_prob": 0.04}),
    "truncated_amplified_bandmf_event": ("truncated_amplified_bandmf_event", [1.0, 400],
                                         {"num_bands": 4, "sampling_prob": 0.04, "largest_group_size": 2500,
                                          "truncated_batch_size": 110}),
}


def user_level_event(noise_multiplier: float, examples_per_user: int, q: float, steps: int) -> dict:
    """The Poisson branch of ``DpsgdTrainingUserLevelAccountant._compute_epsilon`` (jax-privacy 2.0.0) as a plain
    DpEvent: SelfComposed(MixtureOfGaussians(nm, [0..k], Binomial(k, q).pmf), steps)."""
    from scipy import stats

    sens = list(range(examples_per_user + 1))
    probs = [float(stats.binom.pmf(x, examples_per_user, q)) for x in sens]
    mog = {"module_name": "dp_accounting.dp_event", "class_name": "MixtureOfGaussiansDpEvent",
           "standard_deviation": noise_multiplier, "sensitivities": [float(s) for s in sens], "sampling_probs": probs}
    return {"module_name": "dp_accounting.dp_event", "class_name": "SelfComposedDpEvent", "event": mog, "count": steps}


def _plain(cls: str, **fields) -> dict:
    return {"module_name": "dp_accounting.dp_event", "class_name": cls, **fields}


#: events built without jax-privacy (the two reported to answer ∞ before, and the per-user one)
OTHER_EVENTS: dict[str, dict] = {
    "mixture_of_gaussians": _plain("MixtureOfGaussiansDpEvent", standard_deviation=1.0,
                                         sensitivities=[0.0, 1.0], sampling_probs=[0.5, 0.5]),
    "mixture_of_gaussians_x10": _plain("SelfComposedDpEvent", event=_plain(
        "MixtureOfGaussiansDpEvent", standard_deviation=1.0, sensitivities=[0.0, 1.0], sampling_probs=[0.5, 0.5]),
        count=10),
    "truncated_subsampled_gaussian": _plain("TruncatedSubsampledGaussianDpEvent", dataset_size=1000,
                                                  sampling_probability=0.1, truncated_batch_size=120,
                                                  noise_multiplier=1.0),
    "user_level_mixture": user_level_event(2.0, 2, 0.01, 100),
}


def build_with_jax_privacy() -> dict[str, dict]:
    """All fixture events, the JAX-Privacy ones built by jax-privacy itself (plain form)."""
    from jax_privacy.experimental import accounting

    from dpcompare.accounting.dp_accounting import event_to_dict

    out = {}
    for name, (fn, args, kwargs) in JAX_BUILDERS.items():
        out[name] = event_to_dict(getattr(accounting, fn)(*args, **kwargs))
    out.update(OTHER_EVENTS)
    return out


def load_fixture() -> dict:
    """{name: {"builder": …, "event": plain DpEvent}} from the stored JSON."""
    with open(FIXTURE, encoding="utf-8") as fh:
        return json.load(fh)


def fixture_document(events: dict[str, dict]) -> dict:
    doc = {}
    for name, ev in events.items():
        if name in JAX_BUILDERS:
            fn, args, kwargs = JAX_BUILDERS[name]
            builder = f"jax_privacy.experimental.accounting.{fn}(*{args}, **{kwargs})"
        else:
            builder = "built without jax-privacy (tests/accounting/jax_privacy_fixture_specs.py)"
        doc[name] = {"builder": builder, "event": ev}
    return doc
