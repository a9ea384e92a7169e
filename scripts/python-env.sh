#!/usr/bin/env bash
# The Python environment of the tests: build/pyenv (or $1), a virtual environment of Debian's
# Python (/usr/bin/python3, --system-site-packages: Debian's numpy, pandas, python3-torch,
# pytest, matplotlib and nbclient from scripts/install-deps.sh are reused, not downloaded) with
#  - wfdb-python and NeuroKit2 (pinned, so a test's tolerance holds), which some tests compare with;
#  - the ecgpipe package itself (issue 28): `pip install ./python` with the build tools from
#    PyPI (scikit-build-core, nanobind) and the build kept in build/python (a re-run compiles only
#    what changed).
# Safe to re-run. Without network or PyPI, the environment is left without them: the tests that
# need them skip with the reason (written to $ENV_DIR/ecgpipe-skip-reason for the package's
# tests), and this script exits 0. With PyPI reachable, a failed build of the package fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_DIR=${1:-build/pyenv}
PACKAGES=(wfdb==4.3.1 neurokit2==0.2.13)
BUILD_TOOLS=("scikit-build-core>=0.10" "nanobind>=2.4")
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=python3
if [[ -x $ENV_DIR/bin/python ]] && ! "$ENV_DIR/bin/python" -c 'import sys; sys.exit(sys.base_prefix != "/usr")' 2>/dev/null \
   && [[ $PYTHON == /usr/bin/python3 ]]; then
  echo "python-env: $ENV_DIR was made from another Python than Debian's; making it again" >&2
  rm -rf "$ENV_DIR"
fi
if [[ ! -x $ENV_DIR/bin/python ]]; then
  "$PYTHON" -m venv --system-site-packages "$ENV_DIR"
fi
pip=("$ENV_DIR/bin/python" -m pip install -q --disable-pip-version-check)
if ! "${pip[@]}" "${PACKAGES[@]}"; then
  echo "python-env: could not install ${PACKAGES[*]} into $ENV_DIR: the tests that need them will skip" >&2
fi
rm -f "$ENV_DIR/ecgpipe-skip-reason"
if ! "${pip[@]}" "${BUILD_TOOLS[@]}"; then
  echo "no build tools (${BUILD_TOOLS[*]}) from PyPI: the package could not be built" > "$ENV_DIR/ecgpipe-skip-reason"
  echo "python-env: $(cat "$ENV_DIR/ecgpipe-skip-reason"); its tests will skip" >&2
  exit 0
fi
settings=(--config-settings=build-dir="$PWD/build/python" --config-settings=cmake.define.ECGPIPE_WERROR="${ECGPIPE_WERROR:-ON}")
command -v ccache >/dev/null && settings+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
# No build isolation: the build tools above, and CMake sees the environment's torch (the LibTorch
# the module must share with it).
start=$SECONDS
"${pip[@]}" --no-build-isolation "${settings[@]}" ./python
echo "python-env: the ecgpipe package is installed in $ENV_DIR ($((SECONDS - start)) s)" >&2
