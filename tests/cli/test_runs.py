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
