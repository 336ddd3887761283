"""``python -m lightcycle``: the ``lightcycle`` command, for when the script is not on PATH
(a virtual environment that is not activated, or a Windows shell that cannot find it)."""

from __future__ import annotations

from lightcycle.cli.main import main

if __name__ == "__main__":  # pragma: no cover -- exercised through a subprocess in tests
    main()
