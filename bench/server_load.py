"""Many remote clients on one game server: the turn latency it adds, its memory, its limit.

Usage:
    python bench/server_load.py                     # steps of 10, 50, 100, 250 duels
    python bench/server_load.py --steps 5,20 --window 8
    python bench/server_load.py --memory 50,100,200,400   # RSS after that many games

A real ``lightcycle serve`` runs in a subprocess on 127.0.0.1 with one queue of walled
duels (``arena-15``, 1 s a move, no fill bots). This process is the load: an asyncio
client per seat, speaking the raw jsonl protocol over TCP as any hand-written bot would
(hello, welcome, then ``start``/``turn``/``end``). Each client thinks ``--think``
seconds a turn (0.1 s: 10 turns a second a game when nothing waits), then answers with a
free heading; when its game ends it joins the queue again, so each step keeps its duels
going.

What a client measures each turn is the *wait*: from writing its answer to reading the
next turn's request. The server needs both answers before it steps the game, so the wait
is the other seat's lag plus everything the server does (reading, stepping, encoding,
writing, the loopback). The baseline, measured in the same run, is the same pair of
clients as two bot processes of ``lightcycle match`` (the same code, over pipes): the
wait of a direct pipe game. "Added" is the server's median (p99) wait minus the pipe
game's median.

Per step it prints the median and p99 wait, turns a second per game (the target is 10),
the server's CPU use (of one core) and its CPU milliseconds per game-turn (the cost that
decides how many games one core carries, whatever else the machine runs), the load
generator's own CPU use (this process: it shares the machine's cores with the server, so
a reader can tell who ran out first), the server's resident memory per game above the
idle server, and how many games ended with a verdict other than ok. The step where turns
a second falls below 10 or verdicts appear is what breaks first.

``--memory N1,N2,...`` asks whether the server's memory levels off instead: clients that
answer at once play game after game, ``--paired`` of them against each other (arena-15)
and ``--filled`` against the fill bot of a second queue (``--fill-bot``, on a pool of four
walled maps, 0.3 s a move), and the server's resident memory and threads are printed once
N1, N2, ... games are recorded. ``LIGHTCYCLE_NATIVE=0`` in the environment gives the server the pure
search, as an install without the ``fast`` extra has it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MOVES = [("n", 0, -1), ("e", 1, 0), ("s", 0, 1), ("w", -1, 0)]
MAP = "arena-15"


class Pacer:
    """One seat's play: remembers taken cells, answers a free heading after thinking."""

    def __init__(self, start: dict) -> None:  # type: ignore[type-arg]
        board = start["board"]
        self.w, self.h, self.wrap = board["width"], board["height"], board["wrap"]
        self.seat = start["seat"]
        self.blocked = {tuple(xy) for xy in board["walls"]}
        self.see(start["cycles"])

    def see(self, cycles: list[dict]) -> None:  # type: ignore[type-arg]
        self.blocked.update(tuple(c["head"]) for c in cycles)
        self.cycles = cycles

    def free(self, x: int, y: int) -> bool:
        if self.wrap:
            x, y = x % self.w, y % self.h
        elif not (0 <= x < self.w and 0 <= y < self.h):
            return False
        return (x, y) not in self.blocked

    def answer(self) -> bytes:
        me = next((c for c in self.cycles if c["team"] == self.seat and c["alive"]), None)
        best, score = "n", -1
        if me is not None:
            hx, hy = me["head"]
            for move, dx, dy in MOVES:
                x, y = hx + dx, hy + dy
                if self.free(x, y):
                    s = sum(self.free(x + ex, y + ey) for _, ex, ey in MOVES)
                    if s > score:
                        best, score = move, s
        return (json.dumps({"move": best}) + "\n").encode()


def pacer_process(log: str, think: float) -> None:
    """``--pacer LOG``: the same client as a jsonl bot on stdin/stdout (the pipe baseline)."""
    out = open(log, "a")  # noqa: SIM115 (kept open for the process's life)
    game: Pacer | None = None
    sent = 0.0
    for line in sys.stdin:
        got = time.perf_counter()
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "start":
            game = Pacer(msg)
            sent = 0.0
        elif kind == "turn" and game is not None:
            if sent:
                out.write(f"{got - sent:.6f}\n")
            game.see(msg["cycles"])
            time.sleep(think)
            sys.stdout.buffer.write(game.answer())
            sys.stdout.buffer.flush()
            sent = time.perf_counter()
        elif kind == "end":
            out.flush()


