#!/usr/bin/env bash
# The Python environments of the tests:
#  1. build/pyenv (or $1): wfdb-python and NeuroKit2 (pinned, so a test's tolerance holds), which
#     some tests compare with;
#  2. build/pyenv-ecgpipe (or $2): the ecgpipe package itself (issue 28), `pip install ./python`,
#     in a virtual environment of Debian's Python (/usr/bin/python3, --system-site-packages) that
#     uses Debian's numpy, pandas, python3-torch, pytest, matplotlib and nbclient
#     (scripts/install-deps.sh) and adds only the build tools from PyPI (scikit-build-core,
#     nanobind). Apart from the first because wfdb and NeuroKit2 pull NumPy 2, which Debian's
#     PyTorch 1.13 and matplotlib, built for NumPy 1, cannot import beside. The module is built in
#     the main build folder ($BUILD_DIR, default build) beside the executable: a re-run compiles
#     only what changed.
# Safe to re-run. Without network or PyPI, an environment is left without what it could not get:
# the tests that need it skip with the reason (for the package: written to
# $2/ecgpipe-skip-reason), and this script exits 0. With PyPI reachable, a failed build of the
# package fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_DIR=${1:-build/pyenv}
PKG_ENV_DIR=${2:-build/pyenv-ecgpipe}
PACKAGES=(wfdb==4.3.1 neurokit2==0.2.13)
BUILD_TOOLS=("scikit-build-core>=0.10" "nanobind>=2.4")

if [[ ! -x $ENV_DIR/bin/python ]]; then
  python3 -m venv --system-site-packages "$ENV_DIR"
fi
if ! "$ENV_DIR/bin/python" -m pip install -q --disable-pip-version-check "${PACKAGES[@]}"; then
  echo "python-env: could not install ${PACKAGES[*]} into $ENV_DIR: the tests that need them will skip" >&2
fi

PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=python3
if [[ ! -x $PKG_ENV_DIR/bin/python ]]; then
  "$PYTHON" -m venv --system-site-packages "$PKG_ENV_DIR"
fi
pip=("$PKG_ENV_DIR/bin/python" -m pip install -q --disable-pip-version-check)
rm -f "$PKG_ENV_DIR/ecgpipe-skip-reason"
if ! "${pip[@]}" "${BUILD_TOOLS[@]}"; then
  echo "no build tools (${BUILD_TOOLS[*]}) from PyPI: the package could not be built" > "$PKG_ENV_DIR/ecgpipe-skip-reason"
  echo "python-env: $(cat "$PKG_ENV_DIR/ecgpipe-skip-reason"); its tests will skip" >&2
  exit 0
fi
# Built in the main build folder: the libraries the module links are the ones scripts/build.sh
# compiled (position-independent, src/CMakeLists.txt), so only the module itself is compiled here
# (from a fresh clone this was a second build of the whole library: 8 minutes of CI's 2 cores).
# A configured folder keeps its own settings (warnings, compiler launcher, CUDA architectures):
# nothing that would change its compile commands is passed, and python/pyproject.toml's
# BUILD_TESTING=OFF is replaced by the folder's own value, so that its tests stay.
BUILD_DIR=${BUILD_DIR:-build}
settings=(--config-settings=build-dir="$(realpath -m "$BUILD_DIR")")
if [[ -f $BUILD_DIR/CMakeCache.txt ]]; then
  testing=$(sed -n 's/^BUILD_TESTING:BOOL=//p' "$BUILD_DIR/CMakeCache.txt")
  settings+=(--config-settings=cmake.define.BUILD_TESTING="${testing:-ON}")
  # Its generator too (scikit-build-core would pick Ninja where there is one, and CMake refuses
  # another generator in a configured folder).
  generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")
  [[ -n $generator ]] && export CMAKE_GENERATOR=$generator
else
  settings+=(--config-settings=cmake.define.BUILD_TESTING=ON --config-settings=cmake.define.ECGPIPE_WERROR="${ECGPIPE_WERROR:-ON}")
fi
# No build isolation: the build tools above, and CMake sees the environment's torch (the LibTorch
# the module must share with it).
start=$SECONDS
"${pip[@]}" --no-build-isolation "${settings[@]}" ./python
echo "python-env: the ecgpipe package is installed in $PKG_ENV_DIR ($((SECONDS - start)) s)" >&2
