#!/usr/bin/env bash
# Configures build/ (or $RSH_BUILD_DIR) with CUDA when nvcc is found on PATH
# or at /usr/local/cuda. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
# The Python extension and its tests use Debian's python3 (where bootstrap.sh put torch and nanobind), not
# another python3 earlier on PATH.
python=()
[ -x /usr/bin/python3 ] && python=(-DPython_EXECUTABLE=/usr/bin/python3)
cmake -S . -B "${RSH_BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=Release "${python[@]}" "$@"
