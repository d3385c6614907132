"""The spec registry builds an entry's parameter checks on first use (``DeferredParams``): the names it
registers are the names the checks are built for, and listing or rejecting names loads no mechanism.

Fresh interpreters for the import checks (``sys.modules`` of this test process already holds everything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcompare.io.spec import HYPERPRIORS, MECHANISMS, DeferredParams, Param

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("registry", [MECHANISMS, HYPERPRIORS], ids=["mechanisms", "hyperpriors"])
def test_every_deferred_entry_resolves_to_its_registered_names(registry) -> None:
    deferred = [e for e in registry.entries() if isinstance(e.params, DeferredParams)]
    assert deferred  # the built-in entries are deferred (else this test checks nothing)
    for entry in deferred:
        resolved = entry.params.resolved()
        assert list(resolved) == list(entry.params), entry.name
        assert all(isinstance(p, Param) for p in resolved.values()), entry.name


def test_a_loader_that_disagrees_with_the_registered_names_is_refused() -> None:
    params = DeferredParams(("a", "b"), lambda: {"a": Param.positive()})
    assert sorted(params) == ["a", "b"] and len(params) == 2 and "b" in params and "c" not in params
    with pytest.raises(RuntimeError, match=r"do not match the registered names \['a', 'b'\]"):
        params["a"]
    with pytest.raises(KeyError):
        DeferredParams(("a",), lambda: {"a": Param.positive()})["c"]


def test_the_loader_runs_once() -> None:
    calls: list[int] = []

    def load() -> dict[str, Param]:
        calls.append(1)
        return {"x": Param.integer(minimum=2)}

    params = DeferredParams(("x",), load)
    assert params["x"] is params["x"]
    assert calls == [1]


_PROBE = """
import json, sys
from dpcompare.io.spec import MECHANISMS, parse
usage = MECHANISMS.usage()
errors = []
for text in ("gaussian(mu=1, sigma=2)", "shuffle(eps0=1)", "gauss(mu=1)", "sgm(sigma=1, q=0.1, steps=3)"):
    try:
        parse(text)
    except ValueError as exc:
        errors.append(str(exc))
print(json.dumps({"usage": usage, "errors": errors, "modules": sorted(sys.modules)}))
"""


def test_usage_and_errors_about_names_load_no_mechanism() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=120,
                         check=True)
    d = json.loads(out.stdout)
    assert "sgm(sigma=..., p=..., steps=...)" in d["usage"] and "shuffle(eps0=..., n=...)" in d["usage"]
    assert d["errors"] == [
        "gaussian cannot combine mu and sigma; usage: gaussian(mu=...) | gaussian(sigma=..., [sensitivity=...]) "
        "(in mechanism spec 'gaussian(mu=1, sigma=2)')",
        "shuffle is missing parameter n; usage: shuffle(eps0=..., n=...) (in mechanism spec 'shuffle(eps0=1)')",
        "unknown mechanism 'gauss'; known: approxdp, bnp, compose, gaussian, laplace, mixture, pp, puredp, "
        "random_init, rr, sgm, shuffle, shuffle_pair, subsample; did you mean 'gaussian'? (in mechanism spec "
        "'gauss(mu=1)')",
        "unknown parameter 'q' for sgm; allowed: adjacency, batch_size, dataset_size, epochs, noise_multiplier, p, "
        "sampling, sampling_rate, sigma, steps (in mechanism spec 'sgm(sigma=1, q=0.1, steps=3)')",
    ]
    loaded = {m for m in d["modules"] if m.startswith(("dpcompare.mechanisms.", "dpcompare.mixtures.", "scipy"))}
    assert sorted(loaded) == []
