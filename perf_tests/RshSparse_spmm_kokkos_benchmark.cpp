// rsh::spmm through the front door: Kokkos::Cuda views, against KokkosSparse::spmv on the same views (its
// default, which calls cuSPARSE where KokkosKernels has the TPL for the types, and its native kernel) and
// raw cuSPARSE, in one process on one GPU (Google Benchmark). Needs a Kokkos built with CUDA.
// Names: kokkos/<matrix>/<float|double|half>/<right|left>/n=<n>/<impl> for C = A B, kokkos_t/... for
// C = A^T B (mode "T" everywhere: cuSPARSE's CUSPARSE_OPERATION_TRANSPOSE), impl one of
//   cusparse_alg1..3  cusparseSpMM on the same B and C (its own copy of A), in the scalar's precision
//   kk_default        KokkosSparse::spmv with an SPMVHandle (SPMV_DEFAULT)
//   kk_native         KokkosSparse::spmv with an SPMVHandle (SPMV_NATIVE)
//   rsh_raw           the raw CUDA API (rsh::cuda::SpmmPlan) of the handle's own plan, on the same pointers
//                     (mode "N" only)
//   rsh               rsh::spmm(exec, &handle, "N", 1, A, B, 0, C) with default Options
//   rsh_none, rsh_minhash, rsh_locality   the same with Options::reorder = kNone, kMinHash, kLocality
//   rsh_free          the handle-free rsh::spmm(exec, "N", 1, A, B, 0, C) (stream timing: it waits for its check)
//   rsh_update        handle.update_values(A), then rsh (stream timing); less rsh's time: the value refresh
// rsh against rsh_raw is the Kokkos path's overhead. Times are device times per call (bench::timed_calls,
// B/C rotated past L2, gated by default); counter host_us is the host time to enqueue a call; inspect_ms
// is the handle's first call (analysis and plan), <phase>_ms its inspector phases. Every result is compared with the
// first finite one (rel_error); a result off by more than 10x its precision's bound, or non-finite, is an error.
//
// Flags (before Google Benchmark's own):
//   --rsh_matrices, --rsh_suite, --rsh_match: the matrices (bench::SuiteFlags)
//   --rsh_scalar=LIST  float,double,half (default float)
//   --rsh_layout=LIST  left,right (default both)
//   --rsh_n=LIST       feature widths (default 32,128,256)
//   --rsh_impl=LIST    implementations to run (default all)
//   --rsh_mode=LIST    N,T (default N)
//   --rsh_timing=MODE  gated (default) or stream
//   --rsh_label_rounds=R  ReorderOptions::minhash_label_rounds of every rsh handle (default 0)
//   --rsh_window_chunk=W  ReorderOptions::minhash_window_chunk of every rsh handle (default 0)
//   --rsh_long_window_nnz=L  Tuning::long_window_nnz of every rsh handle (default -1: the space's)
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "RshSparse_benchmark_git_hash.hpp"
#include "RshSparse_benchmark_kokkos.hpp"
#include "RshSparse_benchmark_suite.hpp"
#include "RshSparse_benchmark_timing.hpp"
#include "RshSparse_spmm.hpp"
#include "RshSparse_spmm_cusparse.hpp"
#include "cuda/RshSparse_cuda_element.hpp"

namespace {

using namespace rsh;
using Device = bench::CudaDevice;
using bench::ElementOf;
using bench::Half;

struct Config : bench::ImplFilter {
  bench::SuiteFlags suite;
  std::vector<std::string> scalars{"float"}, layouts{"left", "right"}, modes{"N"};
  std::vector<int> widths{32, 128, 256};
  bool gated_timing = true;
  int label_rounds = 0;          ///< ReorderOptions::minhash_label_rounds of every rsh handle
  int window_chunk = 0;          ///< ReorderOptions::minhash_window_chunk of every rsh handle
  int64_t long_window_nnz = -1;  ///< Tuning::long_window_nnz of every rsh handle
};

template <class Scalar>
double bound() {  // DESIGN section 7
  return std::is_same<Scalar, double>::value ? 1e-12 : std::is_same<Scalar, float>::value ? 1e-5 : 2e-2;
}

/// The matrix being benchmarked.
bench::CurrentMatrix g_matrix(true);

/// One (matrix, scalar, layout, n): A as a KokkosSparse::CrsMatrix on the GPU, the rotating B/C copies as
/// unmanaged views, the handles (made on first use) and the first result, which the others are checked against.
template <class Scalar, class Layout>
struct Group {
  using E = ElementOf<Scalar>;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using Views = Kokkos::View<Scalar**, Layout, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using KkHandle = KokkosSparse::SPMVHandle<Device, Matrix, Views, Views>;

