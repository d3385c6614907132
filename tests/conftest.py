"""Shared pytest configuration: the hypothesis profiles (a derandomised default, an exploring one)."""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # so `import strategies` works from any rootdir

# The default profile (the README's test command, and CI) is derandomised: every run draws the same
# examples, so a green suite stays green on a fresh machine. Exploration is a separate, explicit run:
# HYPOTHESIS_PROFILE=explore draws fresh random examples, 4× as many (the domain harness has its own
# deep profile, DPCOMPARE_DOMAIN=deep). Anything either finds becomes a regression test.
settings.register_profile(
    "dpcompare",
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile("explore", parent=settings.get_profile("dpcompare"), max_examples=100, derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dpcompare"))


try:  # mpmath's working precision is process-global: a test that raises it must not change the next test's
    import mpmath as _mpmath
except ImportError:  # pragma: no cover - mpmath comes with the test extra
    _mpmath = None

if _mpmath is not None:
    import pytest as _pytest

    @_pytest.fixture(autouse=True)
    def _restore_mpmath_precision():
        """Give every test the mpmath precision it started with back afterwards (a test that sets
        ``mp.dps = 40`` inside made a later test that relied on the modules' 50 digits fail)."""
        saved = _mpmath.mp.dps
        yield
        _mpmath.mp.dps = saved
