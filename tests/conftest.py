"""Shared test helpers: small maps drawn as text; the system tools the tests need."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec

ROOT = Path(__file__).resolve().parent.parent

# postgres_server / postgres_url: a throwaway PostgreSQL server per test process and a
# fresh database per test, for every component's database tests.
pytest_plugins = ["tests.storage.postgres"]

# Commands run by the tests leave other tests' bots alone: tests/sandbox and
# tests/referee kill referees on purpose and then look at their bots, while other
# workers run commands whose start would reap those bots as strays.
os.environ["LIGHTCYCLE_REAP_STRAYS"] = "0"

# A test run started in the background by a script (`cmd &` without job control: CI
# runners, nohup'd loops) inherits an ignored SIGINT, and so would every command the
# tests start: the Ctrl-C tests would send SIGINT to programs that ignore it, as they
# should (a background job ignores the terminal's interrupt). A handler here instead of
# the ignore lets each started program begin with SIGINT at its default, as under a
# terminal. (SIGHUP is set per test: tests/referee/test_referee_death.py.)
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

TOOLS = (
    ("chromium", "scripts/install-browser"),  # the viewer's browser tests
    ("bwrap", "scripts/install-sandbox"),  # the bot sandbox's tests
    # the PostgreSQL tests; Debian keeps initdb off the PATH, its postgresql-common's
    # pg_ctlcluster comes with the server package
    ("pg_ctlcluster", "scripts/install-postgres"),
    ("guile", "scripts/install-guile"),  # the judge's Scheme course (guild and guile)
    ("chezscheme", "scripts/install-chez"),  # the Scheme course's library on Chez
)
"""A program the tests need, and the project's script that installs it."""


def pytest_configure(config: pytest.Config) -> None:
    """Install the system tools the tests need, once, before any test runs.

    The README's test command must run the whole suite on a fresh machine, so the
    project's own scripts install what is missing (they need root or password-less sudo
    and apt-get); a test whose tool still cannot be had skips with the reason. Only the
    controlling process does this (not each xdist worker). ``LIGHTCYCLE_NO_INSTALL=1``
    turns it off.
    """
    if hasattr(config, "workerinput") or os.environ.get("LIGHTCYCLE_NO_INSTALL") == "1":
        return
    for program, script in TOOLS:
        path = ROOT / script
        if shutil.which(program) is not None or not path.is_file():
            continue
        done = subprocess.run(
            ["bash", str(path)], capture_output=True, text=True, timeout=900, check=False
        )
        last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        print(f"{script}: {last[0]}")


def readable(folder: Path) -> Path:
    """Make a bot folder readable by others (``chmod -R o+rX``) and return it.

    Commands run program bots in the strongest sandbox the host offers; under a root
    referee each bot runs as a user id of its own, which reads its folder through the
    rights of others, and pytest's ``tmp_path`` is closed to them (mode 0700). Tests about
    something else than the sandbox open their bot's folder with this, as a user would.
    """
    for path in [folder, *folder.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | (0o005 if path.is_dir() or mode & 0o100 else 0o004))
    return folder


def grid_map(rows: list[str], wrap: bool = False, name: str = "test") -> MapSpec:
    """A map from rows of text: ``#`` wall, ``.`` or space floor, ``1``-``8`` starts."""
    height, width = len(rows), max(len(r) for r in rows)
    topo = GridTopology(width, height, wrap=wrap)
    walls: list[int] = []
    starts: dict[int, int] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row.ljust(width)):
            cell = y * width + x
            if ch == "#":
                walls.append(cell)
            elif ch.isdigit():
                starts[int(ch)] = cell
    ordered = tuple((starts[k],) for k in sorted(starts))
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(walls)),
        starts=ordered,
        players=(len(ordered),) if ordered else (2,),
    )


def random_moves(state, rng):  # type: ignore[no-untyped-def]
    """One random move per live cycle: a safe one when it has any, else any legal one."""
    from lightcycle.rules.legal import legal_moves, moves_this_turn, safe_moves

    return {
        c.index: rng.choice(safe_moves(state, c.index) or legal_moves(state, c.index))
        for c in state.cycles
        if moves_this_turn(state, c.index)
    }


