// rsh::spmm on a host execution space (the portable kernels) against KokkosSparse::spmv on the same views,
// in one process (Google Benchmark). Names: host/<matrix>/<space>/<double|float>/<right|left>/n=<n>/<impl>,
// impl rsh (default Options, handle analysed before timing) or kk (KokkosSparse::spmv). Wall-clock time
// per call, median over the repetitions of one iteration each (a call is milliseconds); every result is
// checked against KokkosKernels' before timing (rel_error). Counter inspect_ms: the handle's analysis.
//
// Flags (before Google Benchmark's own):
//   --rsh_matrices, --rsh_suite, --rsh_match: the matrices (bench::SuiteFlags)
//   --rsh_space=LIST   serial,openmp (default: the execution spaces this Kokkos has, of those two)
//   --rsh_scalar=LIST  double,float (default double)
//   --rsh_layout=LIST  right,left (default both)
//   --rsh_n=LIST       feature widths (default 128)
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include "RshSparse_benchmark_git_hash.hpp"
#include "RshSparse_benchmark_suite.hpp"
#include "RshSparse_spmm.hpp"

namespace {

using namespace rsh;

struct Config {
  bench::SuiteFlags suite;
  std::vector<std::string> spaces, scalars{"double"}, layouts{"right", "left"};
  std::vector<int> widths{128};
};

/// The matrix being benchmarked.
bench::CurrentMatrix g_matrix(false);

/// One (matrix, space, scalar, layout, n): A, B and both results as views of the space, made on first use.
template <class Space, class Scalar, class Layout>
struct Group {
  using Device = Kokkos::Device<Space, typename Space::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using MultiVector = Kokkos::View<Scalar**, Layout, Device>;
  std::string key;
  Matrix A;
  MultiVector B, C_rsh, C_kk;
  std::unique_ptr<SpmmHandle<Scalar, Device>> handle;
  double inspect_ms = 0;
  double rel_error = -1;  ///< ||C_rsh - C_kk|| / ||C_kk||, once per group (-1: not yet checked)
};
template <class Space, class Scalar, class Layout>
std::unique_ptr<Group<Space, Scalar, Layout>> g_group;

template <class Space, class Scalar, class Layout>
Group<Space, Scalar, Layout>& group(const impl::HostCrs& A, const std::string& key, int n) {
  auto& g = g_group<Space, Scalar, Layout>;
  if (g && g->key == key) return *g;
  g = std::make_unique<Group<Space, Scalar, Layout>>();
  g->key = key;
  const auto b = impl::to_bundle<Scalar, int, typename Space::memory_space>(A, "benchmark");
  g->A = typename Group<Space, Scalar, Layout>::Matrix("A", b.num_rows, b.num_cols, b.nnz(), b.values, b.row_map,
                                                       b.entries);
  g->B = typename Group<Space, Scalar, Layout>::MultiVector("B", A.num_cols, n);
  g->C_rsh = typename Group<Space, Scalar, Layout>::MultiVector("C_rsh", A.num_rows, n);
  g->C_kk = typename Group<Space, Scalar, Layout>::MultiVector("C_kk", A.num_rows, n);
  uint64_t s = 12345;
  for (int64_t i = 0; i < A.num_cols; ++i)
    for (int j = 0; j < n; ++j) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      g->B(i, j) = static_cast<Scalar>(double((s >> 33) % 2001) / 1000.0 - 1.0);
    }
  KokkosSparse::spmv("N", Scalar(1), g->A, g->B, Scalar(0), g->C_kk);  // the reference of rsh's check
  g->handle = std::make_unique<SpmmHandle<Scalar, typename Group<Space, Scalar, Layout>::Device>>();
  Kokkos::Timer timer;
  rsh::spmm(Space(), g->handle.get(), "N", Scalar(1), g->A, g->B, Scalar(0), g->C_rsh);
  Space().fence();
  g->inspect_ms = 1e3 * timer.seconds();
  return *g;
}

