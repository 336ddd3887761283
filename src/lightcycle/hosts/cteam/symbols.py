"""Finding a C team's three functions in a shared library, without loading it.

A team library defines ``getName``, ``init`` and ``move``, or exactly one prefixed set
``PREFIX_getName``, ``PREFIX_init``, ``PREFIX_move`` (the course's ``firstname_lastname_``
names). To find the prefix, the functions the library exports are listed from its ELF
dynamic symbol table (``.dynsym``), read with the standard library: that table is what
the dynamic loader itself resolves names from, so whatever it lists, ``dlsym`` (and so
ctypes) finds. Libraries that are not ELF, or whose section headers were stripped, fall
back on ``nm -D --defined-only``; with neither, only the unprefixed names can be found,
by trying them.

Standard library only: the referee uses this at compile time, the host at start.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lightcycle.hosts.cteam.errors import LibraryError

SUFFIXES = ("getName", "init", "move")
"""The three functions, without their prefix."""

_SHT_DYNSYM = 11
_STT_FUNC = 2
_STT_GNU_IFUNC = 10
_STB_GLOBAL = 1
_STB_WEAK = 2
_PREFIX = re.compile(r"^([A-Za-z0-9_]*[A-Za-z0-9]_)(getName|init|move)$")


@dataclass(frozen=True)
class TeamFunctions:
    """The symbol names of a team's three functions.

    Attributes:
        prefix: what precedes ``getName``, ``init`` and ``move`` (``""``: none).
    """

    prefix: str

    @property
    def get_name(self) -> str:
        """The symbol of ``getName``."""
        return self.prefix + "getName"

    @property
    def init(self) -> str:
        """The symbol of ``init``."""
        return self.prefix + "init"

    @property
    def move(self) -> str:
        """The symbol of ``move``."""
        return self.prefix + "move"

    def names(self) -> tuple[str, str, str]:
        """The three symbols: getName, init, move."""
        return self.get_name, self.init, self.move


def elf_functions(data: bytes) -> set[str] | None:
    """The functions an ELF shared object defines and exports (its ``.dynsym``).

    Returns ``None`` when ``data`` is not ELF or has no section headers to read.
    Global and weak symbols of type ``FUNC`` (or GNU ``IFUNC``) defined in the object
    count; undefined ones (the functions it imports) do not.
    """
    if len(data) < 0x40 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    e = "<" if data[5] == 1 else ">"
    wide = data[4] == 2
    try:
        if wide:
            (shoff,) = struct.unpack_from(e + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(e + "HH", data, 0x3A)
            section = e + "IIQQQQIIQQ"
            symbol, symsize = e + "IBBHQQ", 24
        else:
            (shoff,) = struct.unpack_from(e + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(e + "HH", data, 0x2E)
            section = e + "IIIIIIIIII"
            symbol, symsize = e + "IIIBBH", 16
        if shoff == 0 or shnum == 0 or shentsize < struct.calcsize(section):
            return None
        # (type, offset, size, link, entsize) of every section
        sections = []
        for k in range(shnum):
            f = struct.unpack_from(section, data, shoff + k * shentsize)
            sections.append((f[1], f[4], f[5], f[6], f[9]))
        found: set[str] = set()
        for kind, offset, size, link, entsize in sections:
            if kind != _SHT_DYNSYM or not 0 <= link < len(sections):
                continue
            str_offset = sections[link][1]
            step = entsize or symsize
            for at in range(offset, offset + size - symsize + 1, step):
                f = struct.unpack_from(symbol, data, at)
                if wide:
                    name_at, info, shndx = f[0], f[1], f[3]
                else:
                    name_at, info, shndx = f[0], f[3], f[5]
                if shndx == 0 or (info >> 4) not in (_STB_GLOBAL, _STB_WEAK):
                    continue
                if (info & 0xF) not in (_STT_FUNC, _STT_GNU_IFUNC):
                    continue
                start = str_offset + name_at
                end = data.index(b"\0", start)
                found.add(data[start:end].decode("utf-8", "replace"))
        return found
    except (struct.error, ValueError):
        return None


def nm_functions(path: Path) -> set[str] | None:
    """The functions ``nm -D --defined-only`` lists for ``path``, or ``None`` without nm."""
    nm = shutil.which("nm")
    if nm is None:
        return None
    try:
        done = subprocess.run(
            [nm, "-D", "--defined-only", str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    found = set()
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] in ("T", "W", "i"):
            found.add(parts[-1].split("@")[0])
    return found


def exported_functions(path: Path) -> set[str] | None:
    """The functions the library at ``path`` exports, or ``None`` if they cannot be listed.

    Raises:
        LibraryError: the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LibraryError(f"cannot read the team library {path}: {exc.strerror}") from None
    found = elf_functions(data)
    return found if found is not None else nm_functions(path)


def choose_functions(exported: set[str], library: str = "the library") -> TeamFunctions:
    """The one complete set of team functions among ``exported``.

    Raises:
        LibraryError: there is no complete set (naming the functions found and missing),
            or more than one.
    """
    sets: dict[str, set[str]] = {}
    for name in exported:
        if name in SUFFIXES:
            sets.setdefault("", set()).add(name)
            continue
        m = _PREFIX.match(name)
        if m:
            sets.setdefault(m.group(1), set()).add(m.group(2))
    complete = sorted(p for p, got in sets.items() if len(got) == len(SUFFIXES))
    if len(complete) == 1:
        return TeamFunctions(complete[0])
    if len(complete) > 1:
        listed = ", ".join(f"{p}getName/{p}init/{p}move" for p in complete)
        raise LibraryError(
            f"{library} defines several sets of team functions ({listed}); "
            "keep exactly one set per library"
        )
    expected = (
        "getName, init and move (or one prefixed set such as "
        "jane_doe_getName, jane_doe_init and jane_doe_move)"
    )
    partial = sorted(sets.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if not partial:
        raise LibraryError(f"{library} defines none of the team functions: expected {expected}")
    prefix, got = partial[0]
    have = ", ".join(prefix + s for s in SUFFIXES if s in got)
    missing = ", ".join(prefix + s for s in SUFFIXES if s not in got)
    raise LibraryError(
        f"{library} defines {have} but not {missing}: expected {expected}, "
        "all three with the same prefix and not static"
    )


def find_team_functions(
    path: Path, prefix: str | None = None, label: str | None = None
) -> TeamFunctions:
    """The team functions of the library at ``path``.

    Args:
        path: the shared library.
        prefix: the prefix to use (``""`` for none); ``None`` finds it from the symbols.
        label: how errors name the library (default: its path).

    Raises:
        LibraryError: the library cannot be read or lacks a complete set of functions.
    """
    if not path.is_file():
        raise LibraryError(f"team library {path} not found")
    exported = exported_functions(path)
    if prefix is not None:
        funcs = TeamFunctions(prefix)
        if exported is not None:
            missing = [n for n in funcs.names() if n not in exported]
            if missing:
                raise LibraryError(f"{label or path} does not define {', '.join(missing)}")
        return funcs
    if exported is None:
        return TeamFunctions("")  # cannot list them: the host tries the plain names
    return choose_functions(exported, label or str(path))
