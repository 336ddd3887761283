"""The starter bots of ``examples/`` played as real processes through the protocol codecs.

No referee is involved: the test drives each bot with the codec of its protocol and steps
the engine itself. Seat 0 (or the seat under test) is the bot; every other seat takes its
first safe move. Python bots run under this interpreter; C bots are compiled with ``cc``.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest

from lightcycle.core.moves import Move
from lightcycle.core.state import Board, GameState
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import Params
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import legal_moves, read_answer, safe_moves
from lightcycle.rules.variants import get_ruleset
from tests.conftest import grid_map

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROTOCOLS = ("tron2010", "aichallenge", "sexp", "jsonl")
TIMEOUT = 5.0  # seconds a bot may take for any one reply or to exit
CC = shutil.which("cc")
NO_CC = "no C compiler: `cc` is not on PATH, so the C starter bots cannot be built"

# protocol -> (map, ruleset) of the duel each starter bot plays
DUELS = {
    "tron2010": ("ring", "classic"),
    "aichallenge": ("ring", "classic"),
    "sexp": ("torus-20", "torus"),
    "jsonl": ("arena-15", "classic"),
}
MIN_TURNS = 10  # a sensible bot survives at least this long against a first-safe-move bot

T = TypeVar("T")


class BotProcess:
    """A bot subprocess: bytes in on stdin, replies read from stdout with a timeout."""

    def __init__(self, argv: list[str], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self._err = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, bufsize=0
        )
        self.buf = bytearray()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")[-2000:]

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        view = memoryview(data)
        while view:
            view = view[os.write(self.proc.stdin.fileno(), view) :]

    def read_until(self, parse: Callable[[bytearray], T | None]) -> T:
        """Read stdout until ``parse`` makes something of the buffer; fail on timeout/EOF."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + TIMEOUT
        while (result := parse(self.buf)) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(
                    f"no complete reply within {TIMEOUT}s: {bytes(self.buf)!r}\n"
                    f"stderr:\n{self.stderr()}"
                )
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    pytest.fail(
                        f"the bot closed stdout (exit {self.proc.poll()}) "
                        f"after {bytes(self.buf)!r}\nstderr:\n{self.stderr()}"
                    )
                self.buf += chunk
        return result

    def finish(self) -> None:
        """Close stdin; the bot must exit 0 promptly, having written nothing more."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the bot did not exit within {TIMEOUT}s of the end of its input")
        rest = bytes(self.buf) + self.proc.stdout.read()
        assert code == 0, f"exit status {code}\nstderr:\n{self.stderr()}"
        assert not rest.strip(), f"the bot wrote after its last answer: {rest[:200]!r}"
        assert self.stderr().strip(), "the bot wrote no diagnostics to stderr"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._err.close()


@pytest.fixture(scope="session")
def c_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each C starter bot compiled with warnings on: protocol -> (binary, compiler output)."""
    if CC is None:
        pytest.skip(NO_CC)
    out = tmp_path_factory.mktemp("c_bots")
    builds = {}
    for protocol in PROTOCOLS:
        exe = out / f"{protocol}_bot"
        source = EXAMPLES / protocol / "bot.c"
        done = subprocess.run(
            [CC, "-O2", "-Wall", "-Wextra", "-o", str(exe), str(source)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{source} does not compile:\n{done.stderr}"
        builds[protocol] = (exe, done.stderr)
    return builds


@pytest.fixture
def spawn(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[str, str], BotProcess]]:
    """Start the starter bot of a protocol in a language (``py`` or ``c``)."""
    bots: list[BotProcess] = []

    def start(protocol: str, lang: str) -> BotProcess:
        if lang == "py":
            argv = [sys.executable, str(EXAMPLES / protocol / "bot.py")]
        else:
            builds = request.getfixturevalue("c_builds")
            argv = [str(builds[protocol][0])]
        bot = BotProcess(argv, tmp_path / f"{protocol}-{lang}-{len(bots)}.stderr")
        bots.append(bot)
        return bot

    yield start
    for bot in bots:
        bot.kill()


def params_for(state: GameState) -> Params:
    names = tuple(t.name for t in state.teams)
    return Params(first_move_time=3, move_time=1, names=names, extra=(("unknown_param", "7"),))


def opponent(state: GameState, cycle: int) -> Move:
    """The in-test opponent: its first safe move, else its first legal one."""
    return (safe_moves(state, cycle) or legal_moves(state, cycle))[0]


def game(map_name: str | MapSpec, ruleset: Any, players: int = 2, seed: int = 1) -> GameState:
    spec = get_map(map_name) if isinstance(map_name, str) else map_name
    names = [chr(ord("A") + i) for i in range(players)]
    return new_game(get_ruleset(ruleset), spec, seed=seed, players=players, names=names)


class Played(NamedTuple):
    """How a game went for the bot under test."""

    state: GameState  # the final state
    survived: int  # turns after which the bot's seat still had a cycle alive
    most_answers: int  # the most cycles the bot steered in one reply


def play(bot: BotProcess, protocol: str, state: GameState, seat: int = 0) -> Played:
    """Play one game with ``bot`` on ``seat`` and every other seat in-test."""
    codec = get_protocol(protocol)(seat)
    codec.check(state)
    if codec.hello:
        name = bot.read_until(codec.read_hello)
        assert name
    bot.send(codec.start(state, params_for(state)))
    if codec.wants_ready:
        bot.read_until(lambda buf: codec.read_ready(buf) or None)
    survived = most = 0
    out = False
    while state.outcome is None:
        moves: dict[int, Move] = {}
        mine = {c.index for c in state.cycles if c.team == seat and c.alive}
        if mine:
            assert codec.stray(bot.buf) == b"", "the bot wrote before being asked"
            bot.send(codec.turn(state))
            answers = bot.read_until(partial(codec.read_move, state=state))
            assert set(answers) == mine, f"answered for {set(answers)}, owns {mine}"
            most = max(most, len(answers))
            for cycle, answer in answers.items():
                moves[cycle] = read_answer(state, cycle, answer)
        for c in state.cycles:
            if c.alive and c.team != seat:
                moves[c.index] = opponent(state, c.index)
        state = step(state, moves)
        if state.team_alive(seat):
            survived += 1
        elif state.outcome is None and not out:
            out = True
            bot.send(codec.eliminated(state))
    bot.send(codec.end(state))
    return Played(state, survived, most)


LANGS = ("py", pytest.param("c", marks=pytest.mark.skipif(CC is None, reason=NO_CC)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_duel(spawn: Callable[[str, str], BotProcess], protocol: str, lang: str) -> None:
    bot = spawn(protocol, lang)
    survived = play(bot, protocol, game(*DUELS[protocol])).survived
    assert survived >= MIN_TURNS, f"died after {survived} turns:\n{bot.stderr()}"
    bot.finish()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("protocol", ["aichallenge", "jsonl"])
def test_free_for_all(spawn: Callable[[str, str], BotProcess], protocol: str, lang: str) -> None:
    bot = spawn(protocol, lang)
    survived = play(bot, protocol, game("ffa4", "ffa", players=4)).survived
    assert survived >= MIN_TURNS, f"died after {survived} turns:\n{bot.stderr()}"
    bot.finish()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("protocol", ["aichallenge", "jsonl"])
def test_out_while_the_game_goes_on(
    spawn: Callable[[str, str], BotProcess], protocol: str, lang: str
) -> None:
    boxed_in = grid_map(
        [
            "#########",
            "#1#.....#",
            "###.2...#",
            "#.......#",
            "#...3...#",
            "#########",
        ]
    )
    bot = spawn(protocol, lang)
    played = play(bot, protocol, game(boxed_in, "ffa", players=3))
    assert played.survived == 0 and played.state.turn > 1
    if protocol == "aichallenge":  # "end" tells the bot it is out: it exits by itself
        assert bot.proc.wait(timeout=TIMEOUT) == 0
    bot.finish()


@pytest.mark.parametrize("lang", LANGS)
def test_jsonl_plays_several_games(spawn: Callable[[str, str], BotProcess], lang: str) -> None:
    bot = spawn("jsonl", lang)
    games = [  # the same process plays them all, told its seat anew each time
        (game("arena-15", "classic"), 0),
        (game("ring", "classic", seed=2), 1),
        (game("torus-20", "torus"), 0),
    ]
    for number, (state, seat) in enumerate(games, 1):
        survived = play(bot, "jsonl", state, seat=seat).survived
        assert survived >= MIN_TURNS, f"game {number}: died after {survived} turns"
    bot.finish()


def test_jsonl_python_bot_steers_several_cycles(spawn: Callable[[str, str], BotProcess]) -> None:
    arena = get_map("arena-15")
    cell = arena.board.topology.cell  # type: ignore[attr-defined]
    spec = MapSpec(
        name="arena-15-pairs",
        board=Board(arena.board.topology, arena.board.walls),
        starts=((cell(3, 3), cell(3, 11)), (cell(11, 3), cell(11, 11))),
    )
    rules = get_ruleset("classic").with_settings(cycles_per_team=2)
    bot = spawn("jsonl", "py")
    played = play(bot, "jsonl", game(spec, rules))
    assert played.most_answers == 2, "never answered for both cycles at once"
    assert played.survived >= MIN_TURNS, f"died after {played.survived} turns"
    bot.finish()


@pytest.mark.skipif(CC is None, reason=NO_CC)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_c_bot_compiles_without_warnings(
    c_builds: dict[str, tuple[Path, str]], protocol: str
) -> None:
    assert c_builds[protocol][1] == "", c_builds[protocol][1]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_bots_and_readme_show_how_to_run(protocol: str) -> None:
    readme = (EXAMPLES / "README.md").read_text()
    for name in ("bot.py", "bot.c"):
        head = (EXAMPLES / protocol / name).read_text()[:600]
        assert protocol in head and f"--protocol {protocol}" in head, name
        assert f"examples/{protocol}/{name}" in head
        assert f"examples/{protocol}/{name}" in readme
