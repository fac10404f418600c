// rsh::sddmm through the front door on Kokkos::Cuda views against cusparseSDDMM on the same X, Y and
// pattern, in one process on one GPU (Google Benchmark). Needs a Kokkos built with CUDA.
// Names: sddmm/<matrix>/<float|tf32|half>/k=<k>/<impl>: C.values = X * Y^T on C's pattern, X of
// rows x k and Y of cols x k (LayoutRight), impl one of
//   cusparse   cusparseSDDMM (CUSPARSE_SDDMM_ALG_DEFAULT, FP32 compute) on its own copy of the pattern
//   rsh        rsh::sddmm(exec, &handle, 1, X, Y, 0, C) with default Options (tf32: Options::allow_tf32)
//   rsh_spans  the same with Tuning::sddmm_kernels = kCsr (CUDA cores over C's CSR, spans of 8 nonzeros)
//   rsh_tiles  the same with kDenseTiles (Tensor Cores over C's CSR, dense tiles of 64 columns, their rows by
//              the grid); rsh_tiles32, rsh_tiles64: with Tuning::sddmm_tile_rows = 32 or 64
//   rsh_panels<P> the same with kPanels and Tuning::sddmm_panel_rows = P (16, 64, 256): spans over C's
//              nonzeros in panels of P rows, each panel's by column
//   rsh_format the same through the handle's format (Tuning::sddmm_kernels = kFormat: Tensor-Core tiles
//              and residual rows into value slots, then gathered)
//   rsh_free   the handle-free rsh::sddmm(exec, 1, X, Y, 0, C) (stream timing: it waits for its check)
// float is FP32-level on both sides (rsh: 3xTF32 on Tensor Cores, FP32 on CUDA cores); tf32 lets rsh's
// Tensor Cores take TF32 operands against cuSPARSE's FP32; half is FP16 operands and values with FP32
// accumulation on both. Times are device times per call (bench::timed_calls, gated by default); inspect_ms
// is the handle's first call (analysis and plan). Every result is compared with the first implementation's
// (rel_error over the values); one off by more than 10x its precision's bound is an error.
//
// Flags (before Google Benchmark's own):
//   --rsh_matrices, --rsh_suite, --rsh_match: the matrices (bench::SuiteFlags)
//   --rsh_scalar=LIST  float,tf32,half (default float,half)
//   --rsh_k=LIST       features (default 32,64,128)
//   --rsh_impl=LIST    implementations to run (default all)
//   --rsh_timing=MODE  gated (default) or stream
#include <benchmark/benchmark.h>
#include <cusparse.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "RshSparse_benchmark_git_hash.hpp"
#include "RshSparse_benchmark_kokkos.hpp"
#include "RshSparse_benchmark_suite.hpp"
#include "RshSparse_benchmark_timing.hpp"
#include "RshSparse_sddmm.hpp"
#include "RshSparse_spmm_cusparse.hpp"

