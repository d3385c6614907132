"""The ``gaussian`` command(s) of the dpcompare CLI."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table


from ..render import emit_json, num
from .app import EXACT_FLOAT, _numbers, _print_parts, app

# ---------------------------------------------------------------------------------------------- gaussian
_GAUSSIAN_SOURCE = {
    "psi": "given ψ",
    "sigma": "ψ = sensitivity/σ",
    "mu": "ψ = μ (Lemma 6)",
    "auc": "ψ = √2·Φ⁻¹(AUC) (eq 4.9)",
    "epsilon": "largest ψ with δ(ε; ψ) ≤ δ (Cor 14, analytic Gaussian mechanism)",
}


def _parse_orders(text: str) -> list[float]:
    """``"2,4,8"`` → [2.0, 4.0, 8.0]; every order must be a finite number > 1."""
    return _numbers("--orders", text, what="e.g. 2,4,8", ok=lambda a: math.isfinite(a) and a > 1,
                    rule="Rényi orders > 1", syntax="a comma-separated list of numbers > 1")


def _gaussian_tables(d: dict[str, Any]) -> list[Any]:
    delta = num(d["delta"], 3)
    head = f"[bold]Gaussian mechanism[/], ψ = {num(d['psi'], 8)}: {escape(_GAUSSIAN_SOURCE[d['source']])}"
    if d.get("epsilon_target") is not None:
        head += f"; target (ε, δ) = ({num(d['epsilon_target'])}, {delta})"

    m = Table(title="the mechanism (sensitivity-index paper [SI])", title_justify="left")
    m.add_column("view")
    m.add_column("value", justify="right")
    m.add_column("meaning")
    m.add_row("ψ = Δ/σ", num(d["psi"], 8), "sensitivity index (Def 6)")
    m.add_row(f"σ at Δ = {num(d['sensitivity'])}", num(d["sigma"], 8), "noise standard deviation")
    m.add_row("μ-GDP", num(d["mu"], 8), "tightest GDP μ = ψ (Lemma 6)")
    m.add_row("AUC", num(d["auc"], 8), "best attack's ROC area Φ(ψ/√2)")
    m.add_row("advantage", num(d["advantage"], 8), "max TPR − FPR = 2Φ(ψ/2) − 1")
    m.add_row("fixed point α*", num(d["fixed_point"], 8), "FPR = FNR of the best attack")
    m.add_row("minimax Bayes error R*", num(d["minimax_bayes_error"], 8), "best attack's error at prior ½")

    e = Table(title=f"ε at δ = {delta}", title_justify="left")
    e.add_column("conversion")
    e.add_column("ε", justify="right")
    e.add_column("best α", justify="right")
    e.add_column("note")
    e.add_row("privacy profile (eq 6.7)", num(d["epsilon"], 8), "", "exact: the smallest valid ε")
    for key, label in (
        ("epsilon_rdp_asoodeh", "RDP improved A (Cor 12)"),
        ("epsilon_rdp_balle", "RDP improved B (Cor 13)"),
        ("epsilon_rdp", "RDP standard (Cor 11)"),
    ):
        e.add_row(label, num(d[key], 8), num(d[key + "_order"], 5), f"valid, α ∈ (1, {num(d['alpha_max'])}]")
    if d["epsilon_classical_valid"]:
        note = "valid (ε < 1)"
    else:
        note = "unproven (ε ≥ 1), " + ("holds here" if d["epsilon_classical_holds"] else "FAILS here")
    e.add_row("classical (eq 3.5)", num(d["epsilon_classical"], 8), "", note)

    r = Table(title="RDP (Lemma 7)", title_justify="left")
    r.add_column("order α", justify="right")
    r.add_column("ρ(α) = αψ²/2", justify="right")
    for row in d["rdp"]:
        r.add_row(num(row["alpha"], 6), num(row["rho"], 8))
    return [head, m, e, r]


@app.command("gaussian")
def gaussian_cmd(
    psi: Annotated[Optional[float], typer.Option("--psi", metavar="X", help="Sensitivity index ψ = Δ/σ.")] = None,
    sigma: Annotated[Optional[float], typer.Option("--sigma", metavar="S", help="Noise standard deviation σ (with --sensitivity).")] = None,
    sensitivity: Annotated[
        Optional[float], typer.Option("--sensitivity", metavar="D", help="L2 sensitivity Δ (default 1); σ = Δ/ψ is shown for it.")
    ] = None,
    mu: Annotated[Optional[float], typer.Option("--mu", metavar="M", help="μ of μ-GDP (ψ = μ).")] = None,
    auc: Annotated[Optional[float], typer.Option("--auc", metavar="A", help="AUC of the best attack's ROC curve, in (0.5, 1).")] = None,
    epsilon: Annotated[
        Optional[float], typer.Option("--epsilon", metavar="E", help="Target ε (with --delta): the largest ψ that meets (ε, δ).")
    ] = None,
    delta: Annotated[float, typer.Option("--delta", metavar="D", click_type=EXACT_FLOAT, help="δ at which ε is reported (and the target δ with --epsilon).")] = 1e-5,
    orders: Annotated[
        str, typer.Option("--orders", metavar="A1,A2,…", help="Rényi orders at which to show ρ(α) = αψ²/2.")
    ] = "1.5,2,4,8,16,32,64",
    alpha_max: Annotated[
        float, typer.Option("--alpha-max", metavar="A", help="RDP conversions optimise α over (1, A].")
    ] = 64.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Every equivalent view of a Gaussian mechanism from one of --psi, --sigma [--sensitivity], --mu,
    --auc or --epsilon [--delta]: ψ, σ, μ-GDP, ε at δ by the privacy profile and by each RDP conversion
    (with its best order), RDP at chosen orders, AUC, advantage, fixed point α* and minimax Bayes error R*."""
    from ...gaussian import Source, resolve_psi, views

    if sensitivity is not None and not (math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"--sensitivity must be a finite number > 0, got {sensitivity:g}")
    if not (math.isfinite(delta) and 0 < delta < 1):
        raise ValueError(f"--delta must be in (0, 1), got {delta:g}" + (
            ": every mechanism is (0, 1)-DP, so δ >= 1 says nothing" if delta >= 1 else
            ": the Gaussian mechanism is not (ε, 0)-DP for any finite ε" if delta <= 0 else ""))
    if not (math.isfinite(alpha_max) and alpha_max > 1):
        raise ValueError(f"--alpha-max must be a finite number > 1, got {alpha_max:g}")
    order_list = _parse_orders(orders)
    p, source = resolve_psi(psi=psi, sigma=sigma, sensitivity=sensitivity, mu=mu, auc=auc, epsilon=epsilon,
                            delta=delta, prefix="--")
    v = views(p, delta=delta, sensitivity=1.0 if sensitivity is None else sensitivity, orders=order_list,
              alpha_max=alpha_max, source=source, epsilon_target=epsilon if source is Source.EPSILON else None)
    result = v.to_dict()
    if as_json:
        emit_json(result)
        return
    _print_parts(_gaussian_tables(result))