  std::string key;
  Matrix A;
  std::vector<E> values;  ///< A's values as elements (cuSPARSE's copy)
  std::unique_ptr<bench::RotatingOperands<E, E>> operands;
  std::map<std::string, std::unique_ptr<SpmmHandle<Scalar, Device>>> rsh;  ///< by the options' name
  std::map<std::string, double> inspect_ms;
  std::map<KokkosSparse::SPMVAlgorithm, std::unique_ptr<KkHandle>> kk;
  std::vector<E> expected;

  Views B(int i) const {
    return Views(reinterpret_cast<Scalar*>(operands->B[i].get()), transpose ? A.numRows() : A.numCols(), n);
  }
  Views C(int i) const {
    return Views(reinterpret_cast<Scalar*>(operands->C[i].get()), transpose ? A.numCols() : A.numRows(), n);
  }
  const char* mode() const { return transpose ? "T" : "N"; }
  int n = 0;
  bool transpose = false;  ///< C = A^T B
};

template <class Scalar, class Layout>
std::unique_ptr<Group<Scalar, Layout>> g_group;

cudaStream_t stream() {
  return bench::benchmark_stream();
}
template <class Scalar, class Layout>
Group<Scalar, Layout>& group(const impl::HostCrs& A, const std::string& key, int n, bool transpose) {
  auto& g = g_group<Scalar, Layout>;
  if (g && g->key == key) return *g;
  g.reset();
  g = std::make_unique<Group<Scalar, Layout>>();
  using E = ElementOf<Scalar>;
  g->key = key;
  g->n = n;
  g->transpose = transpose;
  const auto bundle = impl::to_bundle<Scalar, int, Kokkos::CudaSpace>(A, "benchmark");
  g->A = typename Group<Scalar, Layout>::Matrix("A", bundle.num_rows, bundle.num_cols, bundle.nnz(), bundle.values,
                                                bundle.row_map, bundle.entries);
  for (double v : A.values) g->values.push_back(cuda::to_element<E>(v));
  std::vector<E> b(size_t(transpose ? A.num_rows : A.num_cols) * n);
  uint64_t s = 12345;
  for (E& x : b) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = cuda::to_element<E>(double((s >> 33) % 2001) / 1000.0 - 1.0);
  }
  g->operands = std::make_unique<bench::RotatingOperands<E, E>>(b, size_t(transpose ? A.num_cols : A.num_rows) * n);
  return *g;
}

template <class Scalar, class Layout>
constexpr bool row_major() {
  return std::is_same<Layout, Kokkos::LayoutRight>::value;
}

/// Who a check call is for: rsh's calls start from C poisoned with NaN, so that an element they leave
/// unwritten shows; the baselines' start from zeros, since cuSPARSE's CSR ALG2 has returned NaN under beta = 0
/// over a poisoned C in some runs (it reads C), which would refuse every implementation of the matrix.
enum class CheckedC { kPoisoned, kZeroed };

