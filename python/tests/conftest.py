"""Shared set-up of the Python package's tests: the command line to compare with, the bundled
sample and MIT-BIH DS1 (../shared/data/mitdb-ds1, skipped cleanly where it is absent)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample.csv"
DS1 = REPO.parent / "shared" / "data" / "mitdb-ds1"


def cli_path() -> Path:
    return Path(os.environ.get("ECGPIPE_EXE", REPO / "build" / "ecgpipe"))


@pytest.fixture(scope="session")
def cli():
    exe = cli_path()
    if not exe.is_file():
        pytest.fail(f"no ecgpipe executable at {exe} (set ECGPIPE_EXE): the tests compare the package with it")

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([str(exe), "-q", *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"ecgpipe {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
        return r

    return run


def ds1_records(count: int):
    """The first `count` DS1 records' .hea paths (a slice keeps the suite quick), or a skip."""
    wfdb = DS1 / "wfdb"
    if not wfdb.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"MIT-BIH DS1 not at {wfdb}"))]
    return sorted(wfdb.glob("*.hea"))[:count]


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())
