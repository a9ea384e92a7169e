"""python/examples/quickstart.ipynb runs top to bottom (nbclient, a kernel of this interpreter)."""
import json
import os
import sys
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "quickstart.ipynb"


def test_quickstart_notebook_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="Debian's python3-nbformat (scripts/install-deps.sh)")
    nbclient = pytest.importorskip("nbclient", reason="Debian's python3-nbclient (scripts/install-deps.sh)")
    pytest.importorskip("matplotlib", reason="Debian's python3-matplotlib (scripts/install-deps.sh)")
    pytest.importorskip("ipykernel", reason="Debian's python3-ipykernel (scripts/install-deps.sh)")
    # A kernel of this interpreter (the environment the package is installed in): Debian's own
    # "python3" kernel would start /usr/bin/python3, which does not see the virtual environment.
    spec = tmp_path / "kernels" / "ecgpipe-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "ecgpipe test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="ecgpipe-test",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