/// Runs `run(i)` once on copy 0, checks the result and times it. The first finite result is the one the
/// others are compared with. Calls that wait for the GPU on the host (`waits`) are timed on the stream
/// whatever --rsh_timing says.
template <class Scalar, class Layout, class Run>
void check_and_time(benchmark::State& state, Group<Scalar, Layout>& g, const Config& cfg, const impl::HostCrs& A,
                    Run&& run, bool waits = false, CheckedC start = CheckedC::kPoisoned) {
  using E = ElementOf<Scalar>;
  try {
    const int byte = start == CheckedC::kPoisoned ? 0xff : 0;  // 0xff..: NaN in every element type
    RSH_CUDA_CHECK(cudaMemset(g.operands->C[0].get(), byte, g.operands->C[0].size() * sizeof(E)));
    run(0);
    RSH_CUDA_CHECK(cudaStreamSynchronize(stream()));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const std::vector<E> got = g.operands->C[0].download();
  if (!std::isfinite(bench::relative_error(got, got))) return state.SkipWithError("non-finite result");
  if (g.expected.empty()) g.expected = got;
  const double err = bench::relative_error(got, g.expected);
  if (!(err <= 10 * bound<Scalar>())) {
    state.SkipWithError(("result differs from the first implementation's: " + std::to_string(err)).c_str());
    return;
  }
  bench::timed_calls(state, static_cast<int>(g.operands->B.size()), cfg.gated_timing && !waits, stream(), run);
  state.counters["rel_error"] = err;
  const double nnz = double(A.nnz());
  state.counters["nnz"] = nnz;
  state.counters["n"] = g.n;
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * nnz * g.n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar, class Layout>
void bench_impl(benchmark::State& state, const bench::MatrixSource& src, const Config& cfg, int index, int count,
                const std::string& key, int n, bool transpose, const std::string& impl_name) {
  using E = ElementOf<Scalar>;
  const impl::HostCrs& A = g_matrix.get(src, index, count);
  Group<Scalar, Layout>& g = group<Scalar, Layout>(A, key, n, transpose);
  const char* mode = g.mode();
  const Kokkos::Cuda exec(stream());
  const Scalar one(1), zero(0);
  if (impl_name.rfind("cusparse_alg", 0) == 0) {
    std::unique_ptr<bench::CusparseSpmm<E>> cus;
    try {
      cus = std::make_unique<bench::CusparseSpmm<E>>(A, g.values, n, impl_name.back() - '0', bench::cusparse_handle(),
                                                     stream(), row_major<Scalar, Layout>(), transpose);
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
    return check_and_time(
        state, g, cfg, A, [&](int i) { cus->run(g.operands->B[i].get(), g.operands->C[i].get(), stream()); }, false,
        CheckedC::kZeroed);
  }
  if (impl_name == "kk_default" || impl_name == "kk_native") {
    const auto algo = impl_name == "kk_native" ? KokkosSparse::SPMV_NATIVE : KokkosSparse::SPMV_DEFAULT;
    auto& h = g.kk[algo];
    if (!h) h = std::make_unique<typename Group<Scalar, Layout>::KkHandle>(algo);
    return check_and_time(
        state, g, cfg, A, [&](int i) { KokkosSparse::spmv(exec, h.get(), mode, one, g.A, g.B(i), zero, g.C(i)); },
        false, CheckedC::kZeroed);
  }
  if (impl_name == "rsh_free")  // handle-free: over A's CSR, after a check of A it waits for
    return check_and_time(
        state, g, cfg, A, [&](int i) { rsh::spmm(exec, mode, one, g.A, g.B(i), zero, g.C(i)); }, true);
  // Handles by their options: rsh, rsh_update and rsh_raw share the default one.
  const std::string options_name = impl_name == "rsh_none" || impl_name == "rsh_minhash" || impl_name == "rsh_locality"
                                       ? impl_name
                                       : std::string("rsh");
  auto& handle = g.rsh[options_name];
  if (!handle) {  // the handle's first call analyses A and builds the plan: timed apart
    Options o;
    if (options_name == "rsh_none") o.reorder = Reorder::kNone;
    if (options_name == "rsh_minhash") o.reorder = Reorder::kMinHash;
    if (options_name == "rsh_locality") o.reorder = Reorder::kLocality;
    o.reorder_options.minhash_label_rounds = cfg.label_rounds;
    o.reorder_options.minhash_window_chunk = cfg.window_chunk;
    o.tuning.long_window_nnz = cfg.long_window_nnz;
    handle = std::make_unique<SpmmHandle<Scalar, Device>>(o);
    Kokkos::Timer timer;
    try {
      rsh::spmm(exec, handle.get(), mode, one, g.A, g.B(0), zero, g.C(0));
      exec.fence();
    } catch (const std::exception& e) {
      handle.reset();
      return state.SkipWithError(e.what());
    }
    g.inspect_ms[options_name] = 1e3 * timer.seconds();
  }
  if (impl_name == "rsh_update") {  // a value refresh and a multiply: less rsh's time, the refresh's
    check_and_time(
        state, g, cfg, A,
        [&](int i) {
          handle->update_values(g.A);
          rsh::spmm(exec, handle.get(), mode, one, g.A, g.B(i), zero, g.C(i));
        },
        true);
  } else if (impl_name == "rsh_raw") {
    if (transpose) return state.SkipWithError("rsh_raw: mode N only");
    if constexpr (std::is_same<Scalar, double>::value) {
      return state.SkipWithError("no raw CUDA plan for double (portable kernels)");
    } else {
      const auto& plan = *handle->backend_state().plan;
      const auto layout = row_major<Scalar, Layout>() ? cuda::Layout::kRowMajor : cuda::Layout::kColMajor;
      const int64_t ldb = row_major<Scalar, Layout>() ? n : A.num_cols;
      const int64_t ldc = row_major<Scalar, Layout>() ? n : A.num_rows;
      check_and_time(state, g, cfg, A, [&](int i) {
        plan.spmm(1.f, g.operands->B[i].get(), ldb, 0.f, g.operands->C[i].get(), ldc, n, layout, stream());
      });
    }
  } else {
    check_and_time(state, g, cfg, A,
                   [&](int i) { rsh::spmm(exec, handle.get(), mode, one, g.A, g.B(i), zero, g.C(i)); });
  }
  state.counters["inspect_ms"] = g.inspect_ms[options_name];
  const SpmmHandle<Scalar, Device>& analysed = transpose ? *handle->transposed() : *handle;
  const impl::PhaseTimes& t = analysed.phase_times();
  const std::pair<const char*, double> phases[] = {
      {"sort_ms", t.convert}, {"stats_ms", t.stats},       {"reorder_ms", t.reorder}, {"partition_ms", t.partition},
      {"build_ms", t.build},  {"schedule_ms", t.schedule}, {"upload_ms", t.upload}};
  for (const auto& phase : phases) state.counters[phase.first] = 1e3 * phase.second;
  state.SetLabel(std::string(reorder_name(analysed.applied_reorder())) + " " + analysed.executor());
}

template <class Scalar, class Layout>
void register_group(const bench::MatrixSource& src, const Config& cfg, int index, int count, const std::string& scalar,
                    const std::string& layout, int n, bool transpose) {
  const std::string key = std::string(transpose ? "kokkos_t/" : "kokkos/") + src.name + "/" + scalar + "/" + layout +
                          "/n=" + std::to_string(n);
  for (const char* impl_name : {"cusparse_alg1", "cusparse_alg2", "cusparse_alg3", "kk_default", "kk_native", "rsh_raw",
                                "rsh", "rsh_none", "rsh_minhash", "rsh_locality", "rsh_free", "rsh_update"}) {
    if (!cfg.wants(impl_name)) continue;
    const std::string name = impl_name;
    benchmark::RegisterBenchmark(
        (key + "/" + name).c_str(),
        [=](benchmark::State& s) { bench_impl<Scalar, Layout>(s, src, cfg, index, count, key, n, transpose, name); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

template <class Scalar>
void register_layouts(const bench::MatrixSource& src, const Config& cfg, int index, int count,
                      const std::string& scalar, int n) {
  for (const auto& mode : cfg.modes)
    for (const auto& layout : cfg.layouts) {
      const bool t = mode == "T";
      if (layout == "right") register_group<Scalar, Kokkos::LayoutRight>(src, cfg, index, count, scalar, layout, n, t);
      if (layout == "left") register_group<Scalar, Kokkos::LayoutLeft>(src, cfg, index, count, scalar, layout, n, t);
    }
}

Config parse_flags(int& argc, char** argv) {
  Config cfg;
  bench::take_flags(argc, argv, cfg.suite, [&](const std::string&, auto value) {
    if (!value("--rsh_n=").empty()) return cfg.widths = bench::int_list(value("--rsh_n=")), true;
    if (!value("--rsh_scalar=").empty()) return cfg.scalars = bench::split_list(value("--rsh_scalar=")), true;
    if (!value("--rsh_layout=").empty()) return cfg.layouts = bench::split_list(value("--rsh_layout=")), true;
    if (!value("--rsh_impl=").empty()) return cfg.impls = bench::split_list(value("--rsh_impl=")), true;
    if (!value("--rsh_mode=").empty()) return cfg.modes = bench::split_list(value("--rsh_mode=")), true;
    if (!value("--rsh_timing=").empty()) return cfg.gated_timing = bench::gated_timing(value("--rsh_timing=")), true;
    if (!value("--rsh_label_rounds=").empty())
      return cfg.label_rounds = bench::parse_int(value("--rsh_label_rounds=")), true;
    if (!value("--rsh_window_chunk=").empty())
      return cfg.window_chunk = bench::parse_int(value("--rsh_window_chunk=")), true;
    if (!value("--rsh_long_window_nnz=").empty())
      return cfg.long_window_nnz = bench::parse_int(value("--rsh_long_window_nnz=")), true;
    return false;
  });
  return cfg;
}

template <class Scalar, class Layout>
void release() {
  g_group<Scalar, Layout>.reset();
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  static Config cfg;
  if (!bench::flags_parsed("rsh_kokkos_benchmark", [&] { cfg = parse_flags(argc, argv); })) return 2;
  cfg.suite.for_each_matrix([&](const bench::MatrixSource& src, int i, int count) {
    for (const auto& scalar : cfg.scalars)
      for (int n : cfg.widths) {
        if (scalar == "float") register_layouts<float>(src, cfg, i, count, scalar, n);
        if (scalar == "double") register_layouts<double>(src, cfg, i, count, scalar, n);
        if (scalar == "half") register_layouts<Half>(src, cfg, i, count, scalar, n);
      }
  });
  bench::add_gpu_context(bench::git_hash(), cfg.gated_timing);
  benchmark::AddCustomContext("kokkoskernels_version", std::to_string(KOKKOSKERNELS_VERSION));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Views and handles must go before Kokkos::finalize (the ScopeGuard).
  release<float, Kokkos::LayoutLeft>(), release<float, Kokkos::LayoutRight>();
  release<double, Kokkos::LayoutLeft>(), release<double, Kokkos::LayoutRight>();
  release<Half, Kokkos::LayoutLeft>(), release<Half, Kokkos::LayoutRight>();
  return 0;
}
