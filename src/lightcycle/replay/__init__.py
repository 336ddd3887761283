"""Replays: what was played, recorded so that it re-simulates exactly."""

from lightcycle.replay.model import CorruptReplayError, Replay, ReplayError

__all__ = ["CorruptReplayError", "Replay", "ReplayError"]
