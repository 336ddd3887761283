"""Running Scheme code against the shipped library, on Guile and on Chez Scheme.

The library's tests run the same Scheme on both implementations the course uses; one
that is not installed makes its tests skip with the script that installs it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lightcycle.kits.scheme import SchemeMissing, find_scheme, library_dir

SCHEMES = ("guile", "chez")
"""The implementations the library supports (`lightcycle.kits.scheme.IMPLEMENTATIONS`)."""

INSTALL = {"guile": "scripts/install-guile", "chez": "scripts/install-chez"}

TRON = library_dir() / "tron.scm"
EXAMPLE = library_dir() / "random-move-bot.scm"


def program_or_skip(name: str) -> str:
    """The program of Scheme ``name``, or skip the test naming how to install it."""
    try:
        return find_scheme(name)[1]
    except SchemeMissing:
        pytest.skip(f"{name} is not installed: {INSTALL[name]} installs it")


def run_scheme(
    name: str, code: str, folder: Path, timeout: float = 60.0, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` as a script on Scheme ``name`` in ``folder`` (UTF-8 text out)."""
    program = program_or_skip(name)
    script = folder / f"main-{name}.scm"
    script.write_text(code, encoding="utf-8")
    argv = (
        [program, "--no-auto-compile", str(script)]
        if name == "guile"
        else [program, "--script", str(script)]
    )
    return subprocess.run(
        argv,
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


def loads(*files: Path) -> str:
    """Scheme that loads ``tron.scm`` and then ``files``."""
    return "".join(f'(load "{f}")\n' for f in (TRON, *files))
