"""What an environment plays: a map, a ruleset with its turn limit, a player count.

Every environment of `lightcycle.envs` starts its games through `GameConfig.new_state`,
which is `lightcycle.rules.engine.new_game`, the set-up ``lightcycle play`` uses: the
spawns, the cycles per team and the seeded random starts are the referee's own, never
re-implemented here.

A turn limit is always a rule, never an environment's afterthought: ``max_turns`` sets
the setting the ruleset's game-over stage reads (``turn_limit`` for
``game_over.turn_limit``, ``nb_rounds`` for ``game_over.score``), so a game cut short
in an environment ends with the outcome the rules declare there (a draw among the
survivors in the duel, ranks by score in ``tron3d@1``), and an episode stays a game the
referee would have judged the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightcycle.core.state import Board, GameState
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import default_ruleset, get_ruleset

LIMIT_SETTINGS = {"game_over.turn_limit": "turn_limit", "game_over.score": "nb_rounds"}
"""The game-over stages that end a game after a number of turns, and the setting each
reads: the only places a turn limit lives."""

DEATH_RANKED = frozenset({"game_over.last_standing", "game_over.turn_limit"})
"""Game-over stages that rank a team by the turn its last cycle died (survivors above).
Under a ruleset whose game-over stages are all of these, a team's place is settled the
turn it is out, before the game ends (`lightcycle.envs.rewards.settled`)."""


def rule_turn_limit(ruleset: Ruleset) -> int | None:
    """The turn on which the ruleset's own stages end a game at the latest, if any."""
    limits = [
        getattr(ruleset.settings, setting, None)
        for stage, setting in LIMIT_SETTINGS.items()
        if stage in ruleset.stages
    ]
    found = [x for x in limits if isinstance(x, int)]
    return min(found) if found else None


def observed_limit(ruleset: Ruleset, board: Board) -> int:
    """``T`` of the observations' ``turn / T``: the rules' turn limit, else the board's
    number of free cells (cells that are not walls): every turn covers a free cell per
    live cycle, so no game lasts that long."""
    limit = rule_turn_limit(ruleset)
    if limit is not None:
        return limit
    return max(1, board.topology.size - board.walls.bit_count())


def death_ranked(ruleset: Ruleset) -> bool:
    """Whether every game-over stage of ``ruleset`` ranks teams by when they died."""
    over = [s for s in ruleset.stages if s.startswith("game_over.")]
    return bool(over) and all(s in DEATH_RANKED for s in over)


def with_max_turns(ruleset: Ruleset, max_turns: int) -> Ruleset:
    """``ruleset`` whose game-over stages end the game after ``max_turns`` turns.

    Raises:
        RulesError: for a ruleset without a stage that ends games by turns, or a limit
            below one.
    """
    if max_turns < 1:
        raise RulesError(f"max_turns must be a positive number of turns, got {max_turns}")
    changes = {
        setting: max_turns for stage, setting in LIMIT_SETTINGS.items() if stage in ruleset.stages
    }
    if not changes:
        raise RulesError(f"{ruleset.id} has no game-over stage that counts turns; no max_turns")
    return ruleset.with_settings(changes)


@dataclass(frozen=True)
class GameConfig:
    """Everything but the seed that decides an environment's games.

    Attributes:
        spec: the map.
        board: the board games are played on (the map's, with its bonus cells).
        ruleset: the ruleset, its turn limit already set from ``max_turns``.
        players: the number of teams (seats).
        cycles: the number of cycles (agents): ``players`` times the cycles per team.
        rule_limit: the turn on which the rules end the game at the latest (``None``:
            never by turns; the board's size still bounds a grid game).
        turn_limit: the ``T`` of the observation's ``turn / T`` (`observed_limit`):
            ``rule_limit``, or where the rules set none, the board's free cells.
    """

    spec: MapSpec
    board: Board
    ruleset: Ruleset
    players: int
    cycles: int
    rule_limit: int | None
    turn_limit: int

    def new_state(self, seed: int) -> GameState:
        """Turn 0 of the game of ``seed``, set up by the rules' own `new_game`."""
        return new_game(self.ruleset, self.spec, seed=seed, players=self.players)


def configure(
    map: str | MapSpec = "arena-15",
    ruleset: str | Ruleset | None = None,
    players: int | None = None,
    max_turns: int | None = None,
    settings: dict[str, Any] | None = None,
) -> GameConfig:
    """Resolve an environment's keywords into a `GameConfig`, checking it can be played.

    Args:
        map: a map name (``arena-15``, ``torus-20``, ``court-small``, ``icosahedron``), a
            map file path, or a `MapSpec`.
        ruleset: a ruleset name (``classic``, ``torus@1``, ``ffa``, ``teams``,
            ``tron3d``) or object; default what ``lightcycle play`` picks for the map.
        players: the number of teams; default the map's first player count that the
            ruleset allows, else the ruleset's minimum.
        max_turns: end games after this many turns, through the ruleset's own limit.
        settings: other ruleset setting overrides, e.g. ``{"jumps": 2}``.

    Raises:
        RulesError, MapError: for a map, ruleset, player count or setting that cannot
            be played together, with what to choose instead.
    """
    spec = get_map(map) if isinstance(map, str) else map
    if players is None and ruleset is not None:
        lo, hi = get_ruleset(ruleset).players
        players = next((p for p in spec.players if lo <= p <= hi), lo)
    elif players is None:
        players = spec.players[0] if spec.players else 2
    rs = get_ruleset(ruleset) if ruleset is not None else default_ruleset(spec, players)
    if settings:
        rs = rs.with_settings(settings)
    if max_turns is not None:
        rs = with_max_turns(rs, max_turns)
    first = new_game(rs, spec, seed=0, players=players)  # raises early for a bad set-up
    limit = rule_turn_limit(rs)
    return GameConfig(
        spec=spec,
        board=first.board,
        ruleset=rs,
        players=players,
        cycles=len(first.cycles),
        rule_limit=limit,
        turn_limit=observed_limit(rs, first.board),
    )


SEED_BOUND = 2**31
"""Game seeds drawn for seedless resets lie in ``0..SEED_BOUND-1``."""


def game_over_by_limit(state: GameState, config: GameConfig) -> bool:
    """Whether the game just ended because the rules' turn limit came, not on its own.

    Under rulesets that rank by death a game also ends when one team is left; that is a
    finish even on the limit's turn. Other rulesets (``tron3d``) play on until the limit.
    """
    if state.outcome is None or config.rule_limit is None or state.turn < config.rule_limit:
        return False
    rs = state.ruleset
    return not (isinstance(rs, Ruleset) and death_ranked(rs)) or len(state.alive_teams()) > 1


def info_of(state: GameState, cycle: int) -> dict[str, Any]:
    """What ``infos`` says of one cycle: its team, whether it is alive, how it died, and
    once the game is over, its team's rank."""
    c = state.cycles[cycle]
    info: dict[str, Any] = {
        "team": c.team,
        "alive": c.alive,
        "death": c.death.cause.value if c.death is not None else None,
        "turn": state.turn,
    }
    if c.death is not None and c.death.detail:
        info["death_detail"] = c.death.detail
    if state.outcome is not None:
        info["rank"] = state.outcome.ranks[c.team]
    return info
