"""The ``audit`` command: an attack's results next to a privacy claim.

``dpcompare audit --claim SPEC (--scores MEMBERS NONMEMBERS | --counts TP,P,FP,N … | --one-run M,K,R)
[--confidence 0.95] [--delta 1e-5] [--thresholds 100] [--plot FILE] [--report FILE.html] [--json]``

Scores files: ``.npy`` (a 1-d array) or text/``.csv`` (numbers separated by commas, spaces or new lines);
higher score = "member". Every number is read and checked before anything is computed; a bad input is
one line naming the option and what is allowed, exit 2 (with ``--json``: ``{"error": …}`` on stdout),
and no output file.
"""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
import sys
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..audit_inputs import load_scores
from ..files import output_path, write_output
from ..render import emit_json, num
from ..spec import parse
from .app import EXIT_USER_ERROR, _print_parts, app

_EPILOG = ("Example: dpcompare audit --claim 'sgm(sigma=1.1, p=0.01, steps=1e4)' --scores in.npy out.npy --json")


def _ints(option: str, text: str, names: tuple[str, ...]) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != len(names) or not all(parts):
        raise ValueError(f"{option} must be {','.join(names)} (whole numbers), got {text!r}")
    out = []
    for name, p in zip(names, parts):
        try:
            x = float(p)
        except ValueError:
            raise ValueError(f"{option}: {name} must be a whole number, got {p!r}") from None
        if not math.isfinite(x) or x != round(x):
            raise ValueError(f"{option}: {name} must be a whole number, got {p!r}")
        out.append(int(x))
    return out


