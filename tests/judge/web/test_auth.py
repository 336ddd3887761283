"""The cookie-signing key file and the CSRF and sign-up checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.judge.web.auth import (
    KeyFileError,
    check_email,
    check_password,
    csrf_ok,
    csrf_token,
    load_secret_key,
    log_in,
)


def test_key_file_is_made_0600_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "judge.secret"
    key = load_secret_key(path)
    assert len(key) == 32 and path.stat().st_mode & 0o777 == 0o600
    assert load_secret_key(path) == key


def test_a_readable_key_file_is_made_0600(tmp_path: Path) -> None:
    path = tmp_path / "judge.secret"
    path.write_bytes(b"x" * 32)
    path.chmod(0o644)
    assert load_secret_key(path) == b"x" * 32
    assert path.stat().st_mode & 0o777 == 0o600


def test_bad_key_files_are_one_line(tmp_path: Path) -> None:
    short = tmp_path / "short.secret"
    short.write_bytes(b"abc")
    with pytest.raises(KeyFileError, match="holds 3 bytes: delete it"):
        load_secret_key(short)
    with pytest.raises(KeyFileError, match="cannot make the key file"):
        load_secret_key(tmp_path / "no-such-folder" / "judge.secret")


def test_csrf_tokens() -> None:
    session: dict[str, object] = {}
    token = csrf_token(session)
    assert csrf_token(session) == token and csrf_ok(session, token)
    assert not csrf_ok(session, token + "x") and not csrf_ok(session, None)
    assert not csrf_ok({}, "") and not csrf_ok({"csrf": ""}, "")
    log_in(session, 7)
    assert session["user_id"] == 7 and not csrf_ok(session, token)


def test_sign_up_checks() -> None:
    assert check_email("jane@example.edu") is None
    for bad in ("jane", "jane@", "@example.edu", "a b@example.edu", "jane@localhost"):
        assert check_email(bad), bad
    for fine in ("j.doe+tron@cs.uni-x.ac.uk", "o'brien@example.ie", "x@xn--bcher-kva.ch"):
        assert check_email(fine) is None, fine
    # markup, quotes and broken dots are no address, even where the page escapes them
    for bad in ('"><script>alert(1)</script>@x.edu', "a..b@x.edu", ".a@x.edu", "a@-x.edu"):
        assert check_email(bad), bad
    assert check_password("12345678") is None
    assert "at least 8" in (check_password("1234567") or "")
    assert "at most" in (check_password("x" * 2000) or "")
