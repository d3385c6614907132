"""The ``emergent`` command: [BCP] Theorem 3 (emergent Blackwell dominance) for any two mechanisms."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import math
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..spec import parse
from ..render import emit_json, num
from .app import _print_parts, app

if TYPE_CHECKING:
    from ...comparison.emergent_dominance import Emergent


def _steps(name: str, text: str) -> int:
    from ..._validation import check_integer

    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer >= 1 (1.4e6 is accepted), got {text!r}") from None
    return check_integer(name, value)


def _tables(e: "Emergent") -> list[Any]:
    out: list[Any] = [f"[bold]A[/] = {escape(e.a.spec)} composed N = {e.steps_a:,} times\n"
                      f"[bold]B[/] = {escape(e.b.spec)} composed Ñ = {e.steps_b:,} times"]
    t = Table(title="One-step PLRV moments ([BCP] eq 8–12) and the CLT proxy μ = 2η√N", title_justify="left")
    for col in ("", "v₁ = KL", "v₂", "v₃", "v₄", "η", "μ (CLT)"):
        t.add_column(col, justify="right" if col else "left", no_wrap=True)
    for label, m, mu in (("A", e.moments_a, e.clt_mu_a), ("B", e.moments_b, e.clt_mu_b)):
        t.add_row(label, num(m.v1, 5), num(m.v2, 5), num(m.v3, 5), num(m.v4, 5), num(m.eta, 5) if m.finite else "∞",
                  num(mu, 5) if math.isfinite(mu) else "-")
    out.append(t)
    out.append(f"Moments computed by: A {e.method_a.value}, B {e.method_b.value}.")
    th = Table(title="Theorem 3: N/Ñ ≥ η̃²/η² ⇒ Δ(M^⊗N ‖ M̃^⊗Ñ) ≤ γ + γ̃ (Berry–Esseen, 0.56)", title_justify="left")
    for col in ("ordering", "N/Ñ", "η̃²/η²", "precondition", "bound γ + γ̃"):
        th.add_column(col, justify="left" if col in ("ordering", "precondition") else "right", no_wrap=True)
    for label, o in (("Δ(A^⊗N ‖ B^⊗Ñ)", e.forward), ("Δ(B^⊗Ñ ‖ A^⊗N)", e.backward)):
        th.add_row(label, num(o.ratio), num(o.needed), "holds" if o.applies else "fails",
                   num(o.bound, 4) if o.applies else "does not apply")
    out.append(th)
    if e.composed.delta_ab is not None:
        tc = Table(title="Certified Δ of the composed mechanisms (lower ≤ Δ ≤ upper)", title_justify="left")
        for col in ("ordering", "Δ", "lower", "upper", "at π"):
            tc.add_column(col, justify="left" if col == "ordering" else "right", no_wrap=True)
        for label, d in (("Δ(A^⊗N ‖ B^⊗Ñ)", e.composed.delta_ab), ("Δ(B^⊗Ñ ‖ A^⊗N)", e.composed.delta_ba)):
            tc.add_row(label, num(d.value), num(d.lower), num(d.upper), num(d.pi, 4) if d.lower > 0 else "-")
        out.append(tc)
    for label, o in (("Δ(A^⊗N ‖ B^⊗Ñ)", e.forward), ("Δ(B^⊗Ñ ‖ A^⊗N)", e.backward)):
        out.append(f"{label}: {escape(o.reason)}" + (f", bound {num(o.bound, 4)}." if o.applies else "."))
    out.append(f"[bold]Certified Δ[/]: {escape(e.composed.note)}.")
    out.append(f"[bold]Prediction[/]: {escape(e.sentence())}")
    return out


@app.command("emergent")
def emergent_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="One step of the first mechanism, e.g. 'laplace(b=1)' or 'sgm(sigma=2, p=9e-4, steps=1)'.", show_default=False)],
    b: Annotated[str, typer.Argument(metavar="B", help="One step of the second mechanism.", show_default=False)],
    steps: Annotated[str, typer.Option("--steps", metavar="N", help="How many times A is composed (1.4e6 accepted).")],
    steps_b: Annotated[Optional[str], typer.Option("--steps-b", metavar="Ñ", help="How many times B is composed (default: N).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")] = False,
) -> None:
    """Emergent Blackwell dominance ([BCP] Thm 3): moments, CLT μ, the theorem's precondition and bound, and the certified Δ."""
    from ...comparison.emergent_dominance import emergent

    n = _steps("steps", steps)
    m = n if steps_b is None else _steps("steps_b", steps_b)
    result = emergent(parse(a), parse(b), n, m)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_parts(_tables(result))