template <class Space, class Scalar, class Layout>
void bench_impl(benchmark::State& state, const bench::MatrixSource& src, int index, int count, const std::string& key,
                int n, bool rsh_impl) {
  const impl::HostCrs& A = g_matrix.get(src, index, count);
  auto& g = group<Space, Scalar, Layout>(A, key, n);
  const Space space;
  auto run = [&] {
    if (rsh_impl)
      rsh::spmm(space, g.handle.get(), "N", Scalar(1), g.A, g.B, Scalar(0), g.C_rsh);
    else
      KokkosSparse::spmv("N", Scalar(1), g.A, g.B, Scalar(0), g.C_kk);
    space.fence();
  };
  // Checked once per group, not before every repetition: a serial pass over C between repetitions would
  // leave the next timed call cold (caches, sleeping OpenMP threads) for rsh alone.
  if (rsh_impl && g.rel_error < 0) {  // ||C_rsh - C_kk|| / ||C_kk||
    run();
    double num = 0, den = 0;
    for (size_t i = 0; i < g.C_kk.extent(0); ++i)
      for (size_t j = 0; j < g.C_kk.extent(1); ++j) {
        const double d = double(g.C_rsh(i, j)) - double(g.C_kk(i, j));
        num += d * d, den += double(g.C_kk(i, j)) * double(g.C_kk(i, j));
      }
    g.rel_error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  run();  // warm-up, as for KokkosSparse::spmv
  if (rsh_impl) {
    if (!(g.rel_error <= (std::is_same<Scalar, double>::value ? 1e-10 : 1e-4)))
      return state.SkipWithError(("rsh differs from KokkosSparse::spmv: " + std::to_string(g.rel_error)).c_str());
    state.counters["rel_error"] = g.rel_error;
    state.counters["inspect_ms"] = g.inspect_ms;
    state.SetLabel(g.handle->executor());
  }
  for (auto _ : state) run();
  state.counters["nnz"] = double(A.nnz());
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * A.nnz() * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Space, class Scalar, class Layout>
void register_group(const bench::MatrixSource& src, int index, int count, const std::string& name) {
  for (const bool rsh_impl : {false, true})
    benchmark::RegisterBenchmark((name + (rsh_impl ? "/rsh" : "/kk")).c_str(),
                                 [=](benchmark::State& s) {
                                   const int n = std::stoi(name.substr(name.rfind("n=") + 2));
                                   bench_impl<Space, Scalar, Layout>(s, src, index, count, name, n, rsh_impl);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
}

template <class Space, class Scalar>
void register_layouts(const bench::MatrixSource& src, const Config& cfg, int index, int count,
                      const std::string& prefix) {
  for (const auto& layout : cfg.layouts)
    for (int n : cfg.widths) {
      const std::string name = prefix + "/" + layout + "/n=" + std::to_string(n);
      if (layout == "right") register_group<Space, Scalar, Kokkos::LayoutRight>(src, index, count, name);
      if (layout == "left") register_group<Space, Scalar, Kokkos::LayoutLeft>(src, index, count, name);
    }
}

template <class Space>
void register_space(const bench::MatrixSource& src, const Config& cfg, int index, int count, const char* space) {
  for (const auto& scalar : cfg.scalars) {
    const std::string prefix = "host/" + src.name + "/" + space + "/" + scalar;
    if (scalar == "double") register_layouts<Space, double>(src, cfg, index, count, prefix);
    if (scalar == "float") register_layouts<Space, float>(src, cfg, index, count, prefix);
  }
}

Config parse_flags(int& argc, char** argv) {
  Config cfg;
  bench::take_flags(argc, argv, cfg.suite, [&](const std::string&, auto value) {
    if (!value("--rsh_space=").empty()) return cfg.spaces = bench::split_list(value("--rsh_space=")), true;
    if (!value("--rsh_scalar=").empty()) return cfg.scalars = bench::split_list(value("--rsh_scalar=")), true;
    if (!value("--rsh_layout=").empty()) return cfg.layouts = bench::split_list(value("--rsh_layout=")), true;
    if (!value("--rsh_n=").empty()) return cfg.widths = bench::int_list(value("--rsh_n=")), true;
    return false;
  });
  if (cfg.spaces.empty()) {
#if defined(KOKKOS_ENABLE_SERIAL)
    cfg.spaces.push_back("serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    cfg.spaces.push_back("openmp");
#endif
  }
  return cfg;
}

template <class Space, class Scalar>
void release_scalar() {
  g_group<Space, Scalar, Kokkos::LayoutRight>.reset();
  g_group<Space, Scalar, Kokkos::LayoutLeft>.reset();
}
template <class Space>
void release_space() {
  release_scalar<Space, double>();
  release_scalar<Space, float>();
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  static Config cfg;
  if (!bench::flags_parsed("rsh_host_benchmark", [&] { cfg = parse_flags(argc, argv); })) return 2;
  cfg.suite.for_each_matrix([&](const bench::MatrixSource& src, int i, int count) {
    for (const auto& space : cfg.spaces) {
#if defined(KOKKOS_ENABLE_SERIAL)
      if (space == "serial") register_space<Kokkos::Serial>(src, cfg, i, count, "serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
      if (space == "openmp") register_space<Kokkos::OpenMP>(src, cfg, i, count, "openmp");
#endif
    }
  });
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("git_hash", bench::git_hash());
  benchmark::AddCustomContext("host_threads", std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Views and handles must go before Kokkos::finalize (the ScopeGuard).
#if defined(KOKKOS_ENABLE_SERIAL)
  release_space<Kokkos::Serial>();
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  release_space<Kokkos::OpenMP>();
#endif
  return 0;
}
