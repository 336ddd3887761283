"""The languages a judge builds and runs: the built-ins and a contest file's own.

A submission is one source file. Its language says how it is built (a command run in the
sandbox, `lightcycle.sandbox.build.run_build`, in a work folder holding only that file)
and how the built bot is started (a program speaking the contest's protocol). Every
command may name the submitted file as ``{source}``.

The built-ins:

- ``python``: built by a syntax check (``python3 -m py_compile``), so a typo is a build
  error with its line rather than a crash on turn 1. A file that defines a `Bot` class
  is NOT played in the judge's process (untrusted code): it runs as a program in the
  sandbox, through `lightcycle.judge.service.pyhost`, which speaks ``jsonl``; any other
  Python file is a program speaking the contest's protocol.
- ``c``: ``gcc -O2 -std=c11 -o bot bot.c -lm``; ``cpp``: ``g++ -O2 -std=c++17``.
- for the team course (``teams`` rulesets), C is the course's C functions
  (docs/cteam.md): compiled to a shared library in the sandbox against ``tron.h``
  and run by the ``cteam`` host, which speaks ``jsonl``.
- a Scheme file that uses ``define-tron-brain`` (the Scheme course's library,
  docs/scheme.md) is a brain, whatever the contest declares for ``.scm``: run by the
  library's seat runner, which speaks ``sexp``; any other Scheme file is a program.
- for the 3D course (``tron3d`` rulesets), a C++ file with ``RegisterPlayer(...)`` and
  no ``main`` is a player of the course's kit (docs/tron3d-kit.md): built with the kit's
  ``Game.cc`` into a program whose seat mode (``./bot --seat``) speaks ``jsonl``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = "{source}"
"""The placeholder of the submitted file's name in build and run commands."""

PY_HOST = "lightcycle.judge.service.pyhost"


class LanguageError(ValueError):
    """A language that cannot be used (unknown, or declared without what it needs)."""


@dataclass(frozen=True)
class Language:
    """How one language is built and run.

    Attributes:
        name: its key in the contest file (``python``, ``c``, ``rust``).
        suffix: the file suffix a submission must have (``.c``).
        build: the build command (``{source}`` is the file's name); empty: no build,
            the source itself is the artifact.
        run: the command that starts the bot in the folder of the artifacts.
        artifacts: the files of the work folder kept after the build (``bot``);
            empty: the source file.
        protocol: the protocol the bot speaks (``None``: the contest's).
        read_only: host folders the build needs to read (``tron.h``'s folder).
    """

    name: str
    suffix: str
    build: tuple[str, ...] = ()
    run: tuple[str, ...] = ("./bot",)
    artifacts: tuple[str, ...] = ("bot",)
    protocol: str | None = None
    read_only: tuple[Path, ...] = ()

    def build_argv(self, source: str) -> list[str]:
        """The build command for the file ``source``."""
        return [a.replace(SOURCE, source) for a in self.build]

    def run_argv(self, source: str) -> tuple[str, ...]:
        """The run command for the file ``source``."""
        return tuple(a.replace(SOURCE, source) for a in self.run)

    def kept(self, source: str) -> tuple[str, ...]:
        """The files the build keeps (the source itself where it names none; ``{source}``
        among them is the file's name)."""
        return tuple(a.replace(SOURCE, source) for a in self.artifacts) or (source,)


_BOT_CLASS = re.compile(r"^class\s+\w+\s*\([^)]*\bBot\b[^)]*\)\s*:", re.MULTILINE)


def is_bot_class(source: bytes) -> bool:
    """Whether a Python file defines a `lightcycle.bots.api.Bot` subclass (then it is run
    through the jsonl host rather than as a program of its own)."""
    return _BOT_CLASS.search(source.decode("utf-8", errors="replace")) is not None


PYTHON = Language(
    name="python",
    suffix=".py",
    build=("python3", "-m", "py_compile", SOURCE),
    run=("python3", SOURCE),
    artifacts=(),
)
C = Language(
    name="c",
    suffix=".c",
    build=("gcc", "-O2", "-std=c11", "-o", "bot", SOURCE, "-lm"),
)
CPP = Language(
    name="cpp",
    suffix=".cpp",
    build=("g++", "-O2", "-std=c++17", "-o", "bot", SOURCE),
)
BUILTIN: dict[str, Language] = {lang.name: lang for lang in (PYTHON, C, CPP)}
ALSO_SUFFIXES: dict[str, tuple[str, ...]] = {"cpp": (".cc", ".cxx")}
"""Other suffixes a built-in language's files may have (the 3D course's AIWhatever.cc)."""


def python_bot_class() -> Language:
    """Python `Bot` class files: a syntax check, then the jsonl host in the sandbox."""
    return Language(
        name="python",
        suffix=".py",
        build=PYTHON.build,
        run=(sys.executable, "-m", PY_HOST, SOURCE),
        artifacts=(),
        protocol="jsonl",
    )


def cteam() -> Language:
    """C for the team course: the course's functions, compiled to a library in the
    sandbox (the flags `lightcycle.hosts.cteam.compile_team` uses) and run by its host."""
    from lightcycle.hosts.cteam import CFLAGS, header_path

    folder = header_path().parent
    return Language(
        name="c",
        suffix=".c",
        build=("gcc", *CFLAGS, f"-I{folder}", SOURCE, "-o", "team.so", "-lm"),
        run=(sys.executable, "-m", "lightcycle.hosts.cteam", "team.so"),
        artifacts=("team.so",),
        protocol="jsonl",
        read_only=(folder,),
    )


