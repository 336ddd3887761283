"""The HTML report: the replay viewer's look, and every game linked to a viewer page."""

from __future__ import annotations

import json
import re
from html import unescape
from importlib import resources
from pathlib import Path

import pytest

from lightcycle.tournament.config import load_config
from lightcycle.tournament.plan import make_plan
from lightcycle.tournament.report import build_report, write_report
from lightcycle.tournament.runner import run_tournament
from lightcycle.tournament.store import Store

TOURNAMENT = """\
name = "pages"
bots = ["builtin:random", "builtin:wallhugger", { spec = "builtin:chaser", name = "Chase <&>" }]
maps = ["arena-10"]
seed = 5
[time]
move = 5.0
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished round robin of six games; its output folder."""
    folder = tmp_path_factory.mktemp("report")
    path = folder / "pages.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    plan = make_plan(load_config(path))
    run_tournament(plan, workers=1)
    return plan.config.out


def _write(out: Path, folder: Path) -> str:
    with Store(f"sqlite:///{out / 'tournament.db'}") as store:
        report = build_report(store)
    write_report(report, folder, out)
    return (folder / "report.html").read_text(encoding="utf-8")


def _game_data(page: Path) -> dict[str, object]:
    """The game a viewer page carries (its ``lc-data`` block)."""
    found = re.search(
        r'<script id="lc-data" type="application/json">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.S,
    )
    assert found is not None, f"{page} is not a viewer page"
    data: dict[str, object] = json.loads(found.group(1))
    return data


def _rows(html: str) -> dict[str, list[str]]:
    """Each game row's links, by match key."""
    rows: dict[str, list[str]] = {}
    for row in re.findall(r"<tr><td class=name>(r\d\d-[^<]+)</td>(.*?)</tr>", html):
        rows[row[0]] = [unescape(h) for h in re.findall(r'href="([^"]+)"', row[1])]
    return rows


def test_each_game_links_to_a_viewer_page_that_holds_that_game(
    played: Path, tmp_path: Path
) -> None:
    html = _write(played, played)
    rows = _rows(html)
    replays = sorted(p.name for p in (played / "replays").glob("*.json"))
    assert len(rows) == len(replays) == 6
    for key, links in rows.items():
        assert links == [f"games/{key}.html", f"replays/{key}.json"], links
        page = played / links[0]
        assert page.is_file()
        data = _game_data(page)
        stored = json.loads((played / links[1]).read_text(encoding="utf-8"))
        assert data["replay"] == stored  # this game, not another one
        assert 'href="../report.html"' in page.read_text(encoding="utf-8")  # and back
    # no server: nothing on the pages is fetched, the viewer page forbids it
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)


def test_written_elsewhere_the_links_still_reach_the_games(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "site" / "week3"
    html = _write(played, folder)
    rows = _rows(html)
    assert len(rows) == 6
    for links in rows.values():
        assert all((folder / link).is_file() for link in links), links
        assert links[0].startswith("games/") and links[1].startswith("../")


def test_the_report_wears_the_viewers_colours(played: Path) -> None:
    html = _write(played, played)
    viewer_css = resources.files("lightcycle.viewer").joinpath("static", "viewer.css")
    variables = re.search(r":root\s*\{[^}]*\}", viewer_css.read_text("utf-8"))
    assert variables is not None and variables.group(0) in html
    assert "var(--bg)" in html and "var(--panel)" in html
    assert 'fill="#161a23"' in html  # the charts sit on the viewer's panel colour
    assert "Chase &lt;&amp;&gt;" in html and "Chase <&>" not in html


def test_a_page_is_made_once_and_a_broken_replay_gets_none(played: Path, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(played, out)
    _write(out, out)
    pages = sorted((out / "games").glob("*.html"))
    assert len(pages) == 6
    before = {p.name: p.stat().st_mtime_ns for p in pages}
    broken = sorted((out / "replays").glob("*.json"))[0]
    broken.write_text(broken.read_text(encoding="utf-8")[:50], encoding="utf-8")
    (out / "games" / f"{broken.stem}.html").unlink()
    html = _write(out, out)
    rows = _rows(html)
    assert rows[broken.stem] == [f"replays/{broken.name}"]  # the file, but no viewer page
    assert not (out / "games" / f"{broken.stem}.html").exists()
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "games").glob("*.html")}
    assert kept == {k: v for k, v in before.items() if k != f"{broken.stem}.html"}


def test_the_charts_count_what_their_axis_counts(played: Path) -> None:
    """A chart's title and its axis say the same unit (a rating changes once a match)."""
    html = _write(played, played)
    assert "Elo after each match" in html and "matches played" in html
    assert "after each game" not in html


def test_the_png_charts_wear_the_html_reports_colours(played: Path) -> None:
    """An entrant's line has one colour in the HTML page and in the PNGs beside it."""
    pytest.importorskip("PIL")
    from PIL import Image

    from lightcycle.tournament.plot import DARK, DARK_PALETTE

    html = _write(played, played)
    for colour in DARK_PALETTE[:2]:  # two ranked entrants at least
        assert f'stroke="{colour}"' in html
    with Image.open(played / "elo.png") as img:
        rgb = img.convert("RGB")
        colours = {c for _, c in rgb.getcolors(maxcolors=1 << 16) or []}
    hexes = {"#{:02x}{:02x}{:02x}".format(*c) for c in colours}
    assert DARK.background in hexes
    assert {c.lower() for c in DARK_PALETTE[:2]} <= hexes
