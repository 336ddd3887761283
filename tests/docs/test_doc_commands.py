"""Every command the README and docs/ show runs, so none can silently rot.

The commands come from the documents' fenced blocks (``markdown_commands`` says which
lines count). Each block's commands run in order, in one temporary folder per block
(a later command may read what an earlier one wrote: a replay, a tournament folder), with
the repository's ``examples/``, ``bench/`` and ``src/`` reachable there as they are from
the repository root: real folders of symlinks to the tracked files, so whatever a
command writes lands in the temporary folder, never in the repository.

A command that cannot run in a test (it installs packages, waits for a human, serves
forever, takes minutes, or needs a program the reader writes first) is listed in
``skipped_commands.txt`` under the reason why. Every other command must exit with
status 0 within ``TIMEOUT_S``. The list cannot rot either: an entry no document shows
any more fails ``test_every_skipped_command_is_still_documented``.

Where a document says ``game.json``, it means any replay the reader has: each block
finds one there, played by ``lightcycle play`` before the block runs.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.markdown_commands import (
    Block,
    Command,
    blocks_in,
    documented_blocks,
    normalise,
    strip_comment,
)

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_FILE = Path(__file__).with_name("skipped_commands.txt")
TIMEOUT_S = 60.0
"""Per command: a hang detector, not a speed check. The commands that run here take from
under a second to about ten (the C team's four games) on an idle two-core machine; longer
ones are on the skip list. Under a full parallel test run on two cores the slowest take
three or four times as long."""
REACHABLE = ("examples", "bench", "src")
"""Repository folders the documents' commands name by relative path."""
GAME_COMMAND = (
    "lightcycle play --map arena-30 --bots chaser,runaway --seed 1 --no-render --replay game.json"
)
"""Writes the ``game.json`` the documents stand for any replay (100 turns: the documents
show turn 40)."""


@dataclass(frozen=True)
class Skip:
    """An entry of the skip list: a documented command that the test does not run."""

    document: str
    text: str
    reason: str
    line: int
    """The entry's line in the skip list, for messages."""


def read_skip_list(text: str) -> list[Skip]:
    """Entries of the skip list's format.

    ``## reason`` lines start a group; each ``document: command`` line below belongs to
    it; blank lines and ``#`` comments are ignored. Commands are compared normalised.
    """
    skips: list[Skip] = []
    reason = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("## "):
            reason = line[3:].strip()
        elif line and not line.startswith("#"):
            document, sep, command = line.partition(": ")
            if not sep or not command.strip():
                raise ValueError(f"{SKIPPED_FILE.name}:{number}: expected 'document: command'")
            if not reason:
                raise ValueError(f"{SKIPPED_FILE.name}:{number}: no '## reason' above it")
            skips.append(Skip(document.strip(), normalise(command), reason, number))
    return skips


SKIPS = read_skip_list(SKIPPED_FILE.read_text(encoding="utf-8"))
SKIPPED = {(s.document, s.text): s.reason for s in SKIPS}
BLOCKS = documented_blocks(ROOT)


def runnable(block: Block) -> list[Command]:
    """The block's commands that the test runs: those not on the skip list."""
    return [c for c in block.commands if (c.document, c.text) not in SKIPPED]


RUN_BLOCKS = [b for b in BLOCKS if runnable(b)]


# -- the extraction rules, on small samples ------------------------------------------


SAMPLE = """\
Text with `lightcycle inline` is prose.

```bash
# a comment line
lightcycle play --map ring \\
    --seed 3      # trailing comment
lightcycle match --bot 'cmd:python3 a.py # not a comment'
```

```
error: a.txt:3: what went wrong
lightcycle maps list
/   |   \\
```

```
$ lightcycle duel a b
  W D L
```

```python
import lightcycle
```
"""


def test_extraction_rules() -> None:
    blocks = blocks_in("doc.md", SAMPLE)
    found = [(c.line, c.text) for b in blocks for c in b.commands]
    assert found == [
        (5, "lightcycle play --map ring --seed 3"),
        (7, "lightcycle match --bot 'cmd:python3 a.py # not a comment'"),
        (12, "lightcycle maps list"),
        (17, "lightcycle duel a b"),
    ]
    assert [b.line for b in blocks] == [3, 10, 16]


def test_strip_comment_keeps_quoted_hashes() -> None:
    assert strip_comment("a 'b # c' # d") == "a 'b # c'"
    assert strip_comment('a "#b" c') == 'a "#b" c'
    assert strip_comment("a#b # c") == "a#b"


def test_skip_list_format() -> None:
    skips = read_skip_list("# note\n## waits for a human\nREADME.md: lightcycle  play x\n")
    assert skips == [Skip("README.md", "lightcycle play x", "waits for a human", 3)]
    with pytest.raises(ValueError, match="no '## reason'"):
        read_skip_list("README.md: lightcycle play\n")


# -- the list and the documents agree --------------------------------------------------


def test_documents_show_commands() -> None:
    """A broken extractor that finds nothing must not make the test pass vacuously."""
    documents = {b.document for b in BLOCKS}
    assert {"README.md", "docs/replays.md", "examples/README.md"} <= documents
    assert len(RUN_BLOCKS) >= 10


def test_every_skipped_command_is_still_documented() -> None:
    documented = {(c.document, c.text) for b in BLOCKS for c in b.commands}
    stale = [
        f"{SKIPPED_FILE.name}:{s.line}: {s.document}: {s.text}"
        for s in SKIPS
        if (s.document, s.text) not in documented
    ]
    assert not stale, "skipped commands no document shows any more:\n" + "\n".join(stale)


LONG = "takes minutes"
"""The skip list's reason for commands too long to run here: their documents say how long."""
DURATION = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:-\s*\d+\s*)?(?:s|ms|min|minutes?|seconds?|hours?|h)\b"
)
"""A stated time: ``37 s``, ``about 3 min``, ``2-3 minutes``, ``1.5 hours``."""
NEAR = 12
"""Lines around a command (its block, the paragraph before and after) where its time is said."""


