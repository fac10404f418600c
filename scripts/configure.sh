#!/usr/bin/env bash
# Configures build/ (or $RSH_BUILD_DIR) with CUDA when nvcc is found on PATH
# or at /usr/local/cuda. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B "${RSH_BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=Release "$@"
