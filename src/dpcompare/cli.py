"""The ``dpcompare`` command (DESIGN.md §3).

- ``dpcompare compare A B [--hyperprior jeffreys|uquadratic|beta(a,b)] [--tolerance T] [--json]``
- ``dpcompare describe A [--delta 1e-5] [--json]``

Conventions every command follows:

1. All computation happens before anything is printed, so a failure leaves stdout empty.
2. ``--json`` writes exactly one JSON object to stdout (non-finite numbers become ``null``), and
   nothing else; human output is a rich table.
3. A user error — a bad spec, a bad parameter, any ``ValueError`` from the library, or a usage
   error of the command line itself — prints one line ``error: …`` to stderr and exits with 2,
   never a traceback. Anything else is a bug: one line, exit 1, and the traceback only when the
   environment variable ``DPCOMPARE_DEBUG`` is set.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any, Optional

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .spec import MECHANISMS, parse, parse_hyperprior

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1

_SPEC_HELP = "Mechanism specs: " + "; ".join(e.usage() for e in MECHANISMS.entries()) + "."

app = typer.Typer(
    name="dpcompare",
    help=(
        "Compare differential-privacy mechanisms beyond a single (epsilon, delta) pair: Bayes error "
        "functions, Blackwell dominance and the certified Delta-divergence. " + _SPEC_HELP
    ),
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        from . import __version__

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
def _jsonable(x: Any) -> Any:
    """Plain JSON types; NaN and ±inf become None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return str(x)


def _emit_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(_jsonable(obj), allow_nan=False) + "\n")
    sys.stdout.flush()


def _console() -> Console:
    # created per call so it writes to the current sys.stdout (tests capture it)
    return Console(file=sys.stdout, highlight=False)