def test_every_long_example_says_how_long_it_takes() -> None:
    """A reader who runs a command the test cannot time learns from the page what to expect:
    the document states a duration within a few lines of it (its block, the sentence that
    introduces it, or the output it shows)."""
    commands = {(c.document, c.text): c for b in BLOCKS for c in b.commands}
    silent = []
    for skip in SKIPS:
        if not skip.reason.startswith(LONG) or (skip.document, skip.text) not in commands:
            continue
        command = commands[(skip.document, skip.text)]
        lines = (ROOT / command.document).read_text(encoding="utf-8").splitlines()
        around = lines[max(0, command.line - 1 - NEAR) : command.line + NEAR]
        if not any(DURATION.search(line) for line in around):
            silent.append(f"{command.where}: {command.text}")
    assert not silent, "long examples whose documents give no time:\n" + "\n".join(silent)


def test_no_command_is_listed_twice() -> None:
    keys = [(s.document, s.text) for s in SKIPS]
    assert len(keys) == len(set(keys))


def test_ci_runs_the_quick_start_test_command() -> None:
    """The README's second Quick start command is what CI runs, word for word; the first
    installs what a user needs to see the product, not the development set."""
    quick_start = next(b for b in BLOCKS if b.document == "README.md")  # its first block
    install, test = (c.text for c in quick_start.commands)
    assert "pip install" in install and "[dev]" not in install
    assert "[dev]" in test and "pytest" in test
    ci_lines = {normalise(line) for line in (ROOT / ".ci" / "run").read_text().splitlines()}
    assert test in ci_lines


# -- running them ----------------------------------------------------------------------


def _tracked(folder: str) -> list[str]:
    """The repository's tracked files under ``folder`` (built or ignored files are not
    linked: a command that writes one must write a new file, not through a link)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--", folder],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        return [name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]


def _link_tree(workdir: Path) -> None:
    for folder in REACHABLE:
        for name in _tracked(folder):
            link = workdir / name
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(ROOT / name)


def _environment() -> dict[str, str]:
    """The test's interpreter and its scripts first on PATH, so ``python`` and
    ``lightcycle`` are the ones under test; no colour codes in the output."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "120"
    return env


def _run(command: str, cwd: Path, env: dict[str, str]) -> tuple[int | None, str]:
    """Exit status (None on time-out) and the output's tail; stdin is not a terminal,
    so nothing waits for keys or animates."""
    process = subprocess.Popen(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT_S)
        status: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = None
    text = output.decode(errors="replace")
    return status, text[-2000:]


@pytest.fixture(scope="session")
def game_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("game")
    status, output = _run(GAME_COMMAND, folder, _environment())
    assert status == 0, f"{GAME_COMMAND} failed:\n{output}"
    return folder / "game.json"


NEEDED_TOOLS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (re.compile(r"(^|[;&|]\s*)guile\s"), ("guile",), "scripts/install-guile"),
    (
        re.compile(r"(^|[;&|]\s*)(scheme|chezscheme)\s|LIGHTCYCLE_SCHEME=chez"),
        ("scheme", "chezscheme"),
        "scripts/install-chez",
    ),
    (re.compile(r"scheme:\S"), ("guile", "scheme"), "scripts/install-guile"),
    (re.compile(r"(^|[;&|]\s*)make(\s|$)"), ("make",), "apt-get install make"),
    (re.compile(r"(^|[;&|]\s*)(make|g\+\+)(\s|$)"), ("g++",), "apt-get install g++"),
)
"""A documented command's pattern, the programs of which it needs one, and how to get one:
the project's scripts install them (tests/conftest.py); a block whose program cannot be
had here skips with that reason instead of failing."""


def missing_tool(block: Block) -> str | None:
    """Why the block cannot run here (a program it needs is missing), or None."""
    for command in runnable(block):
        for pattern, programs, how in NEEDED_TOOLS:
            if pattern.search(command.text) and not any(shutil.which(p) for p in programs):
                return f"{command.where} needs {' or '.join(programs)}: {how}"
    return None


def test_missing_tools_are_named() -> None:
    guile, chez, seat, _, cxx = (pattern for pattern, _, _ in NEEDED_TOOLS)
    assert guile.search("cd k && guile -l tron.scm -c '(x)'")
    assert not guile.search("lightcycle kit scheme my-guile-notes")
    assert chez.search("echo x | scheme -q tron.scm b.scm")
    assert not chez.search("lightcycle kit scheme my-tron")
    assert seat.search("lightcycle play --bots scheme:b.scm,chaser")
    assert cxx.search("cd kit && make all") and not cxx.search("lightcycle maps make")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to run the commands")
@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[b.where for b in RUN_BLOCKS])
def test_documented_commands_run(block: Block, tmp_path: Path, game_json: Path) -> None:
    why = missing_tool(block)
    if why is not None:
        pytest.skip(why)
    _link_tree(tmp_path)
    shutil.copy(game_json, tmp_path / "game.json")
    env = _environment()
    failures = []
    for command in runnable(block):
        status, output = _run(command.text, tmp_path, env)
        if status != 0:
            verdict = f"timed out after {TIMEOUT_S:.0f} s" if status is None else f"exit {status}"
            failures.append(f"{command.where}: {command.text}\n  {verdict}; output ends:\n{output}")
    assert not failures, (
        "documented commands fail (fix the command or the document, or list it with its "
        f"reason in {SKIPPED_FILE.name}):\n\n" + "\n\n".join(failures)
    )
