"""Every broken replay file is refused with one whole sentence naming the file.

The vectors in ``bad_files/`` are a real game's replay with one thing broken each; their
``message`` is the exact error, so a message cut mid-sentence (as Python's own JSON
messages are) or one that forgets the file fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lightcycle.formats.errors import FormatError, json_error
from lightcycle.replay.convert import read_text
from lightcycle.replay.model import ReplayError
from tests.vector_files import read_vector

BAD = Path(__file__).with_name("bad_files")


@pytest.mark.parametrize("path", sorted(BAD.glob("*.txt")), ids=lambda p: p.stem)
def test_bad_files_are_refused_with_the_whole_reason(path: Path) -> None:
    fields, text = read_vector(path)
    with pytest.raises((ReplayError, FormatError)) as info:
        read_text(text, fields["source"])
    message = str(info.value)
    assert message == fields["message"]
    assert message.startswith(fields["source"] + ":")
    assert "expected" in message or "Known:" in message


def test_there_are_bad_files_for_the_reported_cases() -> None:
    names = {p.stem for p in BAD.glob("*.txt")}
    assert {"truncated_json", "bad_map_json", "bad_setting_json", "truncated_jsonl"} <= names


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"a": "xx',
            "1:7: expected the '\"' that closes the string opened here, found end of "
            "file (is the file cut short?)",
        ),
        (
            '{"a": 1',
            "1:8: expected ',' or a closing bracket, found end of file (is the file cut short?)",
        ),
        ('{"a" 1}', "1:6: expected ':' after the property name, found '1}'"),
        ('{"a": 1} x', "1:10: expected nothing more after the JSON value, found 'x'"),
        ("", "1:1: expected a JSON value, found an empty file"),
        ("[1,]", "1:4: expected a JSON value, found ']'"),
    ],
)
def test_json_errors_say_what_was_expected_in_full(text: str, message: str) -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    assert str(json_error("f.json", info.value)) == "f.json:" + message


def test_json_errors_of_one_line_name_the_line() -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads('{"turn": 3, "mo')
    err = json_error("g.jsonl", info.value, line=12)
    assert (err.line, err.column) == (12, 13)
    assert err.found == "end of line (is the file cut short?)"
