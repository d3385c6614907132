"""The ``dpcompare`` command line: one module per command group, all registered on one Typer app.

``main`` is the console-script entry point; conventions (exit codes, ``--json``) are in :mod:`.app`. A
command line imports only the module of the command it runs (``app.COMMAND_MODULES``); ``app`` here is
the Typer app with every command registered (``app.register_commands()``), loaded on first use.
"""

from __future__ import annotations

from typing import Any

from .app import main

del app  # noqa: F821  (the submodule: the name `app` of this package is the Typer app (below))

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":
        import importlib

        _app_module = importlib.import_module(f"{__name__}.app")  # the submodule (`from . import app` is this name)
        _app_module.register_commands()
        return _app_module.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