namespace {

using namespace rsh;
using Device = bench::CudaDevice;
using bench::ElementOf;
using bench::Half;

struct Config : bench::ImplFilter {
  bench::SuiteFlags suite;
  std::vector<std::string> scalars{"float", "half"};
  std::vector<int> ks{32, 64, 128};
  bool gated_timing = true;
};

/// Bound on the values' relative error against the first implementation (DESIGN section 7).
double bound(const std::string& scalar) {
  return scalar == "float" ? 1e-5 : scalar == "tf32" ? 5e-3 : 2e-2;
}

/// Calls a timed batch makes back to back (the operands are not rotated: X, Y and C are read alike by all).
constexpr int kCallsPerTiming = 8;

bench::CurrentMatrix g_matrix(true);

/// One (matrix, scalar, k): C's pattern on the GPU with an output values view, X and Y, the rsh handle
/// (made on first use), cuSPARSE's descriptors and the first result.
template <class Scalar>
struct Group {
  using E = ElementOf<Scalar>;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using Dense = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  std::string key;
  int k = 0;
  Matrix C;
  Dense X, Y;
  /// Per rsh implementation: its handle and the time of its first call.
  std::map<std::string, std::pair<std::unique_ptr<SpmmHandle<Scalar, Device>>, double>> handles;
  std::vector<E> expected;
};
template <class Scalar>
std::unique_ptr<Group<Scalar>> g_group;

cudaStream_t stream() {
  return bench::benchmark_stream();
}

/// rows x k values uniform in [-1, 1] (a fixed sequence per seed), as a LayoutRight view.
template <class Scalar>
typename Group<Scalar>::Dense random_dense(int64_t rows, int k, uint64_t seed) {
  typename Group<Scalar>::Dense v("dense", rows, k);
  auto h = Kokkos::create_mirror_view(v);
  for (int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < k; ++j) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      h(i, j) = static_cast<Scalar>(double((seed >> 33) % 2001) / 1000.0 - 1.0);
    }
  Kokkos::deep_copy(v, h);
  return v;
}

template <class Scalar>
Group<Scalar>& group(const impl::HostCrs& A, const std::string& key, int k) {
  auto& g = g_group<Scalar>;
  if (g && g->key == key) return *g;
  g.reset();
  g = std::make_unique<Group<Scalar>>();
  g->key = key, g->k = k;
  const auto bundle = impl::to_bundle<Scalar, int, Kokkos::CudaSpace>(A, "benchmark");
  g->C = typename Group<Scalar>::Matrix("C", bundle.num_rows, bundle.num_cols, bundle.nnz(), bundle.values,
                                        bundle.row_map, bundle.entries);
  g->X = random_dense<Scalar>(A.num_rows, k, 12345);
  g->Y = random_dense<Scalar>(A.num_cols, k, 67890);
  return *g;
}

/// cusparseSDDMM with X as op(A) (rows x k, row-major) and Y^T as op(B) (Y read as a column-major k x cols
/// matrix: the same bytes), FP32 compute; C's values in the scalar's type.
template <class E>
class CusparseSddmm {
 public:
  CusparseSddmm(const impl::HostCrs& A, int k, const E* X, const E* Y, E* values) : handle_(bench::cusparse_handle()) {
    row_map_ = cuda::DeviceArray<int>(std::vector<int>(A.row_map.begin(), A.row_map.end()));
    cols_ = cuda::DeviceArray<int>(A.entries);
    RSH_CUSPARSE_CHECK(cusparseSetStream(handle_, stream()));
    RSH_CUSPARSE_CHECK(cusparseCreateCsr(&C_, A.num_rows, A.num_cols, A.nnz(), row_map_.get(), cols_.get(), values,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         bench::cuda_type<E>()));
    RSH_CUSPARSE_CHECK(
        cusparseCreateDnMat(&X_, A.num_rows, k, k, const_cast<E*>(X), bench::cuda_type<E>(), CUSPARSE_ORDER_ROW));
    RSH_CUSPARSE_CHECK(
        cusparseCreateDnMat(&Y_, k, A.num_cols, k, const_cast<E*>(Y), bench::cuda_type<E>(), CUSPARSE_ORDER_COL));
    size_t bytes = 0;
    RSH_CUSPARSE_CHECK(cusparseSDDMM_bufferSize(handle_, kOp, kOp, &alpha_, X_, Y_, &beta_, C_, CUDA_R_32F,
                                                CUSPARSE_SDDMM_ALG_DEFAULT, &bytes));
    buffer_ = cuda::DeviceArray<char>(bytes);
    RSH_CUSPARSE_CHECK(cusparseSDDMM_preprocess(handle_, kOp, kOp, &alpha_, X_, Y_, &beta_, C_, CUDA_R_32F,
                                                CUSPARSE_SDDMM_ALG_DEFAULT, buffer_.get()));
  }
  ~CusparseSddmm() {
    if (C_) cusparseDestroySpMat(C_);
    if (X_) cusparseDestroyDnMat(X_);
    if (Y_) cusparseDestroyDnMat(Y_);
  }
  void run() {
    RSH_CUSPARSE_CHECK(cusparseSDDMM(handle_, kOp, kOp, &alpha_, X_, Y_, &beta_, C_, CUDA_R_32F,
                                     CUSPARSE_SDDMM_ALG_DEFAULT, buffer_.get()));
  }

