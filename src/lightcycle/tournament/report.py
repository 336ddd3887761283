"""The tournament report: standings, crosstable, ratings, their history, every replay.

Everything comes from the store alone (the stored configuration says the format), so a
report can be made while the tournament runs, from another machine, or years later. The
same `Report` becomes a rich table in the terminal (``lightcycle tournament report``),
plain data for machines (``--json``), an HTML page with the rating history as inline SVG
and links to the replays, and PNG charts.
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from lightcycle.tournament.elimination import format_notes
from lightcycle.tournament.plan import stored_format
from lightcycle.tournament.plot import DARK, DARK_PALETTE, layout, svg, write_png
from lightcycle.tournament.ratings import RatingBook
from lightcycle.tournament.standings import Standing, Tally
from lightcycle.tournament.store import EntrantRow, Store, StoredResult, StoreError


@dataclass
class Report:
    """A tournament as it stands.

    Attributes:
        name: the tournament's name.
        format: its format.
        config: its stored configuration (`TournamentConfig.fingerprint`).
        entrants: every entrant, fillers included, by index.
        standings: the table, best first (fillers left out).
        cross: ``(p, q) -> (points p took from q, games)``.
        elo_history: each ranked entrant's Elo from the start and after every game.
        skill_history: the same for OpenSkill's ``mu - 3 sigma``.
        matches: every finished match, in schedule order.
        scheduled: matches scheduled so far.
        notes: a word per entrant from the format (``out r3``: out in round 3).
    """

    name: str
    format: str
    config: dict[str, Any]
    entrants: list[EntrantRow]
    standings: list[Standing]
    cross: dict[tuple[int, int], tuple[float, int]]
    elo_history: dict[str, list[float]]
    skill_history: dict[str, list[float]]
    matches: list[StoredResult]
    scheduled: int
    notes: dict[int, str]

    @property
    def done(self) -> int:
        """Matches finished."""
        return len(self.matches)


def build_report(store: Store, name: str | None = None) -> Report:
    """Read a tournament's report from the store.

    Args:
        store: the database.
        name: the tournament (``None``: the only one stored).

    Raises:
        StoreError: no such tournament.
    """
    row = store.tournament(name)
    if row is None:
        raise StoreError(
            f"no tournament {name + ' ' if name else ''}in {store.url}: "
            "run `lightcycle tournament run FILE` first"
        )
    config = json.loads(row.config)
    fmt = stored_format(config)
    entrants = store.entrants(row.id)
    names = [e.name for e in entrants]
    fillers = [e.index for e in entrants if e.filler]
    tally = Tally(names, fillers, float(getattr(fmt, "bye_points", 1.0)))
    book = RatingBook()
    ranked = [e.name for e in entrants if not e.filler]
    elo_history = {n: [book.elo_of(n)] for n in ranked}
    skill_history = {n: [book.skill_of(n).ordinal] for n in ranked}
    updates = store.rating_updates(row.id)
    finished = store.results(row.id)
    for sr in finished:
        tally.add(sr.result)
        assert sr.match.result_id is not None
        ups = updates.get(sr.match.result_id, [])
        if not ups:
            continue
        book.apply(ups)
        for n in ranked:
            elo_history[n].append(book.elo_of(n))
            skill_history[n].append(book.skill_of(n).ordinal)
    results = {sr.match.key: sr.result.ranks for sr in finished}
    ranking = fmt.ranking(results)
    notes = format_notes(fmt, results)
    return Report(
        name=row.name,
        format=row.format,
        config=config,
        entrants=entrants,
        standings=tally.standings(book, ranking),
        cross=tally.crosstable(),
        elo_history=elo_history,
        skill_history=skill_history,
        matches=finished,
        scheduled=len(store.matches(row.id)),
        notes=notes,
    )


def _round(x: float, digits: int = 3) -> float:
    return round(x, digits)


def report_dict(report: Report) -> dict[str, Any]:
    """Plain, strictly valid JSON data (``lightcycle tournament report --json``)."""
    names = {e.index: e.name for e in report.entrants}
    ranked = [s.entrant for s in report.standings]
    return {
        "name": report.name,
        "format": report.format,
        "config": report.config,
        "matches_done": report.done,
        "matches_scheduled": report.scheduled,
        "standings": [
            {
                "place": s.place,
                "name": s.name,
                "spec": report.entrants[s.entrant].spec,
                "games": s.line.games,
                "wins": s.line.wins,
                "draws": s.line.draws,
                "losses": s.line.losses,
                "forfeit_wins": s.line.forfeit_wins,
                "forfeit_losses": s.line.forfeit_losses,
                "byes": s.line.byes,
                "points": s.line.points,
                "possible": s.line.possible,
                "percent": _round(s.line.percent, 4),
                "places": {str(k): v for k, v in sorted(s.line.places.items())},
                "mean_place": None if s.line.mean_place is None else _round(s.line.mean_place),
                "score": s.line.score,
                "buchholz": s.buchholz,
                "verdicts": dict(sorted(s.line.verdicts.items())),
                "elo": s.elo,
                "openskill": {"mu": s.mu, "sigma": s.sigma, "ordinal": s.ordinal},
                "note": report.notes.get(s.entrant),
            }
            for s in report.standings
        ],
        "crosstable": {
            "names": [names[p] for p in ranked],
            "points": [
                [None if (p, q) not in report.cross else report.cross[(p, q)][0] for q in ranked]
                for p in ranked
            ],
            "games": [
                [None if (p, q) not in report.cross else report.cross[(p, q)][1] for q in ranked]
                for p in ranked
            ],
        },
        "history": {"elo": report.elo_history, "openskill_ordinal": report.skill_history},
        "matches": [
            {
                "key": sr.match.key,
                "seq": sr.match.seq,
                "round": sr.match.round,
                "label": sr.match.label,
                "map": sr.match.map,
                "seed": sr.match.seed,
                "seats": [names[s.entrant] for s in sr.result.seats],
                "ranks": list(sr.result.ranks),
                "scores": [s.score for s in sr.result.seats],
                "verdicts": [s.verdict for s in sr.result.seats],
                "reason": sr.result.reason,
                "turns": sr.result.turns,
                "replay": sr.result.replay,
            }
            for sr in report.matches
        ],
    }


_VIEWER_CSS_VARIABLES = re.compile(r":root\s*\{[^}]*\}")

_CSS = """
html, body { height: auto; }
body { display: block; }
header { position: sticky; top: 0; background: var(--bg); z-index: 1; }
.page { padding: 4px 18px 28px; max-width: 1400px; }
h2 { font-size: 15px; font-weight: 600; margin: 26px 0 6px; color: var(--text); }
p.dim, .dim { color: var(--dim); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
table.lc { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums;
  background: var(--panel); border: 1px solid #262b36; }
table.lc th { color: var(--dim); font-weight: 500; padding: 4px 9px; text-align: right;
  border-bottom: 1px solid #262b36; white-space: nowrap; }
table.lc td { padding: 3px 9px; border-top: 1px solid #232837; text-align: right;
  white-space: nowrap; }
table.lc .name { text-align: left; }
table.lc tr:hover td { background: #1c2130; }
table.lc td.self { background: #232837; }
table.lc td.first { color: var(--accent); font-weight: 600; }
.verdict { color: #f87171; }
.wrap { overflow-x: auto; }
svg { max-width: 100%; height: auto; border: 1px solid #262b36; margin: 8px 0; }
"""
"""The report's own rules, on top of the viewer's colours (`_style`): the same dark page,
accent and panel, laid out as a document instead of the viewer's full-window board."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"
"""The report fetches nothing: its style is inline and its charts are inline SVG."""

GAMES = "games"
"""The folder, beside report.html, of one viewer page per game (`write_game_pages`)."""


def _style() -> str:
    """The viewer's colour variables (``viewer/static/viewer.css``) and the report's rules.

    Read from the viewer's stylesheet, so a report and the games it links to share one
    palette, and a change of the viewer's colours changes the report's.
    """
    css = resources.files("lightcycle.viewer").joinpath("static", "viewer.css")
    found = _VIEWER_CSS_VARIABLES.search(css.read_text("utf-8"))
    variables = found.group(0) if found else ""
    base = (
        "* { box-sizing: border-box; }\n"
        "body { margin: 0; background: var(--bg); color: var(--text); "
        'font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }\n'
        "header { display: flex; align-items: baseline; gap: 1em; padding: 8px 18px; "
        "border-bottom: 1px solid #262b36; flex-wrap: wrap; }\n"
        "header h1 { font-size: 16px; margin: 0; font-weight: 600; }\n"
    )
    return f"{variables}\n{base}{_CSS}"


def game_page(key: str) -> str:
    """The viewer page of match ``key``, relative to the report's folder."""
    return f"{GAMES}/{key}.html"


def report_html(report: Report, replays: str = "", pages: set[str] | None = None) -> str:
    """A self-contained HTML page: tables, rating history as inline SVG, links to games.

    The page looks like the replay viewer (its colours, read from its stylesheet) and
    links each game to its viewer page (`game_page`, written by `write_game_pages`) and
    to its replay file.

    Args:
        report: the report.
        replays: the output folder as seen from the page's folder (``""``: the same), so
            the links to the replays work wherever the page is written.
        pages: the keys of the matches that have a viewer page (``None``: every match
            with a replay).
    """
    e = html.escape
    names = {x.index: x.name for x in report.entrants}
    ranked = [s.entrant for s in report.standings]
    summary = f"{report.format} · {report.done} of {report.scheduled} matches finished"
    if report.scheduled and report.done == report.scheduled:
        summary = f"{report.format} · {report.done} matches, all finished"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="lightcycle">',
        f"<title>{e(report.name)}: tournament report</title>",
        f"<style>{_style()}</style></head><body>",
        f'<header><h1>{e(report.name)}</h1><span class="dim">{e(summary)}</span></header>',
        '<div class="page">',
        "<h2>Standings</h2>",
        '<div class="wrap"><table class="lc"><tr><th>#</th><th class=name>bot</th>'
        "<th>games</th><th>W</th><th>D</th><th>L</th><th>FW</th><th>FL</th><th>points</th>"
        "<th>%</th><th>Elo</th><th>OpenSkill (μ − 3σ)</th><th class=name>note</th></tr>",
    ]
    for s in report.standings:
        line = s.line
        first = " first" if s.place == 1 else ""
        out.append(
            f"<tr><td>{s.place}</td><td class='name{first}'>{e(s.name)}</td>"
            f"<td>{line.games}</td><td>{line.wins}</td><td>{line.draws}</td>"
            f"<td>{line.losses}</td><td>{line.forfeit_wins}</td><td>{line.forfeit_losses}</td>"
            f"<td>{line.points:g}</td><td>{100 * line.percent:.1f}</td>"
            f"<td>{s.elo:.1f}</td><td>{s.ordinal:.2f}</td>"
            f"<td class=name>{e(report.notes.get(s.entrant, ''))}</td></tr>"
        )
    out.append("</table></div>")
    out.append(
        '<p class="dim">points: 1 per rival finished ahead of, ½ per tie; FW/FL: wins and '
        "losses by forfeit; OpenSkill ranks by the conservative μ − 3σ.</p>"
    )
    out.append("<h2>Crosstable</h2>")
    out.append('<p class="dim">Points the row took from the column, of games played.</p>')
    out.append('<div class="wrap"><table class="lc"><tr><th class=name></th>')
    out += [f"<th>{e(names[q])}</th>" for q in ranked]
    out.append("</tr>")
    for p in ranked:
        out.append(f"<tr><td class=name>{e(names[p])}</td>")
        for q in ranked:
            if p == q:
                out.append("<td class=self></td>")
            elif (p, q) in report.cross:
                pts, games = report.cross[(p, q)]
                out.append(f"<td>{pts:g}/{games}</td>")
            else:
                out.append("<td></td>")
        out.append("</tr>")
    out.append("</table></div>")
    out.append('<h2>Ratings</h2><div class="wrap"><table class="lc">')
    out.append("<tr><th class=name>bot</th><th>Elo</th><th>μ</th><th>σ</th><th>μ − 3σ</th></tr>")
    for s in sorted(report.standings, key=lambda r: -r.elo):
        out.append(
            f"<tr><td class=name>{e(s.name)}</td><td>{s.elo:.1f}</td><td>{s.mu:.2f}</td>"
            f"<td>{s.sigma:.2f}</td><td>{s.ordinal:.2f}</td></tr>"
        )
    out.append("</table></div>")
    for series, title in (
        (report.elo_history, "Elo after each match"),
        (report.skill_history, "OpenSkill (mu - 3 sigma) after each match"),
    ):
        out.append("<div>" + svg(layout(series, title, colours=DARK_PALETTE), DARK) + "</div>")
    out.append("<h2>Games</h2>")
    out.append(
        '<p class="dim">watch: the game in the replay viewer (it opens from disk, no server '
        "needed); replay: the file <code>lightcycle replay</code> plays.</p>"
    )
    out.append('<div class="wrap"><table class="lc"><tr><th class=name>match</th>')
    out.append("<th class=name>map</th><th class=name>places</th><th class=name>end</th>")
    out.append("<th>turns</th><th class=name>game</th></tr>")
    for sr in report.matches:
        seats = ", ".join(
            (f"<b>{e(names[s.entrant])}</b>" if s.rank == 1 else e(names[s.entrant]))
            + f" {s.rank}"
            + (f" <span class=verdict>({e(s.verdict)})</span>" if s.verdict != "ok" else "")
            for s in sr.result.seats
        )
        links = []
        key = sr.match.key
        if sr.result.replay and (pages is None or key in pages):
            links.append(f'<a href="{e(game_page(key))}">watch</a>')
        if sr.result.replay:
            href = posixpath.join(replays, sr.result.replay) if replays else sr.result.replay
            links.append(f'<a class="dim" href="{e(href)}">replay</a>')
        out.append(
            f"<tr><td class=name>{e(key)}</td><td class=name>{e(sr.match.map)}</td>"
            f"<td class=name>{seats}</td><td class=name>{e(sr.result.reason)}</td>"
            f"<td>{sr.result.turns}</td><td class=name>{' · '.join(links)}</td></tr>"
        )
    out.append("</table></div></div></body></html>")
    return "\n".join(out) + "\n"


def write_game_pages(report: Report, folder: Path, out_dir: Path) -> set[str]:
    """Write each finished game's viewer page into ``folder/games/KEY.html``.

    Each page is the replay viewer's standalone file (`lightcycle.viewer.html.page`, what
    ``lightcycle replay --html`` writes): a browser opens it from disk (``file://``),
    where a page may not fetch a replay beside it, so each game's page carries its game.
    A page newer than its replay is kept as it is, so a report rewritten during a
    tournament re-simulates only the new games. A replay that cannot be read (missing,
    corrupt) gets no page; its row still links the file.

    Args:
        report: the report.
        folder: the report's folder.
        out_dir: the tournament's output folder (the replays' paths are relative to it).

    Returns:
        The keys of the matches that have a page.
    """
    from lightcycle.replay.convert import read_file
    from lightcycle.viewer.data import viewer_data
    from lightcycle.viewer.html import page

    done: set[str] = set()
    for sr in report.matches:
        if not sr.result.replay:
            continue
        source = out_dir / sr.result.replay
        target = folder / game_page(sr.match.key)
        try:
            if target.is_file() and target.stat().st_mtime >= source.stat().st_mtime:
                done.add(sr.match.key)
                continue
            replay = read_file(source)
            data = viewer_data(replay, list(replay.states()))
            data["title"] = f"{report.name} {sr.match.key}: {data['title']}"
            text = page(data, back_link="../report.html")
        except (OSError, ValueError):  # a missing or corrupt replay: no page, not no report
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
        done.add(sr.match.key)
    return done


def write_report(report: Report, folder: Path, out_dir: Path | None = None) -> list[Path]:
    """Write ``report.html``, ``report.json``, ``elo.png``, ``openskill.png`` and a viewer
    page per game (``games/KEY.html``) into ``folder``.

    Args:
        report: the report.
        folder: where to write.
        out_dir: the tournament's output folder (where the replays are), if not ``folder``.

    Returns:
        The files written (the PNGs only if Pillow is installed), then the games folder.
    """
    folder.mkdir(parents=True, exist_ok=True)
    replays = ""
    if out_dir is not None and out_dir.resolve() != folder.resolve():
        replays = Path(os.path.relpath(out_dir.resolve(), folder.resolve())).as_posix()
    pages = write_game_pages(report, folder, out_dir if out_dir is not None else folder)
    written: list[Path] = []
    for name, text in (
        ("report.html", report_html(report, replays, pages)),
        ("report.json", json.dumps(report_dict(report), indent=1, allow_nan=False) + "\n"),
    ):
        path = folder / name
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        written.append(path)
    try:
        for series, title, name in (
            (report.elo_history, "Elo after each match", "elo.png"),
            (report.skill_history, "OpenSkill (mu - 3 sigma) after each match", "openskill.png"),
        ):  # the HTML page's colours, so an entrant has one colour everywhere
            write_png(layout(series, title, colours=DARK_PALETTE), folder / name, DARK)
        written += [folder / "elo.png", folder / "openskill.png"]
    except ModuleNotFoundError:  # pragma: no cover -- Pillow is an optional extra
        pass
    if pages:
        written.append(folder / GAMES)
    return written
