#!/usr/bin/env bash
# The host tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# libFuzzer harnesses for a bounded time each, in a second build directory
# (build-sanitize, clang, host code only). Any sanitizer report or fuzzer
# finding fails. RSH_FUZZ_SECONDS (default 60) bounds each fuzzer; the new
# inputs it finds go to a scratch folder, not into the committed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${RSH_SANITIZE_BUILD_DIR:-build-sanitize}"
seconds="${RSH_FUZZ_SECONDS:-60}"
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRSH_ENABLE_CUDA=OFF \
  -DRSH_ENABLE_PERF_TESTS=OFF -DRSH_ENABLE_EXAMPLES=OFF -DRSH_ENABLE_FUZZING=ON \
  -DRSH_ENABLE_PYTHON=OFF -DRSH_SANITIZE=address,undefined >/dev/null  # an instrumented module needs an instrumented python
cmake --build "$dir" -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$dir" && ctest --output-on-failure -j"$(nproc)" -E 'find_package_consumer|clang_format')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# -detect_leaks=0 turns off libFuzzer's leak check after each input, not LeakSanitizer's at exit: the CSR
# harness keeps the analysis cache across inputs by design, so allocations outlive an input, each input
# then triggered a full leak scan costlier than the input itself, and a cached analysis is no leak.
for name in matrix_market csr_inspect; do
  mkdir -p "$scratch/$name"
  echo "fuzzing $name for ${seconds}s"
  rc=0
  "$dir/fuzz/rsh_fuzz_$name" -max_total_time="$seconds" -max_len=4096 -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$scratch/" "$scratch/$name" "fuzz/corpus/$name" >"$scratch/$name.log" 2>&1 || rc=$?
  grep -E "^Done|stat::number_of_executed_units" "$scratch/$name.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$scratch/$name.log"
    echo "fuzzer $name failed (exit $rc); the input is in $scratch"
    trap - EXIT
    exit 1
  fi
done
