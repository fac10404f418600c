// Preprocessing cost and format effect of every row reordering, on the host
// (one core). Names: reorder/<matrix>/<policy>; the time is the reordering
// phase alone. Counters: nnz per tile, fraction of nonzeros on Tensor
// Cores, mean distinct columns (B rows read) per window, tiles, and the
// predicted kernel cost relative to no reordering (rsh::impl::OrderCost).
//
// Flags (before Google Benchmark's own):
//   --rsh_matrices, --rsh_suite, --rsh_match: the matrices (bench::SuiteFlags)
//   --rsh_reorder=LIST  policies as rsh::reorder_name prints them (default: all)
//   --rsh_partition=P   the partition the format and the cost are counted under (default: kAuto's host pick;
//                       RowStructured is the GPU's for large FP16 matrices)
//   --rsh_cache_rows=R  also count the B rows fetched past a cache of R rows (impl::b_row_misses; the H100's
//                       L2 holds 204800 rows of 128 FP16 features) into the cost: counter b_row_misses
//   --rsh_alpha=A, --rsh_neighbours=K, --rsh_max_postings=P, --rsh_max_scan=S, --rsh_hub_window=H,
//                       --rsh_rescore=M, --rsh_min_paired=F, --rsh_two_opt=0|1, --rsh_place_isolated=0|1,
//                       --rsh_label_rounds=R (MinHash's label propagation), --rsh_window_chunk=W (MinHash's
//                       windows regrouped in chunks of W rows):
//                       ReorderOptions (default: theirs)
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <iostream>
#include <map>

#include "RshSparse_benchmark_suite.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"

