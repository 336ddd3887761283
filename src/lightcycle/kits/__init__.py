"""What a course's student starts from: files the package ships, written out on request.

A kit is a folder of files (``lightcycle/kits/<name>/files/``) that ``lightcycle kit NAME
DIR`` copies into a student's folder, then an optional finishing step (the 3D course's
kit compiles its Dummy player into an object file there, as the course handed it out).
Kits are data: this module knows no game, no referee and no process beyond the
finishing step a kit names, and imports only the standard library (an import-linter
contract).

Writing never loses a student's work: a file that already exists in DIR with other
content is left alone and reported, unless ``force`` is given.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["KITS", "Kit", "KitError", "WriteReport", "get_kit", "kit_files", "write_kit"]


class KitError(ValueError):
    """A kit that cannot be written (unknown name, a folder that is a file, a failed step)."""


@dataclass(frozen=True)
class Kit:
    """One course's starting kit.

    Attributes:
        name: the name ``lightcycle kit NAME`` takes (``scheme``, ``tron3d``).
        title: one line on who it is for.
        next_steps: what to run after writing it, one command or sentence a line;
            ``{dir}`` is replaced by the folder written.
        finish: a step run after the files are copied (given the folder); it raises
            `KitError` naming what failed and what to do.
    """

    name: str
    title: str
    next_steps: tuple[str, ...] = ()
    finish: Callable[[Path], None] | None = None

    @property
    def files_dir(self) -> Path:
        """The folder of the files this kit copies."""
        return Path(__file__).resolve().parent / self.name / "files"


KITS: tuple[str, ...] = ("scheme", "tron3d")
"""The kits this version ships, in the order `lightcycle kit --help` lists them."""


def get_kit(name: str) -> Kit:
    """The kit called ``name`` (its module ``lightcycle.kits.<name>`` defines ``KIT``)."""
    if name not in KITS:
        raise KitError(f"no kit {name!r}; the kits are: {', '.join(KITS)}")
    module = importlib.import_module(f"lightcycle.kits.{name}")
    kit = module.KIT
    assert isinstance(kit, Kit)
    return kit


def kit_files(kit: Kit) -> list[Path]:
    """The kit's files, relative to its files folder, sorted."""
    root = kit.files_dir
    return sorted(
        p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )


@dataclass
class WriteReport:
    """What `write_kit` did: files written, files already there unchanged, files kept."""

    written: list[Path] = field(default_factory=list)
    same: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)


def write_kit(name: str, dest: Path, force: bool = False) -> WriteReport:
    """Copy kit ``name`` into ``dest`` (created if missing), then run its finishing step.

    A file already in ``dest`` with other content is kept (listed in ``kept``) unless
    ``force``: a student who runs the command again loses nothing.
    """
    kit = get_kit(name)
    if dest.exists() and not dest.is_dir():
        raise KitError(f"{dest} is a file; give a folder to write the kit into")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KitError(f"cannot create {dest}: {exc.strerror or exc}") from None
    report = WriteReport()
    for rel in kit_files(kit):
        src = kit.files_dir / rel
        out = dest / rel
        data = src.read_bytes()
        if out.is_file() and out.read_bytes() == data:
            report.same.append(rel)
            continue
        if out.exists() and not force:
            report.kept.append(rel)
            continue
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(out.name + ".lightcycle-tmp")
            tmp.write_bytes(data)
            shutil.copymode(src, tmp)
            tmp.replace(out)
        except OSError as exc:
            raise KitError(f"cannot write {out}: {exc.strerror or exc}") from None
        report.written.append(rel)
    if kit.finish is not None:
        kit.finish(dest)
    return report
