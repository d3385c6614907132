"""The ``dpcompare`` command line: one module per command group, all registered on one Typer app.

``main`` is the console-script entry point; conventions (exit codes, ``--json``) are in :mod:`.app`.
"""

from . import audit, binormal, card, compare, describe, dpsgd, emergent, event, gaussian, plotting  # noqa: F401  (registers the commands)
from . import papers  # noqa: F401  ([BCP]/[SI]/[MIX] results: levy, dominance, lemma6, from-bayes, tangent, group, clt, fdiv, …)
from . import ran  # noqa: F401,E402  (registers `dpcompare ran`)
from .app import app, main

__all__ = ["app", "main"]
