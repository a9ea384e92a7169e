#!/usr/bin/env bash
# Runs a Python test in the environment of scripts/python-env.sh (wfdb-python, NeuroKit2):
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
