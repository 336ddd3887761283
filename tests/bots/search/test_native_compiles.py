"""Where numba is installed, the compiled kernels must compile: every compiled-copy test
skips when they are unavailable, so a kernel that stopped compiling would otherwise
leave the suite green."""

from __future__ import annotations

import importlib.util
import os

import pytest

from lightcycle.bots.search import native


@pytest.mark.skipif(
    importlib.util.find_spec("numba") is None, reason="numba (the fast extra) is not installed"
)
@pytest.mark.skipif(
    os.environ.get("LIGHTCYCLE_NATIVE") == "0", reason="LIGHTCYCLE_NATIVE=0 turns it off"
)
def test_the_kernels_compile_where_numba_is_installed() -> None:
    assert native.available(), native.why_not()
