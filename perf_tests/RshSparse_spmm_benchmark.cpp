// rsh vs cuSPARSE SpMM on one GPU in one process (Google Benchmark).
// Names: spmm/<matrix>/<fp16|bf16|fp32|tf32|fp64>/<row|col>/n=<n>/<impl> (fp32: float with FP32-level accuracy,
// the default of rsh::Options; tf32: float with Options::allow_tf32; bf16: __nv_bfloat16, cuSPARSE in BF16; fp64:
// double, cuSPARSE in FP64). Times are device
// times per call (events around a batch of calls), B/C rotated past L2; the time Google Benchmark
// prints is the mean over iterations, counter median_us the median that speedups and
// scripts/bench_summary.py use; preprocessing is reported separately (inspect_ms). Every implementation is verified
// before timing. A's values are scaled into [-1, 1] (FP16 range); B is uniform in [-1, 1].
//
// Extra flags (before Google Benchmark's own):
//   --rsh_matrices, --rsh_suite, --rsh_match: the matrices (bench::SuiteFlags)
//   --rsh_n=LIST         feature widths (default 32,64,128,256)
//   --rsh_prec=LIST      fp16,bf16,fp32,tf32,fp64 (default fp16,tf32)
//   --rsh_row_error      every implementation's counter row_error: the largest over rows of
//                        max_j |C(i,j) - R(i,j)| / max_j (|A| |B|)(i,j), R the product in double of the same
//                        (rounded) operands on the host (the error of a row relative to its magnitude)
//   --rsh_partition=LIST row,tc,cuda,dense,libra,balanced,auto (default: Options' default partition). With more than
//   one,
//                        every partition is timed in the same process against the same cuSPARSE runs, as
//                        rsh:<partition> (rsh:<partition>+<policy> with several reorder policies too).
//   --rsh_reorder=LIST   policies as rsh::reorder_name prints them: None, Locality, CtaAware, ..., or "all"
//                        (default None). With more than one, every policy is timed in the same process
//                        against the same cuSPARSE runs, as rsh:<policy>; with one, as rsh.
//   --rsh_max_tiles=T    Options::tuning.max_tiles_per_item (default: the Options default)
//   --rsh_libra_eta=E    Options::tuning.libra_eta (Partition::kLibra; default: the Options default)
//   --rsh_max_res=R      Options::tuning.max_residual_nnz_per_item (default: the Options default)
//   --rsh_piece_res=LIST Options::tuning.residual_piece_nnz (default: the Options default, chosen per matrix).
//                        With more than one, each is timed in the same process against the same cuSPARSE
//                        runs, as rsh:P<piece> (after the partition and policy names where those vary too).
//   --rsh_k=LIST         warps per Tensor-Core item (1, 2, 4, 8; 0 or default: the planner's choice). With more
//                        than one, each is timed in the same process against the same cuSPARSE runs, as
//                        rsh:K<k> (after the partition and policy names where those are several too).
//   --rsh_res_lanes=LIST lanes per residual item (4, 8, 16, 32; 0 or default: the planner's choice). With more
//                        than one, each is timed in the same process against the same cuSPARSE runs, as
//                        rsh:G<lanes> (after the names of the other lists that vary).
//   --rsh_res_features=V features per residual lane (8; 4 for FP32; 4 or 2 for FP64; default: the planner's choice)
//   --rsh_res_mma=M      residual items on Tensor Cores (FP16, BF16): 2 wherever they apply (default 0, the
//                        planner's choice: CUDA cores)
//   --rsh_staged=M       residual rows in staged ranges: 1 never, 2 wherever they apply (default 0, the planner's
//                        choice)
//   --rsh_tiles=M        residual rows in staged tiles on Tensor Cores (FP16, BF16): 1 never, 2 wherever they
//                        apply (default 0, the planner's choice)
//   --rsh_res_shape=M    residual_kernel's shape (FP16, BF16): 1 latency, 2 throughput (default 0, the planner's
//                        choice)
//   --rsh_dense_cluster=C CTAs of a dense-block cluster (1, 2, 4, 8, 16; default: the planner's choice)
//   --rsh_dense_stages=S rounds of dense blocks staged at once (1, 2; default: the planner's choice)
//   --rsh_dense_round=R  column blocks a dense round stages (16 FP16 / 8 TF32, or twice that; one stage)
//   --rsh_layout=L      row (default) or col: B and C row- or column-major (rsh and cuSPARSE alike)
//   --rsh_col=M          column-major operands: 1 in place, 2 B copied, 3 B and C copied (default: the planner's)
//   --rsh_timing=MODE    gated (default: each batch enqueued behind a LaunchGate, GPU time) or stream
//                        (the batch timed as the host enqueues it: small calls measure the launch rate)
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

