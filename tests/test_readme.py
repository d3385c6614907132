"""The README's console examples are run and must print what the README shows.

Every fenced block tagged ``console`` is split into commands — a line starting with ``$ dpcompare``
(continued by a trailing ``\\``) — and the lines after each command up to the next ``$`` line are its
expected output (stdout, then stderr). Each command runs in-process (``dpcompare.io.cli.main``) in
an empty temporary directory with an 80-column console, and its exit status must be 0, or 2 when the
shown output starts with ``error:``.

Normalisation (the only one; documented in the README under "Set up"): on a line starting with
``wrote ``, a size (``72 KiB``) and a duration (``12.0 s``) are replaced by placeholders, since they
depend on the machine and the matplotlib version. Trailing spaces are ignored. Blocks tagged ``text``
(abridged output) are not run. Commands in sections added later are checked the same way.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
_FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def examples(text: str) -> list[tuple[str, list[str], str]]:
    """(command line, argv after ``dpcompare``, expected output) for every ``$ dpcompare`` command."""
    out = []
    for block in _FENCE.findall(text):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            cmd = lines[i][2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            i += 1
            shown = []
            while i < len(lines) and not lines[i].startswith("$ "):
                shown.append(lines[i])
                i += 1
            argv = shlex.split(cmd)
            if argv and argv[0] == "dpcompare":
                out.append((cmd, argv[1:], "\n".join(shown)))
    return out


def normalise(text: str) -> str:
    lines = []
    for line in text.rstrip("\n").splitlines():
        line = line.rstrip()
        if line.startswith("wrote "):
            line = re.sub(r"\d+ KiB", "<size> KiB", line)
            line = re.sub(r"\d+(\.\d+)? s\b", "<time> s", line)
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


EXAMPLES = examples(README.read_text(encoding="utf-8")) if README.exists() else []


def test_the_readme_has_console_examples():
    assert len(EXAMPLES) >= 3, "the README shows at least the compare, describe and error examples"


def test_extraction_and_normalisation():
    text = "```console\n$ dpcompare a \\\n    --b 1\nout\n\n$ dpcompare c\nerror: x\n```\n```text\n$ dpcompare z\n```\n"
    assert examples(text) == [("dpcompare a  --b 1", ["a", "--b", "1"], "out\n"), ("dpcompare c", ["c"], "error: x")]
    assert normalise("wrote r.html (8 figures, 1326 KiB, 12.0 s)  \n\n") == "wrote r.html (8 figures, <size> KiB, <time> s)"
    assert normalise("ε = 12.0 s") == "ε = 12.0 s"  # only `wrote` lines are normalised


@pytest.mark.parametrize("cmd, argv, shown", EXAMPLES, ids=[e[0][:60] for e in EXAMPLES])
def test_readme_console_example(cmd, argv, shown, tmp_path, monkeypatch, capsys):
    from dpcompare.io.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    capsys.readouterr()
    code = main(argv)
    cap = capsys.readouterr()
    expected_code = 2 if shown.lstrip().startswith("error:") else 0
    assert code == expected_code, (cmd, cap.err)
    assert normalise(cap.out + cap.err) == normalise(shown), cmd
