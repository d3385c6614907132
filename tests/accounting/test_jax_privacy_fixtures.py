"""The stored JAX-Privacy events are what jax-privacy 2.0.0 builds today (regenerated with jax-privacy itself).

To refresh after a jax-privacy upgrade: ``DPCOMPARE_WRITE_FIXTURES=1 pytest tests/accounting/test_jax_privacy_fixtures.py``
then ``python benchmarks/bench_events.py --write-fixture`` (dp-accounting's reference εs)."""

from __future__ import annotations

import json
import os
import sys

import pytest

pytest.importorskip("jax_privacy", reason="regenerating the fixtures needs jax-privacy (pip install jax-privacy==2.0.0)")

sys.path.insert(0, os.path.dirname(__file__))
import jax_privacy_fixture_specs as specs  # noqa: E402


def test_fixture_events_are_what_jax_privacy_builds():
    built = specs.build_with_jax_privacy()
    stored = specs.load_fixture()
    if os.environ.get("DPCOMPARE_WRITE_FIXTURES") == "1":
        doc = specs.fixture_document(built)
        for name, entry in doc.items():
            if name in stored and "dp_accounting" in stored[name]:
                entry["dp_accounting"] = stored[name]["dp_accounting"]
        with open(specs.FIXTURE, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        stored = specs.load_fixture()
    assert sorted(built) == sorted(stored)
    for name, ev in built.items():
        assert stored[name]["event"] == json.loads(json.dumps(ev)), name
