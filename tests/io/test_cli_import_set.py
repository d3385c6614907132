"""What a command line imports: only the module of the command it runs (``app.COMMAND_MODULES``), and none of
the heavy packages that command does not use — each unused import is start-up time every user pays.

Each case runs ``main([...])`` in a fresh interpreter and lists ``sys.modules`` afterwards."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

#: never needed by compare/describe/--version (plots, audits, the papers' numerics, other accountants)
HEAVY = ("dp_accounting", "matplotlib", "scipy.stats", "scipy.optimize", "scipy.integrate", "html.entities",
         "dpcompare.io.audit_inputs", "dpcompare.io.plot", "dpcompare.dpsgd.rdp_bound")


#: modules a compare of gaussian and laplace never runs: the other mechanisms, the shuffle model and DP-SGD
#: configuration behind the spec entries it does not use, the Lévy distance, and the discrete pairs
UNUSED_BY_GAUSSIAN_LAPLACE = {
    "dpcompare.mechanisms.sgm", "dpcompare.mechanisms.events", "dpcompare.mechanisms.oracle",
    "dpcompare.mechanisms.discrete", "dpcompare.mechanisms.pair_backed", "dpcompare.mechanisms.allocation",
    "dpcompare.mixtures.shuffling", "dpcompare.mixtures.clone_pairs", "dpcompare.mixtures.algebra",
    "dpcompare.dpsgd", "dpcompare.dpsgd.training", "dpcompare.comparison.levy",
    "dpcompare.tradeoff.pair", "dpcompare.tradeoff.envelope",
    # the public results it does not build: approximate dominance, the hyper-prior's figures, the pair-backed Δ
    # bracket, the bracket of discrete pairs
    "dpcompare.comparison.dominance", "dpcompare.comparison.weighted", "dpcompare.comparison.pair_delta",
    "dpcompare.tradeoff.pair_bracket",
}


def _modules_after(argv: list[str]) -> set[str]:
    code = (
        "import io, json, sys, contextlib\n"
        "from dpcompare.io.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "print(json.dumps({'rc': rc, 'modules': sorted(sys.modules)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=True)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    assert d["rc"] == 0, out.stderr
    return set(d["modules"])


def _cli_modules(mods: set[str]) -> set[str]:
    return {m.rsplit(".", 1)[1] for m in mods if m.startswith("dpcompare.io.cli.")} - {"app"}


def _vendored_click() -> bool:
    try:
        importlib.import_module("typer._click")
    except ImportError:  # pragma: no cover - older typer: click itself is the dependency
        return False
    return True


def test_compare_gaussian_laplace_imports_only_what_it_uses() -> None:
    mods = _modules_after(["compare", "gaussian(mu=1)", "laplace(b=1)", "--json"])
    assert _cli_modules(mods) == {"compare"}
    assert not {m for m in mods if m.startswith(HEAVY)}
    # no DP-SGD engine for two closed-form mechanisms
    assert not {m for m in mods if m.startswith(("dpcompare.composition", "dpcompare.gaussian"))}
    # nor the mechanisms the spec language only names: registering an entry imports no mechanism module
    # (io/spec_registry.py DeferredParams), and dpcompare.mechanisms / .comparison / .tradeoff load lazily
    assert sorted(mods & UNUSED_BY_GAUSSIAN_LAPLACE) == []
    if _vendored_click():
        assert "click" not in mods
    # one JSON object: no table, no console (rich is imported where human output is printed)
    assert not {m for m in mods if m == "rich" or m.startswith("rich.")}


def test_compare_human_output_loads_rich_and_json_does_not() -> None:
    human = _modules_after(["compare", "gaussian(mu=1)", "laplace(b=1)"])
    assert {"rich.console", "rich.table"} <= human


def test_describe_sgm_imports_only_what_it_uses() -> None:
    mods = _modules_after(["describe", "sgm(sigma=1, p=0.01, steps=100)", "--json"])
    assert _cli_modules(mods) == {"describe"}
    assert not {m for m in mods if m.startswith(HEAVY)}
    assert not {m for m in mods if m == "rich" or m.startswith("rich.")}


def test_version_imports_no_command_and_no_numerics() -> None:
    mods = _modules_after(["--version"])
    assert _cli_modules(mods) == set()
    assert not {m for m in mods if m.split(".")[0] in ("numpy", "scipy")}
    assert "dpcompare.io.spec" not in mods


def test_command_modules_table_names_every_registered_command() -> None:
    from dpcompare.io import cli  # (its ``app``: the Typer app with every command registered)

    table = importlib.import_module("dpcompare.io.cli.app")
    registered = {(c.name, c.callback.__module__.rsplit(".", 1)[1]) for c in cli.app.registered_commands}
    declared = {(cmd, mod) for mod, cmds in table.COMMAND_MODULES.items() for cmd in cmds}
    assert registered == declared
    # listed in the table's order, whatever was imported first
    order = [c.callback.__module__.rsplit(".", 1)[1] for c in cli.app.registered_commands]
    assert order == sorted(order, key=list(table.COMMAND_MODULES).index)


@pytest.mark.parametrize("argv", [["--help"], ["comp", "x"]])
def test_help_and_unknown_names_see_every_command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from dpcompare.io.cli import main

    rc = main(argv)
    out = capsys.readouterr()
    text = out.out + out.err
    if argv == ["--help"]:
        assert rc == 0
        for name in ("audit", "compare", "describe", "calibrate", "plot", "levy", "ran"):
            assert f"  {name} " in text
        assert "Mechanism specs: " in text and "sgm(" in text
    else:
        assert rc == 2
        assert "Did you mean 'compare'?" in text


def test_command_and_root_annotations_are_objects_not_strings() -> None:
    """typer reads a command's annotations on every run (``inspect.signature(eval_str=True)``): string annotations
    (``from __future__ import annotations``) would be compiled by ``eval`` each time (≈ 9 M instructions of a
    ``compare`` process), so every command module (``app.COMMAND_MODULES``) defines them as objects."""
    import inspect

    from dpcompare.io import cli  # (its ``app``: the Typer app with every command registered)

    table = importlib.import_module("dpcompare.io.cli.app")
    compare = importlib.import_module("dpcompare.io.cli.compare")
    commands = [c.callback for c in cli.app.registered_commands]
    assert compare.compare_cmd in commands
    assert {fn.__module__.rsplit(".", 1)[1] for fn in commands} == set(table.COMMAND_MODULES)
    for fn in (*commands, table._root):
        annotations = inspect.get_annotations(fn)
        assert annotations and not [k for k, v in annotations.items() if isinstance(v, str)], fn.__qualname__
