"""The tournament file: every field read, every mistake named with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.referee.players import make_player
from lightcycle.sandbox import Limits
from lightcycle.tournament.config import TournamentError, load_config
from lightcycle.tournament.plan import make_plan

ROOT = Path(__file__).resolve().parents[2]
GOOD = """\
name = "week 3"
format = "round-robin"
bots = [
  "builtin:random",
  { spec = "builtin:chaser", name = "Chase" },
]
maps = ["arena-10"]
rounds = 2
seed = 7

[time]
move = 0.5
"""


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.name == "week 3" and config.format == "round-robin"
    assert [b.spec for b in config.bots] == ["builtin:random", "builtin:chaser"]
    assert config.bots[1].name == "Chase" and config.rounds == 2 and config.seed == 7
    assert config.out == tmp_path / "t"  # beside the file, named after it
    assert config.database_url == f"sqlite:///{(tmp_path / 't' / 'tournament.db').resolve()}"
    assert config.control({}).move == 0.5
    plan = make_plan(config)
    assert [e.name for e in plan.entrants] == ["Random", "Chase"]


def test_the_fingerprint_ignores_where_and_how_fast(tmp_path: Path) -> None:
    a = load_config(write(tmp_path, GOOD))
    b = load_config(write(tmp_path, 'workers = 3\nout = "elsewhere"\n' + GOOD, "u.toml"))
    assert a.fingerprint_json() == b.fingerprint_json()
    c = load_config(write(tmp_path, GOOD.replace("seed = 7", "seed = 8"), "v.toml"))
    assert c.fingerprint_json() != a.fingerprint_json()


def test_relative_paths_are_read_from_the_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.py").write_text((ROOT / "tests/tournament/duel_bots.py").read_text())
    text = GOOD.replace('"builtin:random",', '"py:alice.py:DeepBot", "cmd:python3 bot.py",')
    text = 'protocol = "jsonl"\n' + text
    config = load_config(write(folder, text))
    monkeypatch.chdir(tmp_path)  # anywhere else
    spec = config.resolve_spec("py:alice.py:DeepBot")
    assert spec.text == f"py:{folder / 'alice.py'}:DeepBot"
    assert make_player(spec, Limits(), None).name == "Deep"  # found from elsewhere
    plan = make_plan(config)
    assert plan.entrants[0].spec_text == "py:alice.py:DeepBot"  # stored as written
    cmd = config.resolve_spec("cmd:python3 bot.py")
    assert cmd.cwd == folder.resolve() and cmd.protocol == "jsonl"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('format = "league"\nbots = ["random", "chaser"]\nmaps = ["ring"]\n', 1, "expected one of"),
        ('bots = ["random", "chaser"]\nmaps = ["ring"]\nroundz = 2\n', 3, "unknown key 'roundz'"),
        ('bots = ["random", "chaser"]\nmaps = ["ring"]\nrounds = 0\n', 3, "rounds = 0: expected"),
        ('bots = ["random", "chaser"]\nmaps = ["ring"]\nseed = "x"\n', 3, 'seed = "x": expected'),
        ('bots = ["random", "nobot"]\nmaps = ["ring"]\n', 1, "unknown bot 'nobot'"),
        ('bots = ["random"]\nmaps = ["ring"]\n', 1, "at least two bots"),
        ('bots = ["random", "chaser"]\n', None, "no maps"),
        ('maps = ["ring"]\n', None, "no bots"),
        (
            'bots = ["random", "chaser"]\nmaps = ["ring"]\n\n[time]\nmove = -1\n',
            5,
            "time.move = -1: expected seconds",
        ),
        (
            'bots = ["random", "chaser"]\nmaps = ["ring"]\n[time]\nmoev = 1\n',
            4,
            "unknown [time] key",
        ),
        ('bots = [{ name = "x" }, "chaser"]\nmaps = ["ring"]\n', 1, 'expected spec = "..."'),
        ('bots = ["random", "cmd:./bot"]\nmaps = ["ring"]\n', 1, "needs a protocol"),
        ('bots = [\n  "random",\n  "chaser",\nmaps = ["ring"]\n', 4, "not valid TOML"),
    ],
)
def test_mistakes_name_the_file_and_line(
    tmp_path: Path, text: str, line: int | None, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TournamentError) as info:
        load_config(path)
    got = str(info.value)
    assert got.startswith(str(path)), got
    assert message in got, got
    if line is not None:
        assert f"line {line}" in got, got


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('format = "swiss"\nplayers = 4\n', "plays duels"),
        (
            'challenger = "Nobody"\nformat = "gauntlet"\n',
            "challenger = 'Nobody' is none of the bots",
        ),
        ('maps = ["ffa4"]\n', "cannot play map ffa4@1 with 2 players"),
    ],
)
def test_fields_that_do_not_fit_together(tmp_path: Path, extra: str, message: str) -> None:
    text = 'bots = ["random", "chaser"]\n' + extra
    if "maps" not in extra:
        text += 'maps = ["ring"]\n'
    with pytest.raises(TournamentError) as info:
        make_plan(load_config(write(tmp_path, text)))
    assert message in str(info.value)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="not found"):
        load_config(tmp_path / "nope.toml")