class Load:
    """Every client of one step, with what they measured."""

    def __init__(self, port: int, think: float) -> None:
        self.port = port
        self.think = think
        self.recording = False
        self.waits: list[float] = []
        self.turns = 0
        self.games = 0
        self.errors: dict[str, int] = {}
        self.in_game = 0

    async def client(self, name: str) -> None:
        while True:
            try:
                await self._game(name)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                key = f"{type(exc).__name__}: {str(exc)[:60]}"
                self.errors[key] = self.errors.get(key, 0) + 1
                await asyncio.sleep(0.2)

    async def _game(self, name: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        queue = "filled" if name.startswith("filled") else "bench"
        hello = {"type": "hello", "name": name, "queue": queue}
        writer.write((json.dumps(hello) + "\n").encode())
        try:
            welcome = json.loads(await reader.readline())
            if welcome.get("type") != "welcome":
                raise ValueError(welcome.get("error", "no welcome"))
            game: Pacer | None = None
            sent = 0.0
            while line := await reader.readline():
                got = time.perf_counter()
                msg = json.loads(line)
                kind = msg.get("type")
                if kind == "start":
                    game = Pacer(msg)
                    self.in_game += 1
                elif kind == "turn" and game is not None:
                    if sent and self.recording:
                        self.waits.append(got - sent)
                        self.turns += 1
                    game.see(msg["cycles"])
                    if self.think:
                        await asyncio.sleep(self.think)
                    writer.write(game.answer())
                    sent = time.perf_counter()
                elif kind == "end":
                    if self.recording:
                        self.games += 1
                    break
            if game is not None:
                self.in_game -= 1
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(folder: Path, clients: int, fill_bot: str = "builtin:medium") -> tuple[Path, int]:
    scheme, jsonl, web = free_port(), free_port(), free_port()
    text = f"""
[server]
host = "127.0.0.1"
scheme_port = {scheme}
jsonl_port = {jsonl}
web_port = {web}
scheme_queue = "bench"
database = "sqlite:///{folder / "server.db"}"

[limits]
per_address = {2 * clients + 64}
max_connections = {2 * clients + 64}
reconnect_grace = 0.5
join_timeout = 30.0

[queues.bench]
ruleset = "classic@1"
maps = ["{MAP}"]
move_time = 1.0
first_move_time = 1.0
fill_after = "never"
rated = false

[queues.filled]
ruleset = "classic@1"
maps = ["arena-15", "pillars", "ring", "random-7"]
move_time = 0.3
fill_after = 0
fill_bot = "{fill_bot}"
"""
    path = folder / "server.toml"
    path.write_text(text)
    return path, jsonl


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss(pid: int) -> float:
    """Resident memory of a process in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def proc_threads(pid: int) -> int:
    """Threads of a process now."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def recorded(db: Path) -> int:
    """Games the server has recorded as over (finished or aborted)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(db, timeout=5)) as con:
            row = con.execute("SELECT COUNT(*) FROM server_games WHERE status != 'running'")
            return int(row.fetchone()[0])
    except sqlite3.Error:  # not made yet
        return 0


async def memory(port: int, server: int, db: Path, args: argparse.Namespace) -> None:
    """``--memory``: the server's RSS once each number of games is recorded."""
    marks = [int(n) for n in args.memory.split(",")]
    load = Load(port, 0.0)
    names = [f"paired{i}" for i in range(args.paired)]
    names += [f"filled{i}" for i in range(args.filled)]
    tasks = [asyncio.create_task(load.client(name)) for name in names]
    idle = proc_rss(server)
    print(
        f"server idle {idle:.1f} MiB; {args.paired} paired clients, {args.filled} against "
        f"{args.fill_bot}"
    )
    print("  games  RSS MiB  above idle  threads  seconds")
    t0 = time.monotonic()
    try:
        for mark in marks:
            while (games := recorded(db)) < mark:
                await asyncio.sleep(0.2)
            rss = proc_rss(server)
            print(
                f"{games:7d}  {rss:7.1f}  {rss - idle:10.1f}  {proc_threads(server):7d}"
                f"  {time.monotonic() - t0:7.0f}",
                flush=True,
            )
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(f"client errors: {load.errors or '-'}; load after {os.getloadavg()[0]:.2f}")


def verdicts(db: Path) -> dict[str, int]:
    """Seats per verdict in the server's database so far (finished games)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as con:
        rows = con.execute(
            "SELECT verdict, COUNT(*) FROM server_game_seats GROUP BY verdict"
        ).fetchall()
    return {str(v): int(n) for v, n in rows}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pipe_baseline(think: float, games: int, folder: Path) -> list[float]:
    """The waits of the same two clients as bot processes under ``lightcycle match``."""
    log = folder / "pipe.log"
    bot = f"cmd:{sys.executable} {Path(__file__).resolve()} --pacer {log} --think {think}"
    cmd = [
        sys.executable, "-m", "lightcycle", "match", "--map", MAP, "--bot", bot, "--bot", bot,
        "--protocol", "jsonl", "--games", str(games), "--move-time", "1",
        "--sandbox", "none", "--out", str(folder / "pipe-match"),
    ]  # fmt: skip
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [float(x) for x in log.read_text().split()]


async def run_step(
    port: int, duels: int, think: float, window: float, server: int, db: Path
) -> dict:  # type: ignore[type-arg]
    load = Load(port, think)
    tasks = [asyncio.create_task(load.client(f"b{duels}x{i}")) for i in range(2 * duels)]
    # warm up: every client in a game (or 30 s)
    end = time.monotonic() + 30
    while load.in_game < 2 * duels and time.monotonic() < end:
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    cpu0, mine0, t0 = proc_cpu(server), proc_cpu(os.getpid()), time.monotonic()
    load.recording = True
    rss = []
    while time.monotonic() - t0 < window:
        await asyncio.sleep(min(1.0, window / 4))
        rss.append(proc_rss(server))
    load.recording = False
    counted = verdicts(db)  # before the step's clients leave (their games end disconnected)
    elapsed = time.monotonic() - t0
    used = proc_cpu(server) - cpu0
    cpu = used / elapsed
    mine = (proc_cpu(os.getpid()) - mine0) / elapsed
    game_turns = load.turns / 2
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(1.5)  # the server ends those games (grace 0.5 s)
    return {
        "duels": duels,
        "waits": load.waits,
        "turns_per_s": load.turns / (2 * duels) / elapsed,
        "cpu": cpu,
        "ms_per_turn": used * 1000 / game_turns if game_turns else float("nan"),
        "client_cpu": mine,
        "rss": statistics.median(rss) if rss else float("nan"),
        "games": load.games,
        "errors": dict(load.errors),
        "verdicts": counted,
    }


async def main_async(args: argparse.Namespace) -> None:
    steps = [int(s) for s in args.steps.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="lightcycle-server-load-"))
    try:
        if not args.memory:
            base = pipe_baseline(args.think, args.pipe_games, folder)
            base_med = statistics.median(base)
        config, port = write_config(folder, 2 * max(steps), args.fill_bot)
        server = subprocess.Popen(
            [sys.executable, "-m", "lightcycle", "serve", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert server.stdout is not None
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = server.stdout.readline()
                if "jsonl" in line or not line:
                    break
            await asyncio.sleep(0.5)
            if args.memory:
                print(f"cores {os.cpu_count()}, load before {os.getloadavg()[0]:.2f}")
                await memory(port, server.pid, folder / "server.db", args)
                return
            idle = proc_rss(server.pid)
            load = os.getloadavg()[0]
            print(f"cores {os.cpu_count()}, load before {load:.2f}; server idle {idle:.0f} MiB")
            print(
                f"pipe game (lightcycle match, {len(base)} waits): "
                f"median {base_med * 1000:.2f} ms, p99 {pct(base, 0.99) * 1000:.2f} ms"
            )
            print(
                "duels  clients  wait med   p99     added med  turns/s/game  server CPU"
                "  ms/turn  load CPU  MiB/game  games  verdicts not ok  client errors"
            )
            for duels in steps:
                seen = verdicts(folder / "server.db")
                r = await run_step(
                    port, duels, args.think, args.window, server.pid, folder / "server.db"
                )
                now = r["verdicts"]
                bad = {
                    v: n - seen.get(v, 0)
                    for v, n in now.items()
                    if v not in ("ok", "None") and n > seen.get(v, 0)
                }
                w = r["waits"]
                per_game = (r["rss"] - idle) / duels
                print(
                    f"{duels:5d}  {2 * duels:7d}  {pct(w, 0.5) * 1000:6.2f} ms "
                    f"{pct(w, 0.99) * 1000:7.2f} ms  {(pct(w, 0.5) - base_med) * 1000:6.2f} ms"
                    f"   {r['turns_per_s']:10.2f}  {r['cpu'] * 100:8.0f}%  {r['ms_per_turn']:7.2f}"
                    f"  {r['client_cpu'] * 100:7.0f}%  {per_game:8.2f}"
                    f"  {r['games']:5d}  {bad or '-'}  {r['errors'] or '-'}",
                    flush=True,
                )
            print(f"load after {os.getloadavg()[0]:.2f}")
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(30)
            if server.poll() is None:
                server.kill()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="10,50,100,250", help="duels at once, per step")
    parser.add_argument("--window", type=float, default=15.0, help="seconds measured a step")
    parser.add_argument("--think", type=float, default=0.1, help="a client's seconds a turn")
    parser.add_argument("--pipe-games", type=int, default=3, help="games of the pipe baseline")
    parser.add_argument("--memory", help="RSS after these numbers of games, e.g. 50,100,200")
    parser.add_argument("--paired", type=int, default=2, help="--memory: clients in pairs")
    parser.add_argument("--filled", type=int, default=2, help="--memory: clients vs bots")
    parser.add_argument("--fill-bot", default="builtin:medium", help="--memory's fill bot")
    parser.add_argument("--pacer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pacer:
        pacer_process(args.pacer, args.think)
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