def _num(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    f = float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "∞" if f > 0 else "-∞"
    return f"{f:.{digits}g}"


# ---------------------------------------------------------------------------------------------- compare
_DIRECTION_MEANING = (
    ("Δ(A‖B)", "regret of choosing B over A: how much lower the best attack's Bayes error can be on B than on A"),
    ("Δ(B‖A)", "regret of choosing A over B: how much lower the best attack's Bayes error can be on A than on B"),
    ("Δ↔", "max of both directions = sup over π of |R_A(π) − R_B(π)| (a metric)"),
)


def _compare_tables(d: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    head = f"[bold]A[/] = {escape(d['a'])}\n[bold]B[/] = {escape(d['b'])}"
    if d.get("hyperprior"):
        head += f"\nhyper-prior on the adversary's prior π: {escape(str(d['hyperprior']))} (Δ weighted by its density)"
    out.append(head)

    t = Table(title="Δ-divergence (Bayes-error regret)", title_justify="left")
    t.add_column("", no_wrap=True)
    t.add_column("Δ", justify="right", no_wrap=True)
    t.add_column("certified bracket", justify="center", no_wrap=True)
    t.add_column("attained at π", justify="right", no_wrap=True)
    for key, (label, _) in zip(("delta_ab", "delta_ba"), _DIRECTION_MEANING):
        r = d[key]
        at = _num(r.get("pi"), 4) if r["value"] > 0 else "- (Δ = 0)"
        if r["value"] > 0 and r.get("eps") is not None:
            at += f" (ε = {_num(r['eps'], 4)})"
        t.add_row(label, _num(r["value"]), f"[{_num(r['lower'])}, {_num(r['upper'])}]", at)
    sb = d.get("symmetric_bounds")
    bracket = f"[{_num(sb[0])}, {_num(sb[1])}]" if sb else ""
    t.add_row("Δ↔ symmetric", _num(d["symmetric"]), bracket, "")
    out.append(t)
    legend = Table.grid(padding=(0, 1))
    legend.add_column(no_wrap=True)
    legend.add_column()
    for label, text in _DIRECTION_MEANING:
        legend.add_row(f" {label}", escape(text))
    out.append(legend)

    verdict = d["verdict"]
    text = d.get("verdict_text") or verdict
    tol = d.get("tolerance")
    tol_txt = f" Tolerance: Δ ≤ {_num(tol, 3)} counts as 0." if tol is not None else ""
    out.append(f"[bold]Verdict[/]: {escape(verdict)} — {escape(text)}.{tol_txt}")
    cross = d.get("crossings") or []
    if cross:
        pts = ", ".join(_num(c, 4) for c in cross)
        out.append(f"[bold]Crossings[/]: the Bayes error functions R_A and R_B cross at π ≈ {pts}.")
    else:
        out.append("[bold]Crossings[/]: none — R_A − R_B does not change sign.")
    summary = d.get("summary")
    if summary and not summary.startswith(text):
        out.append(f"[bold]In words[/]: {escape(summary)}")
    return out


@app.command("compare")
def compare_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="First mechanism spec, e.g. 'gaussian(mu=1)'.", show_default=False)],
    b: Annotated[str, typer.Argument(metavar="B", help="Second mechanism spec, e.g. 'laplace(b=1)'.", show_default=False)],
    hyperprior: Annotated[
        Optional[str],
        typer.Option("--hyperprior", metavar="PRIOR", help="Weight the adversary's prior: jeffreys | uquadratic | beta(a,b)."),
    ] = None,
    tolerance: Annotated[
        Optional[float],
        typer.Option("--tolerance", metavar="T", help="Δ at or below T counts as 0 in the Blackwell verdict (default: the library's)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Compare A and B: Δ(A‖B), Δ(B‖A), symmetric Δ, Blackwell verdict and crossing priors."""
    from .compare import compare

    ma, mb = parse(a), parse(b)
    h = parse_hyperprior(hyperprior) if hyperprior is not None else None
    kwargs: dict[str, Any] = {"hyperprior": h}
    if tolerance is not None:
        kwargs["tol"] = tolerance
    result = compare(ma, mb, **kwargs).to_dict()
    if as_json:
        _emit_json(result)
        return
    parts = _compare_tables(result)
    con = _console()
    for i, part in enumerate(parts):
        if i:
            con.print()
        con.print(part)


# ---------------------------------------------------------------------------------------------- describe
_DESCRIBE_ROWS = (
    ("epsilon", "ε at δ = {delta}", "smallest ε with δ(ε) ≤ δ (∞: none)"),
    ("advantage", "advantage (TV)", "best attack's TPR − FPR = δ(0)"),
    ("fixed_point", "fixed point α*", "best attack's FPR = FNR: f(α*) = α*"),
    ("minimax_bayes_error", "minimax Bayes error R*", "best attack's error at prior π = ½"),
    ("auc", "AUC", "area under the best attack's ROC curve"),
    ("gdp_mu", "GDP μ", "tightest μ-GDP bound (-: none)"),
)
_DESCRIBE_HIDDEN = {"mechanism", "delta", "exact"}


def _describe_table(d: dict[str, Any]) -> Table:
    exact = d.get("exact")
    note = "exact" if exact else "numeric: the pessimistic side of a certified bracket"
    t = Table(title=f"{escape(str(d.get('mechanism', '')))}  ({note})", title_justify="left")
    t.add_column("view")
    t.add_column("value", justify="right")
    t.add_column("meaning")
    shown = set(_DESCRIBE_HIDDEN)
    for key, label, meaning in _DESCRIBE_ROWS:
        if key not in d:
            continue
        shown.add(key)
        value = d[key]
        text = "∞" if key == "epsilon" and value is None else _num(value)
        t.add_row(label.format(delta=_num(d.get("delta"), 3)), text, meaning)
    for key, value in d.items():  # views added later show up without a change here
        if key not in shown and not isinstance(value, (dict, list)):
            t.add_row(key.replace("_", " "), _num(value) if isinstance(value, (int, float)) else escape(str(value)), "")
    return t


@app.command("describe")
def describe_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec, e.g. 'gaussian(mu=1)'.", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to report ε.")] = 1e-5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """The scalar views of A: ε at δ, advantage, fixed point, minimax Bayes error, AUC, GDP μ."""
    mech = parse(a)
    result = mech.describe(delta)
    if as_json:
        _emit_json(result)
        return
    _console().print(_describe_table(result))


# ---------------------------------------------------------------------------------------------- entry point
def _error(message: str) -> None:
    line = " ".join(str(message).split()) or "unknown error"
    sys.stderr.write(f"error: {line}\n")
    sys.stderr.flush()


def _exception_classes(name: str) -> tuple[type[BaseException], ...]:
    """``name`` from typer's vendored click (typer ≥ 0.20) and from click itself (older typer)."""
    found: list[type[BaseException]] = []
    for modname in ("typer.exceptions", "typer._click.exceptions", "click.exceptions"):
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
    args = list(sys.argv[1:] if argv is None else argv)
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
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `dpcompare … | head`: the reader left, nothing to report
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_INTERNAL_ERROR
    except Exception as exc:  # a bug, not a user error
        if os.environ.get("DPCOMPARE_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {exc}); set DPCOMPARE_DEBUG=1 for the traceback")
        return EXIT_INTERNAL_ERROR
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
