"""The contest file: a complete one loads, every bad value is one line naming its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import Contest, ContestError
from lightcycle.judge.service.contest_file import load_contest

CASES = Path(__file__).parent / "data" / "bad_contests.txt"
COURSES = Path(contests.__file__).parent
"""The contest files ``lightcycle judge init`` writes (package data)."""

FULL = """\
[contest]
name = "tron3d-2026"
ruleset = "tron3d@1"
maps = ["cube", "donut"]
players = 4
title = "3D Tron, spring"
[limits]
cpu_time = 2.0
move_time = 1.0
first_move_time = 3.0
memory = 256
source_size = 65536
[languages]
allowed = ["python", "c", "cpp", "rust"]
[languages.rust]
suffix = ".rs"
build = ["rustc", "-O", "-o", "bot", "{source}"]
run = ["./bot"]
[validation]
protocol = "jsonl"
self_play_copies = 4
reference = "builtin:dummy"
qualify_games = 4
reference_seats = 3
[judge]
database = "sqlite:///judge.db"
secret_key_file = "judge.secret"
workers = 2
host = "127.0.0.1"
port = 8080
sandbox = "full"
[official]
mode = "elimination"
finalists = 16
rounds_per_start = 2
schedule = ["15:30", "09:00"]
group_size = 4
filler = "builtin:dummy"
ladder_parallel = 3
[friendly]
players = [4, 2]
"""


def bad_contests() -> list[tuple[str, str, str]]:
    """``(line, message, text)`` per case of ``data/bad_contests.txt``."""
    cases: list[tuple[str, str, str]] = []
    header: tuple[str, str] | None = None
    body: list[str] = []
    for raw in CASES.read_text(encoding="utf-8").splitlines():
        if raw.startswith("--- "):
            if header is not None:
                cases.append((*header, "\n".join(body).strip("\n")))
            where, _, message = raw.removeprefix("--- ").partition(" | ")
            header, body = (where, message), []
        elif header is not None:
            body.append(raw)
    assert header is not None
    cases.append((*header, "\n".join(body).strip("\n")))
    return cases


def test_a_complete_contest_file(tmp_path: Path) -> None:
    path = tmp_path / "contest.toml"
    path.write_text(FULL)
    c = load_contest(path)
    assert (c.name, c.title, c.ruleset, c.maps, c.players) == (
        "tron3d-2026",
        "3D Tron, spring",
        "tron3d@1",
        ("cube", "donut"),
        4,
    )
    assert [m.id.split("@")[0] for m in c.pool()] == ["cube", "donut"]
    control = c.limits.time_control()
    assert (control.cpu, control.move, control.first_move) == (2.0, 1.0, 3.0)
    assert (c.limits.memory, c.limits.source_size) == (256, 65536)
    assert list(c.languages) == ["python", "c", "cpp", "rust"]
    rust = c.languages["rust"]
    assert (rust.suffix, rust.build, rust.run, rust.builtin) == (
        ".rs",
        ("rustc", "-O", "-o", "bot", "{source}"),
        ("./bot",),
        False,
    )
    assert c.languages["c"].builtin and c.languages["python"].suffix == ".py"
    v = c.validation
    assert (v.protocol, v.self_play_copies, v.reference, v.qualify_games, v.reference_seats) == (
        "jsonl",
        4,
        "builtin:dummy",
        4,
        3,
    )
    # relative files are read from the contest file's folder, wherever the judge starts
    assert c.judge.database == f"sqlite:///{tmp_path.resolve() / 'judge.db'}"
    assert c.judge.secret_key_file == str(tmp_path.resolve() / "judge.secret")
    assert (c.judge.workers, c.judge.host, c.judge.port, c.judge.sandbox) == (
        2,
        "127.0.0.1",
        8080,
        "full",
    )
    assert load_contest(path, database="sqlite://").judge.database == "sqlite://"
    o = c.official
    assert (o.mode, o.finalists, o.rounds_per_start, o.schedule) == (
        "elimination",
        16,
        2,
        ("09:00", "15:30"),
    )
    assert (o.group_size, o.filler, o.ladder_parallel) == (4, "builtin:dummy", 3)
    assert c.friendly.players == (2, 4)


def test_defaults_follow_the_ruleset(tmp_path: Path) -> None:
    path = tmp_path / "duel.toml"
    path.write_text('[contest]\nname = "duel"\nruleset = "torus@1"\nmaps = ["torus-20"]\n')
    c = load_contest(path)
    assert (c.players, c.title) == (2, "duel")
    v = c.validation
    assert (v.self_play_copies, v.reference_seats, v.reference) == (2, 1, "builtin:random")
    assert list(c.languages) == ["python", "c", "cpp"]
    assert c.judge.sandbox == "full"
    o = c.official  # official games are the contest's games, filled with its reference bot
    assert (o.mode, o.finalists, o.rounds_per_start, o.schedule) == ("elimination", 16, 0, ())
    assert (o.group_size, o.filler, o.ladder_parallel) == (2, "builtin:random", 4)
    assert c.friendly.players == (2,)


def test_a_contest_built_in_code_gets_the_same_defaults() -> None:
    c = Contest(name="d", title="d", ruleset="torus@1", maps=("torus-20",), players=2)
    assert (c.official.group_size, c.official.filler, c.friendly.players) == (
        2,
        "builtin:dummy",
        (2,),
    )


@pytest.mark.parametrize(
    ("name", "group_size", "friendly"),
    [
        ("tron3d", 4, (2, 4)),
        ("classic", 2, (2,)),
        ("torus", 2, (2,)),
        ("teams", 2, (2,)),
        ("ffa", 4, (4,)),
    ],
)
def test_the_example_contests_play_elimination_rounds(
    name: str, group_size: int, friendly: tuple[int, ...]
) -> None:
    c = load_contest(COURSES / f"{name}.toml")
    assert (c.official.mode, c.official.group_size, c.friendly.players) == (
        "elimination",
        group_size,
        friendly,
    )
    assert c.official.group_size == c.players  # the course's games, whole


@pytest.mark.parametrize("level", ["auto", "full", "uid"])
def test_the_judge_takes_each_confining_sandbox_by_name(tmp_path: Path, level: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        f'[contest]\nname = "c"\nruleset = "torus@1"\nmaps = ["torus-20"]\n'
        f'[judge]\nsandbox = "{level}"\n'
    )
    assert load_contest(path).judge.sandbox == level


@pytest.mark.parametrize(("line", "message", "text"), bad_contests())
def test_bad_contest_files_are_refused_in_one_line(
    tmp_path: Path, line: str, message: str, text: str
) -> None:
    path = tmp_path / "contest.toml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ContestError) as info:
        load_contest(path)
    error = str(info.value)
    assert "\n" not in error
    assert error.startswith(f"{path}, line {line}:"), error
    assert message in error, error


def test_missing_and_folder_paths(tmp_path: Path) -> None:
    with pytest.raises(ContestError, match="not found"):
        load_contest(tmp_path / "nope.toml")
    with pytest.raises(ContestError, match="is a folder"):
        load_contest(tmp_path)
