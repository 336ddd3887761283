"""The duel runner: side-swapped pairs, the SPRT stop, results, pools and workers."""

from __future__ import annotations

import json
import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.players import parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.tournament.duel import (
    DuelProgress,
    PairResult,
    SprtConfig,
    builtin_pool,
    kept_map,
    parse_pool,
    playable,
    random_seeds,
    run_duel,
)

BOTS = Path(__file__).with_name("duel_bots.py")
ARENA = [get_map("arena-10")]


def _strict_json(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_pairs_swap_seats_on_the_same_map_and_seed(tmp_path: Path) -> None:
    pool = [get_map("arena-10"), get_map("ring")]
    result = run_duel(
        "builtin:wallhugger", "builtin:random", pool, games=6, seed=40, workers=1, out_dir=tmp_path
    )
    assert [p.index for p in result.pairs] == [0, 1, 2]
    for k, pair in enumerate(result.pairs):
        assert pair.seed == 40 + k and pair.map == pool[k % 2].id
        first, second = pair.games
        assert (first.game, first.a_seat) == (1, 0) and (second.game, second.a_seat) == (2, 1)
        assert first.map == second.map == pair.map and first.seed == second.seed == pair.seed
        for g in pair.games:
            replay = _strict_json((tmp_path / str(g.replay)).read_text())
            assert isinstance(replay, dict)
            names = [s["name"] for s in replay["seats"]]
            assert names[g.a_seat] == "WallHugger" and names[1 - g.a_seat] == "Random"
            assert replay["seed"] == pair.seed
    assert result.games == 6 and result.trinomial.games == 6 and result.pentanomial.pairs == 3


def test_scores_are_from_a_s_point_of_view() -> None:
    result = run_duel("builtin:wallhugger", "builtin:random", ARENA, games=10, workers=1)
    t = result.trinomial
    assert t.wins == sum(g.score == 1 for p in result.pairs for g in p.games)
    assert t.losses == sum(g.score == 0 for p in result.pairs for g in p.games)
    assert sum(result.pentanomial.counts) == 5
    assert sum(p.points for p in result.pairs) == t.wins + 0.5 * t.draws
    swapped = run_duel("builtin:random", "builtin:wallhugger", ARENA, games=10, workers=1)
    # the same games with A and B exchanged: every pair's points mirror (2 - points)
    assert [p.points for p in swapped.pairs] == [2 - p.points for p in result.pairs]
    assert swapped.estimate().elo == pytest.approx(-result.estimate().elo)


def test_sprt_stops_a_lopsided_duel_early() -> None:
    seen: list[DuelProgress] = []

    def on_pair(pair: PairResult, progress: DuelProgress) -> None:
        seen.append(progress)

    result = run_duel(
        "builtin:wallhugger",
        "builtin:random",
        "arena-10,arena-15,ring",
        games=400,
        workers=1,
        sprt=SprtConfig(0, 100),
        on_pair=on_pair,
    )
    assert result.sprt is not None and result.sprt.state == "H1"
    assert result.sprt.llr >= result.sprt.upper
    assert result.stopped_early and len(result.pairs) < result.pairs_planned == 200
    assert result.sprt_pairs == len(result.pairs) >= SprtConfig(0, 100).min_pairs
    assert [p.pairs_done for p in seen] == list(range(1, len(result.pairs) + 1))
    assert seen[-1].sprt is not None and seen[-1].sprt.decided
    assert all(p.sprt is not None and not p.sprt.decided for p in seen[:-1])


def test_sprt_waits_for_min_pairs() -> None:
    result = run_duel(
        "builtin:chaser", "builtin:random", ARENA, games=8, workers=1, sprt=SprtConfig(0, 100)
    )
    assert result.sprt is not None and result.sprt.state == "continue"  # 4 pairs < 10
    assert not result.stopped_early and len(result.pairs) == 4
    with pytest.raises(ValueError, match="elo0 < elo1"):
        SprtConfig(10, 0)
    with pytest.raises(ValueError, match="alpha"):
        SprtConfig(0, 10, alpha=0)


def test_results_json_is_complete_and_strict(tmp_path: Path) -> None:
    run_duel(
        "builtin:chaser", "builtin:random", ARENA, games=4, workers=1, out_dir=tmp_path
    )  # chaser beats random in all four games on arena-10: a 100 % score, Elo +inf
    assert not (tmp_path / "results.json.tmp").exists()
    data = _strict_json((tmp_path / "results.json").read_text())
    assert isinstance(data, dict)
    for key in ("a", "b", "games", "result", "pentanomial", "elo", "elo_trinomial", "sprt"):
        assert key in data
    assert data["games"] == 4 and len(data["pairs"]) == 2
    assert data["a"]["name"] == "Chaser" and data["b"]["spec"] == "builtin:random"
    assert data["elo"]["model"] == "pentanomial" and data["elo"]["elo"] == "inf"
    assert data["result"] == {"wins": 4, "draws": 0, "losses": 0}
    for pair in data["pairs"]:
        assert len(pair["games"]) == 2
        for g in pair["games"]:
            assert (tmp_path / g["replay"]).is_file()
            assert set(g) >= {"score", "turns", "verdicts", "moves", "move_time", "info"}


def test_depth_is_collected_where_a_bot_reports_it() -> None:
    result = run_duel(f"py:{BOTS}:DeepBot", "builtin:random", ARENA, games=4, workers=1)
    deep, rand = result.bots
    assert deep.name == "Deep" and deep.depth == pytest.approx(7.5)
    assert deep.info_games["depth"] == 4 and deep.info_mean("moves") is not None
    assert rand.depth is None
    assert result.to_dict()["a"]["reported"]["depth"] == pytest.approx(7.5)


def test_crashes_and_timeouts_lose_and_are_counted() -> None:
    crash = run_duel(f"py:{BOTS}:CrashBot", "builtin:wallhugger", ARENA, games=4, workers=1)
    bot = crash.bots[0]
    assert bot.verdicts == {"crashed": 4} and "boom" in bot.verdict_examples["crashed"]
    assert crash.trinomial.wins == 0
    slow = run_duel(
        f"py:{BOTS}:SlowBot",
        "builtin:wallhugger",
        ARENA,
        games=2,
        workers=1,
        control=TimeControl(move=0.05, first_move=1.0),
    )
    assert slow.bots[0].verdicts == {"timeout": 2} and slow.trinomial.losses == 2
    assert slow.bots[1].verdicts == {}


def test_two_worker_processes_give_the_same_results() -> None:
    pool = "arena-10,ring,random:2"
    inline = run_duel("builtin:chaser", "builtin:wallhugger", pool, games=8, seed=3, workers=1)
    parallel = run_duel("builtin:chaser", "builtin:wallhugger", pool, games=8, seed=3, workers=2)
    assert parallel.workers == 2
    assert [(p.index, p.map, p.points) for p in parallel.pairs] == [
        (p.index, p.map, p.points) for p in inline.pairs
    ]
    assert [g.turns for p in parallel.pairs for g in p.games] == [
        g.turns for p in inline.pairs for g in p.games
    ]


def test_an_executor_can_be_passed_in_and_is_left_running() -> None:
    with ThreadPoolExecutor(max_workers=2) as executor:
        result = run_duel(
            "builtin:random", "builtin:chaser", ARENA, games=4, workers=2, executor=executor
        )
        assert len(result.pairs) == 2
        assert executor.submit(sum, [1, 2]).result() == 3


def test_a_bot_against_itself_gets_two_names() -> None:
    result = run_duel("builtin:random", "builtin:random", ARENA, games=4, workers=1)
    assert result.games == 4 and result.pairs_planned == 2
    assert [b.name for b in result.bots] == ["Random", "Random 2"]


def test_an_odd_game_count_is_refused_not_rounded() -> None:
    """Pairs are the unit: 3 games used to play 4 without a word."""
    with pytest.raises(ValueError, match="even number of games, got 3"):
        run_duel("builtin:random", "builtin:chaser", ARENA, games=3, workers=1)


def test_bad_duels_fail_before_any_game() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        run_duel("builtin:random", "builtin:chaser", ARENA, games=0, workers=1)
    with pytest.raises(MapError, match="no maps"):
        run_duel("builtin:random", "builtin:chaser", [], games=2, workers=1)
    with pytest.raises(MapError, match="torus-20"):
        run_duel(
            "builtin:random",
            "builtin:chaser",
            [get_map("torus-20")],
            games=2,
            ruleset=get_ruleset("classic"),
            workers=1,
        )


# -- the map pool ----------------------------------------------------------------------


def test_builtin_means_two_player_grid_maps_with_one_cycle_each() -> None:
    names = {m.name for m in builtin_pool()}
    assert {"arena-10", "ring", "chambers", "torus-20", "open-random"} <= names
    assert not names & {"court", "court-small", "cube", "ffa4", "ffa3"}


def test_random_items_derive_from_the_duel_seed() -> None:
    a = parse_pool("random:3", seed=1)
    assert [m.name for m in a] == [f"random-{s}" for s in random_seeds(1, 3)]
    assert [m.id for m in parse_pool("random:3", seed=1)] == [m.id for m in a]
    assert {m.id for m in parse_pool("random:3", seed=2)} != {m.id for m in a}
    one = parse_pool("random-77")
    assert [m.id for m in one] == ["random-77@1"]
    assert len(random_seeds(0, 50)) == len(set(random_seeds(0, 50))) == 50


def test_pool_items_combine_without_duplicates() -> None:
    maps = parse_pool("ring, arena-10,ring,random:2")
    assert [m.id for m in maps][:2] == ["ring@1", "arena-10@1"] and len(maps) == 4
    default = parse_pool("builtin,random:8")
    assert len(default) == len(builtin_pool()) + 8


def test_a_folder_brings_every_map_file_in_it(tmp_path: Path) -> None:
    for name in ("b.txt", "a.map"):
        (tmp_path / name).write_text("5 4\n#####\n#1 2#\n#   #\n#####\n")
    (tmp_path / "notes.md").write_text("not a map")
    assert [m.name for m in parse_pool(str(tmp_path))] == ["a", "b"]
    (tmp_path / "c.txt").write_text("3 3\n###\n")
    with pytest.raises(ValueError, match=r"c\.txt:3: expected 3 map rows"):
        parse_pool(str(tmp_path))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(MapError, match=r"a folder with no \.map or \.txt file; put map files"):
        parse_pool(str(empty))


def test_builtin_skips_what_the_bots_cannot_play_but_a_named_map_is_an_error() -> None:
    tron = parse_bot_spec("cmd:./bot", "tron2010")

    def check(m):  # type: ignore[no-untyped-def]
        return playable(m, None, [tron])

    names = {m.name for m in parse_pool("builtin", playable=check)}
    assert "torus-20" not in names and "ring" in names
    with pytest.raises(MapError, match="cannot duel on torus-20@1"):
        parse_pool("torus-20", playable=check)


@pytest.mark.parametrize(
    ("pool", "message"),
    [
        ("ring,nomap", "bad map pool item 'nomap': unknown map"),
        ("random:0", "bad map pool item 'random:0': random:N needs a count N >= 1"),
        ("random:x", "bad map pool item 'random:x'"),
        (" , ", "empty map pool"),
        ("missing/file.map", "bad map pool item 'missing/file.map': no map file"),
    ],
)
def test_pool_errors_name_the_item_and_what_is_accepted(pool: str, message: str) -> None:
    with pytest.raises(MapError, match=message) as info:
        parse_pool(pool)
    if "empty" not in message and "random:" not in message:
        assert "builtin" in str(info.value) and "random:N" in str(info.value)


def test_a_worker_keeps_one_copy_of_each_map() -> None:
    """Tables are cached per board object: a copy per pair would rebuild them every pair."""
    ring = get_map("ring")
    first = kept_map(pickle.loads(pickle.dumps(ring)))
    assert kept_map(pickle.loads(pickle.dumps(ring))) is first
    assert kept_map(get_map("arena-10")) is not first
