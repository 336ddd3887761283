"""Fixtures of the referee's tests."""

from __future__ import annotations

import pytest

import lightcycle.referee.players as players_mod
from tests.sandbox.survivors import Recorder


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> type[Recorder]:
    """The referee starts every bot process as a `Recorder`, which lists them."""
    Recorder.started = []
    monkeypatch.setattr(players_mod, "BotProcess", Recorder)
    return Recorder
