"""Rating charts: one layout for SVG and PNG, round ticks, long histories sampled."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from lightcycle.tournament.plot import MAX_POINTS, layout, nice_step, svg, write_png


def test_nice_steps_are_one_two_or_five_times_a_power_of_ten() -> None:
    assert [nice_step(s) for s in (10, 48, 100, 0.3, 7000)] == [2, 10, 20, 0.1, 2000]
    assert nice_step(0) == 1


def test_layout_places_lines_inside_the_frame_with_round_ticks() -> None:
    chart = layout({"a": [2000, 2012, 2030], "b <x>": [2000, 1988, 1970]}, "Elo")
    left, top, right, bottom = chart.plot
    for line in chart.lines:
        assert line.points[0][0] == left and line.points[-1][0] == right
        assert all(top <= y <= bottom for _, y in line.points)
    labels = [label for _, label in chart.y_ticks]
    assert labels[0] == "1960" and labels[-1] == "2040"
    text = svg(chart)
    assert text.startswith("<svg") and text.count("<polyline") == 2
    assert "b &lt;x&gt;" in text and "<x>" not in text  # names are escaped


def test_long_histories_are_sampled_and_flat_ones_still_draw(tmp_path: Path) -> None:
    chart = layout({"a": [float(i % 7) for i in range(5000)], "flat": [25.0] * 5000}, "t")
    assert all(len(line.points) <= MAX_POINTS for line in chart.lines)
    write_png(chart, tmp_path / "c.png")
    with Image.open(tmp_path / "c.png") as img:
        assert img.size == (chart.width, chart.height)
        assert len(img.getcolors(1 << 16) or []) > 3  # lines and text, not a blank image
