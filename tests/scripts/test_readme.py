"""The README's and the documentation's examples run and print what the pages show.

Rules (one definition, in ``docs/update_readme_examples.py``): every ``$ dpcompare`` command of a
``console`` block runs in-process (``dpcompare.io.cli.main``) in an empty directory with an 80-column
console; its exit status is 0, or 2 when the shown output is an error; its output matches the shown
text exactly and its numbers within a relative 1e-5 (or an absolute 1e-12), since the last digits of
floating-point results differ between CPUs. ``pycon`` blocks run as doctests (one namespace per page,
the same number rule); ``python`` blocks must compile.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("_doc_examples", ROOT / "docs" / "update_readme_examples.py")
ex = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ex)

PAGES = [p for p in ex.pages() if p.exists()]
EXAMPLES = [(p.relative_to(ROOT).as_posix(), *e) for p in PAGES for e in ex.examples(p.read_text(encoding="utf-8"))]
_PYCON = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)
_PYTHON = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_the_pages_have_console_examples():
    assert len([e for e in EXAMPLES if e[0] == "README.md"]) >= 2, "the README shows the worked example and an error"
    assert len(EXAMPLES) >= 20


def test_extraction_and_normalisation():
    text = "```console\n$ dpcompare a \\\n    --b 1\nout\n\n$ dpcompare c\nerror: x\n```\n```text\n$ dpcompare z\n```\n"
    assert ex.examples(text) == [("dpcompare a --b 1", ["a", "--b", "1"], "out\n"), ("dpcompare c", ["c"], "error: x")]
    assert ex.normalise("wrote r.html (8 figures, 1326 KiB, 12.0 s)  \n\n") == "wrote r.html (8 figures, <size> KiB, <time> s)"
    assert ex.normalise("ε = 12.0 s") == "ε = 12.0 s"  # only `wrote` lines are normalised


def test_the_matching_rules():
    assert ex.matches("│ Δ │ 0.0341385 │", "│ Δ │ 0.0341386 │")          # sixth digit: within 1e-5 relative
    assert not ex.matches("│ Δ │ 0.0341385 │", "│ Δ │ 0.0341485 │")      # fourth digit: a real difference
    assert ex.matches('{"v": 1.1285884059537934e-19}', '{"v": 3.2e-17}')  # floating-point noise: absolute 1e-12
    assert not ex.matches('{"v": 7.64e-07}', '{"v": 7.65e-07}')
    assert ex.matches("┃ σ ┃ 1.5 ┃\n┡━━━━━╇", "┃ σ ┃ 1.55 ┃\n┡━━━━━━╇") is False  # 1.5 vs 1.55: a real difference
    assert ex.matches("│ x │ 0.59825 │", "│ x │  0.598250 │")               # a wider column
    assert ex.matches('{"evaluations": …, "x": 1}', '{"evaluations": 13, "x": 1}')
    assert ex.matches('{"s": 0.5982520226799201, "evaluations": …}', '{"s": 0.5982520226801, "evaluations": 25}')
    assert not ex.matches('{"s": 0.5982520226799201, "evaluations": …}', '{"s": 0.598117, "evaluations": 25}')
    assert ex.matches("│ accountant calls │ … │", "│ accountant calls │          16 │")
    assert not ex.matches("Verdict: equal", "Verdict: incomparable")
    assert not ex.matches("a\nb", "a")


@pytest.mark.parametrize("page, cmd, argv, shown", EXAMPLES, ids=[f"{e[0]}: {e[1][:60]}" for e in EXAMPLES])
def test_console_example(page, cmd, argv, shown, tmp_path, monkeypatch, capsys):
    from dpcompare.io.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    capsys.readouterr()
    code = main(argv)
    cap = capsys.readouterr()
    s = shown.lstrip()
    expected_code = 2 if s.startswith("error:") or s.startswith('{"error"') else 0
    assert code == expected_code, (cmd, cap.err)
    actual = cap.out + cap.err
    assert ex.matches(shown, actual), f"{page}: {cmd}\n--- shown\n{ex.normalise(shown)}\n--- printed\n{ex.normalise(actual)}"


class _NumberChecker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        return super().check_output(want, got, optionflags) or ex.matches(want, got)


PYCON = [(p.relative_to(ROOT).as_posix(), p) for p in PAGES if _PYCON.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page, path", PYCON, ids=[p[0] for p in PYCON])
def test_pycon_examples(page, path, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    source = "\n".join(_PYCON.findall(path.read_text(encoding="utf-8")))
    test = doctest.DocTestParser().get_doctest(source, {}, page, str(path), 0)
    runner = doctest.DocTestRunner(checker=_NumberChecker(), optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{page}: {runner.failures} of {runner.tries} examples failed (output above)"


PYTHON = [(p.relative_to(ROOT).as_posix(), i, b) for p in PAGES
          for i, b in enumerate(_PYTHON.findall(p.read_text(encoding="utf-8")))]


@pytest.mark.parametrize("page, i, block", PYTHON, ids=[f"{p[0]}#{p[1]}" for p in PYTHON])
def test_python_blocks_compile(page, i, block):
    """Every python block of the README and the docs is valid Python (``compile`` raises SyntaxError otherwise)."""
    code = compile(block, f"{page} python block {i}", "exec")
    assert code.co_filename == f"{page} python block {i}"


@pytest.mark.parametrize("path", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_code_fences_close(path):
    """A closing fence with text after it (```` ``` text ````) swallows the rest of the page when rendered."""
    inside = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            if inside:
                assert line.rstrip() == "```", f"{path.name}:{n}: a closing fence must stand alone: {line!r}"
            inside = not inside
    assert not inside, f"{path.name}: a code fence is not closed"


def test_the_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.count("\n") <= 250
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_the_api_reference_fences_docstring_examples():
    """docs/_hooks/griffe_doctests.py (the mkdocstrings extension) turns >>> runs into pycon code blocks."""
    pytest.importorskip("griffe", reason="griffe is not installed (pip install -e '.[docs]')")
    spec = importlib.util.spec_from_file_location("_griffe_doctests", ROOT / "docs" / "_hooks" / "griffe_doctests.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert doctest.testmod(mod).failed == 0
    assert mod.fence_doctests("    >>> x\n    1") == "    ```pycon\n    >>> x\n    1\n    ```"
