"""The view server, through FastAPI's test client: list, viewer, corrupt files, paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import lightcycle
from lightcycle.replay.convert import write_text
from lightcycle.viewer.server import create_app

VECTORS = Path(__file__).parents[1] / "replay" / "vectors"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    r = lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay
    r.save(tmp_path / "ring.json")
    sub = tmp_path / "round1"
    sub.mkdir()
    (sub / "ring.tron").write_text(write_text(r, "marlboro"))
    bad = json.loads(r.to_json())
    bad["outcome"]["ranks"] = list(reversed(bad["outcome"]["ranks"]))
    bad["outcome"]["winner"] = 1 - bad["outcome"]["winner"]
    (tmp_path / "tampered.json").write_text(json.dumps(bad))
    (tmp_path / "notes.txt").write_text("not a replay")
    (tmp_path / "broken.match").write_text("no_rows x\n")
    return tmp_path


def test_the_list_shows_every_replay(folder: Path) -> None:
    client = TestClient(create_app(folder))
    r = client.get("/")
    assert r.status_code == 200
    text = r.text
    for name in ("ring.json", "round1/ring.tron", "tampered.json", "broken.match"):
        assert name in text
    assert "notes.txt" not in text
    assert "Chaser (builtin:chaser)" in text and "ring@1" in text
    assert "unreadable" in text and "no_rows" in text  # broken.match says why
    rows = client.get("/api/replays").json()
    assert {row["name"] for row in rows} == {
        "ring.json",
        "round1/ring.tron",
        "tampered.json",
        "broken.match",
    }
    ring = next(row for row in rows if row["name"] == "ring.json")
    assert ring["turns"] > 0 and ring["map"] == "ring@1" and ring["ok"]


def test_a_game_opens_in_the_viewer(folder: Path) -> None:
    client = TestClient(create_app(folder))
    r = client.get("/game/round1/ring.tron")
    assert r.status_code == 200
    assert 'id="lc-data"' in r.text and 'href="/"' in r.text
    j = client.get("/game/ring.json/replay.json")
    assert j.status_code == 200 and j.json()["format"] == "lightcycle-replay"


def test_a_corrupt_replay_is_refused_with_the_reason(folder: Path) -> None:
    client = TestClient(create_app(folder))
    r = client.get("/game/tampered.json")
    assert r.status_code == 422
    assert "different outcome" in r.text and 'id="lc-data"' not in r.text


def test_nothing_outside_the_folder_is_served(folder: Path) -> None:
    client = TestClient(create_app(folder / "round1"))
    assert client.get("/game/../ring.json").status_code == 404
    assert client.get("/game/%2e%2e/ring.json").status_code == 404
    assert client.get("/game/notes.txt").status_code == 404
    assert client.get("/game/missing.json").status_code == 404


def test_vector_files_list_and_open(tmp_path: Path) -> None:
    shutil.copy(VECTORS / "duel_tron.txt", tmp_path / "x.txt")  # not a replay extension
    client = TestClient(create_app(tmp_path))
    assert client.get("/api/replays").json() == []


def test_the_list_says_what_has_been_checked(folder: Path) -> None:
    client = TestClient(create_app(folder))

    def checked() -> dict[str, str | None]:
        return {row["name"]: row["checked"] for row in client.get("/api/replays").json()}

    before = checked()
    assert before["tampered.json"] is None and before["ring.json"] is None
    assert before["round1/ring.tron"] == ""  # other formats are checked to be listed
    assert before["broken.match"]  # and say why they cannot be read
    assert client.get("/game/tampered.json").status_code == 422
    assert "different outcome" in (checked()["tampered.json"] or "")
    assert "not yet" in client.get("/").text
    everything = client.get("/?check=1").text
    assert "not yet" not in everything and "corrupt" in everything
    assert checked()["ring.json"] == ""