def graph_map(side: int = 6, name: str = "test-graph") -> MapSpec:
    """A ``side`` x ``side`` wrap-around grid given as a graph board (every node has 4
    neighbours), with starts for 2 and 4 players of two cycles each and four bonus nodes."""
    from lightcycle.core.topology import GraphTopology

    def node(x: int, y: int) -> int:
        return (y % side) * side + (x % side)

    edges = [(node(x, y), node(x + 1, y)) for x in range(side) for y in range(side)]
    edges += [(node(x, y), node(x, y + 1)) for x in range(side) for y in range(side)]
    positions = [(float(x), float(y), 0.0) for y in range(side) for x in range(side)]
    h = side // 2
    two = ((node(0, 0), node(1, 1)), (node(h, h), node(h + 1, h + 1)))
    four = (
        (node(0, 0), node(1, 1)),
        (node(h, 0), node(h + 1, 1)),
        (node(0, h), node(1, h + 1)),
        (node(h, h), node(h + 1, h + 1)),
    )
    return MapSpec(
        name=name,
        board=Board(GraphTopology(side * side, edges, positions)),
        starts=two,
        start_sets=(four,),
        players=(2, 4),
        bonus=(node(0, 1), node(h, 1), node(0, h + 1), node(h, h + 1)),
    )


def map_for(ruleset) -> MapSpec:  # type: ignore[no-untyped-def]
    """A small map ``ruleset`` can play (by its board kind; team courts for ``teams``)."""
    from lightcycle.maps.registry import get_map

    if ruleset.name == "teams":
        return get_map("court-small")
    return {
        "grid": grid_map(["#######", "#1....#", "#.....#", "#...#.#", "#....2#", "#######"]),
        "torus": grid_map(["1.....", "......", "...#..", "......", "....2."], wrap=True),
        "any-grid": grid_map(["#######", "#1...2#", "#.....#", "#3...4#", "#######"]),
        "graph": graph_map(),
    }[ruleset.board]


def team_map(rows: list[str], graph: bool = False, name: str = "test-teams") -> MapSpec:
    """A map whose teams have several cycles, from rows of text.

    ``#`` wall, ``.`` floor, ``a``-``j`` the first team's cycles in that order, ``k``-``t``
    the second's, ``$`` a bonus cell. With ``graph`` the grid becomes a graph board with
    the same cell numbers (each cell joined to its four neighbours, no wrap).
    """
    from lightcycle.core.topology import GraphTopology

    height, width = len(rows), max(len(r) for r in rows)
    walls: list[int] = []
    bonus: list[int] = []
    found: dict[str, int] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row.ljust(width)):
            cell = y * width + x
            if ch == "#":
                walls.append(cell)
            elif ch == "$":
                bonus.append(cell)
            elif "a" <= ch <= "t":
                found[ch] = cell
    teams = (
        tuple(found[k] for k in sorted(found) if k <= "j"),
        tuple(found[k] for k in sorted(found) if k >= "k"),
    )
    if graph:
        edges = [(c, c + 1) for c in range(width * height) if (c + 1) % width]
        edges += [(c, c + width) for c in range(width * (height - 1))]
        pos = [(float(c % width), float(c // width), 0.0) for c in range(width * height)]
        topo: GridTopology | GraphTopology = GraphTopology(width * height, edges, pos)
    else:
        topo = GridTopology(width, height)
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(walls)),
        starts=teams,
        players=(2,),
        bonus=tuple(bonus),
    )


@pytest.fixture(autouse=True)
def _no_zombies_from_earlier_tests() -> None:
    """Reap exited children that earlier tests of this worker left to it.

    The referee makes itself a subreaper, so the test process adopts the orphans of
    every process tree a test kills on purpose (a stand-in referee killed with its bots,
    say) and they wait as zombies. Tests that check they leave no zombie behind look at
    this process's children: each starts from none, and judges only its own (an orphan
    of an earlier test that ends during this one is told apart by its start time:
    `tests.sandbox.survivors.zombie_children`).
    """
    if not os.path.isdir("/proc"):
        return
    from tests.sandbox.survivors import TEST_STARTED, ticks_now

    TEST_STARTED[0] = ticks_now()
    me = str(os.getpid())
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and fields[1] == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(name), os.WNOHANG)
