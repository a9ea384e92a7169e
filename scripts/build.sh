#!/usr/bin/env bash
# Configures and builds ecgpipe into ${BUILD_DIR:-build}. Extra arguments go to cmake.
# CUDA kernels are built when nvcc is found (CUDA toolkit); the program then runs on the CPU
# unless a GPU and a CUDA-enabled LibTorch are present.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
elif (($#)); then
  cmake -S . -B "$BUILD_DIR" "$@"
fi
cmake --build "$BUILD_DIR" --parallel "${JOBS:-$(nproc)}"
