"""Names and secrets: the name rule, and scrypt hashes that carry their own parameters."""

from __future__ import annotations

import hashlib

import pytest

from lightcycle.server import accounts
from lightcycle.server.accounts import (
    SecretError,
    check_name,
    hash_secret,
    name_key,
    needs_rehash,
    verify_secret,
)

FAST = {"n": 2**10, "r": 8, "p": 1}  # cheap parameters where the cost is not the point


@pytest.mark.parametrize(
    "name",
    ["a", "alice", "Bob_2", "x-y", "A" * 40, "Scheme Test Client", "al ice", "bob:1", "é",
     "(quote)", "O'Brien \"the bot\"", "a/b"],
)  # fmt: skip
def test_good_names_are_any_printable_text(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("", "1-40 printable characters"),
        ("A" * 41, "1-40 printable characters"),
        ("a\n", r"unprintable character U\+000A"),
        ("tab\tsecret", r"unprintable character U\+0009"),
        ("nul\x00", r"unprintable character U\+0000"),
        (" alice", "no space at its start or end"),
        ("alice ", "no space at its start or end"),
        ("builtin:medium", "names the built-in bots"),
        ("BUILTIN:Chaser", "names the built-in bots"),
    ],
)
def test_bad_names_say_the_rule(name: str, says: str) -> None:
    with pytest.raises(SecretError, match=says):
        check_name(name)


def test_names_are_unique_without_regard_to_case() -> None:
    assert name_key("Alice") == name_key("ALICE") == "alice"


def test_a_hash_verifies_its_secret_and_nothing_else() -> None:
    stored = hash_secret("correct horse")
    assert stored.startswith(f"scrypt$n={accounts.N},r={accounts.R},p={accounts.P}$")
    assert "correct horse" not in stored
    assert verify_secret("correct horse", stored)
    for wrong in ("correct horsf", "Correct horse", "", "correct horse "):
        assert not verify_secret(wrong, stored)


def test_every_hash_has_its_own_salt() -> None:
    a, b = hash_secret("same", **FAST), hash_secret("same", **FAST)
    assert a != b and verify_secret("same", a) and verify_secret("same", b)


def test_the_hash_is_scrypt_with_the_stored_parameters() -> None:
    """Computed again with hashlib from the string's own fields: the format is as stated."""
    stored = hash_secret("s3cret", **FAST)
    prefix, params, salt, digest = stored.split("$")
    assert prefix == "scrypt" and params == "n=1024,r=8,p=1"
    raw_salt = accounts._unb64(salt)
    assert len(raw_salt) == 16
    again = hashlib.scrypt(b"s3cret", salt=raw_salt, n=1024, r=8, p=1, dklen=32)
    assert accounts._unb64(digest) == again


def test_old_parameters_still_verify_and_ask_for_a_rehash() -> None:
    old = hash_secret("pw", **FAST)
    assert verify_secret("pw", old)
    assert needs_rehash(old)
    assert not needs_rehash(hash_secret("pw"))


@pytest.mark.parametrize(
    "stored",
    ["", "plain", "scrypt$n=1024$x$y", "scrypt$n=1000,r=8,p=1$AAAA$AAAA", "bcrypt$n=1,r=1,p=1$a$b"],
)
def test_strings_this_module_did_not_write_never_match(stored: str) -> None:
    assert not verify_secret("anything", stored)
    assert needs_rehash(stored)


def test_secrets_must_be_usable() -> None:
    with pytest.raises(SecretError, match="empty secret"):
        hash_secret("")
    with pytest.raises(SecretError, match="longer than"):
        hash_secret("x" * (accounts.MAX_SECRET + 1))
    assert not verify_secret("x" * (accounts.MAX_SECRET + 1), hash_secret("x", **FAST))