#include "RshSparse_benchmark_git_hash.hpp"
#include "RshSparse_benchmark_cuda.hpp"
#include "RshSparse_benchmark_suite.hpp"
#include "RshSparse_benchmark_timing.hpp"
#include "RshSparse_spmm_cusparse.hpp"
#include "cuda/RshSparse_cuda_element.hpp"
#include "cuda/RshSparse_spmm_cuda_format.hpp"
#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/RshSparse_plan_selector_impl.hpp"

namespace {

using namespace rsh;
using cuda::to_double;
using cuda::to_element;

struct Config {
  bench::SuiteFlags suite;
  std::vector<int> widths{32, 64, 128, 256};
  std::vector<std::string> precisions{"fp16", "tf32"};
  Options options;
  std::vector<Reorder> reorders{Reorder::kNone};
  std::vector<Partition> partitions{Options().partition};
  std::vector<int> pieces{Options().tuning.residual_piece_nnz};  ///< --rsh_piece_res's list
  cuda::KernelConfig kernel;  ///< its warps_per_item and residual_lanes are set per benchmark, from the lists below
  std::vector<int> warps_per_item{0};  ///< --rsh_k's list (0: the planner's choice)
  std::vector<int> residual_lanes{0};  ///< --rsh_res_lanes's list (0: the planner's choice)
  bool gated_timing = true;
  bool row_major = true;
  bool row_error = false;
};

/// One reordering policy's inspection of a matrix.
struct Inspected {
  impl::Inspection inspection;
  std::vector<double> slots;
  double seconds = 0;
};

/// What one rsh benchmark of a group runs: a partition, a reordering policy and a residual piece length.
struct Variant {
  Partition partition;
  Reorder reorder;
  int piece_nnz;
  bool operator<(const Variant& o) const {
    return std::tie(partition, reorder, piece_nnz) < std::tie(o.partition, o.reorder, o.piece_nnz);
  }
};

/// The matrix of the group being benchmarked, with its inspections (cached).
struct LoadedMatrix {
  std::string name;
  impl::HostCrs A;
  /// By (variant, impl::Arithmetic, Options::expected_num_vectors): kAuto weighs the multiply's N, as a handle
  /// analysed by its first call does.
  std::map<std::tuple<Variant, int, int>, Inspected> inspected;
};
std::unique_ptr<LoadedMatrix> g_matrix;

/// The inspection of `m` under `options` (its partition, reorder policy, piece length and expected N) for values of
/// `value_bytes` bytes (Partition::kAuto's model depends on them and on options.allow_tf32), made once.
const Inspected& inspected(LoadedMatrix& m, const Options& options, int value_bytes) {
  const auto key = std::make_tuple(Variant{options.partition, options.reorder, options.tuning.residual_piece_nnz},
                                   int(impl::arithmetic_of(value_bytes, options)), options.expected_num_vectors);
  auto it = m.inspected.find(key);
  if (it != m.inspected.end()) return it->second;
  std::cerr << "  " << m.name << ": inspecting (" << partition_name(options.partition) << ", "
            << reorder_name(options.reorder) << ")" << std::flush;
  Inspected x;
  Kokkos::Timer timer;
  Options verbose = options;
  verbose.report_progress = m.A.nnz() >= 10000000;  // seconds of work: show the phases
  x.inspection = impl::inspect(m.A, verbose, "benchmark", value_bytes);
  x.seconds = timer.seconds();
  x.slots = impl::scatter_values(x.inspection.pattern, m.A.values);
  std::cerr << " " << 1e3 * x.seconds << " ms\n";
  return m.inspected.emplace(key, std::move(x)).first->second;
}

LoadedMatrix& load(const bench::MatrixSource& src, int index, int count) {
  if (!g_matrix || g_matrix->name != src.name)
    g_matrix.reset(new LoadedMatrix{src.name, bench::load_matrix(src, index, count, true), {}});
  return *g_matrix;
}

/// Operands of one (matrix, precision, n) group, shared by its benchmarks.
template <class T>
struct Group {
  std::string key;
  std::vector<T> values;
  std::unique_ptr<bench::RotatingOperands<T, T>> operands;
  std::map<Variant, std::unique_ptr<cuda::SpmmPlan<T>>> plans;  ///< per variant, made on first use
  std::vector<T> expected;                                      ///< C from the first cuSPARSE algorithm that runs
  double best_cusparse_seconds = 0;
  std::string best_cusparse;
  std::vector<T> b;                  ///< B row-major, as uploaded
  std::vector<double> exact, scale;  ///< --rsh_row_error: A B and |A| |B| in double, row-major (made on first use)
};
template <class T>
std::unique_ptr<Group<T>> g_group;

template <class T>
Group<T>& group(const LoadedMatrix& m, const std::string& prec, int n, const Config& cfg) {
  const std::string key = m.name + "/" + prec + "/" + std::to_string(n);
  if (g_group<T> && g_group<T>->key == key) return *g_group<T>;
  g_group<T>.reset();
  auto g = std::make_unique<Group<T>>();
  g->key = key;
  for (double v : m.A.values) g->values.push_back(to_element<T>(v));
  std::vector<T> b(size_t(m.A.num_cols) * n);
  uint64_t s = 12345;
  for (T& x : b) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = to_element<T>(double((s >> 33) % 2001) / 1000.0 - 1.0);
  }
  g->operands = std::make_unique<bench::RotatingOperands<T, T>>(b, size_t(m.A.num_rows) * n);
  g->b = std::move(b);
  g_group<T> = std::move(g);
  return *g_group<T>;
}

