"""Re-run every ``$ dpcompare …`` command of the README's ``console`` blocks and paste its real output.

The README's examples must show what the commands print (``tests/test_readme.py`` checks it); after a
change to an output, run this, read the diff, and commit it:

    python docs/update_readme_examples.py            # rewrites README.md in place
    python docs/update_readme_examples.py --check    # exit 1 if any example is out of date

Commands run in a temporary directory with an 80-column terminal (as the test does).
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
README = ROOT / "README.md"
_FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def _output(argv: list[str], cwd: str) -> str:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb", "PYTHONPATH": str(ROOT / "src")}
    env.pop("FORCE_COLOR", None)
    p = subprocess.run([sys.executable, "-m", "dpcompare", *argv], cwd=cwd, env=env, capture_output=True, text=True)
    return "\n".join(line.rstrip() for line in (p.stdout + p.stderr).rstrip("\n").splitlines())


def _block(body: str, cwd: str) -> str:
    lines, out, i = body.splitlines(), [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        cmd_lines = [lines[i]]
        while cmd_lines[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd_lines.append(lines[i])
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        cmd = " ".join(part.rstrip("\\").strip() for part in cmd_lines)[2:]
        argv = shlex.split(cmd)
        out += cmd_lines
        if argv and argv[0] == "dpcompare":
            out.append(_output(argv[1:], cwd))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _normalised(text: str) -> str:
    def one(line: str) -> str:
        if line.startswith("wrote "):
            line = re.sub(r"\d+ KiB", "<size> KiB", line)
            line = re.sub(r"\d+(\.\d+)? s\b", "<time> s", line)
        return line

    return "\n".join(one(line) for line in text.splitlines())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report whether README.md is up to date")
    args = ap.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        new = _FENCE.sub(lambda m: "```console\n" + _block(m.group(1), tmp) + "```", text)
    if args.check:  # sizes and durations on `wrote …` lines may differ (the normalisation of tests/test_readme.py)
        same = _normalised(new) == _normalised(text)
        print("README.md examples are up to date" if same else "README.md examples are out of date")
        return 0 if same else 1
    README.write_text(new, encoding="utf-8")
    print("README.md examples rewritten" if new != text else "README.md examples unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
