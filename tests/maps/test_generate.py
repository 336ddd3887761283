"""The map generator and the shipped data files agree."""

from __future__ import annotations

from pathlib import Path

from lightcycle.maps.generate import DATA_DIR, main, render_all


def test_data_files_match_the_generator() -> None:
    for filename, text in render_all().items():
        path = DATA_DIR / filename
        assert path.exists(), f"{filename} missing: run python -m lightcycle.maps.generate"
        assert path.read_text(encoding="utf-8") == text, (
            f"{filename} is stale: run python -m lightcycle.maps.generate"
        )


def test_main_writes_then_checks(tmp_path: Path) -> None:
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(render_all())
    assert main(["--check", "--out", str(tmp_path)]) == 0
