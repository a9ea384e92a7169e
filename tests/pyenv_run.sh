#!/usr/bin/env bash
# Runs a Python test in an environment of scripts/python-env.sh (build/pyenv: wfdb-python,
# NeuroKit2; build/pyenv-ecgpipe: the ecgpipe package):
#   pyenv_run.sh ENV_DIR SCRIPT [ARGS...]
# Exit 77 (CTest's SKIP_RETURN_CODE) with the reason when that environment is missing; the script
# itself exits 77 when a package it needs is absent.
set -euo pipefail
env_dir=$1
shift
if [[ ! -x $env_dir/bin/python ]]; then
  echo "SKIP: no Python test environment at $env_dir (scripts/python-env.sh makes it)"
  exit 77
fi
exec "$env_dir/bin/python" "$@"
