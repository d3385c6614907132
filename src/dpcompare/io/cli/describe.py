"""The ``describe`` command(s) of the dpcompare CLI."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.table import Table

from ..spec import parse
from ..render import emit_json, num
from .app import EXACT_FLOAT, _console, app

# ---------------------------------------------------------------------------------------------- describe
_DESCRIBE_ROWS = (
    ("epsilon", "ε at δ = {delta}", "smallest ε with δ(ε) ≤ δ (∞: none)"),
    ("advantage", "advantage (TV)", "best attack's TPR − FPR = δ(0)"),
    ("fixed_point", "fixed point α*", "best attack's FPR = FNR: f(α*) = α*"),
    ("minimax_bayes_error", "minimax Bayes error R*", "best attack's error at prior π = ½"),
    ("auc", "AUC", "area under the best attack's ROC curve"),
    ("mu_fit", "μ describing the curve", "G_μ closest in Bayes error (minimax fit; not a bound)"),
    ("mu_fit_excess_upper", "Δ(G_μ‖A) ≤", "certified: A is at most this much more vulnerable than μ-GDP says"),
    ("mu_fit_slack_upper", "Δ(A‖G_μ) ≤", "certified: μ-GDP overstates the best attack by at most this"),
    ("gdp_mu", "μ-GDP upper bound", "tightest μ: f ≥ G_μ everywhere (-: none known)"),
    ("mu_at_fixed_point", "μ through α*", "G_μ through α*: μ = −2Φ⁻¹(α*) (not a bound)"),
)
_DESCRIBE_HIDDEN = {"mechanism", "delta", "exact", "mu_fit_sentence", "gdp_mu_reason", "mu_fit_excess", "mu_fit_slack"}


def _describe_table(d: dict[str, Any]) -> "Table":
    from rich.markup import escape
    from rich.table import Table

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
        text = "∞" if key == "epsilon" and value is None else num(value)
        t.add_row(label.format(delta=num(d.get("delta"), 3)), text, meaning)
    for key, value in d.items():  # views added later show up without a change here
        if key not in shown and not isinstance(value, (dict, list)):
            is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
            t.add_row(key.replace("_", " "), num(value) if is_number else escape(str(value)), "")
    return t


@app.command("describe")
def describe_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec, e.g. 'gaussian(mu=1)'.", show_default=False)],
    delta: Annotated[float, typer.Option("--delta", metavar="D", click_type=EXACT_FLOAT, help="δ at which to report ε.")] = 1e-5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """The scalar views of A: ε at δ, advantage, fixed point, minimax Bayes error, AUC, GDP μ."""
    from ..privacy_card import mu_at_fixed_point

    # the views and the μ̂ fit off the brackets a summary needs (the same certified bounds to its six digits:
    # Mechanism.summary_mechanism); only the spec is printed of the mechanism itself
    mech = parse(a).summary_mechanism()
    result = mech.describe(delta)
    # the tightest μ-GDP bound can be far from the curve (DP-SGD: √N/σ, reached only in the extreme tail);
    # the μ of the Gaussian through the fixed point describes the bulk — both are shown, each named
    result["mu_at_fixed_point"] = mu_at_fixed_point(float(result["fixed_point"]))
    result.update(_fit_keys(mech))
    if as_json:
        emit_json(result)
        return
    from rich.markup import escape

    con = _console()
    con.print(_describe_table(result))
    con.print(escape(result["mu_fit_sentence"]))
    if result["gdp_mu_reason"]:
        con.print(escape("Why not the strict μ: " + result["gdp_mu_reason"] + "."))


def _fit_keys(mech: Any) -> dict[str, Any]:
    """The μ that describes the curve with its certified Δ both ways (``dpcompare.gaussian.fit``)."""
    from ...gaussian.fit import gdp_fit

    fit = gdp_fit(mech)
    d = fit.to_dict()
    return {
        "mu_fit": fit.mu,
        "mu_fit_excess": d["excess"],  # Δ(G_μ‖A): value, lower, upper, pi
        "mu_fit_slack": d["slack"],  # Δ(A‖G_μ)
        "mu_fit_excess_upper": None if fit.excess is None else fit.excess.upper,
        "mu_fit_slack_upper": None if fit.slack is None else fit.slack.upper,
        "mu_fit_sentence": fit.sentence(),
        "gdp_mu_reason": fit.strict_reason() or None,
    }


