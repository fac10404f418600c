#!/usr/bin/env bash
# Builds the GPU tests and the benchmarks here and stages what the GPU machine
# needs into .device/ (git-ignored; name it in the device tool's `carry`):
#   .device/bin.tar.xz  bin/: rsh_cuda_tests, rsh_unit_tests, rsh_spmm_benchmark, rsh_reorder_benchmark,
#                     rsh_host_benchmark (and rsh_kokkos_benchmark and rsh_sddmm_benchmark with a
#                     CUDA-enabled Kokkos), stripped; lib/: shared libraries the GPU machine lacks (found via
#                     $ORIGIN/../lib). Packed: the carried tree is limited to 64 MiB, and scripts/run_gpu.sh
#                     unpacks it.
#   .device/matrices  the shared matrices (optional: pass a MANIFEST path filter)
# With RSH_KOKKOS_ROOT=<prefix of a Kokkos + KokkosKernels built for CUDA, linked statically> the binaries
# are built against it (in build-device/, or $RSH_BUILD_DIR), so that the tests and the benchmark run
# rsh::spmm on Kokkos::Cuda; otherwise against the Kokkos CMake finds (Debian's: host spaces only).
# RSH_DEVICE_DIR stages into another folder than .device (git-ignored as .device*; run_gpu.sh reads the same
# variable), so that two builds travel side by side, e.g. a commit's sanitizer binary beside the head's.
# RSH_STAGE_TARGETS="a b ..." builds and stages only those binaries (a build of every target takes long on a
# small build machine).
# Usage: [RSH_KOKKOS_ROOT=<prefix>] scripts/stage_device.sh [matrix-path-regex]   (default: all of ../shared/matrices)
set -euo pipefail
dev=${RSH_DEVICE_DIR:-.device}
cd "$(dirname "$0")/.."
if [ -n "${RSH_KOKKOS_ROOT:-}" ]; then
  build=${RSH_BUILD_DIR:-build-device}
  cmake -S . -B "$build" -DKokkos_ROOT="$RSH_KOKKOS_ROOT" -DRSH_ENABLE_CUDA=ON -DRSH_ENABLE_PERF_TESTS=ON >/dev/null
else
  build=${RSH_BUILD_DIR:-build}
  cmake -S . -B "$build" -DRSH_ENABLE_CUDA=ON -DRSH_ENABLE_PERF_TESTS=ON >/dev/null
fi
targets=(rsh_cuda_tests rsh_unit_tests rsh_spmm_benchmark rsh_reorder_benchmark rsh_host_benchmark)
[ -n "${RSH_KOKKOS_ROOT:-}" ] && targets+=(rsh_kokkos_benchmark rsh_sddmm_benchmark)
[ -n "${RSH_STAGE_TARGETS:-}" ] && read -r -a targets <<< "$RSH_STAGE_TARGETS"
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
rm -rf "$dev" && mkdir -p "$dev"/bin "$dev"/lib "$dev"/matrices
for t in "${targets[@]}"; do
  cp "$(find "$build" -name "$t" -type f -perm -u+x | head -1)" "$dev"/bin/
done
# Libraries of this machine's packages that the GPU node (Ubuntu 24.04) does not have: Debian's Kokkos,
# Google Benchmark, the OpenMP runtime. libcuda and the CUDA libraries are the node's own.
for bin in "$dev"/bin/*; do
  ldd "$bin" | awk '$3 ~ /^\// && $1 ~ /trilinos|benchmark|gomp/ {print $3}'
done | sort -u | while read -r lib; do cp -L "$lib" "$dev"/lib/; done
strip "$dev"/bin/*
# The Kokkos Tools libraries that time labelled kernels (run_gpu.sh kernel-times) and record the timeline
# (run_gpu.sh timeline).
for tool in kokkos_kernel_times kokkos_timeline; do
  g++ -O2 -shared -fPIC -std=c++17 -o "$dev"/lib/lib$tool.so scripts/$tool.cpp
done
tar -C "$dev" -cJf "$dev"/bin.tar.xz bin lib && rm -rf "$dev"/bin "$dev"/lib
shared=../shared/matrices
if [ -d "$shared" ]; then
  filter=${1:-.}
  head -1 "$shared/MANIFEST.tsv" > "$dev"/matrices/MANIFEST.tsv
  tail -n +2 "$shared/MANIFEST.tsv" | awk -F'\t' -v re="$filter" '$1 ~ re' >> "$dev"/matrices/MANIFEST.tsv
  tail -n +2 "$dev"/matrices/MANIFEST.tsv | cut -f1 | while read -r p; do
    mkdir -p "$dev/matrices/$(dirname "$p")" && cp "$shared/$p" "$dev/matrices/$p"
  done
fi
du -sh "$dev"
