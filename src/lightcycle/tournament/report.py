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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.tournament.elimination import format_notes
from lightcycle.tournament.plan import stored_format
from lightcycle.tournament.plot import layout, svg, write_png
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


_CSS = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; }
td.name, th.name { text-align: left; }
td.self { background: #eee; }
"""


def report_html(report: Report, replays: str = "") -> str:
    """A self-contained HTML page: tables, rating history as inline SVG, replay links.

    Args:
        report: the report.
        replays: the output folder as seen from the page's folder (``""``: the same), so
            the links to the replays work wherever the page is written.
    """
    e = html.escape
    names = {x.index: x.name for x in report.entrants}
    ranked = [s.entrant for s in report.standings]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(report.name)}: tournament report</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(report.name)}</h1>",
        f"<p>{e(report.format)}; {report.done} of {report.scheduled} matches scheduled so far "
        f"are finished.</p>",
        "<h2>Standings</h2><table><tr><th>#</th><th class=name>bot</th><th>games</th>"
        "<th>W</th><th>D</th><th>L</th><th>FW</th><th>FL</th><th>points</th><th>%</th>"
        "<th>Elo</th><th>OpenSkill (μ − 3σ)</th><th class=name>note</th></tr>",
    ]
    for s in report.standings:
        line = s.line
        out.append(
            f"<tr><td>{s.place}</td><td class=name>{e(s.name)}</td><td>{line.games}</td>"
            f"<td>{line.wins}</td><td>{line.draws}</td><td>{line.losses}</td>"
            f"<td>{line.forfeit_wins}</td><td>{line.forfeit_losses}</td>"
            f"<td>{line.points:g}</td><td>{100 * line.percent:.1f}</td>"
            f"<td>{s.elo:.1f}</td><td>{s.ordinal:.2f}</td>"
            f"<td class=name>{e(report.notes.get(s.entrant, ''))}</td></tr>"
        )
    out.append("</table>")
    out.append("<h2>Crosstable</h2><p>Points the row took from the column, of games played.</p>")
    out.append("<table><tr><th class=name></th>")
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
    out.append("</table>")
    out.append("<h2>Ratings</h2><table><tr><th class=name>bot</th><th>Elo</th>")
    out.append("<th>μ</th><th>σ</th><th>μ − 3σ</th></tr>")
    for s in sorted(report.standings, key=lambda r: -r.elo):
        out.append(
            f"<tr><td class=name>{e(s.name)}</td><td>{s.elo:.1f}</td><td>{s.mu:.2f}</td>"
            f"<td>{s.sigma:.2f}</td><td>{s.ordinal:.2f}</td></tr>"
        )
    out.append("</table>")
    out.append(svg(layout(report.elo_history, "Elo after each game")))
    out.append("<br>")
    out.append(svg(layout(report.skill_history, "OpenSkill (mu - 3 sigma) after each game")))
    out.append("<h2>Matches</h2><table><tr><th class=name>match</th><th class=name>map</th>")
    out.append("<th class=name>places</th><th class=name>end</th><th>turns</th>")
    out.append("<th class=name>replay</th></tr>")
    for sr in report.matches:
        seats = ", ".join(
            f"{e(names[s.entrant])} {s.rank}" + (f" ({e(s.verdict)})" if s.verdict != "ok" else "")
            for s in sr.result.seats
        )
        link = ""
        if sr.result.replay:
            href = posixpath.join(replays, sr.result.replay) if replays else sr.result.replay
            link = f'<a href="{e(href)}">{e(sr.result.replay)}</a>'

        out.append(
            f"<tr><td class=name>{e(sr.match.key)}</td><td class=name>{e(sr.match.map)}</td>"
            f"<td class=name>{seats}</td><td class=name>{e(sr.result.reason)}</td>"
            f"<td>{sr.result.turns}</td><td class=name>{link}</td></tr>"
        )
    out.append("</table></body></html>")
    return "\n".join(out) + "\n"


def write_report(report: Report, folder: Path, out_dir: Path | None = None) -> list[Path]:
    """Write ``report.html``, ``report.json``, ``elo.png`` and ``openskill.png`` into ``folder``.

    Args:
        report: the report.
        folder: where to write.
        out_dir: the tournament's output folder (where the replays are), if not ``folder``.

    Returns:
        The files written (the PNGs only if Pillow is installed).
    """
    folder.mkdir(parents=True, exist_ok=True)
    replays = ""
    if out_dir is not None and out_dir.resolve() != folder.resolve():
        replays = Path(os.path.relpath(out_dir.resolve(), folder.resolve())).as_posix()
    written: list[Path] = []
    for name, text in (
        ("report.html", report_html(report, replays)),
        ("report.json", json.dumps(report_dict(report), indent=1, allow_nan=False) + "\n"),
    ):
        path = folder / name
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        written.append(path)
    try:
        write_png(layout(report.elo_history, "Elo after each game"), folder / "elo.png")
        write_png(
            layout(report.skill_history, "OpenSkill (mu - 3 sigma) after each game"),
            folder / "openskill.png",
        )
        written += [folder / "elo.png", folder / "openskill.png"]
    except ModuleNotFoundError:  # pragma: no cover -- Pillow is an optional extra
        pass
    return written
