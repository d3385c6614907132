"""The ``dpcompare`` command.

- ``dpcompare compare A B [--hyperprior jeffreys|uquadratic|beta(a,b)] [--tolerance T] [--json]``
- ``dpcompare describe A [--delta 1e-5] [--json]``
- ``dpcompare gaussian (--psi X | --sigma S [--sensitivity D] | --mu M | --auc A | --epsilon E) [--delta D] [--json]``
- ``dpcompare plot KIND SPEC… -o FILE.(png|svg|pdf)`` and ``dpcompare report SPEC… -o FILE.html``: the output
  file is computed in memory first and then written whole (temporary file in the same directory + rename).

Conventions every command follows:

1. All computation happens before anything is printed, so a failure leaves stdout empty.
2. ``--json`` writes exactly one JSON object to stdout (non-finite numbers become ``null``), and
   nothing else; human output is a rich table.
3. A user error — a bad spec, a bad parameter, any ``ValueError`` from the library, a file that
   cannot be read or written, or a usage error of the command line itself — prints one line
   ``error: …`` to stderr and exits with 2, never a traceback; with ``--json`` the line is instead one
   JSON object ``{"error": "…"}`` on stdout (and stderr stays empty), with the same exit status.
   Anything else is a bug: one line, exit 1, and the traceback only when the environment variable
   ``DPCOMPARE_DEBUG`` is set.
"""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import importlib
import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # rich is imported where a table or text is printed: a --json run never loads it
    from rich.console import Console

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1

_HELP = ("Compare differential-privacy mechanisms beyond a single (epsilon, delta) pair: Bayes error "
         "functions, Blackwell dominance and the certified Delta-divergence.")

app = typer.Typer(
    name="dpcompare",
    help=_HELP,  # + the spec grammar's usage lines, added by register_commands() (only help shows them)
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        from ... import __version__

        print(f"dpcompare {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Compare differential-privacy mechanisms beyond a single (epsilon, delta) pair."""


# ---------------------------------------------------------------------------------------------- output
# One formatter for every command: io/render.py (emit_json, num, jsonable); command modules import it from there.


def _console() -> "Console":
    # created per call so it writes to the current sys.stdout (tests capture it); emoji=False: a spec or path
    # is printed as written (":name:" never becomes an emoji), and rich does not load its emoji table.
    # rich is imported here, on the first human output: a --json run (one JSON object) does not load it
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, emoji=False)


def _print_parts(parts: list[Any]) -> None:
    """Print a command's tables and notes, one blank line between them: one ``print`` of a ``Group`` (the same
    text as a print per part and per blank line, written at once)."""
    from rich.console import Group

    spaced: list[Any] = []
    for i, part in enumerate(parts):
        if i:
            spaced.append("")
        spaced.append(part)
    _console().print(Group(*spaced))


def _numbers(option: str, text: str, *, what: str, ok, rule: str, syntax: str | None = None) -> list[float]:
    """A comma-separated list of numbers, each satisfying ``ok``; no empty items (``2,,4`` and a trailing
    comma are typos, not a shorter list). Errors name ``option``: an empty item says ``what`` to write, a
    word that is not a number says ``syntax`` (default ``rule``), a number outside the range says ``rule``."""
    out: list[float] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"{option} has an empty item in {text!r}; write {what}")
        try:
            x = float(part)
        except ValueError:
            raise ValueError(f"{option} must be {syntax or rule}, got {part!r}") from None
        if not ok(x):
            raise ValueError(f"{option} must be {rule}, got {part}")
        out.append(x)
    return out


try:  # typer ≥ 0.20 vendors click (and does not install it); older typer uses click itself
    from typer._click.exceptions import BadParameter
    from typer._click.types import ParamType

    _CLICK_EXCEPTIONS = "typer._click.exceptions"
