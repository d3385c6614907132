"""Commands for the papers' results that had no command (each ``--json``; user errors: one line, exit 2).

- ``levy A B``: Lévy distance of the W-laws ([BCP] Lemma B.1, eq 31–35), = Δ↔.
- ``dominance A B --level D``: A ≥_𝔇 B by the three clauses of [BCP] Thm 2, with the certified Δ.
- ``tangent --psi X --eps E``: the tangent of slope e^ε to the Gaussian ROC ([SI] Lemma 4).
- ``group --psi X --k K``: group privacy, index kψ ([SI] Cor 7).
- ``clt --sigma S --sampling-rate P --steps N``: the DP-SGD CLTs, uniform ([SI] Cor 9) and Poisson,
  each against the certified accountant for the same sampling.
- ``fdiv A``: F-divergences from the trade-off function ([MIX] Lemma B.4, Cor B.5–B.6, Prop B.7).
- ``joint-concavity --p … --q … --weights …``: [MIX] Lemma 3.1, Prop B.1, Prop 6.1, Prop 3.3.
- ``advanced --p0 … --p1 … --q0 … --q1 … --w W --gamma G --eta H``: [MIX] Lemmas 6.2–6.3 (general form).
- ``mixture-bounds SPEC --w W [--figure FILE]``: [MIX] Example F.3 (Lemma 6.3 vs Lemma 3.1 vs exact) and
  Prop 6.4 (swapped mixture), with the figure.
- ``lemma6 --a SPEC… --b SPEC…``: [BCP] Lemma 6 for heterogeneous compositions (two noise schedules).
- ``from-bayes --priors … --bayes-errors … | --from SPEC``: the mechanism of [BCP] eq 4, with a figure.
"""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
from typing import Annotated, Any, Optional

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from ..spec import parse
from ..render import emit_json, num
from .app import _numbers, _print_parts, app

_JSON = typer.Option("--json", help="Print one JSON object on stdout and nothing else.")


def _table(title: str, cols: tuple[str, ...]) -> Table:
    t = Table(title=escape(title), title_justify="left")
    for i, c in enumerate(cols):
        t.add_column(c, justify="left" if i == 0 else "right", no_wrap=i == 0)
    return t


def _bracket(d: Any) -> str:
    return f"{num(d.value)} [{num(d.lower)}, {num(d.upper)}]"


def _dist(option: str, text: str) -> list[list[float]]:
    """``"0.7,0.3;0.2,0.8"`` → [[0.7, 0.3], [0.2, 0.8]]: probability vectors separated by ';'."""
    out = []
    for part in text.split(";"):
        v = _numbers(option, part, what="probabilities separated by commas, components by ';'",
                     ok=lambda x: 0 <= x <= 1, rule="a probability in [0, 1]")
        if abs(math.fsum(v) - 1) > 1e-9:
            raise ValueError(f"{option}: each component must sum to 1, got {math.fsum(v):g} for {part.strip()!r}")
        out.append(v)
    return out


def _one_dist(option: str, text: str) -> list[float]:
    d = _dist(option, text)
    if len(d) != 1:
        raise ValueError(f"{option} is one distribution (no ';'), got {len(d)}")
    return d[0]


def _figure_path(path: str | None) -> tuple[str | None, str | None]:
    """Check ``--figure FILE`` before computing (the shared check words its errors for ``-o``)."""
    if path is None:
        return None, None
    from ..files import output_path

    try:
        return output_path(path, ("png", "svg", "pdf"))
    except ValueError as exc:
        raise ValueError(str(exc).replace("-o ", "--figure ", 1)) from None


def _check_unit(option: str, x: float, *, open_low: bool = True, open_high: bool = True) -> float:
    ok = (x > 0 if open_low else x >= 0) and (x < 1 if open_high else x <= 1) and math.isfinite(x)
    if not ok:
        lo, hi = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"{option} must be in {lo}0, 1{hi}, got {x:g}")
    return x