_KIT_PLAYER = re.compile(r"^\s*RegisterPlayer\s*\(", re.MULTILINE)
_MAIN = re.compile(r"\bint\s+main\s*\(")


def is_kit_player(source: bytes) -> bool:
    """Whether a C++ file is a player of the 3D course's kit (``RegisterPlayer(...)``, no
    ``main``) rather than a whole program speaking the contest's protocol."""
    text = source.decode("utf-8", errors="replace")
    return _KIT_PLAYER.search(text) is not None and _MAIN.search(text) is None


def tron3d_kit() -> Language:
    """C++ for the 3D course: one ``AIWhatever.cc`` player built with the kit's ``Game``
    (docs/tron3d-kit.md) into a ``bot`` whose seat mode speaks ``jsonl``; the kit's
    folder is bound read-only in the build."""
    from lightcycle.kits.tron3d import CXXFLAGS, files_dir

    folder = files_dir()
    return Language(
        name="cpp",
        suffix=".cc",
        build=("g++", *CXXFLAGS, f"-I{folder}", SOURCE, str(folder / "Game.cc"), "-o", "bot"),
        run=("./bot", "--seat"),
        protocol="jsonl",
        read_only=(folder,),
    )


def is_scheme_brain(name: str, spec: Any, source: bytes) -> bool:
    """Whether a submission is a brain of the Scheme course's library: a ``.scm`` file
    (the ``scheme`` language, or one a contest declares with that suffix; ``spec``: the
    contest's entry) that uses ``define-tron-brain``. A whole program speaking the
    protocol itself is not."""
    from lightcycle.kits.scheme import defines_brain

    if spec is None:  # the contest does not take this language
        return False
    suffix = spec.get("suffix") if isinstance(spec, Mapping) else getattr(spec, "suffix", None)
    if name != "scheme" and suffix != ".scm":
        return False
    return defines_brain(source.decode("utf-8", errors="replace"))


def scheme_brain() -> Language:
    """A brain of the Scheme course's library (docs/scheme.md): the build copies the
    library's ``tron.scm`` and ``seat.scm`` beside the file and checks that it defines a
    brain; the bot is the library's seat runner playing it over ``sexp``, on Guile (or
    Chez where Guile is missing, or ``LIGHTCYCLE_SCHEME=chez``). The artifact carries the
    library it was built with."""
    from lightcycle.kits.scheme import library_dir, seat_command

    check = " ".join(seat_command(SOURCE, library=".", check=True, required=False))
    copy = f'cp "{library_dir()}/tron.scm" "{library_dir()}/seat.scm" .'
    return Language(
        name="scheme",
        suffix=".scm",
        build=("sh", "-c", f"{copy} && exec {check}"),
        run=seat_command(SOURCE, library=".", required=False),
        artifacts=(SOURCE, "tron.scm", "seat.scm"),
        protocol="sexp",
        read_only=(library_dir(),),
    )


def declared(name: str, spec: Any) -> Language:
    """A contest file's language: a `Language`, or a table with ``suffix``, ``build``
    and ``run`` (and optionally ``artifacts`` and ``protocol``).

    Raises:
        LanguageError: a key missing or of the wrong type.
    """
    if isinstance(spec, Language):
        return spec
    get = spec.get if isinstance(spec, Mapping) else lambda k, d=None: getattr(spec, k, d)
    suffix, build, run = get("suffix"), get("build", ()), get("run")
    if not isinstance(suffix, str) or not suffix.startswith("."):
        raise LanguageError(f'language {name}: set suffix = ".ext"')
    if not _strings(build) or not _strings(run) or not run:
        raise LanguageError(
            f'language {name}: build and run are lists of strings, e.g. run = ["./bot"]'
        )
    artifacts = get("artifacts", None)
    if artifacts is None:  # a program the run command names as ./NAME, else the source
        artifacts = [run[0][2:]] if run[0].startswith("./") else []
    protocol = get("protocol", None)
    return Language(
        name=name,
        suffix=suffix,
        build=tuple(build),
        run=tuple(run),
        artifacts=tuple(artifacts),
        protocol=protocol if isinstance(protocol, str) else None,
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def language_for(
    name: str, source: bytes, ruleset: str, declared_specs: Mapping[str, Any]
) -> Language:
    """The language a submission is built and run with.

    Args:
        name: its language's name (``python``, ``c``...).
        source: the submitted file (a Python file with a `Bot` class runs in the host).
        ruleset: the contest's ruleset id (``teams@1``: C is the course's functions).
        declared_specs: the contest's languages (`Contest.languages`: a built-in's
            entry, marked ``builtin``, means the built-in; any other is declared).

    Raises:
        LanguageError: a language neither built in nor declared.
    """
    spec = declared_specs.get(name)
    builtin = getattr(spec, "builtin", False) or (
        isinstance(spec, Language) and spec in BUILTIN.values()
    )
    if is_scheme_brain(name, spec, source):
        return scheme_brain()
    if spec is not None and not builtin and getattr(spec, "build", ()) is not None:
        return declared(name, spec)
    if name == "python":
        return python_bot_class() if is_bot_class(source) else PYTHON
    if name == "c" and ruleset.split("@")[0] == "teams":
        return cteam()
    if name == "cpp" and ruleset.split("@")[0] == "tron3d" and is_kit_player(source):
        return tron3d_kit()
    if name in BUILTIN:
        return BUILTIN[name]
    known = ", ".join(sorted({*BUILTIN, *declared_specs}))
    raise LanguageError(f"unknown language {name!r}: the contest allows {known}")
