"""The ``card`` command: the privacy card of one mechanism or training run (see :mod:`dpcompare.io.privacy_card`)."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..render import emit_json
from .app import _console, app


@app.command("card")
def card_cmd(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="Mechanism spec, e.g. 'sgm(sigma=1, p=0.01, steps=1000)'.",
                                        show_default=False)],
    n: Annotated[Optional[int], typer.Option("--n", metavar="N", help="Individuals in the data: adds ε at δ = 1/N.")] = None,
    unit: Annotated[Optional[str], typer.Option("--unit", metavar="TEXT", help="Unit of privacy for the registry entry.")] = None,
    output: Annotated[Optional[str], typer.Option("-o", "--output", metavar="FILE.html", help="Also write the card as one self-contained HTML file.", show_default=False)] = None,
    html_out: Annotated[Optional[str], typer.Option("--html", metavar="FILE.html", hidden=True, help="The same as -o (kept for old scripts).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Privacy card of SPEC: ε at δ = 1e-5, 1e-6 (1/N), μ-GDP, advantage, TPR at FPR, Bayes error, registry fields."""
    from ..privacy_card import DEFAULT_UNIT, build_card, card_table_rows
    from ..files import output_path, write_output

    if output is not None and html_out is not None:
        raise ValueError("give the HTML file once: -o FILE.html (--html is its old name)")
    option = "--html" if html_out is not None else "-o"
    html_out = html_out if html_out is not None else output
    if html_out is not None:
        output_path(html_out, ("html",), option=option)
    card = build_card(spec, n=n, unit=DEFAULT_UNIT if unit is None else unit, figures=html_out is not None)
    if html_out is not None:
        write_output(html_out, card.html().encode("utf-8"))
    if as_json:
        emit_json({**card.to_dict(), **({"html": html_out} if html_out else {})})
        return
    t = Table(title=f"privacy card: {escape(card.spec)}", title_justify="left")
    t.add_column("certified bound", no_wrap=True)
    t.add_column("where", no_wrap=True)
    for bound, where, _meaning in card_table_rows(card):
        t.add_row(escape(bound), escape(where))
    reg = Table(title="registry entry", title_justify="left", show_header=False)
    reg.add_column(no_wrap=True)
    reg.add_column()
    for k, v in card.registry.items():
        reg.add_row(escape(k), escape(v))
    con = _console()
    con.print(t)
    for note in card.notes:
        con.print(escape(note))
    con.print("≤: the truth is at most this; ≥: at least this (both err towards less privacy); ≈: a description, not a bound.")
    con.print()
    con.print(reg)
    if card.ran is not None:
        from .ran import print_ran

        con.print()
        print_ran(card.ran)
    if html_out is not None:
        con.print(f"wrote {escape(html_out)}")
