#!/usr/bin/env bash
# Runs on a GPU node from the repository root, over the staged .device/ of
# scripts/stage_device.sh: GPU unit tests (the raw CUDA API, and rsh::spmm on
# Kokkos::Cuda where the staged build has it) and the host tests on the node's
# cores, every GPU test under compute-sanitizer's memcheck, racecheck, initcheck and synccheck, then a
# benchmark subset; or (reorder) the host preprocessing benchmark
# on the node's CPU; or (kokkos) the front-door benchmark against
# KokkosSparse::spmv. Logs and the benchmark JSON go to the folder given as first argument.
# Usage: scripts/run_gpu.sh OUT_DIR [tests|bench|all|reorder] [benchmark args...]
#        scripts/run_gpu.sh OUT_DIR sanitize [TOOL,...]          (default: every tool; <tool>_<shard>.log)
#        scripts/run_gpu.sh OUT_DIR sddmm [benchmark args...]    (rsh_sddmm_benchmark: sddmm.json, and
#                                                             scripts/sddmm_summary.py's table)
#        scripts/run_gpu.sh OUT_DIR sddmm-ab "VARIANTS" [benchmark args...]  (the SDDMM benchmark once per
#                                                             variant, each in its own process:
#                                                             scripts/sddmm_ab.py's table; see below)
#        scripts/run_gpu.sh OUT_DIR kokkos [benchmark args...]   (rsh_kokkos_benchmark: kokkos.json, and
#                                                             scripts/kokkos_summary.py's tables)
#        scripts/run_gpu.sh OUT_DIR kernel-times [benchmark args...]  (rsh_kokkos_benchmark under the Kokkos Tools
#                                                             library of scripts/kokkos_kernel_times.cpp: each
#                                                             Kokkos kernel label's count and total ms, fenced, in
#                                                             kernel_times.txt; for the inspector's phases)
#        scripts/run_gpu.sh OUT_DIR timeline [benchmark args...]  (rsh_kokkos_benchmark under the Kokkos Tools
#                                                             library of scripts/kokkos_timeline.cpp, unfenced:
#                                                             every event in timeline.tsv, and each inspection's
#                                                             time by category in timeline_summary.md)
#        scripts/run_gpu.sh OUT_DIR host [benchmark args...]     (rsh_host_benchmark on the node's cores: host.json,
#                                                             scripts/host_summary.py's table)
#        scripts/run_gpu.sh OUT_DIR suite 1|2 [benchmark args...]   (the default suite at N = 128 with cuSPARSE,
#                                                             in two parts of under 10 minutes: 1 = the shared
#                                                             matrices but the transformer layers, 2 = those and
#                                                             the generated ones; bench_suite<part>*.json)
#        scripts/run_gpu.sh OUT_DIR dense-sweep [benchmark args...]  (rsh alone under DenseBlocks on one layer
#                                                             of each DLMC shape, per precision (RSH_DENSE_PRECS,
#                                                             default "fp16 tf32"), staging and
#                                                             cluster size (0: the planner's), in one call:
#                                                             dense_<prec>_s<stages>_r<round>_c<cluster>.json;
#                                                             compare with scripts/shape_table.py)
#        scripts/run_gpu.sh OUT_DIR profile PREC N MATRIX...   (Nsight Compute: the rsh kernel and cuSPARSE
#                                                             ALG3 on each matrix; one text report per matrix;
#                                                             RSH_PROFILE_ARGS adds benchmark flags, e.g. a partition)
# RSH_BENCH_BIN picks another staged benchmark binary (e.g. a baseline build),
# RSH_BENCH_TAG names its outputs (bench_<tag>.json; default: bench.json).
# RSH_PACK_OUT=1 packs OUT_DIR into OUT_DIR.tar.gz when the run ends (or is stopped by SIGTERM, as `timeout`
# stops it) and removes the folder: the device tool brings back only a few files per call.
set -uo pipefail
out=${1:?output folder}; what=${2:-all}; shift $(( $# >= 2 ? 2 : 1 ))
mkdir -p "$out"
if [[ ${RSH_PACK_OUT:-0} == 1 ]]; then
  pack_out() { [ -d "$out" ] && tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")" && rm -rf "$out"; }
  trap 'pack_out; exit 124' TERM
  trap pack_out EXIT
fi
dev=${RSH_DEVICE_DIR:-.device}  # scripts/stage_device.sh's folder
# A staged folder's binaries unpacked as scripts/stage_device.sh packed them, under a lock: a second run started
# beside this one must not start them while they are being written.
unpack() { flock "$1/bin.tar.xz" sh -c "[ -d $1/bin ] || tar -C $1 -xJf $1/bin.tar.xz"; }
unpack "$dev"
export RSH_MATRIX_DIR=$PWD/$dev/matrices
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
if [[ $what == tests || $what == all ]]; then
  echo "== GPU unit tests"
  $dev/bin/rsh_cuda_tests --gtest_brief=1 2>&1 | tee "$out/gpu_tests.log" | tail -5 || status=1
  echo "== host unit tests ($(nproc) cores)"
  $dev/bin/rsh_unit_tests --gtest_brief=1 2>&1 | tee "$out/host_tests.log" | tail -5 || status=1
fi
if [[ $what == sanitize || $what == all ]]; then
  # Every GPU test under each tool, the binary split into gtest shards: a pool of four shards a GPU runs
  # them, each on GPU (shard mod the node's GPUs), so that a node of several GPUs shares the work and a long
  # shard does not hold up the rest (many more a GPU slow each long test past a call's time limit).
  # RSH_SANITIZER_SHARDS sets the split (default 4), RSH_SANITIZER_FIRST and RSH_SANITIZER_LAST the shards
  # this call runs (default: all), or RSH_SANITIZER_LIST names them ("3 17 40"), so that a slow tool spans
  # several calls; RSH_SANITIZER_TESTS names tests to run one a job instead of shards (below);
  # RSH_SANITIZER_JOBS the shards run at once (default: four a GPU). RSH_SANITIZER_DEADLINE (seconds from
  # the start of the call's sanitizer runs) stops every shard then and starts none after it,
  # RSH_SANITIZER_TIMEOUT (seconds) a shard that runs longer; a stopped shard's log shows how far it got,
  # and the shards to run again are listed ("unfinished shards"). Each tool's logs come back packed in
  # <tool>_logs.tar.gz.
  # The > 2^31-nonzero test is left out unless GTEST_FILTER names it: its kernels are the other tests' at a
  # size the tools would take hours over. RSH_TEST_SANITIZER=1 has every test keep its kernel configurations
  # and leave out what only repeats them (rsh::test::under_sanitizer()).
  # racecheck checks rsh's own CUDA kernels at every severity, in every test; not cuSPARSE's
  # (KokkosSparse::spmv's, which the tests compare with: its csrmv_v3_kernel reports races) nor CUB's.
  # racecheck-cub checks CUB's (the device inspector's radix sorts, the CSR path's scan) with rsh's, at every
  # severity, in the tests that run them over every size class (RSH_SANITIZER_CUB_FILTER): their
  # synchronisation depends on sizes and types, not on the keys, and under racecheck they cost more than rsh's
  # kernels in every public-entry check. rsh's kernels stay instrumented there because with CUB's alone the
  # tool faults an uninstrumented kernel (LongWindowsOfHubRows, at the same check in every launch regime,
  # while memcheck, initcheck and racecheck of both pass it). racecheck-kokkos checks the Kokkos-launched kernels (the inspector's
  # parallel_for / reduce / scan) with rsh's and CUB's, at error severity (Kokkos' own warp-synchronous
  # reductions and scans report warning-level hazards: kokkos/kokkos#4482, #6217), in the tests that launch
  # them on the GPU (RSH_SANITIZER_KOKKOS_FILTER, the public entry's): with Kokkos' kernels alone instrumented
  # the tool faults ("failed to handle a hardware exception") in the first test of most shards, as with CUB's alone.
  tools=racecheck,memcheck,racecheck-kokkos,racecheck-cub,initcheck,synccheck
  cub_filter=${RSH_SANITIZER_CUB_FILTER:-*InspectorOnTheSpaceMatchesTheHostOne*:*LongWindowsOfHubRows*:*HandleFreeRepeatsSeeInPlaceChanges*:CudaSpmmCsr*}
  kokkos_filter=${RSH_SANITIZER_KOKKOS_FILTER:-Cuda/*}
  [[ $what == sanitize && $# -gt 0 ]] && tools=$1 && shift
  shards=${RSH_SANITIZER_SHARDS:-4}
  # RSH_SANITIZER_TESTS="Suite.Test ..." runs each named test as a job of its own instead of shards (tests
  # that take minutes under a tool, which hold up a shard past a call's limit); its logs are <tool>_<i>.log,
  # i the test's position in the list.
  read -r -a alone <<< "${RSH_SANITIZER_TESTS:-}"
  (( ${#alone[@]} > 0 )) && shards=${#alone[@]}
  first=${RSH_SANITIZER_FIRST:-0}; last=${RSH_SANITIZER_LAST:-$((shards - 1))}
  read -r -a shard_list <<< "${RSH_SANITIZER_LIST:-$(seq -s ' ' "$first" "$last")}"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); (( gpus > 0 )) || gpus=1
  export GTEST_FILTER=${GTEST_FILTER:-*-CudaHugeMatrix.*}
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  # One pool over every (tool, shard) job of the call, the tools in the order given (the slowest first fills
  # the cores best), so that no core waits for one tool's last shards while another tool has work.
  tool_flags() {
    case $1 in
      racecheck) echo --tool racecheck --kernel-name-exclude kns=cuda_parallel_launch \
        --kernel-name-exclude kns=cusparse --kernel-name-exclude kns=cub ;;
      racecheck-kokkos) echo --tool racecheck --kernel-name-exclude kns=cusparse --racecheck-detect-level error ;;
      racecheck-cub) echo --tool racecheck --kernel-name-exclude kns=cuda_parallel_launch \
        --kernel-name-exclude kns=cusparse ;;
      *) echo --tool "$1" ;;
    esac
  }
  pairs=()
  for tool in ${tools//,/ }; do
    for s in "${shard_list[@]}"; do pairs+=("$tool:$s"); done
    echo "== compute-sanitizer $tool: ${#shard_list[@]} of $shards rsh_cuda_tests $( (( ${#alone[@]} > 0 )) && echo tests alone || echo shards)" \
      "($sanitizer $(tool_flags "$tool"))"
  done
  jobs=${RSH_SANITIZER_JOBS:-$((4 * gpus))}; (( jobs > ${#pairs[@]} )) && jobs=${#pairs[@]}
  echo "== ${#pairs[@]} jobs, $jobs at once on $gpus GPUs"
  deadline=$(( $(date +%s) + ${RSH_SANITIZER_DEADLINE:-864000} ))
  # Each shard's OpenMP gets its share of the cores (the host tests' spaces would oversubscribe them);
  # every test's line is kept, so that a run cut short shows how far it got.
  run_shard() {  # tool shard
    local left=$(( deadline - $(date +%s) )) limit=${RSH_SANITIZER_TIMEOUT:-0}
    (( limit == 0 || limit > left )) && limit=$left
    local filter=$GTEST_FILTER total=$shards index=$2
    case $1 in racecheck-cub) filter=$cub_filter ;; racecheck-kokkos) filter=$kokkos_filter ;; esac
    (( ${#alone[@]} > 0 )) && filter=${alone[$2]} total=1 index=0
    # shellcheck disable=SC2046  # the flags are words
    RSH_TEST_SANITIZER=1 OMP_NUM_THREADS=$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 )) OMP_PROC_BIND=false \
      CUDA_VISIBLE_DEVICES=$(( $2 % gpus )) GTEST_TOTAL_SHARDS=$total GTEST_SHARD_INDEX=$index GTEST_FILTER=$filter \
      timeout "$limit" "$sanitizer" $(tool_flags "$1") --error-exitcode 3 $dev/bin/rsh_cuda_tests \
      > "$out/$1_$2.log" 2>&1
  }
  running=0
  for pair in "${pairs[@]}"; do
    if (( running == jobs )); then wait -n || status=1; running=$((running - 1)); fi
    (( $(date +%s) < deadline - 5 )) || break
    run_shard "${pair%%:*}" "${pair##*:}" &
    running=$((running + 1))
  done
  while (( running > 0 )); do wait -n || status=1; running=$((running - 1)); done
  for tool in ${tools//,/ }; do
    echo "== compute-sanitizer $tool"
    grep -hE "SUMMARY|FAILED" "$out/${tool}"_[0-9]*.log 2>/dev/null | sort | uniq -c
    echo "tests finished: $(cat "$out/${tool}"_[0-9]*.log 2>/dev/null | grep -cE '^\[ +(OK|FAILED) +\]')"
    unfinished=()
    for s in "${shard_list[@]}"; do
      # Finished: the tests ran to their end and the tool printed its summary (a deadline can stop it between).
      { grep -q '^\[==========\] .* ran\.' "$out/${tool}_$s.log" && grep -q 'SUMMARY' "$out/${tool}_$s.log"; } \
        2>/dev/null || unfinished+=("$s")
    done
    echo "unfinished shards (${#unfinished[@]}): ${unfinished[*]}"
    (( ${#unfinished[@]} == 0 )) || status=1
    logs=$(cd "$out" && ls "${tool}"_[0-9]*.log 2>/dev/null)
    [ -n "$logs" ] && tar -C "$out" -czf "$out/${tool}_logs.tar.gz" $logs && (cd "$out" && rm -f $logs)
  done
fi
if [[ $what == bench || $what == all ]]; then
  echo "== benchmark $*"
  tag=${RSH_BENCH_TAG:+_$RSH_BENCH_TAG}
  $dev/bin/${RSH_BENCH_BIN:-rsh_spmm_benchmark} --benchmark_out="$out/bench$tag.json" --benchmark_out_format=json \
    --benchmark_min_time=0.01 "$@" > "$out/bench$tag.log" 2> "$out/bench$tag.err" || status=1
  tail -3 "$out/bench$tag.err"
  python3 scripts/bench_summary.py "$out/bench$tag.json" | tee "$out/summary$tag.md" | tail -40
fi
if [[ $what == suite ]]; then
  part=${1:?suite part: 1 or 2}; shift
  run_part() {  # tag, benchmark args...
    local tag=$1; shift
    echo "== suite part $part: $tag"
    $dev/bin/rsh_spmm_benchmark --benchmark_out="$out/bench_$tag.json" --benchmark_out_format=json \
      --benchmark_min_time=0.01 --rsh_n=128 "$@" > "$out/bench_$tag.log" 2> "$out/bench_$tag.err" || status=1
    tail -2 "$out/bench_$tag.err"
  }
  if [[ $part == 1 ]]; then
    run_part suite1 '--benchmark_filter=^spmm/([^t]|tolokers)' "$@"
  else
    run_part suite2 '--benchmark_filter=^spmm/transformer' "$@"
    run_part suite2_generated --rsh_suite=generated "$@"
  fi
  python3 scripts/bench_summary.py "$out"/bench_suite*.json | tail -6
fi
if [[ $what == dense-sweep ]]; then
  echo "== DenseBlocks sweep $*"
  for prec in ${RSH_DENSE_PRECS:-fp16 tf32}; do  # e.g. RSH_DENSE_PRECS="fp64"
    case $prec in fp16 | bf16) round=16 ;; fp64) round=4 ;; *) round=8 ;; esac  # rsh::cuda::kDenseRoundSteps
    for staging in "0 0" "1 $round" "2 $round" "1 $((2 * round))"; do  # the planner's, then each by hand
      read -r stages steps <<< "$staging"
      for cluster in $([[ $stages == 0 ]] && echo 0 || echo 0 1 2 4 8); do
        $dev/bin/rsh_spmm_benchmark --rsh_prec=$prec --rsh_n=128 --rsh_partition=dense --rsh_dense_stages=$stages \
          --rsh_dense_round=$steps --rsh_dense_cluster=$cluster --rsh_match=magnitude_pruning/0.7/ \
          --benchmark_filter=/rsh/ --benchmark_min_time=0.01 "$@" \
          --benchmark_out="$out/dense_${prec}_s${stages}_r${steps}_c${cluster}.json" --benchmark_out_format=json \
          > /dev/null 2>> "$out/dense_sweep.err" || status=1
      done
    done
  done
  python3 scripts/shape_table.py "$out"/dense_*_c0.json
fi
if [[ $what == kokkos ]]; then
  echo "== front-door benchmark $*"
  $dev/bin/rsh_kokkos_benchmark --benchmark_out="$out/kokkos.json" --benchmark_out_format=json \
    --benchmark_min_time=0.01 "$@" > "$out/kokkos.log" 2> "$out/kokkos.err" || status=1
  tail -3 "$out/kokkos.err"
  python3 scripts/kokkos_summary.py "$out/kokkos.json" | tee "$out/kokkos_summary.md" | tail -30
fi
if [[ $what == kernel-times ]]; then
  echo "== Kokkos kernel times under rsh_kokkos_benchmark $*"
  KOKKOS_TOOLS_LIBS=$PWD/$dev/lib/libkokkos_kernel_times.so $dev/bin/rsh_kokkos_benchmark \
    --benchmark_out="$out/kernel_times.json" --benchmark_out_format=json --benchmark_min_time=0.01 "$@" \
    > "$out/kernel_times.log" 2> "$out/kernel_times.txt" || status=1
  grep -A25 "^kokkos_kernel_times" "$out/kernel_times.txt"
fi
if [[ $what == timeline ]]; then
  echo "== Kokkos timeline under rsh_kokkos_benchmark $*"
  KOKKOS_TOOLS_LIBS=$PWD/$dev/lib/libkokkos_timeline.so KOKKOS_TIMELINE_OUT=$out/timeline.tsv \
    $dev/bin/rsh_kokkos_benchmark --benchmark_out="$out/timeline.json" --benchmark_out_format=json \
    --benchmark_min_time=0.01 "$@" > "$out/timeline.log" 2>&1 || status=1
  python3 scripts/timeline_summary.py "$out/timeline.tsv" --start "${RSH_TIMELINE_START:-rsh::inspect}" \
    > "$out/timeline_summary.md" || status=1
  gzip -f "$out/timeline.tsv"
  tail -40 "$out/timeline_summary.md"
fi
if [[ $what == sddmm ]]; then
  echo "== SDDMM benchmark $*"
  $dev/bin/rsh_sddmm_benchmark --benchmark_out="$out/sddmm.json" --benchmark_out_format=json \
    --benchmark_min_time=0.01 "$@" > "$out/sddmm.log" 2> "$out/sddmm.err" || status=1
  tail -3 "$out/sddmm.err"
  python3 scripts/sddmm_summary.py "$out/sddmm.json" | tee "$out/sddmm_summary.md" | tail -12
fi
if [[ $what == sddmm-ab ]]; then
  # Variants "name[:VAR=VALUE,...]" (space-separated, one argument), each the SDDMM benchmark in a process of its
  # own, in that order, on the same matrices: an environment switch (e.g. RSH_CUDA_DEPENDENT_LAUNCH=0), or
  # RSH_DEVICE_DIR=<another staged folder>, whose benchmark (another commit's build) runs instead. Alternate
  # them ("a:... b a2:... b2") to see the drift between processes. ab_<name>.json, and scripts/sddmm_ab.py's table.
  variants=${1:?variants}; shift
  files=()
  for v in $variants; do
    name=${v%%:*}; assigns=(); bin_dev=$dev
    [[ $v == *:* ]] && IFS=, read -r -a assigns <<< "${v#*:}"
    for a in "${assigns[@]}"; do [[ $a == RSH_DEVICE_DIR=* ]] && bin_dev=${a#RSH_DEVICE_DIR=}; done
    unpack "$bin_dev"
    echo "== SDDMM variant $name (${assigns[*]:-as staged}) $*"
    env "${assigns[@]}" "$bin_dev"/bin/rsh_sddmm_benchmark --benchmark_out="$out/ab_$name.json" \
      --benchmark_out_format=json --benchmark_min_time=0.01 "$@" > "$out/ab_$name.log" 2> "$out/ab_$name.err" ||
      status=1
    files+=("$out/ab_$name.json")
  done
  python3 scripts/sddmm_ab.py "${files[@]}" | tee "$out/ab_summary.md"
fi
if [[ $what == host ]]; then
  echo "== host benchmark $* ($(nproc) cores)"
  OMP_PROC_BIND=spread OMP_PLACES=threads $dev/bin/rsh_host_benchmark --benchmark_out="$out/host.json" \
    --benchmark_out_format=json "$@" > "$out/host.log" 2> "$out/host.err" || status=1
  tail -2 "$out/host.err"
  python3 scripts/host_summary.py "$out/host.json" | tee "$out/host_summary.md" | tail -8
fi
if [[ $what == reorder ]]; then
  echo "== host reorder benchmark $* ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))"
  $dev/bin/rsh_reorder_benchmark --benchmark_out="$out/reorder.json" --benchmark_out_format=json \
    --benchmark_min_time=0.001 "$@" > "$out/reorder.log" 2>&1 || status=1
  grep -v '^rsh: inspect' "$out/reorder.log" | tail -40
fi
if [[ $what == profile ]]; then
  prec=${1:?precision}; n=${2:?width}; shift 2
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy"
  sections+=" --section LaunchStats --section SchedulerStats --section InstructionStats"
  sections+=" --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables"
  for m in "$@"; do
    report="$out/ncu_$(echo "$m" | tr -c 'A-Za-z0-9_.\n-' '_')_${prec}.txt"
    echo "== ncu $m $prec n=$n -> $report"
    # Warm caches as in the benchmark (format resident, B/C rotated); clocks as found. Stream
    # timing: Nsight Compute serialises launches, so a batch cannot wait behind the launch gate.
    for impl in 'rsh/' 'cusparse_alg3'; do
      "$ncu" --clock-control none --cache-control none --launch-skip 4 --launch-count 2 $sections \
        $dev/bin/rsh_spmm_benchmark --rsh_match="$m" --rsh_prec="$prec" --rsh_n="$n" \
        --benchmark_filter="$impl" --benchmark_min_time=0.001 --rsh_timing=stream ${RSH_PROFILE_ARGS:-} >> "$report" 2>&1 || status=1
    done
    grep -E '^  [a-zA-Z_].*\(|Duration|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per' "$report" | head -30
  done
fi
exit $status