template <class T>
void set_counters(benchmark::State& state, const LoadedMatrix& m, int n) {
  const double nnz = double(m.A.nnz());
  state.counters["nnz"] = nnz;
  state.counters["m"] = double(m.A.num_rows);
  state.counters["k"] = double(m.A.num_cols);
  state.counters["n"] = n;
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * nnz * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const double bytes = nnz * (4 + sizeof(T)) + 4.0 * (m.A.num_rows + 1) + double(m.A.num_cols) * n * sizeof(T) +
                       double(m.A.num_rows) * n * sizeof(T);
  state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The largest row error of C (the group's layout) against A B in double (see --rsh_row_error).
template <class T>
double row_error(Group<T>& g, const LoadedMatrix& m, const std::vector<T>& C, int n, bool row_major) {
  const int64_t rows = m.A.num_rows;
  if (g.exact.empty()) {
    g.exact.assign(size_t(rows) * n, 0.0), g.scale.assign(size_t(rows) * n, 0.0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = m.A.row_map[i]; k < m.A.row_map[i + 1]; ++k) {
        const double a = to_double(g.values[k]);
        const T* b = g.b.data() + int64_t(m.A.entries[k]) * n;
        for (int j = 0; j < n; ++j) {
          g.exact[i * n + j] += a * to_double(b[j]);
          g.scale[i * n + j] += std::fabs(a * to_double(b[j]));
        }
      }
  }
  double worst = 0;
  for (int64_t i = 0; i < rows; ++i) {
    double err = 0, mag = 0;
    for (int j = 0; j < n; ++j) {
      const double c = to_double(C[row_major ? i * n + j : j * rows + i]);
      err = std::max(err, std::fabs(c - g.exact[i * n + j])), mag = std::max(mag, g.scale[i * n + j]);
    }
    if (mag > 0) worst = std::max(worst, err / mag);
  }
  return worst;
}

/// Tolerance of results between implementations (cuSPARSE algorithms, rsh against cuSPARSE).
inline double agreement(const std::string& prec) {
  return prec == "fp64" ? 1e-10 : prec == "fp32" ? 1e-5 : prec == "tf32" ? 5e-3 : prec == "bf16" ? 5e-2 : 2e-2;
}

/// The timed loop (bench::timed_calls) over the group's rotating B/C copies.
template <class T, class Run>
double timed_loop(benchmark::State& state, Group<T>& g, const Config& cfg, Run&& run) {
  return bench::timed_calls(state, static_cast<int>(g.operands->B.size()), cfg.gated_timing, nullptr,
                            [&](int i) { run(g.operands->B[i].get(), g.operands->C[i].get()); });
}

template <class T>
void bench_cusparse(benchmark::State& state, const bench::MatrixSource& src, const Config& cfg, int index, int count,
                    const std::string& prec, int n, int alg) {
  const LoadedMatrix& m = load(src, index, count);
  Group<T>& g = group<T>(m, prec, n, cfg);
  std::unique_ptr<bench::CusparseSpmm<T>> impl;
  try {
    impl = std::make_unique<bench::CusparseSpmm<T>>(m.A, g.values, n, alg, bench::cusparse_handle(), nullptr,
                                                    cfg.row_major);
    impl->run(g.operands->B[0].get(), g.operands->C[0].get(), nullptr);
    RSH_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const std::vector<T> got = g.operands->C[0].download();
  if (g.expected.empty()) {
    g.expected = got;
  } else if (bench::relative_error(got, g.expected) > (sizeof(T) == 2   ? agreement(prec)
                                                       : sizeof(T) == 4 ? 1e-4
                                                                        : 1e-10)) {
    state.SkipWithError("cuSPARSE algorithms disagree");
    return;
  }
  if (cfg.row_error) state.counters["row_error"] = row_error(g, m, got, n, cfg.row_major);
  const double t = timed_loop(state, g, cfg, [&](const T* B, T* C) { impl->run(B, C, nullptr); });
  if (g.best_cusparse_seconds == 0 || t < g.best_cusparse_seconds) {
    g.best_cusparse_seconds = t;
    g.best_cusparse = impl->name();
  }
  set_counters<T>(state, m, n);
}

template <class T>
void bench_rsh(benchmark::State& state, const bench::MatrixSource& src, const Config& cfg, int index, int count,
               const std::string& prec, int n, Variant variant, const cuda::KernelConfig& kernel) {
  LoadedMatrix& m = load(src, index, count);
  Options options = cfg.options;
  options.partition = variant.partition, options.reorder = variant.reorder;
  options.tuning.residual_piece_nnz = variant.piece_nnz;
  const int64_t dense_slots = impl::DenseBlockLayout::slots(m.A.num_rows, m.A.num_cols);
  if (options.partition == Partition::kDenseBlocks && dense_slots > impl::kDenseModelMaxSlots) {
    // The whole matrix stored dense: beyond what kAuto would ever pick (gigabytes on large matrices).
    state.SkipWithError(("DenseBlocks: " + std::to_string(dense_slots) + " slots, past kDenseModelMaxSlots").c_str());
    return;
  }
  options.allow_tf32 = prec == "tf32";
  // Only kAuto's choices read the N (the partition, and CudaCoreOnly's piece length): the other inspections
  // serve every N.
  const bool piece_chosen = options.partition == Partition::kCudaCoreOnly && options.tuning.residual_piece_nnz == 0;
  if (options.partition == Partition::kAuto || piece_chosen) options.expected_num_vectors = n;
  const Inspected& x = inspected(m, options, sizeof(T));
  Group<T>& g = group<T>(m, prec, n, cfg);
  const cuda::FloatMath math = prec == "tf32" ? cuda::FloatMath::kTf32 : cuda::FloatMath::kFp32;
  auto& plan = g.plans[variant];
  const auto layout = cfg.row_major ? cuda::Layout::kRowMajor : cuda::Layout::kColMajor;
  const int64_t ldb = cfg.row_major ? n : m.A.num_cols, ldc = cfg.row_major ? n : m.A.num_rows;
  auto run = [&](const T* B, T* C) { plan->spmm(1.f, B, ldb, 0.f, C, ldc, n, layout, nullptr); };
  try {
    if (!plan) {  // a KernelConfig this precision lacks is an error of this benchmark, not of the run
      plan = std::make_unique<cuda::SpmmPlan<T>>(impl::host_format(x.inspection.pattern, x.slots), nullptr, math);
    }
    plan->set_config(kernel);  // per benchmark: the plan is shared by every --rsh_k and --rsh_res_lanes
    RSH_CUDA_CHECK(cudaMemset(g.operands->C[0].get(), 0xff, g.operands->C[0].size() * sizeof(T)));  // NaN poison
    run(g.operands->B[0].get(), g.operands->C[0].get());
    RSH_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const std::vector<T> got = g.operands->C[0].download();
  if (!g.expected.empty()) {
    const double err = bench::relative_error(got, g.expected);
    if (err > agreement(prec)) {
      state.SkipWithError(("rsh result differs from cuSPARSE: " + std::to_string(err)).c_str());
      return;
    }
  }
  if (cfg.row_error) state.counters["row_error"] = row_error(g, m, got, n, cfg.row_major);
  const double t = timed_loop(state, g, cfg, run);
  set_counters<T>(state, m, n);
  const impl::FormatStats fs = impl::format_stats(x.inspection.pattern, sizeof(T));
  state.counters["inspect_ms"] = 1e3 * x.seconds;
  state.counters["nnz_per_tile"] = fs.mean_nnz_per_tile;
  state.counters["tc_fraction"] = fs.tile_fraction;
  if (g.best_cusparse_seconds > 0 && t > 0) state.counters["speedup"] = g.best_cusparse_seconds / t;
  // Inputs of Partition::kAuto's model (its Tensor-Core terms describe the
  // pattern at hand: fit them on --rsh_partition=row runs; scripts/fit_partition_model.py).
  const impl::Arithmetic arith = impl::arithmetic_of(sizeof(T), options);
  const impl::PartitionCost pc = impl::partition_cost(m.A, x.inspection.pattern, options, arith);
  state.counters["cta_max_tiles"] = double(pc.cta_max_tiles);
  state.counters["windows"] = double(pc.windows);
  state.counters["residual_nnz"] = double(pc.residual_nnz);
  state.counters["cuda_items"] = double(pc.cuda.items);
  state.counters["cuda_longest"] = double(pc.cuda.longest);
  state.counters["cuda_piece"] = double(pc.cuda.piece_nnz);
  state.counters["cuda_split"] = pc.cuda.split ? 1.0 : 0.0;
  state.counters["dense_slots"] = double(pc.dense_slots);
  const impl::SelectorFeatures features = impl::selector_features(pc, arith);
  for (int f = 0; f < impl::kSelectorFeatures; ++f)
    state.counters[std::string("feature_") + impl::kSelectorFeatureNames[f]] = features[f];
  // The cost models' predicted times, and the partition each selector picks (Partition's enum value).
  state.counters["model_tc_us"] = pc.tensor_core_us(arith, n);
  state.counters["model_cc_us"] = pc.cuda_core_us(arith, n);
  state.counters["model_dense_us"] = std::min(pc.dense_blocks_us(arith, n), 1e9);
  state.counters["pick_cost_model"] = double(int(pc.choose(arith, PlanSelector::kCostModel, n)));
  state.counters["pick_learned"] = double(int(pc.choose(arith, PlanSelector::kLearned, n)));
  state.SetLabel("best cuSPARSE: " + g.best_cusparse + "; reorder: " + reorder_name(x.inspection.reorder) +
                 "; partition: " + partition_name(x.inspection.partition));
}

template <class T>
void register_group(const bench::MatrixSource& src, const Config& cfg, int index, int count, int n,
                    const std::string& prec) {
  const std::string base =
      "spmm/" + src.name + "/" + prec + (cfg.row_major ? "/row" : "/col") + "/n=" + std::to_string(n) + "/";
  for (int alg : {1, 2, 3})
    benchmark::RegisterBenchmark(
        (base + "cusparse_alg" + std::to_string(alg)).c_str(),
        [=](benchmark::State& s) { bench_cusparse<T>(s, src, cfg, index, count, prec, n, alg); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  const bool partitions = cfg.partitions.size() > 1, reorders = cfg.reorders.size() > 1;
  const bool pieces = cfg.pieces.size() > 1, warps = cfg.warps_per_item.size() > 1;
  const bool lanes = cfg.residual_lanes.size() > 1;
  for (Partition p : cfg.partitions)
    for (Reorder r : cfg.reorders)
      for (int piece : cfg.pieces)
        for (int k : cfg.warps_per_item)
          for (int g : cfg.residual_lanes) {
            std::vector<std::string> parts;  // what varies, joined by "+" after "rsh:"
            if (partitions) parts.push_back(partition_name(p));
            if (reorders) parts.push_back(reorder_name(r));
            if (pieces) parts.push_back("P" + std::to_string(piece));
            if (warps) parts.push_back("K" + std::to_string(k));
            if (lanes) parts.push_back("G" + std::to_string(g));
            std::string name = "rsh";
            for (size_t i = 0; i < parts.size(); ++i) name += (i == 0 ? ":" : "+") + parts[i];
            cuda::KernelConfig kernel = cfg.kernel;
            kernel.warps_per_item = k, kernel.residual_lanes = g;
            benchmark::RegisterBenchmark(
                (base + name).c_str(),
                [=](benchmark::State& s) {
                  bench_rsh<T>(s, src, cfg, index, count, prec, n, Variant{p, r, piece}, kernel);
                })
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
          }
}

Config parse_flags(int& argc, char** argv) {
  Config cfg;
  const std::map<std::string, int*> ints = {{"--rsh_max_tiles=", &cfg.options.tuning.max_tiles_per_item},
                                            {"--rsh_max_res=", &cfg.options.tuning.max_residual_nnz_per_item},
                                            {"--rsh_dense_cluster=", &cfg.kernel.dense_cluster},
                                            {"--rsh_dense_stages=", &cfg.kernel.dense_stages},
                                            {"--rsh_dense_round=", &cfg.kernel.dense_round_steps},
                                            {"--rsh_res_features=", &cfg.kernel.residual_lane_features},
                                            {"--rsh_col=", &cfg.kernel.column_major},
                                            {"--rsh_res_mma=", &cfg.kernel.residual_mma},
                                            {"--rsh_staged=", &cfg.kernel.staged_ranges},
                                            {"--rsh_tiles=", &cfg.kernel.staged_tiles},
                                            {"--rsh_res_shape=", &cfg.kernel.residual_shape}};
  const std::map<std::string, Partition> partitions = {
      {"row", Partition::kRowStructured}, {"tc", Partition::kTensorCoreOnly}, {"cuda", Partition::kCudaCoreOnly},
      {"dense", Partition::kDenseBlocks}, {"libra", Partition::kLibra},       {"balanced", Partition::kBalancedBlocks},
      {"auto", Partition::kAuto}};
  bench::take_flags(argc, argv, cfg.suite, [&](const std::string& arg, auto value) {
    for (const auto& flag : ints)
      if (!value(flag.first.c_str()).empty()) return *flag.second = bench::parse_int(value(flag.first.c_str())), true;
    if (!value("--rsh_n=").empty()) return cfg.widths = bench::int_list(value("--rsh_n=")), true;
    if (!value("--rsh_piece_res=").empty()) return cfg.pieces = bench::int_list(value("--rsh_piece_res=")), true;
    if (!value("--rsh_res_lanes=").empty())
      return cfg.residual_lanes = bench::int_list(value("--rsh_res_lanes=")), true;
    if (!value("--rsh_k=").empty()) return cfg.warps_per_item = bench::int_list(value("--rsh_k=")), true;
    if (!value("--rsh_prec=").empty()) return cfg.precisions = bench::split_list(value("--rsh_prec=")), true;
    if (arg == "--rsh_row_error") return cfg.row_error = true, true;
    if (!value("--rsh_libra_eta=").empty())
      return cfg.options.tuning.libra_eta = std::stod(value("--rsh_libra_eta=")), true;
    if (!value("--rsh_timing=").empty()) return cfg.gated_timing = bench::gated_timing(value("--rsh_timing=")), true;
    if (!value("--rsh_reorder=").empty()) {
      const std::string list = value("--rsh_reorder=");
      cfg.reorders.clear();
      if (list == "all") cfg.reorders.assign(std::begin(kAllReorders), std::end(kAllReorders));
      for (const auto& name : bench::split_list(list == "all" ? "" : list)) cfg.reorders.push_back(parse_reorder(name));
      return true;
    }
    if (!value("--rsh_layout=").empty()) {
      const std::string l = value("--rsh_layout=");
      if (l != "row" && l != "col") throw std::invalid_argument("--rsh_layout=" + l + ": row or col");
      return cfg.row_major = l == "row", true;
    }
    if (!value("--rsh_partition=").empty()) {
      cfg.partitions.clear();
      for (const auto& name : bench::split_list(value("--rsh_partition="))) {
        const auto it = partitions.find(name);
        if (it == partitions.end())
          throw std::invalid_argument("--rsh_partition=" + name + ": row, tc, cuda, dense, libra, balanced or auto");
        cfg.partitions.push_back(it->second);
      }
      return true;
    }
    return false;
  });
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  static Config cfg;
  if (!bench::flags_parsed("rsh_spmm_benchmark", [&] { cfg = parse_flags(argc, argv); })) return 2;
  if (!cuda::device_available()) {
    std::cerr << "no CUDA device: nothing to benchmark\n";
    return 0;
  }
  cfg.suite.for_each_matrix([&](const bench::MatrixSource& src, int i, int count) {
    for (const auto& prec : cfg.precisions)
      for (int n : cfg.widths) {
        if (prec == "fp16") register_group<__half>(src, cfg, i, count, n, prec);
        if (prec == "bf16") register_group<__nv_bfloat16>(src, cfg, i, count, n, prec);
        if (prec == "fp32" || prec == "tf32") register_group<float>(src, cfg, i, count, n, prec);
        if (prec == "fp64") register_group<double>(src, cfg, i, count, n, prec);
      }
  });

  bench::add_gpu_context(bench::git_hash(), cfg.gated_timing);
  std::string partitions;
  for (Partition p : cfg.partitions) partitions += (partitions.empty() ? "" : ",") + std::string(partition_name(p));
  benchmark::AddCustomContext("partition", partitions);
  std::string reorders;
  for (Reorder r : cfg.reorders) reorders += (reorders.empty() ? "" : ",") + std::string(reorder_name(r));
  benchmark::AddCustomContext("reorder", reorders);
  benchmark::AddCustomContext("max_tiles_per_item", std::to_string(cfg.options.tuning.max_tiles_per_item));
  benchmark::AddCustomContext("max_residual_nnz_per_item",
                              std::to_string(cfg.options.tuning.max_residual_nnz_per_item));
  std::string pieces;
  for (int p : cfg.pieces) pieces += (pieces.empty() ? "" : ",") + std::to_string(p);
  benchmark::AddCustomContext("residual_piece_nnz", pieces);
  benchmark::AddCustomContext("libra_eta", std::to_string(cfg.options.tuning.libra_eta));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Cached Kokkos views must go before Kokkos::finalize (the ScopeGuard).
  g_matrix.reset();
  g_group<__half>.reset();
  g_group<__nv_bfloat16>.reset();
  g_group<float>.reset();
  g_group<double>.reset();
  return 0;
}
