"""``dpcompare event SPEC``: the DpEvent JSON of a training configuration (or of a Gaussian/Laplace spec or
another DpEvent file) on stdout, for ``dpcompare compare run_a.json run_b.json`` and for dp-accounting's
``DpEvent.from_named_tuple`` (io/spec_training.py documents the format). Balls-in-bins and shuffled runs, which
dp-accounting has no class for, are written as dpcompare's extension events (accounting/extension_events.py)."""

# No `from __future__ import annotations` here: typer reads every command's annotations at each run
# (inspect.signature(eval_str=True)), and string annotations would be compiled by eval() every time.
import sys
from typing import Annotated

import typer

from ..spec_training import training_event_json
from .app import app


@app.command("event")
def event_cmd(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="e.g. 'sgm(noise_multiplier=1.1, batch_size=256, "
                                        "dataset_size=60000, epochs=10)'.", show_default=False)],
) -> None:
    """Print the DpEvent of SPEC as JSON (save it with '> run.json'): dp-accounting's, or for
    sampling=balls_in_bins|shuffle dpcompare's extension event (the file says so and names dp-accounting's
    closest valid upper bound)."""
    text = training_event_json(spec)  # everything computed before anything is printed
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
