"""The ``binormal`` command: two Gaussians of different variance ([SI] Corollaries 2, 3 and 10).

``dpcompare binormal --mu0 0 --sigma0 1.2 --mu1 1 --sigma1 1`` prints, for N(μ₀, σ₀²I) ("negatives")
against N(μ₁, σ₁²I) ("positives"): the binormal parameters (a, b), the ROC of the threshold test
(eq 4.5) beside the Neyman–Pearson ROC at chosen false-positive rates, the AUC (eq 4.6), and the Rényi
divergences D_α in both directions at chosen orders (Cor 10; α = 1 is the KL divergence).
Means may be vectors (``--mu1 3,4``); every number is :mod:`dpcompare.gaussian.binormal_roc`'s.
"""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
from typing import Annotated, Any

import typer
from rich.table import Table

from ..render import emit_json, num
from .app import _numbers, _print_parts, app

#: false-positive rates shown by default
DEFAULT_FPR = "0.001,0.01,0.05,0.1,0.25,0.5"
#: Rényi orders shown by default (1 = KL)
DEFAULT_ORDERS = "0.5,1,2,4,8"


def _mean(option: str, text: str) -> list[float]:
    return _numbers(option, text, what="e.g. 0 or 3,4", ok=math.isfinite, rule="a finite number or a comma-separated vector")


def _sd(option: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{option} must be a finite standard deviation > 0, got {value:g}")
    return value


def binormal_report(mu0: list[float], sigma0: float, mu1: list[float], sigma1: float,
                    fpr: list[float], orders: list[float]) -> dict[str, Any]:
    """Every number of the command as one dict (the ``--json`` output)."""
    from ...gaussian.binormal_roc import binormal_auc, binormal_params, binormal_roc, optimal_roc, renyi_divergence

    if len(mu0) != len(mu1):
        raise ValueError(f"--mu0 and --mu1 must have the same length, got {len(mu0)} and {len(mu1)}")
    a, b = binormal_params(mu0, sigma0, mu1, sigma1)
    roc = [{"fpr": x, "tpr_threshold": float(binormal_roc(x, a, b)), "tpr_optimal": float(optimal_roc(x, a, b))}
           for x in fpr]
    renyi = []
    for alpha in orders:
        d10 = renyi_divergence(alpha, mu1, sigma1, mu0, sigma0)
        d01 = renyi_divergence(alpha, mu0, sigma0, mu1, sigma1)
        renyi.append({"alpha": alpha, "d_pos_neg": d10, "d_neg_pos": d01,
                      "finite_pos_neg": math.isfinite(d10), "finite_neg_pos": math.isfinite(d01)})
    return {"mu0": mu0, "sigma0": sigma0, "mu1": mu1, "sigma1": sigma1, "dimension": len(mu0),
            "a": a, "b": b, "auc": float(binormal_auc(a, b)), "roc": roc, "renyi": renyi}


def _numeric_table(title: str, columns: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c, justify="right")
    return t


def _tables(d: dict[str, Any]) -> list[Any]:
    vec = lambda v: num(v[0]) if len(v) == 1 else "(" + ", ".join(num(x) for x in v) + ")"  # noqa: E731
    head = (f"[bold]N(μ₀, σ₀²I)[/] with μ₀ = {vec(d['mu0'])}, σ₀ = {num(d['sigma0'])} (negatives) vs "
            f"[bold]N(μ₁, σ₁²I)[/] with μ₁ = {vec(d['mu1'])}, σ₁ = {num(d['sigma1'])} (positives), d = {d['dimension']}\n"
            f"a = ‖μ₁ − μ₀‖/σ₁ = {num(d['a'], 8)}, b = σ₀/σ₁ = {num(d['b'], 8)}; "
            f"AUC = Φ(a/√(1 + b²)) = {num(d['auc'], 8)} ([SI] Cor 3, eq 4.6)")
    r = _numeric_table("ROC (TPR at each FPR)", ("FPR", "threshold test Φ(a + bΦ⁻¹(x)) (eq 4.5)", "best test (Neyman–Pearson)"))
    for row in d["roc"]:
        r.add_row(num(row["fpr"]), num(row["tpr_threshold"], 8), num(row["tpr_optimal"], 8))
    v = _numeric_table("Rényi divergence D_α ([SI] Cor 10; α = 1: KL)",
                       ("order α", "D_α(positives ‖ negatives)", "D_α(negatives ‖ positives)"))
    for row in d["renyi"]:
        v.add_row(num(row["alpha"]), num(row["d_pos_neg"], 8), num(row["d_neg_pos"], 8))
    if d["b"] == 1.0:
        note = "σ₀ = σ₁: the threshold test is the best test (the two ROC columns agree)."
    else:
        note = ("σ₀ ≠ σ₁: the threshold test is not the best test (the likelihood ratio is quadratic); use the "
                "Neyman–Pearson column for privacy. D_α = ∞ where σ_α² = ασ_j² + (1 − α)σ_i² ≤ 0.")
    return [head, r, v, note]


@app.command("binormal")
def binormal_cmd(
    sigma0: Annotated[float, typer.Option("--sigma0", metavar="S0", help="Standard deviation σ₀ of the negatives.")],
    sigma1: Annotated[float, typer.Option("--sigma1", metavar="S1", help="Standard deviation σ₁ of the positives.")],
    mu0: Annotated[str, typer.Option("--mu0", metavar="M0", help="Mean μ₀ of the negatives (a number or a vector 0,0).")] = "0",
    mu1: Annotated[str, typer.Option("--mu1", metavar="M1", help="Mean μ₁ of the positives (same length as μ₀).")] = "1",
    fpr: Annotated[str, typer.Option("--fpr", metavar="X1,X2,…", help="False-positive rates in [0, 1] for the ROC.")] = DEFAULT_FPR,
    orders: Annotated[str, typer.Option("--orders", metavar="A1,A2,…", help="Rényi orders α > 0 (1 = KL).")] = DEFAULT_ORDERS,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Two Gaussians of different variance ([SI] Cor 2, 3, 10): binormal ROC and AUC, the best test's ROC, Rényi divergences."""
    d = binormal_report(
        _mean("--mu0", mu0), _sd("--sigma0", sigma0), _mean("--mu1", mu1), _sd("--sigma1", sigma1),
        _numbers("--fpr", fpr, what="e.g. 0.01,0.1", ok=lambda x: 0.0 <= x <= 1.0, rule="false-positive rates in [0, 1]"),
        _numbers("--orders", orders, what="e.g. 0.5,2,4", ok=lambda x: math.isfinite(x) and x > 0, rule="Rényi orders > 0"),
    )
    if as_json:
        emit_json(d)
        return
    _print_parts(_tables(d))
