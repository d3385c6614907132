"""Shared pytest configuration: a hypothesis profile that keeps the core suite under ~90 s."""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # so `import strategies` works from any rootdir

settings.register_profile(
    "dpcompare",
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=False,
)
settings.register_profile("ci", parent=settings.get_profile("dpcompare"), max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dpcompare"))