# ---------------------------------------------------------------------------------------------- [BCP]
@app.command("levy")
def levy_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec.", show_default=False)],
    b: Annotated[str, typer.Argument(metavar="B", help="Mechanism spec.", show_default=False)],
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Lévy distance Λ(W, W′) of the W-laws of A and B ([BCP] Lemma B.1), certified; it equals Δ↔."""
    from ...comparison import delta_divergences, levy_distance

    ma, mb = parse(a), parse(b)
    r = levy_distance(ma, mb)
    ab, ba = delta_divergences(ma, mb)
    sym = max(ab.value, ba.value)
    out = {"a": ma.spec, "b": mb.spec, "levy": {"value": r.value, "lower": r.lower, "upper": r.upper, "s": r.s},
           "symmetric_delta": sym, "delta_ab": ab.to_dict(), "delta_ba": ba.to_dict(),
           "source": "[BCP] Lemma B.1, eq 31-35: Λ(W, W′) = Δ↔(M, M̃)"}
    if as_json:
        emit_json(out)
        return
    t = _table("Lévy distance of the W-laws ([BCP] Lemma B.1), F_W(x) = f(1 − x)", ("", "value", "certified bracket"))
    t.add_row("Λ(W_A, W_B)", num(r.value), f"[{num(r.lower)}, {num(r.upper)}]")
    t.add_row("Δ↔ = max(Δ(A‖B), Δ(B‖A))", num(sym), f"[{num(max(ab.lower, ba.lower))}, {num(max(ab.upper, ba.upper))}]")
    _print_parts([f"[bold]A[/] = {escape(ma.spec)}\n[bold]B[/] = {escape(mb.spec)}", t,
                  f"Attained on the line f(α) − α = s = {num(r.s, 4)}; Lemma B.1 says Λ = Δ↔ (the two are computed independently)."])


@app.command("dominance")
def dominance_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec.", show_default=False)],
    b: Annotated[str, typer.Argument(metavar="B", help="Mechanism spec.", show_default=False)],
    level: Annotated[float, typer.Option("--level", metavar="D", help="The level 𝔇 ≥ 0 of approximate dominance.")],
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Is A ≥_𝔇 B (A at most 𝔇 less private than B)? The three clauses of [BCP] Thm 2 and the certified Δ."""
    from ...comparison import approximate_dominance

    ma, mb = parse(a), parse(b)
    r = approximate_dominance(ma, mb, level)
    out = {"a": ma.spec, "b": mb.spec, "level": r.level, "holds": r.holds, "clauses_agree": r.clauses_agree,
           "tradeoff_clause": r.tradeoff_clause, "profile_clause": r.profile_clause, "bayes_clause": r.bayes_clause,
           "delta_ab": r.delta.to_dict(), "source": "[BCP] Def 2, Thm 2"}
    if as_json:
        emit_json(out)
        return
    t = _table(f"[BCP] Thm 2 at level 𝔇 = {num(r.level, 4)}: A ≥_𝔇 B iff any (all) of", ("clause", "holds"))
    t.add_row("trade-off: f_A(α + 𝔇) − 𝔇 ≤ f_B(α) for all α", "yes" if r.tradeoff_clause else "no")
    t.add_row("profile: δ_B(ε) ≤ δ_A(ε) + 𝔇(1 + e^ε) for all ε", "yes" if r.profile_clause else "no")
    t.add_row("Bayes: R_A(π) − R_B(π) ≤ 𝔇 for all π (certified Δ)", "yes" if r.bayes_clause else "no")
    verdict = "holds" if r.holds else "does not hold"
    _print_parts([f"[bold]A[/] = {escape(ma.spec)}\n[bold]B[/] = {escape(mb.spec)}", t,
                  f"Δ(A‖B) = {_bracket(r.delta)}: A ≥_𝔇 B {verdict}."
                  + ("" if r.clauses_agree else " The grid clauses disagree with the certified one; trust the Bayes clause.")])


