"""The strength bench's command line: counts are checked before any work starts."""

from __future__ import annotations

import pytest
from bench.strength import main


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["native", "--positions", "0"], "--positions"),
        (["depth", "--positions", "-3"], "--positions"),
        (["endgame", "--regions", "x"], "--regions"),
        (["ladder", "--games", "0"], "--games"),
    ],
)
def test_a_bad_count_is_refused_with_its_name(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "a whole number of at least 1" in err
