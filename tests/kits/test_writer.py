"""`lightcycle kit COURSE DIR`: writing a kit never loses a student's file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.kits import KITS, KitError, get_kit, kit_files, write_kit


def test_every_kit_has_files_and_a_title() -> None:
    for name in KITS:
        kit = get_kit(name)
        assert kit.name == name and kit.title
        assert kit_files(kit), f"kit {name} ships no files"


def test_an_unknown_kit_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(KitError, match="the kits are: scheme, tron3d"):
        write_kit("fortran", tmp_path)


def test_a_file_as_the_folder_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(KitError, match="is a file"):
        write_kit("scheme", f)


def test_writing_again_keeps_a_students_edits_unless_forced(tmp_path: Path) -> None:
    kit = get_kit("scheme")
    first = write_kit("scheme", tmp_path)
    assert first.written == kit_files(kit) and not first.kept
    edited = tmp_path / first.written[0]
    edited.write_text("; my own brain\n")
    again = write_kit("scheme", tmp_path)
    assert again.kept == [first.written[0]] and not again.written
    assert edited.read_text() == "; my own brain\n"
    forced = write_kit("scheme", tmp_path, force=True)
    assert forced.written == [first.written[0]]
    assert edited.read_bytes() == (kit.files_dir / first.written[0]).read_bytes()


def test_the_command_reports_what_it_wrote_and_errors_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["kit", "scheme", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    bad = runner.invoke(app, ["kit", "cobol", str(tmp_path / "c")])
    assert bad.exit_code == 2
    assert "no kit 'cobol'" in bad.output and "Traceback" not in bad.output