@app.command("lemma6")
def lemma6_cmd(
    a: Annotated[list[str], typer.Option("--a", metavar="SPEC", help="A part of schedule A (repeat): sgm(sigma=…, p=…, steps=N), compose(M, steps=N) or one step of M.")],
    b: Annotated[list[str], typer.Option("--b", metavar="SPEC", help="A part of schedule B (repeat).")],
    no_compose: Annotated[bool, typer.Option("--no-compose", help="Moments and prediction only (skip the Δ of the actual compositions).")] = False,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """[BCP] Lemma 6 for two heterogeneous schedules: K/s against K̃/s̃ from the per-step PLRV moments,
    beside the Δ of the actual compositions and of each to its limit G_{2K/s}."""
    from ...comparison.heterogeneous import heterogeneous, schedule_parts

    h = heterogeneous(schedule_parts([parse(s) for s in a]), schedule_parts([parse(s) for s in b]),
                      certified=not no_compose)
    if as_json:
        emit_json({**h.to_dict(), "source": "[BCP] Lemma 6 (Dong, Roth & Su 2022, Thm 3.5)"})
        return
    t = _table("Lemma 6 sums over the parts (one-step PLRV moments × steps)",
               ("", "steps", "K = Σv₁", "s = √Σv₂", "K/s", "μ = 2K/s", "2K/√ΣVar", "max v₁", "Σ v₄"))
    for label, s in (("A", h.a), ("B", h.b)):
        t.add_row(label, f"{s.steps:,}", num(s.K, 4), num(math.sqrt(s.s2), 4), num(s.ratio, 5), num(s.mu_lemma, 4),
                  num(s.mu_variance, 4), num(s.max_v1, 2), num(s.sum_v4, 2))
    parts: list[Any] = [f"[bold]A[/] = {escape(h.a.describe())}\n[bold]B[/] = {escape(h.b.describe())}", t]
    if h.delta_ab is not None or h.to_limit_a is not None:
        td = _table("Δ of the actual compositions (value [lower, upper])", ("", "Δ"))
        if h.delta_ab is not None:
            td.add_row("Δ(A‖B)", _bracket(h.delta_ab))
            td.add_row("Δ(B‖A)", _bracket(h.delta_ba))
        for label, lim, s in (("A", h.to_limit_a, h.a), ("B", h.to_limit_b, h.b)):
            if lim is not None:
                td.add_row(f"Δ↔({label}, G_{{{num(s.mu_lemma, 4)}}}) (to its limit)",
                           num(max(lim[0].value, lim[1].value)))
        parts.append(td)
    parts.append(f"Compositions: {escape(h.note)}.")
    parts.append(f"[bold]Prediction[/]: {escape(h.sentence())}")
    _print_parts(parts)


@app.command("from-bayes")
def from_bayes_cmd(
    priors: Annotated[Optional[str], typer.Option("--priors", metavar="π,…", help="Priors in (0, 1), comma-separated.")] = None,
    bayes_errors: Annotated[Optional[str], typer.Option("--bayes-errors", metavar="R,…", help="Bayes errors R(π) at those priors.")] = None,
    from_spec: Annotated[Optional[str], typer.Option("--from", metavar="SPEC", help="Take R(π) from this mechanism (at --priors, default 20 priors in (0, ½]).")] = None,
    asymmetric: Annotated[bool, typer.Option("--asymmetric", help="Do not mirror the values to 1 − π (default: R(π) = R(1 − π)).")] = False,
    figure: Annotated[Optional[str], typer.Option("--figure", metavar="FILE", help="Also draw the construction (.png, .svg or .pdf).")] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """The mechanism built from Bayes-error values by [BCP] eq 4: f(α) = max_π (R(π) − πα)/(1 − π)."""
    from ...comparison import delta_divergences
    from ...comparison.bayes_construction import mechanism_from_bayes_errors
    from ..files import write_output

    fig_path, fmt = _figure_path(figure)
    pis = None if priors is None else np.array(_numbers("--priors", priors, what="priors in (0, 1)", ok=lambda x: 0 < x < 1,
                                                        rule="a prior in (0, 1)"))
    original = None
    if from_spec is not None:
        if bayes_errors is not None:
            raise ValueError("give either --bayes-errors or --from SPEC, not both")
        original = parse(from_spec)
        pis = np.linspace(0.025, 0.5, 20) if pis is None else pis
        rs = np.asarray(original.bayes_error(pis), dtype=float)
    else:
        if pis is None or bayes_errors is None:
            raise ValueError("give --priors and --bayes-errors (or --from SPEC)")
        rs = np.array(_numbers("--bayes-errors", bayes_errors, what="Bayes errors in [0, ½]", ok=lambda x: 0 <= x <= 0.5,
                               rule="a Bayes error in [0, 0.5]"))
    m, c = mechanism_from_bayes_errors(pis, rs, symmetric=not asymmetric)
    out: dict[str, Any] = {**c.to_dict(), "epsilon@1e-5": float(m.epsilon(1e-5)), "advantage": float(m.advantage),
                           "minimax_bayes_error": float(m.minimax_bayes_error), "source": "[BCP] eq 4"}
    if original is not None:
        ab, ba = delta_divergences(original, m)
        out.update({"original": original.spec, "delta_original_built": ab.to_dict(), "delta_built_original": ba.to_dict()})
    if fig_path is not None:
        from .. import plot as P
        from ..plot_papers import bayes_construction

        write_output(fig_path, P.render(bayes_construction(c, original), fmt))
        out["figure"] = fig_path
    if as_json:
        emit_json(out)
        return
    t = _table("Vertices of f̂ (a convex polygon: an exact discrete mechanism)", ("α", "β = f̂(α)"))
    shown = np.unique(np.linspace(0, c.alpha.size - 1, min(c.alpha.size, 12)).round().astype(int))
    for i in shown:
        t.add_row(num(c.alpha[i]), num(c.beta[i]))
    if shown.size < c.alpha.size:
        t.caption = f"{shown.size} of {c.alpha.size} vertices; --json lists all"

    parts: list[Any] = [t, f"ε ≤ {num(out['epsilon@1e-5'])} at δ = 1e-5, advantage {num(m.advantage)}, R* = {num(m.minimax_bayes_error)} "
                        f"({c.alpha.size} vertices from {pis.size} priors{'' if asymmetric else ', mirrored to 1 − π'})."]
    if c.beta[0] < 1:
        parts.append(f"f̂(0) = {num(c.beta[0])} < 1: no value at a prior near 0 or 1 constrains the tail, so the built "
                     "mechanism keeps a test with FPR 0 and power 1 − f̂(0) (δ ≥ that for every ε).")
    if original is not None:
        parts.append(f"Against {escape(original.spec)}: Δ(original‖built) = {_bracket(ab)} (what the finite priors cost: "
                     f"the built curve's Bayes error is at most this much lower), Δ(built‖original) = {_bracket(ba)} "
                     "(0: the built curve is never more private than the original).")
    if fig_path is not None:
        parts.append(f"wrote {escape(fig_path)}")
    _print_parts(parts)


# ---------------------------------------------------------------------------------------------- [SI]
def _psi(option: str, x: float) -> float:
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{option} must be a positive finite number, got {x:g}")
    return x


@app.command("tangent")
def tangent_cmd(
    psi: Annotated[float, typer.Option("--psi", metavar="X", help="Sensitivity index ψ = Δ/σ (= μ of GDP).")],
    eps: Annotated[float, typer.Option("--eps", metavar="E", help="ε ≥ 0: the tangent has slope e^ε.")],
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """The tangent of slope e^ε to the Gaussian ROC R(x) = Φ(ψ + Φ⁻¹(x)) ([SI] Lemma 4); its intercept is δ(ε)."""
    from ...gaussian import tangent

    r = tangent(_psi("--psi", psi), eps)
    out = {"psi": r.psi, "eps": r.eps, "slope": r.slope, "fpr": r.fpr, "tpr": r.tpr, "intercept": r.intercept,
           "delta": r.intercept, "source": "[SI] Lemma 4 (intercept: eq 7.1)"}
    if as_json:
        emit_json(out)
        return
    t = _table(f"[SI] Lemma 4: tangent of slope e^ε = {num(r.slope)} to the ROC of ψ = {num(r.psi)}", ("", "value"))
    t.add_row("touching point FPR x* = Φ(−ψ/2 − ε/ψ)", num(r.fpr))
    t.add_row("touching point TPR = Φ(ψ/2 − ε/ψ)", num(r.tpr))
    t.add_row("intercept TPR − e^ε·FPR = δ(ε)", num(r.intercept))
    _print_parts([t, f"Every test has TPR ≤ e^ε·FPR + {num(r.intercept)}: (ε, δ) = ({num(r.eps)}, {num(r.intercept)})."])


@app.command("group")
def group_cmd(
    psi: Annotated[float, typer.Option("--psi", metavar="X", help="Sensitivity index ψ of one individual.")],
    k: Annotated[int, typer.Option("--k", metavar="K", help="Group size k ≥ 1.")],
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to report ε.")] = 1e-5,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Group privacy of the Gaussian mechanism: a group of k has index kψ ([SI] Cor 7)."""
    from ...gaussian import epsilon, group

    p = _psi("--psi", psi)
    if not (0 < delta < 1):
        raise ValueError(f"--delta must be in (0, 1), got {delta:g}")
    kp = float(group(p, k))
    out = {"psi": p, "k": int(k), "psi_group": kp, "delta": delta, "epsilon": float(epsilon(p, delta)),
           "epsilon_group": float(epsilon(kp, delta)), "source": "[SI] Cor 7 (Dong, Roth & Su 2022, Thm 2.14)"}
    if as_json:
        emit_json(out)
        return
    t = _table(f"[SI] Cor 7: group privacy, δ = {num(delta, 3)}", ("", "ψ", "ε at δ"))
    t.add_row("one individual", num(p), num(out["epsilon"]))
    t.add_row(f"group of k = {k}", num(kp), num(out["epsilon_group"]))
    _print_parts([t])


@app.command("clt")
def clt_cmd(
    sigma: Annotated[float, typer.Option("--sigma", metavar="S", help="Noise multiplier σ.")],
    sampling_rate: Annotated[float, typer.Option("--sampling-rate", metavar="P", help="Sampling rate p in (0, 1].")],
    steps: Annotated[int, typer.Option("--steps", metavar="N", help="Number of steps T.")],
    sampling: Annotated[str, typer.Option("--sampling", metavar="KIND", help="poisson | uniform | both.")] = "both",
    dataset_size: Annotated[Optional[int], typer.Option("--dataset-size", metavar="N", help="uniform: records n (batch p·n must be an integer; default the smallest n).")] = None,
    delta: Annotated[float, typer.Option("--delta", metavar="D", help="δ at which to compare ε.")] = 1e-5,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """The DP-SGD central limit theorems — uniform ([SI] Cor 9, eq 5.7) and Poisson — each against the
    certified accountant for the same sampling."""
    from ...gaussian.clt import compare_clt

    if sampling not in ("poisson", "uniform", "both"):
        raise ValueError(f"--sampling must be poisson, uniform or both, got {sampling!r}")
    kinds = ("poisson", "uniform") if sampling == "both" else (sampling,)
    rows = [compare_clt(sigma, sampling_rate, steps, delta, sampling=s, dataset_size=dataset_size) for s in kinds]
    if as_json:
        emit_json({"sigma": sigma, "sampling_rate": sampling_rate, "steps": steps, "delta": delta,
                    "results": {r.sampling.value: r.to_dict() for r in rows}})
        return
    t = _table(f"DP-SGD CLT vs the accountant for the same sampling (σ = {num(sigma)}, p = {num(sampling_rate)}, "
               f"T = {steps:,}, δ = {num(delta, 3)})", ("sampling", "μ (CLT)", "ε (CLT)", "ε certified", "CLT under-states"))
    for r in rows:
        t.add_row(r.sampling.value, num(r.psi_clt), num(r.epsilon_clt),
                  f"[{num(r.epsilon_exact_lower)}, {num(r.epsilon_exact)}]", "yes" if r.understates else "no")
    notes = [f"{r.sampling.value}: {escape(r.source)}; accountant: {escape(r.accountant)}." for r in rows]
    _print_parts([t, *notes, "The CLTs are asymptotic approximations, not bounds."])


# ---------------------------------------------------------------------------------------------- [MIX]
@app.command("fdiv")
def fdiv_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="Mechanism spec.", show_default=False)],
    renyi: Annotated[str, typer.Option("--renyi", metavar="a,…", help="Rényi orders a > 1.")] = "2,4",
    eps: Annotated[str, typer.Option("--eps", metavar="ε,…", help="ε of the hockey-stick divergences H_{e^ε}.")] = "0,1",
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """F-divergences of A from its trade-off function ([MIX] Lemma B.4): KL, TV, Rényi (Cor B.6),
    hockey-stick (Cor B.5) and the curve length (Prop B.7), each as a certified [lower, upper]."""
    from ...mixtures.f_divergences import KL, LENGTH, TV, hockey_stick, l_f_bounds, renyi_bounds

    m = parse(a)
    orders = _numbers("--renyi", renyi, what="orders > 1", ok=lambda x: x > 1 and math.isfinite(x), rule="an order > 1")
    epss = _numbers("--eps", eps, what="ε values ≥ 0", ok=lambda x: 0 <= x <= 700, rule="an ε in [0, 700]")
    rows: list[tuple[str, str, tuple[float, float]]] = [
        ("KL", "[MIX] Lemma B.4", l_f_bounds(m, KL)),
        ("TV", "[MIX] Lemma B.4 (= δ(0))", l_f_bounds(m, TV)),
    ]
    rows += [(f"Renyi({o:g})", "[MIX] Cor B.6", renyi_bounds(m, o)) for o in orders]
    rows += [(f"hockey-stick(e^{e:g})", "[MIX] Cor B.5 (= δ(ε))", l_f_bounds(m, hockey_stick(math.exp(e)))) for e in epss]
    rows.append(("length", "[MIX] Prop B.7 (graph of f)", l_f_bounds(m, LENGTH)))
    if as_json:
        emit_json({"mechanism": m.spec, "divergences": {n: {"lower": lo, "upper": hi, "source": s} for n, s, (lo, hi) in rows}})
        return
    t = _table(f"F-divergences of {m.spec} from its trade-off function", ("divergence", "lower", "upper", "source"))
    for n, s, (lo, hi) in rows:
        t.add_row(n, num(lo), num(hi), s)
    notes: list[Any] = [t, "D_F(P‖Q) = l_F(f); the bracket comes from the pessimistic and optimistic pairs (data processing)."]
    if any(math.isinf(hi) for _, _, (_, hi) in rows):
        notes.append("An upper end ∞: the pessimistic pair keeps tail mass at ℓ = ±∞ (where the certified numerics put what "
                     "they cannot resolve), and F-divergences with τ_F = ∞ (KL, Rényi) charge it infinitely.")
    _print_parts(notes)


@app.command("joint-concavity")
def joint_concavity_cmd(
    p: Annotated[str, typer.Option("--p", metavar="P₁;P₂…", help="Components Pᵢ: probability vectors on one finite space, ';'-separated.")],
    q: Annotated[str, typer.Option("--q", metavar="Q₁;Q₂…", help="Components Qᵢ, same layout.")],
    weights: Annotated[str, typer.Option("--weights", metavar="w,…", help="Mixture weights of P (and of Q unless --weights-q).")],
    weights_q: Annotated[Optional[str], typer.Option("--weights-q", metavar="w′,…", help="Different weights for Q ([MIX] Prop B.1).")] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Mixtures P_w = Σ wᵢPᵢ vs Q_w′: the exact trade-off against [MIX] Lemma 3.1 (Prop B.1 for w ≠ w′),
    the equality gap of Prop 6.1, and joint convexity of KL and TV (Prop 3.3)."""
    from ...mechanisms import FromPair
    from ...mixtures.f_divergences import KL, TV, joint_convexity_terms
    from ...mixtures.joint_concavity import equality_gap, mixture_pair, unequal_weights_pair
    from ...tradeoff import DiscretePair, delta_between_pairs

    P, Q = _dist("--p", p), _dist("--q", q)
    if len(P) != len(Q):
        raise ValueError(f"--p and --q must have the same number of components, got {len(P)} and {len(Q)}")
    w = _numbers("--weights", weights, what="weights ≥ 0", ok=lambda x: 0 <= x <= 1, rule="a weight in [0, 1]")
    wq = w if weights_q is None else _numbers("--weights-q", weights_q, what="weights ≥ 0", ok=lambda x: 0 <= x <= 1,
                                              rule="a weight in [0, 1]")
    if len(w) != len(P) or len(wq) != len(P):
        raise ValueError(f"--weights must give one weight per component ({len(P)})")
    for name, ws in (("--weights", w), ("--weights-q", wq)):
        if abs(math.fsum(ws) - 1) > 1e-9:
            raise ValueError(f"{name} must sum to 1, got {math.fsum(ws):g}")
    pw = np.sum([wi * np.asarray(x) for wi, x in zip(w, P)], axis=0)
    qw = np.sum([wi * np.asarray(x) for wi, x in zip(wq, Q)], axis=0)
    exact_pair = DiscretePair.from_masses(pw / pw.sum(), qw / qw.sum())
    if weights_q is None:
        bound_pair = mixture_pair(w, [DiscretePair.from_masses(np.asarray(a), np.asarray(b)) for a, b in zip(P, Q)])
        which = "[MIX] Lemma 3.1"
    else:
        bound_pair = unequal_weights_pair(w, wq, P, Q)
        which = "[MIX] Prop B.1"
    # Δ between the curves T(P_w, Q_w′) themselves (exact merge of the two discrete pairs, [BCP] Cor 1)
    gap, gap_pi = delta_between_pairs(exact_pair, bound_pair)
    back, _ = delta_between_pairs(bound_pair, exact_pair)
    exact = FromPair(pessimistic=exact_pair, name="exact")  # ε: of the symmetrised curves (both orderings)
    bound = FromPair(pessimistic=bound_pair, name="bound")
    out: dict[str, Any] = {"bound": which, "delta_exact_bound": {"value": gap, "pi": gap_pi}, "delta_bound_exact": back,
                           "epsilon@1e-5": {"exact": float(exact.epsilon(1e-5)), "bound": float(bound.epsilon(1e-5))}}
    if weights_q is None:
        out["equality_gap"] = equality_gap(w, P, Q)  # Prop 6.1 (0 iff Lemma 3.1 is tight)
        out["joint_convexity"] = {n: dict(zip(("mixture", "weighted_sum"), joint_convexity_terms(w, P, Q, d)))
                                  for n, d in (("KL", KL), ("TV", TV))}
    if as_json:
        emit_json(out)
        return
    t = _table(f"T(P_w, Q_w′) exactly and by {which}", ("", "value"))
    t.add_row("Δ(exact ‖ bound) (the bound's regret; 0 would be tight)", f"{num(gap)} at π = {num(gap_pi, 4)}")
    t.add_row("Δ(bound ‖ exact) (must be 0: the bound is never more private)", num(back))
    t.add_row("ε at δ = 1e-5: exact", num(out["epsilon@1e-5"]["exact"]))
    t.add_row("ε at δ = 1e-5: bound", num(out["epsilon@1e-5"]["bound"]))
    parts: list[Any] = [t]
    if weights_q is None:
        parts.append(f"[MIX] Prop 6.1 equality gap: {num(out['equality_gap'])} (0 iff Lemma 3.1 holds with equality).")
        tj = _table("[MIX] Prop 3.3: D_F(P_w‖Q_w) ≤ Σ wᵢ D_F(Pᵢ‖Qᵢ)", ("F", "mixture", "Σ wᵢ D_F"))
        for n, v in out["joint_convexity"].items():
            tj.add_row(n, num(v["mixture"]), num(v["weighted_sum"]))
        parts.append(tj)
    _print_parts(parts)


@app.command("advanced")
def advanced_cmd(
    p0: Annotated[str, typer.Option("--p0", metavar="π,…", help="P₀ (a probability vector).")],
    p1: Annotated[str, typer.Option("--p1", metavar="π,…", help="P₁.")],
    q0: Annotated[str, typer.Option("--q0", metavar="π,…", help="Q₀.")],
    q1: Annotated[str, typer.Option("--q1", metavar="π,…", help="Q₁.")],
    w: Annotated[float, typer.Option("--w", metavar="W", help="Weight of component 1, in (0, 1).")],
    gamma: Annotated[float, typer.Option("--gamma", metavar="G", help="γ ∈ [0, 1] with γ < w < η or η < w < γ.")],
    eta: Annotated[float, typer.Option("--eta", metavar="H", help="η ∈ [0, 1].")],
    eps: Annotated[str, typer.Option("--eps", metavar="ε′,…", help="ε′ values for Lemma 6.2.")] = "0,0.5,1",
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """Advanced joint concavity for P = (1−w)P₀ + wP₁, Q = (1−w)Q₀ + wQ₁ ([MIX] Lemma 6.2 at each ε′, and
    the general Lemma 6.3 bound F ≤ T(Q, P) against the exact curve)."""
    from ...mixtures.advanced import lemma62_terms, lemma63_general
    from ...tradeoff import DiscretePair

    dists = [_one_dist(o, t) for o, t in (("--p0", p0), ("--p1", p1), ("--q0", q0), ("--q1", q1))]
    if len({len(d) for d in dists}) != 1:
        raise ValueError("--p0, --p1, --q0 and --q1 must have the same length (one outcome space)")
    _check_unit("--w", w)
    _check_unit("--gamma", gamma, open_low=False, open_high=False)
    _check_unit("--eta", eta, open_low=False, open_high=False)
    if not (gamma < w < eta or eta < w < gamma):
        raise ValueError(f"--gamma and --eta must satisfy gamma < w < eta or eta < w < gamma, got gamma={gamma:g}, w={w:g}, eta={eta:g}")
    P0, P1, Q0, Q1 = (np.asarray(d) for d in dists)
    epss = _numbers("--eps", eps, what="ε′ values", ok=lambda x: abs(x) <= 50, rule="an ε′ in [−50, 50]")
    terms = [(e, *lemma62_terms(w, gamma, eta, e, (P0, P1), (Q0, Q1))) for e in epss]
    # Lemma 6.3 (general): profiles δ_ij ≥ H(Pᵢ‖Qⱼ) are the exact pairs (Qⱼ, Pᵢ); F ≤ T(Q, P)
    prof = [[DiscretePair.from_masses(Qj, Pi) for Qj in (Q0, Q1)] for Pi in (P0, P1)]
    x = np.linspace(0, 1, 401)
    F = lemma63_general(w, [(gamma, eta)], prof, x)
    Pm, Qm = (1 - w) * P0 + w * P1, (1 - w) * Q0 + w * Q1
    exact_pair = DiscretePair.from_masses(Qm / Qm.sum(), Pm / Pm.sum())  # T(Q, P)
    exact_T = np.asarray(exact_pair.tradeoff(x), dtype=float)
    out = {"w": w, "gamma": gamma, "eta": eta,
           "lemma62": [{"eps_prime": e, "hockey_stick": lhs, "bound": rhs, "holds": lhs <= rhs + 1e-12} for e, lhs, rhs in terms],
           "lemma63": {"grid_points": int(x.size), "max_excess_over_exact": float(np.max(F - exact_T)),
                       "max_gap_below_exact": float(np.max(exact_T - F))},
           "source": "[MIX] Lemma 6.2, Lemma 6.3 (general form, App. E.1)"}
    if as_json:
        emit_json(out)
        return
    t = _table(f"[MIX] Lemma 6.2 (w = {num(w)}, γ = {num(gamma)}, η = {num(eta)})", ("ε′", "H_{e^ε′}(P‖Q)", "bound", "holds"))
    for e, lhs, rhs in terms:
        t.add_row(num(e), num(lhs), num(rhs), "yes" if lhs <= rhs + 1e-12 else "NO")
    _print_parts([t, f"[MIX] Lemma 6.3: F ≤ T(Q, P) everywhere (max of F − T = {num(out['lemma63']['max_excess_over_exact'], 3)} "
                     f"≤ 0) on {x.size} points of α; the largest gap T − F is {num(out['lemma63']['max_gap_below_exact'], 4)}."])


@app.command("mixture-bounds")
def mixture_bounds_cmd(
    component: Annotated[str, typer.Argument(metavar="SPEC", help="The component f = T(P₀, Q₀) (Example F.3: gaussian(mu=1)).", show_default=False)],
    w: Annotated[float, typer.Option("--w", metavar="W", help="Mixture weight w in (0, 1) (Figure 4: 1/3 = 0.3333…).")],
    figure: Annotated[Optional[str], typer.Option("--figure", metavar="FILE", help="Draw [MIX] Figure 4 for this component (.png, .svg or .pdf).")] = None,
    as_json: Annotated[bool, _JSON] = False,
) -> None:
    """[MIX] Example F.3: T(P₀, wP₀ + (1−w)Q₀) exactly, by Lemma 6.3 and by Lemma 3.1; and Prop 6.4's bound
    on the swapped mixture T((1−w)P₀ + wQ₀, (1−w)Q₀ + wP₀) (w ≤ ½), each with the certified Δ to the exact."""
    from ..files import write_output
    from ..plot_papers import example_f3, f3_result

    fig_path, fmt = _figure_path(figure)
    _check_unit("--w", w)
    r = f3_result(parse(component), w)
    out = {**r.to_dict(), "source": "[MIX] Example F.3 (Lemma 3.1, Lemma 6.3 / Prop E.1), Prop 6.4"}
    if fig_path is not None:
        from .. import plot as P

        write_output(fig_path, P.render(example_f3(r), fmt))
        out["figure"] = fig_path
    if as_json:
        emit_json(out)
        return
    t = _table(f"T(P₀, wP₀ + (1−w)Q₀) for f = {r.component.spec}, w = {num(w, 4)}",
               ("curve", "ε at δ = 1e-5", "Δ(exact ‖ curve)"))
    t.add_row("exact: w·Id + (1−w)·f", num(out["exact"]["epsilon@1e-5"]), "0")
    t.add_row("Lemma 6.3: C(w·Id + (1−w)·f)", num(out["lemma63"]["epsilon@1e-5"]), _bracket(r.delta_lemma63))
    t.add_row("Lemma 3.1 (joint concavity)", num(out["lemma31"]["epsilon@1e-5"]), _bracket(r.delta_lemma31))
    parts: list[Any] = [t]
    if r.swapped is not None:
        ts = _table("[MIX] Prop 6.4: swapped mixture T((1−w)P₀ + wQ₀, (1−w)Q₀ + wP₀)", ("curve", "ε at δ = 1e-5", "Δ(exact ‖ curve)"))
        ts.add_row("exact", num(out["prop64"]["exact_epsilon@1e-5"]), "0")
        ts.add_row("Prop 6.4: C(2w·Id + (1−2w)·f)", num(out["prop64"]["epsilon@1e-5"]), _bracket(r.delta_swapped))
        parts.append(ts)
    if fig_path is not None:
        parts.append(f"wrote {escape(fig_path)}")
    _print_parts(parts)
