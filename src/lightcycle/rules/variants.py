"""The ruleset registry: every variant lightcycle plays, by name, version and alias."""

from __future__ import annotations

import difflib

from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.ruleset import RulesError, Ruleset, TeamSettings, Tron3DSettings

_DUEL_STAGES = (
    "movement.standard",
    "collision.simultaneous",
    "trails.persist",
    "game_over.last_standing",
    "game_over.turn_limit",
)

CLASSIC = Ruleset(
    name="classic",
    version=1,
    stages=_DUEL_STAGES,
    aliases=("tron2010", "duel"),
    players=(2, 2),
    board="grid",
    description="Two cycles on a walled grid, simultaneous moves (the 2010 AI challenge).",
)

TORUS = Ruleset(
    name="torus",
    version=1,
    stages=_DUEL_STAGES,
    aliases=("wrap", "scheme"),
    players=(2, 2),
    board="torus",
    description="The classic duel on a wrap-around grid, walls optional (the Scheme course).",
)

FFA = Ruleset(
    name="ffa",
    version=1,
    stages=_DUEL_STAGES,
    aliases=("multi", "aichallenge"),
    players=(2, 8),
    board="any-grid",
    description="2 to 8 players, classic collisions; ranked by the turn each player died.",
)

TEAMS = Ruleset(
    name="teams",
    version=1,
    stages=(
        "movement.jump",
        "collision.priority",
        "trails.remove_on_death",
        "game_over.last_standing",
        "game_over.turn_limit",
    ),
    settings=TeamSettings(),
    aliases=("cs241", "team"),
    players=(2, 2),
    board="grid",
    description=(
        "Two teams of ten cycles with one jump each; moves run one by one, less CPU "
        "time first; the dead lose their trails (the C team course)."
    ),
    clock={"move": None, "first_move": 5.0, "average": 0.1},
    measures=("cpu",),
)

TRON3D = Ruleset(
    name="tron3d",
    version=1,
    stages=(
        "movement.rounds",
        "items.use",
        "collision.random_order",
        "trails.remove_on_death",
        "items.pickup",
        "items.timers",
        "score.moves",
        "items.spawn",
        "game_over.score",
    ),
    settings=Tron3DSettings(),
    aliases=("3d", "jutge"),
    players=(2, 4),
    board="graph",
    description=(
        "2 or 4 players with 2 cycles each on a 3D mesh; turbo, ghost and points items; "
        "ranked by score (the 3D course)."
    ),
)

_REGISTRY: dict[str, Ruleset] = {}
_ALIASES: dict[str, str] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Add ``ruleset`` to the registry (its id, its name for the newest version, aliases)."""
    from lightcycle.rules.stages import get_stage

    for sid in ruleset.stages:
        get_stage(sid)  # fail at registration, not mid-game
    if ruleset.id in _REGISTRY:
        raise RulesError(f"ruleset {ruleset.id} is registered twice")
    _REGISTRY[ruleset.id] = ruleset
    newest = _REGISTRY.get(_ALIASES.get(ruleset.name, ""))
    if newest is None or newest.version < ruleset.version:
        for alias in (ruleset.name, *ruleset.aliases):
            _ALIASES[alias] = ruleset.id
    return ruleset


def get_ruleset(name: str | Ruleset) -> Ruleset:
    """Find a ruleset by ``name``, ``name@version`` or alias (a `Ruleset` passes through).

    Raises:
        RulesError: for an unknown name, listing close matches and the known rulesets.
    """
    if isinstance(name, Ruleset):
        return name
    key = name.strip().lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    if key in _ALIASES:
        return _REGISTRY[_ALIASES[key]]
    if "@" in key and key.split("@")[0] in _ALIASES:
        versions = sorted(r.id for r in _REGISTRY.values() if r.name == key.split("@")[0])
        raise RulesError(f"unknown ruleset version {name!r}; available: {', '.join(versions)}")
    close = difflib.get_close_matches(key, [*_REGISTRY, *_ALIASES], n=3)
    hint = f" Did you mean {' or '.join(close)}?" if close else ""
    raise RulesError(
        f"unknown ruleset {name!r}.{hint} Known: {', '.join(sorted(_REGISTRY))} "
        "(see `lightcycle rules list`)."
    )


def list_rulesets() -> list[Ruleset]:
    """Every registered ruleset, sorted by id."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


for _rs in (CLASSIC, TORUS, FFA, TEAMS, TRON3D):
    register(_rs)


def default_ruleset(spec: MapSpec, players: int) -> Ruleset:
    """The ruleset a map suggests, as ``lightcycle play`` chooses it: tron3d on graph
    boards, teams on maps of ten cycles a side, torus on wrapping grids, ffa beyond two
    players, else the classic duel."""
    topo = spec.board.topology
    if not isinstance(topo, GridTopology):
        return get_ruleset("tron3d")
    if spec.starts and len(spec.starts[0]) == 10 and players == 2:
        return get_ruleset("teams")
    if topo.wrap:
        return get_ruleset("torus" if players == 2 else "ffa")
    return get_ruleset("classic" if players == 2 else "ffa")