def _real(option: str, text: str, low: float, high: float, low_open: bool, high_open: bool) -> float:
    rng = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{option} must be a number in {rng}, got {text!r}") from None
    ok = math.isfinite(x) and (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    if not ok:
        raise ValueError(f"{option} must be in {rng}, got {text}")
    return x


def _table(d: dict[str, Any]) -> list[Any]:
    t = Table(title=f"audit of {escape(d['claim'])}  ({d['input']}, confidence {d['confidence']:g})",
              title_justify="left")
    t.add_column("question")
    t.add_column("answer", justify="right")
    t.add_column("meaning")
    verdict = "YES" if d["contradicts"] else "no"
    t.add_row("contradicts the claim?", verdict,
              "the audit's confidence region lies below the claimed curve" if d["contradicts"]
              else "the attack stays within what the claim allows")
    eps_lo, eps_c = d["epsilon_lower"], d["claimed_epsilon"]
    t.add_row(f"ε proved at δ = {num(d['delta'], 3)}", "∞" if eps_lo is None else num(eps_lo),
              "with this confidence the mechanism is not (ε′, δ)-DP for ε′ below this")
    t.add_row(f"ε claimed at δ = {num(d['delta'], 3)}", "∞" if eps_c is None else num(eps_c), "")
    g = d["gap"]
    if g.get("value") is not None:
        t.add_row("gap Δ(attack‖claim)", num(g["value"]),
                  (f"Bayes-error room the attack did not reach, largest at prior π = {num(g['pi'], 4)} "
                   if g.get("pi") is not None else "the attack reaches the claim's Bayes error at every prior ")
                  + 
                  f"(band [{num(g['lower'], 3)}, {num(g['upper'], 3)}])")
    if d.get("gdp_mu_lower") is not None:
        t.add_row("μ-GDP ruled out", num(d["gdp_mu_lower"]), "the audit contradicts every μ-GDP claim with μ below this")
    for row in d.get("tpr_at_fpr", []):
        t.add_row(f"TPR at FPR {num(row['fpr'], 3)}", num(row["attack"], 4),
                  f"certified ≥ {num(row['attack_lower'], 4)}; the claim allows at most {num(row['claimed_max'], 4)}")
    if "epsilon_lower_fdp" in d:
        t.add_row("ε proved (f-DP test)", num(d["epsilon_lower_fdp"]), "Mahloujifar et al.'s test of f_{ε,δ}")
    return [t, f"method: {escape(d['method'])}"]


@app.command("audit", epilog=_EPILOG)
def audit_cmd(
    claim: Annotated[Optional[str], typer.Option("--claim", metavar="SPEC", help="The claimed mechanism: a spec or a DpEvent JSON file.", show_default=False)] = None,
    scores: Annotated[Optional[tuple[str, str]], typer.Option("--scores", metavar="MEMBERS NONMEMBERS", help="Attack scores of members and non-members (.npy or .csv/.txt); higher = member.", show_default=False)] = None,
    counts: Annotated[Optional[list[str]], typer.Option("--counts", metavar="TP,P,FP,N", help="An operating point: TP true positives of P members, FP false positives of N non-members (repeat for several).", show_default=False)] = None,
    one_run: Annotated[Optional[str], typer.Option("--one-run", metavar="M,K,R", help="One-run audit: M canaries, K guesses, R correct.", show_default=False)] = None,
    confidence: Annotated[str, typer.Option("--confidence", metavar="C", help="Confidence level in (0, 1).")] = "0.95",
    delta: Annotated[str, typer.Option("--delta", metavar="D", help="δ at which the ε's are reported, in [0, 1).")] = "1e-5",
    thresholds: Annotated[str, typer.Option("--thresholds", metavar="K", help="Scores: number of audited ranks.")] = "100",
    plot: Annotated[Optional[str], typer.Option("--plot", metavar="FILE", help="Also write the figure (.png, .svg or .pdf).", show_default=False)] = None,
    report: Annotated[Optional[str], typer.Option("--report", metavar="FILE", help="Also write a one-page HTML report (.html).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Does an attack's result contradict a privacy claim, and how close does it come to what the claim allows?"""
    try:
        result, claim_mech, plot_path, fmt = _run(claim, scores, counts, one_run, confidence, delta, thresholds, plot)
        data = page = None
        report_path = output_path(report, ("html", "htm"))[0] if report is not None else None
        if plot_path is not None:
            from .. import _figure
            from ..audit_figure import audit_figure

            data = _figure.render(audit_figure(result, claim_mech), fmt)
        if report_path is not None:
            from ..audit_report import audit_report

            page = audit_report(result, claim_mech).encode("utf-8")
    except ValueError as exc:
        if not as_json:
            raise
        emit_json({"error": " ".join(str(exc).split())})
        sys.stderr.write(f"error: {' '.join(str(exc).split())}\n")
        raise typer.Exit(EXIT_USER_ERROR) from None
    if data is not None:
        write_output(plot_path, data)
    if page is not None:
        write_output(report_path, page)
    d = result.to_dict()
    if plot_path is not None:
        d["plot"] = plot_path
    if report_path is not None:
        d["report"] = report_path
    if as_json:
        emit_json(d)
        return
    _print_parts(_table(d) + [f"wrote {escape(p)}" for p in (plot_path, report_path) if p])


def _run(claim, scores, counts, one_run, confidence, delta, thresholds, plot):
    from ...audit import Counts, OneRun, Scores, audit

    if claim is None:
        raise ValueError("--claim is required: a mechanism spec such as 'sgm(sigma=1.1, p=0.01, steps=1e4)' or a DpEvent JSON file")
    given = [name for name, v in (("--scores", scores), ("--counts", counts), ("--one-run", one_run)) if v]
    if len(given) != 1:
        raise ValueError("give exactly one of --scores MEMBERS NONMEMBERS, --counts TP,P,FP,N or --one-run M,K,R"
                         + (f", got {' and '.join(given)}" if given else ""))
    c = _real("--confidence", confidence, 0.0, 1.0, True, True)
    d = _real("--delta", delta, 0.0, 1.0, False, True)
    k_text = thresholds.strip()
    if not k_text.isdigit() or int(k_text) < 1:
        raise ValueError(f"--thresholds must be a whole number >= 1, got {thresholds!r}")
    if scores:
        data: Any = Scores(load_scores("--scores MEMBERS", scores[0]), load_scores("--scores NONMEMBERS", scores[1]))
    elif counts:
        rows = [_ints("--counts", text, ("TP", "P", "FP", "N")) for text in counts]
        data = Counts(*(list(col) for col in zip(*rows)))
    else:
        data = OneRun(*_ints("--one-run", one_run, ("M", "K", "R")))
    plot_path = fmt = None
    if plot is not None:
        plot_path, fmt = output_path(plot, ("png", "svg", "pdf"))
        if one_run:
            raise ValueError("--plot needs --scores or --counts: a one-run audit certifies no trade-off curve to draw")
    mech = parse(claim)
    return audit(mech, data, confidence=c, delta=d, thresholds=int(k_text)), mech, plot_path, fmt
