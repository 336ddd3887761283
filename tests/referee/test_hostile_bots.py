"""Neighbour test: each hostile bot of ``bad_bots/hostile/`` plays a sound bot, both in
the full sandbox; the hostile one gets its stated verdict and harms nobody.

The hostile bots try the attacks of ``tests/sandbox/attacks/`` (which they import: the
test copies those programs into the bot's folder, as a submitted bot would bring its
own code) and then play. For each game the test checks:

- the sound bot (the tron2010 example, in a folder of its own) gets ``ok``;
- the hostile bot gets the verdict (and detail) of its ``# verdict:`` header;
- its stderr log shows its attacks ran and none of them reports ``WORKED``;
- no process of either bot is left, and the referee has no zombie child;
- the host is unchanged: the output folder is empty, both bots' folders are as they
  were, no file it names is in /tmp or /dev/shm, no host listener was reached, and the
  process standing for the referee is alive and untraced.

Skipped, with `lightcycle.sandbox.check.require`'s reason, where the host cannot give
the full sandbox. ``tests/sandbox/test_attacks.py`` shows each attack working without
the sandbox, so these checks can fail.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import socket
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee import players as players_mod
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import BotSpec, make_player
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits
from tests.sandbox.survivors import Recorder, full_unavailable, leftovers, zombie_children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox is Linux only"
)

HERE = Path(__file__).parent
HOSTILE = HERE / "bad_bots" / "hostile"
ATTACKS = HERE.parent / "sandbox" / "attacks"
ROOT = HERE.parent.parent
GOOD_BOT = ROOT / "examples" / "tron2010" / "bot.py"
BOTS = sorted(HOSTILE.glob("*.py"))
PY = sys.executable
SECRET_VAR = "LIGHTCYCLE_TEST_SECRET"


def headers(path: Path) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a hostile bot (``args`` lines add up)."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"# (\w+): (.*)", line)
        if not m:
            break
        key, value = m.group(1), m.group(2).strip()
        out[key] = f"{out[key]} {value}" if key == "args" and key in out else value
    return out


@dataclass
class Host:
    """What the hostile bot is pointed at, and the means to see whether it got there."""

    hostile: Path
    good: Path
    out: Path
    tag: str
    values: dict[str, str]
    listeners: list[socket.socket]
    referee: subprocess.Popen[bytes]

    def left_files(self) -> list[Path]:
        names = [f"lightcycle-attack-fill-{self.tag}.bin", f"lightcycle-attack-note-{self.tag}"]
        found = [Path("/tmp", n) for n in names] + [Path(f"/dev/shm/lightcycle-attack-{self.tag}")]
        return [p for p in found if p.exists()]


def listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in folder.iterdir())


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    """Two bot folders, an output folder, a database, listeners and a stand-in referee."""
    hostile, good, out = tmp_path / "bots" / "hostile", tmp_path / "bots" / "good", tmp_path / "out"
    for d in (hostile, good, out):
        d.mkdir(parents=True)
    for src in [*ATTACKS.glob("*.py"), HERE / "bad_bots" / "_tron.py"]:
        shutil.copy(src, hostile / src.name)
    shutil.copy(GOOD_BOT, good / "good_bot.py")
    (good / "secret.txt").write_text("the good bot's secret\n")
    db = tmp_path / "judge.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE secrets (secret TEXT)")
        con.execute("INSERT INTO secrets VALUES ('the judge''s secret')")
    con.close()
    tag = uuid.uuid4().hex[:12]
    tcp = socket.create_server(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(tmp_path / "host.sock"))
    unix.listen(1)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0lightcycle-test-{tag}".encode())
    abstract.listen(1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free_port = s.getsockname()[1]
    mark = f"lightcycle-referee-{tag}"
    monkeypatch.setenv(SECRET_VAR, "hunter2")
    referee = subprocess.Popen(
        [PY, "-c", "import sys, time; time.sleep(float(sys.argv[1]))", "60", mark]
    )
    root_names = sorted(os.listdir("/root")) if os.access("/root", os.R_OK) else []
    values = {
        "good": str(good),
        "database": str(db),
        "repository": str(ROOT / "pyproject.toml"),
        "root_entry": next((n for n in root_names if n != ".pyenv"), "nothing-there"),
        "out": str(out),
        "tag": tag,
        "referee": str(referee.pid),
        "mark": mark,
        "secret": SECRET_VAR,
        "uid": str(os.getuid()),
        "port": str(tcp.getsockname()[1]),
        "unix": str(tmp_path / "host.sock"),
        "abstract": f"lightcycle-test-{tag}",
        "listen": str(free_port),
        "neighbour_mark": "good_bot.py",
    }
    h = Host(hostile, good, out, tag, values, [tcp, unix, abstract], referee)
    try:
        yield h
    finally:
        referee.kill()
        referee.wait()
        for s in h.listeners:
            s.close()
        for p in h.left_files():
            p.unlink(missing_ok=True)


def bot_params() -> list[object]:
    """One case per hostile bot; a ``# xfail: REASON`` header marks a known gap
    (strict: the case fails loudly once the gap is closed, to drop the header)."""
    out: list[object] = []
    for p in BOTS:
        reason = headers(p).get("xfail")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(p, id=p.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", bot_params())
def test_hostile_bot_gets_its_verdict_and_harms_nobody(
    path: Path, host: Host, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    why = full_unavailable()
    if why is not None:
        pytest.skip(why)
    h = headers(path)
    if "cgroups" in h.get("needs", "").split():
        from lightcycle.sandbox import cgroups

        on, why = cgroups.status()
        if not on:
            pytest.skip(f"{path.name} needs the bot's cgroup: {why}")
    options = dict(kv.split("=") for kv in h.get("options", "").split())
    args = tuple(word.format(**host.values) for word in h.get("args", "").split())
    shutil.copy(path, host.hostile / path.name)
    before = {"hostile": listing(host.hostile), "good": listing(host.good)}
    Recorder.started = []
    monkeypatch.setattr(players_mod, "BotProcess", Recorder)
    hostile = BotSpec(
        text=path.name,
        kind="program",
        command=(PY, path.name, *args),
        protocol="tron2010",
        cwd=host.hostile,
        memory=int(options["memory"]) << 20 if "memory" in options else None,
    )
    good = BotSpec(
        text="good_bot.py",
        kind="program",
        command=(PY, "good_bot.py"),
        protocol="tron2010",
        cwd=host.good,
    )
    logs = tmp_path / "logs"
    players = [make_player(spec, Limits(sandbox="full"), logs) for spec in (hostile, good)]
    try:
        record = play_game(
            players,
            get_map("arena-15"),
            get_ruleset("classic"),
            seed=3,
            controls=TimeControl(move=1.0, first_move=5.0),
        )
    finally:
        for p in players:
            p.shutdown()

    log = (logs / "game-seat1.log").read_text(errors="replace")
    worked = [line for line in log.splitlines() if " WORKED " in line]
    assert worked == [], f"{path.name}: attacks worked in the sandbox: {worked}"
    if ".main(" in path.read_text() and h["verdict"] == "ok":  # it reported its attacks
        assert "ATTACK " in log, f"{path.name}: no attack reported:\n{log}"
    bad, sound = record.seats[0].verdict, record.seats[1].verdict
    assert sound.kind == "ok", f"the sound bot beside {path.name} got {sound}"
    assert bad.kind == h["verdict"], f"{path.name}: {bad}\n{log[-2000:]}"
    if "detail" in h:
        assert re.search(h["detail"], bad.detail), f"{path.name}: {bad.detail}"
    assert record.outcome is not None

    assert Recorder.started, "no bot was started"
    for proc in Recorder.started:
        assert leftovers(proc) == [], f"{path.name}: processes left running"
    assert zombie_children() == set()
    assert list(host.out.iterdir()) == [], "a file appeared in the output folder"
    assert host.left_files() == [], "files left in /tmp or /dev/shm"
    assert listing(host.good) == before["good"], "the sound bot's folder changed"
    assert listing(host.hostile) == before["hostile"], "the hostile bot's folder changed"
    assert [bool(select.select([s], [], [], 0)[0]) for s in host.listeners] == [False] * 3, (
        "a host listener was reached"
    )
    assert host.referee.poll() is None, "the referee stand-in was harmed"
    status = Path(f"/proc/{host.referee.pid}/status").read_text()
    assert re.search(r"^TracerPid:\s+0$", status, re.M)
