"""Game-over stages: when the game ends and how the teams are ranked."""

from __future__ import annotations

from lightcycle.core.moves import Outcome, competition_ranks
from lightcycle.rules.ruleset import Settings
from lightcycle.rules.stages.registry import QuietBefore, stage
from lightcycle.rules.turn import Turn


def _team_alive(turn: Turn) -> list[bool]:
    alive = [False] * len(turn.before.teams)
    for i, c in enumerate(turn.before.cycles):
        if turn.alive[i]:
            alive[c.team] = True
    return alive


def _death_turns(turn: Turn, alive: list[bool] | None = None) -> list[float]:
    """Per team, the turn its last cycle died (infinity while alive, as ``alive`` says)."""
    last = [0.0] * len(turn.before.teams)
    if alive is None:
        alive = _team_alive(turn)
    for i, c in enumerate(turn.before.cycles):
        d = turn.deaths[i]
        if d is not None:
            last[c.team] = max(last[c.team], float(d.turn))
    return [float("inf") if alive[t] else last[t] for t in range(len(last))]


@stage("game_over.last_standing", quiet=True)
def last_standing(turn: Turn) -> None:
    """The game ends when at most one team has a cycle left.

    Teams are ranked by the turn their last cycle died, later is better; teams that died on
    the same turn share a place, so two teams dying together at the end is a draw.
    """
    if turn.outcome is not None:
        return
    alive = _team_alive(turn)
    if sum(alive) > 1:
        return
    ranks = competition_ranks(_death_turns(turn, alive))
    firsts = sum(1 for r in ranks if r == 1)
    reason = (
        "last team standing" if firsts == 1 else "every remaining team crashed on the same turn"
    )
    turn.outcome = Outcome(ranks=ranks, reason=reason, turn=turn.number)


def _turn_limit(settings: Settings) -> int | None:
    return settings.turn_limit


@stage("game_over.turn_limit", quiet=QuietBefore(_turn_limit))
def turn_limit(turn: Turn) -> None:
    """With ``settings.turn_limit`` set, the game ends after that many turns.

    The teams still alive then are ranked by ``settings.turn_limit_outcome``: ``draw`` puts
    them all first; ``cycles_left`` ranks them by live cycles. Teams already dead rank
    below them by death turn, as in ``game_over.last_standing``.
    """
    limit = turn.settings.turn_limit
    if turn.outcome is not None or limit is None or turn.number < limit:
        return
    keys = _death_turns(turn)
    if turn.settings.turn_limit_outcome == "cycles_left":
        big = float(turn.number + 1)
        counts = [0] * len(keys)
        for i, c in enumerate(turn.before.cycles):
            if turn.alive[i]:
                counts[c.team] += 1
        keys = [big + counts[t] if k == float("inf") else k for t, k in enumerate(keys)]
    turn.outcome = Outcome(
        ranks=competition_ranks(keys), reason=f"turn limit {limit} reached", turn=turn.number
    )


@stage("game_over.score")
def by_score(turn: Turn) -> None:
    """The game ends after ``nb_rounds`` rounds or when no cycle is left; best score wins.

    Teams are ranked by score (`lightcycle.rules.stages.items`); equal scores share a
    place, so a tie for the top is a draw. A team whose cycles are all gone keeps its
    score and may still win.
    """
    rounds = getattr(turn.settings, "nb_rounds", None)
    if turn.outcome is not None:
        return
    over_by_rounds = rounds is not None and turn.number >= rounds
    if not over_by_rounds and any(turn.alive):
        return
    reason = f"{rounds} rounds played" if over_by_rounds else "no cycle left"
    turn.outcome = Outcome(
        ranks=competition_ranks([float(s) for s in turn.scores]),
        reason=f"{reason}; ranked by score",
        turn=turn.number,
    )
