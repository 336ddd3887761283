"""``lightcycle replay``, ``convert`` and ``view`` as a user meets them."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import lightcycle
from lightcycle.cli.main import app
from lightcycle.replay.convert import read_file

runner = CliRunner()
VECTORS = Path(__file__).parents[1] / "replay" / "vectors"


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    lightcycle.play("ring", ["chaser", "runaway"], seed=2).replay.save(path)
    return path


def _last(game: Path) -> int:
    """The game's last turn (the viewer shows ``turn N/LAST``)."""
    return lightcycle.play("ring", ["chaser", "runaway"], seed=2).final.turn


def test_help_with_an_example() -> None:
    for args in (["replay", "--help"], ["convert", "--help"], ["view", "--help"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 0, r.output
        assert "Example" in r.output, args


def test_piped_replay_prints_the_last_turn_and_the_result(game: Path) -> None:
    last = _last(game)
    r = runner.invoke(app, ["replay", str(game)])
    assert r.exit_code == 0, r.output
    assert f"turn {last}/{last}" in r.output and "has won" in r.output
    r = runner.invoke(app, ["replay", str(game), "--turn", "5", "--ascii"])
    assert r.exit_code == 0 and f"turn 5/{last}" in r.output and "◦" not in r.output
    r = runner.invoke(app, ["replay", str(game), "--turn", "99"])
    assert r.exit_code == 2 and f"0..{last}" in r.output


def test_every_format_replays(game: Path, tmp_path: Path) -> None:
    for ext in ("jsonl", "match", "tron"):
        out = tmp_path / f"g.{ext}"
        r = runner.invoke(app, ["convert", str(game), str(out)])
        assert r.exit_code == 0, r.output
        assert f"-> {out}" in r.output
        r = runner.invoke(app, ["replay", str(out), "--no-render"])
        assert r.exit_code == 0 and "has won" in r.output, r.output
    again = tmp_path / "again.json"
    assert runner.invoke(app, ["convert", str(tmp_path / "g.jsonl"), str(again)]).exit_code == 0
    assert again.read_text() == game.read_text()


def test_convert_to_standard_output_and_by_name(game: Path) -> None:
    r = runner.invoke(app, ["convert", str(game), "-", "--to", "tron"])
    assert r.exit_code == 0 and r.output.startswith("+OK|15 15|")


def test_convert_errors_are_one_line_with_the_place(game: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["convert", str(game), str(tmp_path / "g.pgn")])
    assert r.exit_code == 2 and "--to" in r.output
    bad = tmp_path / "bad.tron"
    bad.write_text((VECTORS / "corrupt_result_tron.txt").read_text().partition("---\n")[2])
    r = runner.invoke(app, ["convert", str(bad), str(tmp_path / "x.json")])
    assert r.exit_code == 2 and f"{bad}:8: the result is '2'" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "x.json").exists()
    torus = tmp_path / "torus.json"
    lightcycle.play("torus-20", ["chaser", "runaway"], seed=1).replay.save(torus)
    r = runner.invoke(app, ["convert", str(torus), str(tmp_path / "t.tron")])
    assert r.exit_code == 2 and "torus@1" in r.output


def test_exports(game: Path, tmp_path: Path) -> None:
    html, png, svg, gif = (tmp_path / f"g.{e}" for e in ("html", "png", "svg", "gif"))
    files = ["--html", str(html), "--png", str(png), "--svg", str(svg), "--gif", str(gif)]
    r = runner.invoke(app, ["replay", str(game), *files, "--turn", "10", "--cell", "6"])
    assert r.exit_code == 0, r.output
    assert 'data-start="10"' in html.read_text()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert svg.read_text().startswith("<svg") and "turn 10" in svg.read_text()
    assert gif.read_bytes()[:6] == b"GIF89a"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--png", "out.txt"], "--png out.txt: the file's name should end in .png (e.g. out.png)"),
        (["--svg", "afile/t.svg"], "--svg afile/t.svg: afile is a file, not a folder"),
        (["--html", "/proc/t.html"], "cannot write /proc/t.html: No such file or directory"),
        (["--png", "/proc/t.png"], "cannot write /proc/t.png: No such file or directory"),
        (["--turn", "999"], "--turn 999: this game has turns 0.."),
    ],
)
def test_a_bad_export_path_or_turn_is_one_error_line(
    game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    """Checked before the replay is read where the name alone tells (a PNG in a .txt, a
    folder that is a file), else at the write; never a traceback or Typer's box."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    result = runner.invoke(app, ["replay", str(game), *args])
    assert result.exit_code == 2, result.output
    assert said in result.output and "Traceback" not in result.output
    assert "╭" not in result.output and not (tmp_path / "out.txt").exists()


def test_images_say_what_they_show_at_a_size_for_chats(game: Path, tmp_path: Path) -> None:
    from PIL import Image

    png, svg, gif = (tmp_path / f"g.{e}" for e in ("png", "svg", "gif"))
    files = ["--png", str(png), "--svg", str(svg), "--gif", str(gif)]
    r = runner.invoke(app, ["replay", str(game), *files, "--turn", "10"])
    assert r.exit_code == 0, r.output
    text = svg.read_text()
    last = _last(game)
    for words in ("ring@1 · classic@1 · seed 2", f"turn 10 of {last}", "Chaser", "Runaway"):
        assert words in text
    for image in (Image.open(png), Image.open(gif)):
        assert 600 <= image.size[0] <= 800, image.size
    assert Image.open(gif).n_frames == last + 1


def _broken(game: Path, tmp_path: Path, edit: str) -> Path:
    data = json.loads(game.read_text())
    if edit == "map":
        data["map"]["text"] = "garbage"
    elif edit == "settings":
        data["settings"]["jumps"] = "x"
    bad = tmp_path / f"bad-{edit}.json"
    bad.write_text(json.dumps(data))
    return bad


def test_a_truncated_replay_is_refused_in_one_whole_sentence(game: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(game.read_text()[:300])
    for args in (["replay", str(bad)], ["convert", str(bad), str(tmp_path / "x.jsonl")]):
        r = runner.invoke(app, args)
        flat = " ".join(r.output.split())
        assert r.exit_code == 2, r.output
        assert re.search(rf"error: {re.escape(str(bad))}:\d+:\d+: expected .+, found ", flat), flat
        assert flat.endswith("(is the file cut short?)"), flat


@pytest.mark.parametrize("edit", ["map", "settings"])
def test_a_replay_with_a_bad_field_names_the_file_and_field(
    game: Path, tmp_path: Path, edit: str
) -> None:
    bad = _broken(game, tmp_path, edit)
    for args in (["replay", str(bad)], ["convert", str(bad), str(tmp_path / "x.jsonl")]):
        r = runner.invoke(app, args)
        flat = " ".join(r.output.split())
        assert r.exit_code == 2 and "Traceback" not in flat, flat
        assert flat.startswith(f'error: {bad}: field "{edit}": '), flat
        assert "expected" in flat


def test_replay_refuses_a_negative_speed(game: Path) -> None:
    r = runner.invoke(app, ["replay", str(game), "--speed", "-1"])
    assert r.exit_code == 2 and "--speed" in r.output


def test_a_corrupt_replay_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text((VECTORS / "corrupt_move_json.txt").read_text().partition("---\n")[2])
    r = runner.invoke(app, ["replay", str(bad), "--html", str(tmp_path / "b.html")])
    assert r.exit_code == 2 and "moves recorded after the game ended" in r.output
    assert not (tmp_path / "b.html").exists()


def test_view_refuses_a_missing_folder(tmp_path: Path) -> None:
    r = runner.invoke(app, ["view", str(tmp_path / "nope")])
    flat = " ".join(r.output.replace("│", " ").split())  # a long path wraps the panel
    assert r.exit_code == 2 and "not a folder" in flat


def _in_terminal(args: list[str], keys: list[tuple[float, bytes]]) -> tuple[int, str]:
    """Run the command in a pseudo-terminal, typing ``keys`` (after a pause each)."""
    master, slave = os.openpty()
    env = {**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from lightcycle.cli.main import main; main()", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
        env=env,
    )
    os.close(slave)
    out = bytearray()

    def drain(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    out.extend(os.read(master, 65536))
                except OSError:
                    return

    try:
        started = time.monotonic() + 30  # the first frame: on a busy machine, seconds
        while not out and time.monotonic() < started:
            drain(0.1)
        for pause, data in keys:
            drain(pause)
            os.write(master, data)
        drain(1.0)
        code = proc.wait(timeout=20)
        drain(0.2)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, out.decode("utf-8", errors="replace")


def test_the_interactive_viewer_in_a_terminal(game: Path) -> None:
    code, text = _in_terminal(
        ["replay", str(game), "--speed", "5"],
        [(2.0, b" "), (0.3, b"g12\r"), (0.3, b"\x1b[D"), (0.3, b"q")],
    )
    assert code == 0, text
    turns = [int(t) for t in re.findall(rf"turn (\d+)/{_last(game)}", text)]
    assert turns[0] == 0 and max(turns[:10]) >= 1  # it played by itself first
    assert turns[-1] == 11  # g 1 2 enter, then ← once
    assert "has won" in text


def test_a_human_steers_in_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "h.json"
    code, text = _in_terminal(
        [
            "play",
            "--map",
            "arena-10",
            "--bots",
            "human,chaser",
            "--speed",
            "20",
            "--replay",
            str(out),
        ],
        [(2.0, b"\x1b[C"), (3.0, b"")],
    )
    assert code == 0, text
    replay = read_file(out)
    assert replay.seats[0]["name"] == "Human"
    assert replay.turns[0][0] == "e"  # the first key decided the first move


def test_human_play_needs_a_terminal() -> None:
    r = runner.invoke(app, ["play", "--bots", "human,chaser", "--no-render"])
    assert r.exit_code == 2 and "terminal" in r.output
