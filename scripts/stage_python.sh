#!/usr/bin/env bash
# Builds the Python package's wheel for the GPU node's Python (3.12, the node cannot build it: it has no
# Kokkos) and stages it with the GNN graphs into .device-python/ (git-ignored; name it in the device tool's
# `carry`; scripts/run_gpu_python.sh installs and runs it there).
# Usage: RSH_KOKKOS_ROOT=<prefix of a Kokkos built with -fPIC and CUDA> [RSH_PYTHON=python3.12] scripts/stage_python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=${RSH_PYTHON:-python3.12}
rm -rf .device-python && mkdir -p .device-python/matrices
"$python" -m pip wheel . --no-deps -w .device-python -Ccmake.define.Kokkos_ROOT="${RSH_KOKKOS_ROOT:?Kokkos prefix}"
shared=../shared/matrices
[ -d "$shared/gnn" ] && cp "$shared"/gnn/*.mtx.gz .device-python/matrices/
du -sh .device-python
