"""A griffe extension for the API reference: the docstrings' ``>>>`` examples become ``pycon`` code blocks.

dpcompare's docstrings are plain text with doctest examples (they run with the test suite); Markdown
would read ``>>>`` as nested quotes and ``[0.4, 0.6]`` in an output line as a link.
"""

from __future__ import annotations

from typing import Any

from griffe import Extension


def fence_doctests(text: str) -> str:
    r"""Wrap every run of ``>>>`` lines and their output (up to a blank line) in a ``pycon`` fence.

    >>> fence_doctests("Text.\n\n" + ">" * 3 + " 1 + 1\n2\n\nMore.").splitlines()
    ['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    """
    out: list[str] = []
    inside = False
    indent = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
