#!/usr/bin/env bash
# Builds ecgpipe on a GPU host without network (hospital and cluster nodes often are air-gapped):
#   on a connected Debian/Ubuntu machine:   scripts/offline-deps.sh download   (fills .deps/)
#   copy the checkout (with .deps/) to the GPU host, then:
#                                           scripts/offline-deps.sh build      (unpacks, builds)
# The .deb files are unpacked into a private prefix (DEPS_PREFIX, default /opt/ecgpipe-deps),
# never into /. LibTorch with CUDA comes from the host's PyTorch (or CMAKE_PREFIX_PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS_DIR=${DEBS_DIR:-.deps}
DEPS_PREFIX=${DEPS_PREFIX:-/opt/ecgpipe-deps}
BUILD_DIR=${BUILD_DIR:-build-gpu}
# Header-only or small libraries the build needs beyond the CUDA toolkit and LibTorch.
PACKAGES=(libcli11-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9 libgtest-dev googletest
          libfast-float-dev libfccp-dev nlohmann-json3-dev libedf-dev libedf1
          libcpp-httplib-dev libcpp-httplib0.11 libssl-dev zlib1g-dev libbrotli-dev)

case "${1:-}" in
  download)
    mkdir -p "$DEBS_DIR"
    (cd "$DEBS_DIR" && apt-get download "${PACKAGES[@]}")
    echo "offline-deps: $(ls "$DEBS_DIR" | wc -l) packages in $DEBS_DIR"
    ;;
  wheels)
    # The Python package's build tools and pytest for a GPU host without network
    # (scripts/gpu-check.sh STEPS=python): pure-Python wheels, any CPython 3.
    mkdir -p "$DEBS_DIR/wheels"
    python3 -m pip download -q --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
      -d "$DEBS_DIR/wheels" "scikit-build-core>=0.10" "nanobind>=2.4" pytest
    echo "offline-deps: $(ls "$DEBS_DIR/wheels" | wc -l) wheels in $DEBS_DIR/wheels"
    ;;
  build)
    mkdir -p "$DEPS_PREFIX"
    for f in "$DEBS_DIR"/*.deb; do dpkg -x "$f" "$DEPS_PREFIX"; done
    # cpp-httplib is found through pkg-config: point the unpacked .pc files at the prefix.
    PC_DIR="$DEPS_PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig"
    if [[ -d "$PC_DIR" ]]; then
      sed -i "s|^prefix=/usr\$|prefix=$DEPS_PREFIX/usr|" "$PC_DIR"/*.pc
      export PKG_CONFIG_PATH="$PC_DIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    fi
    TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
    export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DECGPIPE_CUDA=ON \
      -DCMAKE_PREFIX_PATH="${TORCH_PREFIX:+$TORCH_PREFIX;}$DEPS_PREFIX/usr"
    cmake --build "$BUILD_DIR" --parallel "${JOBS:-$(nproc)}"
    # LibTorch's libraries live beside the Python package; the binaries find them via RPATH.
    echo "offline-deps: built $BUILD_DIR/ecgpipe"
    ;;
  *)
    echo "usage: $0 download|wheels|build" >&2
    exit 2
    ;;
esac
