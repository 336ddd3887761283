"""``examples/rl/duel.ipynb`` runs from top to bottom, with a tiny budget.

The notebook is executed as Jupyter would (nbclient, a real ipykernel) in its own folder,
with the environment variables of its parameter cell shrinking the training to a few
hundred turns and the duels to a few games: what is checked is that every cell runs and
that the last one shows the game in the viewer, not how strong the agent gets.
"""

from __future__ import annotations

import pytest

from tests.examples.test_rl_opponents import RL

nbformat = pytest.importorskip("nbformat", reason="needs nbclient: pip install -e '.[dev]'")
nbclient = pytest.importorskip("nbclient", reason="needs nbclient: pip install -e '.[dev]'")
pytest.importorskip("ipykernel", reason="needs ipykernel: pip install -e '.[dev]'")
pytest.importorskip("gymnasium", reason="examples/rl needs the rl extra: pip install -e '.[rl]'")
pytest.importorskip("torch", reason="the notebook trains with PyTorch: pip install -e '.[train]'")

BUDGET = {
    "LIGHTCYCLE_NOTEBOOK_STEPS": "300",
    "LIGHTCYCLE_NOTEBOOK_EVAL_GAMES": "8",
    "LIGHTCYCLE_NOTEBOOK_DUEL_GAMES": "2",
}


def test_notebook_runs_with_a_tiny_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in BUDGET.items():
        monkeypatch.setenv(name, value)  # the kernel inherits this process's environment
    notebook = nbformat.read(RL / "duel.ipynb", as_version=4)
    assert any("parameters" in c.metadata.get("tags", []) for c in notebook.cells)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(RL)}}
    )
    client.execute()
    code = [c for c in notebook.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    outputs = [o for c in code for o in c.outputs]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the curve
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("side-swapped pairs" in h for h in html)  # a duel's table
    assert "<iframe srcdoc=" in html[-1]  # the last game, in the viewer
