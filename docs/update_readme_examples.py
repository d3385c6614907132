"""Re-run every ``$ dpcompare …`` command of the README's and the documentation's ``console`` blocks and
paste its real output.

The examples must show what the commands print (``tests/scripts/test_readme.py`` checks it, with the rules
below); after a change to an output, run this, read the diff, and commit it:

    python docs/update_readme_examples.py            # rewrites README.md and docs/**/*.md in place
    python docs/update_readme_examples.py --check    # exit 1 if any example is out of date

How an example is checked (the one definition, used by the test and by ``--check``):

- a ``console`` block holds commands (a line starting with ``$ dpcompare``, continued by a trailing
  ``\\``) each followed by its output (stdout, then stderr); it runs in an empty directory with an
  80-column terminal; its exit status must be 0, or 2 when the output shown starts with ``error:`` or
  ``{"error"``;
- text must match exactly, except that runs of spaces and of table-rule characters may differ in length
  (a number one digit longer widens its table);
- numbers match within a relative 1e-5 (one unit in the sixth significant digit, the precision of the
  tables) or an absolute 1e-12 (values at the level of floating-point noise): the last digits of a
  floating-point result differ between CPUs;
- ``…`` in a line of shown output stands for any text (used where a count depends on the machine, such
  as the number of evaluations a search made);
- on a line starting with ``wrote ``, a size (``72 KiB``) and a duration (``12.0 s``) are not compared.

Blocks tagged ``text`` (abridged or slow output) are not run. ``pycon`` blocks (``>>>`` sessions) run as
doctests with the same number rule; ``python`` blocks are compiled (a syntax check). When an example
still matches, this script keeps its text as written (so a ``…`` stays, and digits that moved within
the tolerance do not churn the diff).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RTOL, ATOL = 1e-5, 1e-12
_FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_RULES = re.compile(r"([─━═│┃┏┓┗┛┡┩└┘┌┐╇╋┳┻┼┬┴├┤╶╴])\1+")


def pages() -> list[Path]:
    """README.md and every Markdown page of the documentation, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def commands(block: str) -> list[tuple[list[str], str, str]]:
    """(the command's lines as written, the command line, the shown output) for every ``$`` command."""
    lines, out, i = block.splitlines(), [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        cmd_lines = [lines[i]]
        while cmd_lines[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd_lines.append(lines[i])
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        cmd = " ".join(part.rstrip("\\").strip() for part in cmd_lines)[2:]
        out.append((cmd_lines, cmd, "\n".join(shown)))
    return out


def examples(text: str) -> list[tuple[str, list[str], str]]:
    """(command line, argv after ``dpcompare``, shown output) for every ``$ dpcompare`` command."""
    out = []
    for block in _FENCE.findall(text):
        for _, cmd, shown in commands(block):
            argv = shlex.split(cmd)
            if argv and argv[0] == "dpcompare":
                out.append((cmd, argv[1:], shown))
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


def numbers_close(x: str, y: str) -> bool:
    a, b = float(x), float(y)
    return a == b or abs(a - b) <= max(RTOL * max(abs(a), abs(b)), ATOL)


def _text(s: str) -> str:
    return re.sub(r"\s+", " ", _RULES.sub(r"\1", s)).strip()


def line_matches(shown: str, actual: str) -> bool:
    if shown == actual:
        return True
    if "…" in shown:  # any text in its place; the numbers around it within the tolerance
        want: list[str] = []
        pieces = []
        for part in _text(shown).split("…"):
            texts, nums = _NUMBER.split(part), _NUMBER.findall(part)
            want += nums
            pieces.append(f"({_NUMBER.pattern})".join(re.escape(x) for x in texts))
        m = re.fullmatch(".*?".join(pieces), _text(actual))
        return m is not None and all(numbers_close(x, y) for x, y in zip(want, m.groups()))
    s_parts, a_parts = _NUMBER.split(shown), _NUMBER.split(actual)
    s_nums, a_nums = _NUMBER.findall(shown), _NUMBER.findall(actual)
    return (len(s_nums) == len(a_nums) and all(numbers_close(x, y) for x, y in zip(s_nums, a_nums))
            and [_text(p) for p in s_parts] == [_text(p) for p in a_parts])


def matches(shown: str, actual: str) -> bool:
    """Whether ``actual`` output is what ``shown`` shows, by the rules of the module docstring."""
    s, a = normalise(shown).splitlines(), normalise(actual).splitlines()
    return len(s) == len(a) and all(line_matches(x, y) for x, y in zip(s, a))


def _output(argv: list[str], cwd: str) -> str:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb", "PYTHONPATH": str(ROOT / "src")}
    env.pop("FORCE_COLOR", None)
    p = subprocess.run([sys.executable, "-m", "dpcompare", *argv], cwd=cwd, env=env, capture_output=True, text=True)
    return "\n".join(line.rstrip() for line in (p.stdout + p.stderr).rstrip("\n").splitlines())


def _block(body: str, cwd: str) -> str:
    out = []
    for cmd_lines, cmd, shown in commands(body):
        argv = shlex.split(cmd)
        out += cmd_lines
        if argv and argv[0] == "dpcompare":
            new = _output(argv[1:], cwd)
            out.append(shown.rstrip("\n") if matches(shown, new) else new)
        elif shown.strip():
            out.append(shown.rstrip("\n"))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report whether the examples are up to date")
    ap.add_argument("files", nargs="*", type=Path, help="pages to update (default: README.md and docs/**/*.md)")
    args = ap.parse_args(argv)
    stale = []
    for page in [p.resolve() for p in args.files] or pages():
        text = page.read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            new = _FENCE.sub(lambda m: "```console\n" + _block(m.group(1), tmp) + "```", text)
        if new != text:
            stale.append(page)
            if not args.check:
                page.write_text(new, encoding="utf-8")
    rel = ", ".join(str(p.relative_to(ROOT)) for p in stale) or "none"
    if args.check:
        print(f"out of date: {rel}" if stale else "every example is up to date")
        return 1 if stale else 0
    print(f"rewritten: {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
