#!/usr/bin/env bash
# Installs dependencies, builds everything (CUDA code too where nvcc exists)
# and runs every test: host tests, GPU tests (skip without a GPU), the
# example and the find_package(rsh) consumer build; then the host tests under
# ASan + UBSan and each fuzzer for RSH_FUZZ_SECONDS (scripts/sanitize.sh;
# RSH_SANITIZED_TESTS=0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/configure.sh
jobs=$(nproc)
cmake --build "${RSH_BUILD_DIR:-build}" -j"$jobs"
(cd "${RSH_BUILD_DIR:-build}" && ctest --output-on-failure -j"$jobs")
if [ "${RSH_SANITIZED_TESTS:-1}" != 0 ]; then bash scripts/sanitize.sh; fi
