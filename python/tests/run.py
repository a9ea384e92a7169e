"""CTest's entry to the package's tests (tests/CMakeLists.txt, PythonPackage):
    python run.py ECGPIPE_EXE [pytest arguments]
Runs pytest on this folder with ECGPIPE_EXE as the command line to compare with. Exit 77 (a skip)
only where scripts/python-env.sh could not build the package for want of its build tools (no
PyPI) and said so; a package that is missing or does not import otherwise fails."""
import os
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
reason = Path(sys.prefix) / "ecgpipe-skip-reason"
if reason.is_file():
    print(f"SKIP: {reason.read_text().strip()} (scripts/python-env.sh)")
    sys.exit(77)
os.environ["ECGPIPE_EXE"] = sys.argv[1]
import pytest  # noqa: E402  (after the skip: pytest is Debian's python3-pytest)

sys.exit(pytest.main([str(here), "-q", "-p", "no:cacheprovider", *sys.argv[2:]]))
