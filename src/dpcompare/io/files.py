"""Atomic file writes: a temporary file in the target directory, fsync, then rename — never a partial file."""

from __future__ import annotations

import contextlib
import os
import tempfile


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename, so the
    path holds either its old content or the whole new file, never a part (mode from the umask)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"cannot write {path!r}: directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path!r}: it is a directory")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def output_path(path: str, formats: tuple[str, ...], option: str = "-o") -> tuple[str, str]:
    """(path, format) after checking what can be checked before computing: the suffix names one of
    ``formats``, the directory exists and the path is not a directory. Errors name ``option``, the
    command-line option that gave the path.

    >>> output_path("card.txt", ("html",), option="--html")
    Traceback (most recent call last):
    ...
    ValueError: --html must end in .html, got 'card.txt'
    """
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in formats:
        allowed = ", ".join("." + f for f in formats)
        raise ValueError(f"{option} must end in {allowed}, got {path!r}")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"{option} {path!r}: directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{option} {path!r} is a directory")
    return path, suffix


def write_output(path: str, data: bytes) -> None:
    try:
        atomic_write(path, data)
    except OSError as exc:  # permissions, full disk: the user's to fix; nothing partial is left
        raise ValueError(f"cannot write {path!r}: {exc.strerror or exc}") from None