except ImportError:  # pragma: no cover - older typer
    from click.exceptions import BadParameter  # type: ignore[no-redef]
    from click.types import ParamType  # type: ignore[no-redef]

    _CLICK_EXCEPTIONS = "click.exceptions"


class _ExactFloat(ParamType):
    """A float option that refuses text which does not survive conversion to a double: ``--delta 1e-400``
    would become 0 and ``--delta 1e400`` infinity, and the error would then show a number the user never
    wrote. The message names the option (click's "Invalid value for '--delta'") and the text as written."""

    name = "float"

    def __init__(self, option: str) -> None:
        self.option = option

    def fail(self, message: str, param: Any = None, ctx: Any = None) -> Any:  # type: ignore[override]
        raise BadParameter(message, ctx=ctx, param=param, param_hint=f"'{self.option}'")

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        if isinstance(value, float):
            return value
        text = str(value).strip()
        try:
            x = float(text)
        except ValueError:
            self.fail(f"{text!r} is not a number", param, ctx)
        lowered = text.lower().lstrip("+-")
        if x == 0 and any(c in "123456789" for c in lowered.split("e")[0]):
            self.fail(f"{text} is below the smallest positive double (about 5e-324) and would round to 0",
                      param, ctx)
        if math.isinf(x) and "inf" not in lowered:
            self.fail(f"{text} is above the largest double (about 1.8e308) and would round to infinity", param, ctx)
        return x


EXACT_FLOAT = _ExactFloat("--delta")  # the δ options (describe, gaussian, calibrate)


# ---------------------------------------------------------------------------------------------- commands
#: every command's module under ``dpcompare.io.cli``, in the order ``dpcompare --help`` lists them, and the
#: commands it registers on :data:`app`. A command line loads only the module of the command it names (a
#: module's imports — the spec registry, plotting, the audit's inputs, the papers' numerics — are paid by
#: the commands that use them); help, or a name that is not a command, loads them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "audit": ("audit",),
    "binormal": ("binormal",),
    "card": ("card",),
    "compare": ("compare",),
    "describe": ("describe",),
    "dpsgd": ("calibrate", "sweep"),
    "emergent": ("emergent",),
    "event": ("event",),
    "gaussian": ("gaussian",),
    "plotting": ("plot", "report"),
    "papers": ("levy", "dominance", "lemma6", "from-bayes", "tangent", "group", "clt", "fdiv",
               "joint-concavity", "advanced", "mixture-bounds"),
    "ran": ("ran",),
}
_MODULE_OF = {cmd: mod for mod, cmds in COMMAND_MODULES.items() for cmd in cmds}


def register_commands(names: Sequence[str] | None = None) -> None:
    """Register on :data:`app` the commands ``names`` (all when ``None``) by importing their modules, and
    keep :data:`app`'s commands in the order of :data:`COMMAND_MODULES` whatever was imported first."""
    modules = list(COMMAND_MODULES) if names is None else list(dict.fromkeys(_MODULE_OF[n] for n in names))
    for mod in modules:
        importlib.import_module(f"{__package__}.{mod}")
    order = {f"{__package__}.{mod}": i for i, mod in enumerate(COMMAND_MODULES)}
    app.registered_commands.sort(key=lambda c: order.get(getattr(c.callback, "__module__", ""), len(order)))
    if names is None:  # the root help lists the commands and the spec grammar
        from ..spec import MECHANISMS

        app.info.help = _HELP + " Mechanism specs: " + "; ".join(e.usage() for e in MECHANISMS.entries()) + "."


def _command_of(args: Sequence[str]) -> str | None:
    """The command a command line names (its first word that is not an option), if it is one."""
    for a in args:
        if a == "--":
            return None
        if not a.startswith("-"):
            return a if a in _MODULE_OF else None
        if a in ("--help", "-h", "--version"):
            return None
    return None


# ---------------------------------------------------------------------------------------------- entry point
_JSON_ERRORS = False  # set by main() for a command line with --json: errors go to stdout as JSON


