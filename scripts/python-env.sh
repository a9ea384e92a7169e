#!/usr/bin/env bash
# The Python packages some tests compare against (wfdb-python: reading back the WFDB annotation
# files ecgpipe writes; NeuroKit2: heart-rate variability on the same NN series), in a virtual
# environment of their own: build/pyenv (or $1). Pinned versions, so a test's tolerance holds.
# Safe to re-run: with them present pip changes nothing and needs no network. Without network or
# PyPI, the environment is left without them and those tests skip with the reason (exit 0 here).
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_DIR=${1:-build/pyenv}
PACKAGES=(wfdb==4.3.1 neurokit2==0.2.13)
if [[ ! -x $ENV_DIR/bin/python ]]; then
  # --system-site-packages: Debian's numpy (scripts/install-deps.sh) is reused, not downloaded.
  python3 -m venv --system-site-packages "$ENV_DIR"
fi
if ! "$ENV_DIR/bin/python" -m pip install -q --disable-pip-version-check "${PACKAGES[@]}"; then
  echo "python-env: could not install ${PACKAGES[*]} into $ENV_DIR: the tests that need them will skip" >&2
fi
