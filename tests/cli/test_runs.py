"""Output folders of match, duel and grade: unique, never written over, left clean."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from lightcycle.cli.runs import (
    OutputFolderError,
    check_free,
    claim_folder,
    counted,
    release_folder,
)


def test_a_default_folder_taken_gets_a_suffix(tmp_path: Path) -> None:
    base = tmp_path / "matches" / "20250101-120000"
    got = [claim_folder(None, base) for _ in range(3)]
    assert [p for p, _ in got] == [
        base,
        base.with_name(base.name + "-2"),
        base.with_name(base.name + "-3"),
    ]
    assert all(created for _, created in got)


def test_claims_at_the_same_moment_never_share_a_folder(tmp_path: Path) -> None:
    base = tmp_path / "20250101-120000"
    claimed: list[Path] = []
    start = threading.Barrier(8)

    def claim() -> None:
        start.wait()
        path, _ = claim_folder(None, base)
        claimed.append(path or base)

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(claimed)) == 8


def test_a_named_folder_must_be_new_or_empty(tmp_path: Path) -> None:
    new = tmp_path / "new" / "deeper"
    assert claim_folder(new) == (new, True) and new.is_dir()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert claim_folder(empty) == (empty, False)
    (empty / "results.json").write_text("{}")
    with pytest.raises(OutputFolderError, match=r"not empty.*choose another folder or delete"):
        claim_folder(empty)
    with pytest.raises(OutputFolderError, match="is a file"):
        check_free(empty / "results.json")
    assert claim_folder(None) == (None, False)


def test_release_removes_what_the_run_made_and_nothing_else(tmp_path: Path) -> None:
    made, _ = claim_folder(None, tmp_path / "run")
    assert made is not None
    (made / "logs").mkdir()
    release_folder(made, created=True)
    assert not made.exists()
    given = tmp_path / "given"
    given.mkdir()
    (given / "logs").mkdir()
    (given / "x.json").write_text("")
    release_folder(given, created=False)
    assert given.is_dir() and not list(given.iterdir())


@pytest.mark.parametrize(("n", "text"), [(0, "0 games"), (1, "1 game"), (2, "2 games")])
def test_counted(n: int, text: str) -> None:
    assert counted(n, "game") == text


@pytest.mark.parametrize("command", ["match", "duel", "grade"])
def test_an_output_folder_the_system_refuses_is_one_line_before_any_game(
    command: str, tmp_path: Path
) -> None:
    """``--out /proc/x`` or a folder below a file: refused before the first game, in one
    line; a folder that can be made is left as it was (the probe removes what it made)."""
    from typer.testing import CliRunner

    from lightcycle.cli.main import app

    (tmp_path / "afile").write_text("x")
    args = {
        "match": ["match", "--bot", "builtin:chaser", "--bot", "builtin:random", "--games", "2"],
        "duel": ["duel", "builtin:chaser", "builtin:random", "--games", "2"],
        "grade": ["grade", "builtin:runaway", "--rubric", "duel"],
    }[command]
    for out, said in (
        ("/proc/lightcycle-x", "No such file or directory"),
        (str(tmp_path / "afile" / "x"), "afile is a file"),
    ):
        r = CliRunner().invoke(app, [*args, "--out", out])
        assert r.exit_code == 2, r.output
        assert f"cannot create the output folder {out}" in r.output and said in r.output
        assert "Traceback" not in r.output and "game" not in r.output.split("error:")[0]
    _probe = tmp_path / "new" / "deeper"
    from lightcycle.cli.runs import check_free

    check_free(_probe)
    assert not (tmp_path / "new").exists()