def _error(message: str) -> None:
    line = " ".join(str(message).split()) or "unknown error"
    if _JSON_ERRORS:
        import json

        sys.stdout.write(json.dumps({"error": line}, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return
    sys.stderr.write(f"error: {line}\n")
    sys.stderr.flush()


def _os_error(exc: OSError) -> str:
    """A file that cannot be read or written, in one line naming the file and the reason."""
    what = exc.strerror or type(exc).__name__
    name = exc.filename if exc.filename is not None else None
    return f"cannot use the file '{name}': {what}" if name is not None else f"{what}: {exc}"


def _exception_classes(name: str) -> tuple[type[BaseException], ...]:
    """``name`` from typer's vendored click (typer ≥ 0.20), else from click itself (older typer): typer
    then never raises click's own classes, and importing click would cost start-up for nothing."""
    found: list[type[BaseException]] = []
    for modname in ("typer.exceptions", _CLICK_EXCEPTIONS):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        cls = getattr(mod, name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException) and cls not in found:
            found.append(cls)
    return tuple(found)


_NO_ARGS = _exception_classes("NoArgsIsHelpError")
_USAGE = _exception_classes("UsageError")
_CLICK = _exception_classes("ClickException")
_ABORT = _exception_classes("Abort")
_EXIT = _exception_classes("Exit")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script passes it to ``sys.exit``)."""
    global _JSON_ERRORS
    args = list(sys.argv[1:] if argv is None else argv)
    _JSON_ERRORS = "--json" in (args[: args.index("--")] if "--" in args else args)
    try:
        return _main(args)
    finally:
        _JSON_ERRORS = False


def _main(args: list[str]) -> int:
    if args and not {"--help", "-h", "--version"} & set(args):
        # every command computes: load scipy.special (through the numerics) before typer dispatches, as
        # an eager import did — imported later, from inside the command, it measured 0.1–0.2 s slower
        importlib.import_module("dpcompare._numerics")
        # opt-in (DPCOMPARE_TUNE_MALLOC=1): this process is dpcompare's own
        importlib.import_module("dpcompare._malloc").retain_freed_memory_if_asked()
    command = _command_of(args)
    if command is not None:
        register_commands([command])
    elif "--version" not in args:  # --version is answered before any command is looked at
        register_commands()
    try:
        rv = app(args=args, prog_name="dpcompare", standalone_mode=False)
    except _NO_ARGS as exc:  # bare `dpcompare`: help on stderr, exit 2 as click does
        text = exc.format_message()  # type: ignore[attr-defined]
        if text:
            sys.stderr.write(text + "\n")
        return EXIT_USER_ERROR
    except _USAGE as exc:
        ctx = getattr(exc, "ctx", None)
        cmd = ctx.command_path if ctx is not None else "dpcompare"
        _error(f"{exc.format_message()} (see '{cmd} --help')")
        return EXIT_USER_ERROR
    except _CLICK as exc:
        _error(exc.format_message())  # type: ignore[attr-defined]
        return getattr(exc, "exit_code", 0) or EXIT_USER_ERROR
    except _ABORT:
        _error("aborted")
        return 130
    except _EXIT as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except ValueError as exc:
        _error(str(exc))
        return EXIT_USER_ERROR
    except RecursionError:
        _error("the spec is nested too deeply for Python's recursion limit; about 100 levels of nested mechanisms work")
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `dpcompare … | head`: the reader left, nothing to report
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_INTERNAL_ERROR
    except OSError as exc:  # a file or directory that cannot be read or written: the user's to fix
        _error(_os_error(exc))
        return EXIT_USER_ERROR
    except Exception as exc:  # a bug, not a user error
        if os.environ.get("DPCOMPARE_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {exc}); set DPCOMPARE_DEBUG=1 for the traceback")
        return EXIT_INTERNAL_ERROR
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