 private:
  static constexpr cusparseOperation_t kOp = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseHandle_t handle_;
  float alpha_ = 1.f, beta_ = 0.f;
  cuda::DeviceArray<int> row_map_, cols_;
  cuda::DeviceArray<char> buffer_;
  cusparseSpMatDescr_t C_ = nullptr;
  cusparseDnMatDescr_t X_ = nullptr, Y_ = nullptr;
};

/// Runs `run()` once (C's values poisoned first), checks the values against the first implementation's and
/// times kCallsPerTiming calls a batch.
template <class Scalar, class Run>
void check_and_time(benchmark::State& state, Group<Scalar>& g, const Config& cfg, const std::string& scalar,
                    const impl::HostCrs& A, Run&& run, bool waits = false) {
  using E = ElementOf<Scalar>;
  std::vector<E> got(A.nnz());
  try {
    RSH_CUDA_CHECK(cudaMemset(g.C.values.data(), 0xff, got.size() * sizeof(E)));  // NaN poison
    run();
    RSH_CUDA_CHECK(cudaStreamSynchronize(stream()));
    RSH_CUDA_CHECK(cudaMemcpy(got.data(), g.C.values.data(), got.size() * sizeof(E), cudaMemcpyDeviceToHost));
  } catch (const std::exception& e) {
    return state.SkipWithError(e.what());
  }
  if (g.expected.empty()) g.expected = got;
  const double err = bench::relative_error(got, g.expected);
  if (!(err <= 10 * bound(scalar)))
    return state.SkipWithError(("result differs from the first implementation's: " + std::to_string(err)).c_str());
  bench::timed_calls(state, kCallsPerTiming, cfg.gated_timing && !waits, stream(), [&](int) { run(); });
  state.counters["rel_error"] = err;
  state.counters["nnz"] = double(A.nnz());
  state.counters["k"] = g.k;
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(A.nnz()) * g.k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar>
void bench_impl(benchmark::State& state, const bench::MatrixSource& src, const Config& cfg, int index, int count,
                const std::string& key, const std::string& scalar, int k, const std::string& impl_name) {
  using E = ElementOf<Scalar>;
  const impl::HostCrs& A = g_matrix.get(src, index, count);
  Group<Scalar>& g = group<Scalar>(A, key, k);
  const Kokkos::Cuda exec(stream());
  const Scalar one(1), zero(0);
  if (impl_name == "cusparse") {
    std::unique_ptr<CusparseSddmm<E>> cus;
    try {
      cus = std::make_unique<CusparseSddmm<E>>(A, k, reinterpret_cast<const E*>(g.X.data()),
                                               reinterpret_cast<const E*>(g.Y.data()),
                                               reinterpret_cast<E*>(g.C.values.data()));
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
    return check_and_time(state, g, cfg, scalar, A, [&] { cus->run(); });
  }
  if (impl_name == "rsh_free")
    return check_and_time(
        state, g, cfg, scalar, A, [&] { rsh::sddmm(exec, one, g.X, g.Y, zero, g.C); }, true);
  auto& handle = g.handles[impl_name];
  if (!handle.first) {  // the first call analyses the pattern and builds the plan: timed apart
    Options o;
    o.allow_tf32 = scalar == "tf32";
    using Experimental::SddmmKernels;
    if (impl_name == "rsh_spans") o.tuning.sddmm_kernels = SddmmKernels::kCsr;
    if (impl_name.rfind("rsh_tiles", 0) == 0) {
      o.tuning.sddmm_kernels = SddmmKernels::kDenseTiles;
      if (impl_name != "rsh_tiles")
        o.tuning.sddmm_tile_rows = std::stoi(impl_name.substr(std::string("rsh_tiles").size()));
    }
    if (impl_name == "rsh_format") o.tuning.sddmm_kernels = SddmmKernels::kFormat;
    if (impl_name.rfind("rsh_panels", 0) == 0) {
      o.tuning.sddmm_kernels = SddmmKernels::kPanels;
      o.tuning.sddmm_panel_rows = std::stoi(impl_name.substr(std::string("rsh_panels").size()));
    }
    handle.first = std::make_unique<SpmmHandle<Scalar, Device>>(o);
    Kokkos::Timer timer;
    try {
      rsh::sddmm(exec, handle.first.get(), one, g.X, g.Y, zero, g.C);
      exec.fence();
    } catch (const std::exception& e) {
      handle.first.reset();
      return state.SkipWithError(e.what());
    }
    handle.second = 1e3 * timer.seconds();
  }
  check_and_time(state, g, cfg, scalar, A, [&] { rsh::sddmm(exec, handle.first.get(), one, g.X, g.Y, zero, g.C); });
  state.counters["inspect_ms"] = handle.second;
  const impl::FormatStats fs = handle.first->format_stats();
  state.counters["tc_fraction"] = fs.tile_fraction;
  state.counters["nnz_per_tile"] = fs.mean_nnz_per_tile;
  state.SetLabel(handle.first->executor());
}

template <class Scalar>
void register_group(const bench::MatrixSource& src, const Config& cfg, int index, int count, const std::string& scalar,
                    int k) {
  const std::string key = "sddmm/" + src.name + "/" + scalar + "/k=" + std::to_string(k);
  for (const char* impl_name : {"cusparse", "rsh", "rsh_spans", "rsh_tiles", "rsh_tiles32", "rsh_tiles64",
                                "rsh_panels16", "rsh_panels64", "rsh_panels256", "rsh_format", "rsh_free"}) {
    if (!cfg.wants(impl_name)) continue;
    const std::string name = impl_name;
    benchmark::RegisterBenchmark(
        (key + "/" + name).c_str(),
        [=](benchmark::State& s) { bench_impl<Scalar>(s, src, cfg, index, count, key, scalar, k, name); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

Config parse_flags(int& argc, char** argv) {
  Config cfg;
  bench::take_flags(argc, argv, cfg.suite, [&](const std::string&, auto value) {
    if (!value("--rsh_k=").empty()) return cfg.ks = bench::int_list(value("--rsh_k=")), true;
    if (!value("--rsh_scalar=").empty()) return cfg.scalars = bench::split_list(value("--rsh_scalar=")), true;
    if (!value("--rsh_impl=").empty()) return cfg.impls = bench::split_list(value("--rsh_impl=")), true;
    if (!value("--rsh_timing=").empty()) return cfg.gated_timing = bench::gated_timing(value("--rsh_timing=")), true;
    return false;
  });
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  int status = 0;
  try {
    static Config cfg = parse_flags(argc, argv);
    cfg.suite.for_each_matrix([&](const bench::MatrixSource& src, int i, int count) {
      for (const auto& scalar : cfg.scalars)
        for (int k : cfg.ks) {
          if (scalar == "float" || scalar == "tf32") register_group<float>(src, cfg, i, count, scalar, k);
          if (scalar == "half") register_group<Half>(src, cfg, i, count, scalar, k);
        }
    });
    bench::add_gpu_context(bench::git_hash(), cfg.gated_timing);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const std::exception& e) {
    std::cerr << "rsh_sddmm_benchmark: " << e.what() << "\n";
    status = 1;
  }
  // Views and handles must go before Kokkos::finalize (the ScopeGuard).
  g_group<float>.reset();
  g_group<Half>.reset();
  return status;
}
