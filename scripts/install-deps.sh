#!/usr/bin/env bash
# Installs ecgpipe's build and test dependencies from Debian/Ubuntu packages, only those missing.
# Safe to re-run: with everything present it changes nothing and needs no network.
#   --sanitizers: also clang and its sanitizer/libFuzzer runtimes (scripts/sanitize.sh, fuzz.sh).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libtorch-dev            # LibTorch (CPU build on Debian/Ubuntu): the VAE and the CPU FFT
  libcli11-dev            # command line
  libspdlog-dev libfmt-dev  # logging
  nlohmann-json3-dev      # report.json
  libfast-float-dev       # fast_float: exact decimal -> float
  libfccp-dev             # fast-cpp-csv-parser: the viewer's CSV reader (beats.csv, outliers.csv)
  libedf-dev              # edflib: EDF/EDF+/BDF input
  zlib1g-dev              # zlib: the CRC-32 that guards a model file's tensors
  libgtest-dev            # GoogleTest
  libcpp-httplib-dev      # cpp-httplib: the HTTP server of `ecgpipe view`
  chromium chromium-driver python3-selenium  # the viewer's browser test (headless)
  slurm-wlm munge         # the job-array test: a one-node Slurm on localhost (tests/slurm/array_test.sh)
  python3-numpy           # optional: lets a test compare with the seed's NumPy segmentation
  python3-venv            # scripts/python-env.sh: wfdb-python and NeuroKit2 for the tests that compare with them
  # The Python package (python/, issue 28), built and tested by scripts/python-env.sh: headers, and
  # Debian's numpy/pandas/PyTorch (python3-torch is libtorch-dev's LibTorch: one copy in a process)
  # and what runs its notebook.
  python3-dev python3-pandas python3-torch python3-pytest python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel
)

if [[ ${1:-} == --sanitizers ]]; then
  PACKAGES+=(clang)
  # libFuzzer's and the sanitizers' runtimes: their own package on Debian 12 (clang 14); part of
  # libclang-common on Ubuntu 22.04, which clang already pulls in.
  if apt-cache show libclang-rt-14-dev >/dev/null 2>&1; then PACKAGES+=(libclang-rt-14-dev); fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
