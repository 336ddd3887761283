"""Helpers shared by the parser tests: vector files and text mutation for fuzzing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st


def read_vector(path: Path) -> tuple[dict[str, str], str]:
    """A vector file: ``key: value`` lines (``#`` comments), ``---``, then the input text."""
    head, _, text = path.read_text(encoding="utf-8").partition("---\n")
    fields: dict[str, str] = {}
    for line in head.splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    return fields, text


def mutate(text: str, data: st.DataObject, chars: str) -> str:
    """Insert, delete or replace 1-4 characters of ``text`` at drawn places."""
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = data.draw(st.sampled_from(chars))
        if op == "insert":
            text = text[:i] + ch + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + ch + text[i + 1 :]
    return text


def assert_error_matches(err: object, fields: dict[str, str]) -> None:
    """Check a `FormatError` against a vector's ``source/line/column/expected/found``."""
    assert err.source == fields["source"]
    assert err.line == int(fields["line"])
    column = fields["column"]
    assert err.column == (None if column == "none" else int(column))
    assert err.expected == fields["expected"]
    if "found" in fields:
        assert err.found == fields["found"]
