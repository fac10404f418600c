#!/usr/bin/env bash
# Builds the GPU tests and the benchmark here and stages what the GPU machine
# needs into .device/ (git-ignored; name it in the device tool's `carry`):
#   .device/bin       rsh_cuda_tests, rsh_spmm_benchmark, rsh_reorder_benchmark
#   .device/lib       shared libraries the GPU machine lacks (found via $ORIGIN/../lib)
#   .device/matrices  the shared matrices (optional: pass a MANIFEST path filter)
# Usage: scripts/stage_device.sh [matrix-path-regex]   (default: all of ../shared/matrices)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RSH_BUILD_DIR:-build}
cmake -S . -B "$build" -DRSH_ENABLE_CUDA=ON -DRSH_ENABLE_PERF_TESTS=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target rsh_cuda_tests rsh_spmm_benchmark rsh_reorder_benchmark
rm -rf .device && mkdir -p .device/bin .device/lib .device/matrices
cp "$build"/unit_tests/rsh_cuda_tests "$build"/perf_tests/rsh_spmm_benchmark "$build"/perf_tests/rsh_reorder_benchmark \
  .device/bin/
for lib in libtrilinos_kokkoscore.so.13.2 libbenchmark.so.1debian; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" .device/lib/
done
shared=../shared/matrices
if [ -d "$shared" ]; then
  filter=${1:-.}
  head -1 "$shared/MANIFEST.tsv" > .device/matrices/MANIFEST.tsv
  tail -n +2 "$shared/MANIFEST.tsv" | awk -F'\t' -v re="$filter" '$1 ~ re' >> .device/matrices/MANIFEST.tsv
  tail -n +2 .device/matrices/MANIFEST.tsv | cut -f1 | while read -r p; do
    mkdir -p ".device/matrices/$(dirname "$p")" && cp "$shared/$p" ".device/matrices/$p"
  done
fi
du -sh .device
