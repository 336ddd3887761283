"""The map pool of a duel or a tournament: which maps, read from one line of text.

Maps and seeds always favour someone a little, so a duel plays many of them: built-in
maps plus seeded random symmetric ones (`lightcycle.maps.random_maps`), and a bot tuned
to one room does not look stronger than it is. ``lightcycle duel --maps``, a tournament
file's ``maps``, the game server and the judge all read their pools here
(`parse_pool`), so they accept the same items and say the same things about them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lightcycle.core.rng import Rng
from lightcycle.core.topology import GridTopology
from lightcycle.maps.random_maps import symmetric_map
from lightcycle.maps.registry import get_map, list_maps
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.referee.local import default_ruleset
from lightcycle.referee.match import unplayable
from lightcycle.referee.players import BotSpec
from lightcycle.rules.ruleset import Ruleset

DEFAULT_POOL = "builtin,random:8"
"""Every built-in two-player grid map and eight seeded random symmetric maps."""

POOL_SYNTAX = (
    "a map name or file (ring, maps/my.map), a folder (every .map and .txt file in it), "
    "builtin (every built-in two-player grid map), "
    "random:N (N random symmetric maps seeded from the duel's or tournament's seed) or "
    "random-SEED (one random map)"
)


def builtin_pool(players: int = 2) -> list[MapSpec]:
    """The built-in maps a duel can use: grid boards for two players, one cycle each.

    Graph boards (3D rules), free-for-all rooms and the team courts (ten cycles a side)
    are other games, so they are left out. A tournament whose matches seat more players
    asks for the grid boards with starts for that many (``players``).
    """
    out: list[MapSpec] = []
    for spec in list_maps():
        if isinstance(spec.topology, GridTopology) and players in spec.players:
            starts = spec.starts_of(players)
            if starts is None or all(len(cells) == 1 for cells in starts):
                out.append(spec)
    return out


def random_seeds(seed: int, n: int) -> list[int]:
    """``n`` distinct map seeds derived from the duel seed (short numbers, for map names)."""
    rng = Rng(seed, 0, "duel.random-maps")
    seeds: list[int] = []
    while len(seeds) < n:
        s = rng.below(1_000_000)
        if s not in seeds:
            seeds.append(s)
    return seeds


def parse_pool(
    text: str,
    seed: int = 0,
    playable: Callable[[MapSpec], str | None] | None = None,
    players: int = 2,
    verb: str = "duel on",
) -> list[MapSpec]:
    """Read a map pool: comma-separated items (see `POOL_SYNTAX`).

    ``lightcycle duel --maps`` and the ``maps`` of a tournament file both read their
    pools here, so the two accept the same items and say the same things about them.

    Args:
        text: e.g. ``builtin,random:8`` or ``ring,arena-15,maps/my.map``.
        seed: the duel's or tournament's seed, from which ``random:N`` derives its map
            seeds.
        playable: says why a map cannot be played here (``None``: it can). Maps that
            ``builtin`` brings in are skipped when they cannot be played (a torus under
            ``--ruleset classic``, or a torus for a tron2010 program); a map named
            explicitly that cannot be played is an error.
        players: seats per game; ``builtin`` means the grid maps with starts for them.
        verb: what cannot be done on an unplayable map, for the error (``duel on``).

    Returns:
        The maps, duplicates removed, in the order given.

    Raises:
        MapError: naming the bad item and what is accepted.
    """
    maps: dict[str, MapSpec] = {}
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise MapError(f"empty map pool {text!r}: give {POOL_SYNTAX}")
    for item in items:
        if not item:
            continue
        if item == "builtin":
            for spec in builtin_pool(players):
                if playable is None or playable(spec) is None:
                    maps.setdefault(spec.id, spec)
            continue
        if item.startswith("random:"):
            count = item.removeprefix("random:")
            if not count.isdigit() or int(count) < 1:
                raise MapError(
                    f"bad map pool item {item!r}: random:N needs a count N >= 1, e.g. random:8"
                )
            specs = [symmetric_map(s) for s in random_seeds(seed, int(count))]
        elif item.startswith("random-") and item.removeprefix("random-").isdigit():
            specs = [symmetric_map(int(item.removeprefix("random-")))]
        elif Path(item).is_dir():
            files = sorted(
                f for f in Path(item).iterdir() if f.suffix in (".map", ".txt") and f.is_file()
            )
            if not files:
                raise MapError(
                    f"map pool item {item!r}: a folder with no .map or .txt file; put map"
                    " files in it, or name built-in maps (`lightcycle maps list`) instead,"
                    " e.g. --maps ring,arena-15"
                )
            specs = [get_map(str(f)) for f in files]  # a bad file's error names it
        else:
            try:
                specs = [get_map(item)]
            except MapError as exc:
                raise MapError(
                    f"bad map pool item {item!r}: {exc} (items: {POOL_SYNTAX})"
                ) from None
        for spec in specs:
            problem = playable(spec) if playable is not None else None
            if problem is not None:
                raise MapError(f"map pool item {item!r}: cannot {verb} {spec.id}: {problem}")
            maps.setdefault(spec.id, spec)
    if not maps:
        raise MapError(f"map pool {text!r} has no map the bots can play; give {POOL_SYNTAX}")
    return list(maps.values())


def playable(
    spec: MapSpec, ruleset: Ruleset | None, bots: Sequence[BotSpec], seed: int = 0
) -> str | None:
    """Why a duel between ``bots`` cannot be played on ``spec`` (``None``: it can).

    Sets the game up (the ruleset checks the board and the starts) and asks each bot
    program's protocol whether it can carry it, so a bad pool fails before any game.
    """
    rs = ruleset if ruleset is not None else default_ruleset(spec, 2)
    return unplayable(spec, rs, bots, seed, players=2)