namespace {

using namespace rsh;

struct Config {
  bench::SuiteFlags suite;
  std::vector<Reorder> policies{std::begin(kAllReorders), std::end(kAllReorders)};
  ReorderOptions reorder_options;
  Partition partition = Partition::kAuto;
  int64_t cache_rows = 0;  ///< 0: no B-row term
};

/// The options a policy is inspected and costed under.
Options options_for(const Config& cfg, Reorder policy) {
  Options o;
  o.reorder = policy;
  o.reorder_options = cfg.reorder_options;
  o.partition = cfg.partition;
  return o;
}

/// The predicted cost of a built format, with the B rows A fetches in `order` past the cache where asked for.
impl::OrderCost format_cost(const impl::HostCrs& A, const impl::RsTilePattern<Kokkos::HostSpace>& pattern,
                            const std::vector<int>& order, int64_t cache_rows) {
  impl::OrderCost c;
  c.tiles = pattern.num_tiles();
  c.windows = pattern.num_windows();
  c.residual_rows = static_cast<int64_t>(pattern.res_rows.extent(0));
  c.residual_nnz = static_cast<int64_t>(pattern.res_cols.extent(0));
  if (cache_rows > 0) c.b_row_misses = impl::b_row_misses(A, order, cache_rows);
  return c;
}

/// The matrix being benchmarked (cached across its policies) and its
/// identity-order cost, the reference of the cost ratios.
struct Loaded {
  std::string name;
  impl::HostCrs A;
  double identity_cost = 0;
};
std::unique_ptr<Loaded> g_loaded;

const Loaded& load(const bench::MatrixSource& src, const Config& cfg, int index, int count) {
  if (g_loaded && g_loaded->name == src.name) return *g_loaded;
  g_loaded.reset();
  std::cerr << "[" << index + 1 << "/" << count << "] " << src.name << std::endl;
  auto m = std::make_unique<Loaded>();
  m->name = src.name;
  m->A = src.load();
  const impl::Inspection identity = impl::inspect(m->A, options_for(cfg, Reorder::kNone), "reorder benchmark");
  m->identity_cost = format_cost(m->A, identity.pattern, {}, cfg.cache_rows).cost();
  g_loaded = std::move(m);
  return *g_loaded;
}

void bench_reorder(benchmark::State& state, const bench::MatrixSource& src, const Config& cfg, Reorder policy,
                   int index, int count) {
  const Loaded& m = load(src, cfg, index, count);
  Options o = options_for(cfg, policy);
  o.report_progress = m.A.nnz() >= 10000000;
  impl::Inspection ins;
  for (auto _ : state) {
    ins = impl::inspect(m.A, o, "reorder benchmark");
    state.SetIterationTime(ins.times.reorder);
  }
  const impl::FormatStats fs = impl::format_stats(ins.pattern, 2);
  state.counters["nnz"] = double(m.A.nnz());
  state.counters["nnz_per_tile"] = fs.mean_nnz_per_tile;
  state.counters["tc_fraction"] = fs.tile_fraction;
  state.counters["window_columns"] = fs.mean_window_columns;
  state.counters["tiles"] = double(ins.pattern.num_tiles());
  state.counters["inspect_ms"] = 1e3 * (ins.times.convert + ins.times.stats + ins.times.reorder + ins.times.partition +
                                        ins.times.build + ins.times.schedule);
  // Predicted cost from the built format (the same counts order_cost makes); the B-row term needs the order
  // itself, computed again (the format keeps only its windows).
  o.reorder = ins.reorder;
  const impl::OrderCost c =
      format_cost(m.A, ins.pattern, cfg.cache_rows > 0 ? impl::row_order(m.A, o) : std::vector<int>{}, cfg.cache_rows);
  if (cfg.cache_rows > 0) state.counters["b_row_misses"] = double(c.b_row_misses);
  if (m.identity_cost > 0) state.counters["cost_ratio"] = c.cost() / m.identity_cost;
  state.SetLabel(std::string("applied: ") + reorder_name(ins.reorder));
}

Config parse_flags(int& argc, char** argv) {
  Config cfg;
  ReorderOptions& r = cfg.reorder_options;
  const std::map<std::string, int*> ints = {{"--rsh_neighbours=", &r.neighbours},
                                            {"--rsh_max_postings=", &r.max_postings},
                                            {"--rsh_max_scan=", &r.max_scan},
                                            {"--rsh_hub_window=", &r.hub_window},
                                            {"--rsh_rescore=", &r.rescore},
                                            {"--rsh_label_rounds=", &r.minhash_label_rounds},
                                            {"--rsh_window_chunk=", &r.minhash_window_chunk}};
  const std::map<std::string, double*> reals = {{"--rsh_alpha=", &r.alpha}, {"--rsh_min_paired=", &r.min_paired_rows}};
  const std::map<std::string, bool*> flags = {{"--rsh_two_opt=", &r.two_opt},
                                              {"--rsh_place_isolated=", &r.place_isolated}};
  bench::take_flags(argc, argv, cfg.suite, [&](const std::string&, auto value) {
    for (const auto& f : ints)
      if (!value(f.first.c_str()).empty()) return *f.second = bench::parse_int(value(f.first.c_str())), true;
    for (const auto& f : reals)
      if (!value(f.first.c_str()).empty()) return *f.second = std::stod(value(f.first.c_str())), true;
    for (const auto& f : flags)
      if (!value(f.first.c_str()).empty()) return *f.second = value(f.first.c_str()) != "0", true;
    if (!value("--rsh_partition=").empty()) return cfg.partition = parse_partition(value("--rsh_partition=")), true;
    if (!value("--rsh_cache_rows=").empty()) return cfg.cache_rows = std::stoll(value("--rsh_cache_rows=")), true;
    if (value("--rsh_reorder=").empty()) return false;
    cfg.policies.clear();
    for (const auto& name : bench::split_list(value("--rsh_reorder="))) cfg.policies.push_back(parse_reorder(name));
    return true;
  });
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  static Config cfg;
  if (!bench::flags_parsed("rsh_reorder_benchmark", [&] { cfg = parse_flags(argc, argv); })) return 2;
  static const std::vector<bench::MatrixSource> sources = cfg.suite.sources();
  const int count = static_cast<int>(sources.size());
  for (int i = 0; i < count; ++i)
    for (Reorder policy : cfg.policies)
      benchmark::RegisterBenchmark(("reorder/" + sources[i].name + "/" + reorder_name(policy)).c_str(),
                                   [=](benchmark::State& s) { bench_reorder(s, sources[i], cfg, policy, i, count); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_loaded.reset();  // before Kokkos::finalize
  return 0;
}
