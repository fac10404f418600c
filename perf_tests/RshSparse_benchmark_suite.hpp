#pragma once
// The benchmark matrix suite: every matrix listed in MANIFEST.tsv of the
// shared matrix folder, plus large generated ones that do not fit in L2.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "RshSparse_IOUtils.hpp"
#include "RshSparse_generators.hpp"

namespace rsh {
namespace bench {

struct MatrixSource {
  std::string name;
  std::function<impl::HostCrs()> load;
};

inline std::vector<MatrixSource> shared_matrices(const std::string& dir) {
  std::vector<MatrixSource> out;
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  std::string line;
  std::getline(manifest, line);  // header
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string path, name;
    std::getline(fields, path, '\t');
    std::getline(fields, name, '\t');
    if (path.empty()) continue;
    const std::string full = dir + "/" + path;
    out.push_back({name, [full] { return impl::read_matrix_market_host(full); }});
  }
  return out;
}

/// Large synthetic matrices (>= 10M nonzeros or far past the 50 MB L2 at N = 128).
inline std::vector<MatrixSource> generated_matrices() {
  return {
      {"gen/rmat20_ef16", [] { return impl::generate_rmat_host(20, 16, 1); }},
      {"gen/rmat22_ef16", [] { return impl::generate_rmat_host(22, 16, 1); }},
      {"gen/stencil27_128", [] { return impl::generate_stencil27_host(128, 128, 128); }},
      {"gen/banded_2M_hb3", [] { return impl::generate_banded_host(2000000, 3, 1.0, 1); }},
      {"gen/uniform_1M_12", [] { return impl::generate_uniform_host(1000000, 1000000, 12, 1); }},
      // Locality hidden by the order: shuffled communities, a point cloud in random order, users x items.
      {"gen/community_2M_12", [] { return impl::generate_community_host(2000000, 12, 0.9, 1); }},
      {"gen/pointcloud_1M_14", [] { return impl::generate_point_cloud_host(1000000, 14, 1); }},
      {"gen/bipartite_2M_500k_16", [] { return impl::generate_bipartite_host(2000000, 500000, 16, 3.0, 1); }},
  };
}

/// Loads `src`, the index-th of count (a progress line on stderr). With `unit_range` the values are scaled
/// into [-1, 1]: FP16 would overflow on matrices such as ct2010 or bcsstk13, and speed does not depend on them.
inline impl::HostCrs load_matrix(const MatrixSource& src, int index, int count, bool unit_range) {
  std::cerr << "[" << index + 1 << "/" << count << "] " << src.name << ": loading" << std::flush;
  impl::HostCrs A = src.load();
  double max_abs = 0;
  for (double v : A.values) max_abs = std::max(max_abs, std::fabs(v));
  if (unit_range && max_abs > 0)
    for (double& v : A.values) v /= max_abs;
  std::cerr << ", " << A.nnz() << " nnz\n";
  return A;
}

/// The matrix a benchmark process works on, loaded once for the benchmarks that run on it in a row.
class CurrentMatrix {
 public:
  explicit CurrentMatrix(bool unit_range) : unit_range_(unit_range) {}
  /// `src` (see load_matrix), loaded unless it is the current one.
  const impl::HostCrs& get(const MatrixSource& src, int index, int count) {
    if (name_ != src.name || !loaded_)
      A_ = load_matrix(src, index, count, unit_range_), name_ = src.name, loaded_ = true;
    return A_;
  }

 private:
  bool unit_range_, loaded_ = false;
  std::string name_;
  impl::HostCrs A_;
};

/// "a,b,,c" -> {a, b, c}.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// "32" -> 32; throws std::invalid_argument unless the whole text is one int.
inline int parse_int(const std::string& s) {
  size_t end = 0;
  int v = 0;
  try {
    v = std::stoi(s, &end);
  } catch (const std::exception&) {
    end = 0;  // not a number, or out of int's range
  }
  if (end == 0 || end != s.size()) throw std::invalid_argument("'" + s + "' is not an int");
  return v;
}

/// "32,128" -> {32, 128}.
inline std::vector<int> int_list(const std::string& s) {
  std::vector<int> out;
  for (const auto& item : split_list(s)) out.push_back(parse_int(item));
  return out;
}

/// The value of `--flag=value` if `arg` is that flag, else empty.
inline std::string flag_value(const std::string& arg, const char* flag) {
  return arg.rfind(flag, 0) == 0 ? arg.substr(std::strlen(flag)) : std::string();
}

/// The matrices of the named suites ("shared", "generated") whose names
/// contain one of `match` (all when empty).
inline std::vector<MatrixSource> suite_sources(const std::string& matrix_dir, const std::vector<std::string>& suites,
                                               const std::vector<std::string>& match) {
  std::vector<MatrixSource> sources;
  for (const auto& suite : suites) {
    const auto more = suite == "generated" ? generated_matrices() : shared_matrices(matrix_dir);
    sources.insert(sources.end(), more.begin(), more.end());
  }
  if (!match.empty())
    sources.erase(std::remove_if(sources.begin(), sources.end(),
                                 [&](const MatrixSource& s) {
                                   return std::none_of(match.begin(), match.end(), [&](const std::string& m) {
                                     return s.name.find(m) != std::string::npos;
                                   });
                                 }),
                  sources.end());
  return sources;
}

/// The flags every benchmark takes to choose its matrices:
///   --rsh_matrices=DIR  shared matrix folder (MANIFEST.tsv); default $RSH_MATRIX_DIR
///   --rsh_suite=LIST    shared,generated (default shared)
///   --rsh_match=STR     only matrices whose name contains STR (repeatable)
struct SuiteFlags {
  std::string matrix_dir = std::getenv("RSH_MATRIX_DIR") ? std::getenv("RSH_MATRIX_DIR") : "";
  std::vector<std::string> suites{"shared"}, match;

  /// Takes `arg` if it is one of these flags.
  bool parse(const std::string& arg) {
    if (!flag_value(arg, "--rsh_matrices=").empty()) {
      matrix_dir = flag_value(arg, "--rsh_matrices=");
    } else if (!flag_value(arg, "--rsh_suite=").empty()) {
      suites = split_list(flag_value(arg, "--rsh_suite="));
    } else if (!flag_value(arg, "--rsh_match=").empty()) {
      match.push_back(flag_value(arg, "--rsh_match="));
    } else {
      return false;
    }
    return true;
  }
  std::vector<MatrixSource> sources() const { return suite_sources(matrix_dir, suites, match); }

  /// Calls `visit(source, index, count)` for each chosen matrix, in suite order.
  template <class Visit>
  void for_each_matrix(Visit&& visit) const {
    const std::vector<MatrixSource> all = sources();
    const int count = static_cast<int>(all.size());
    for (int i = 0; i < count; ++i) visit(all[i], i, count);
  }
};

/// Takes a benchmark's own flags out of argv, leaving Google Benchmark's: the suite's, then those
/// `take(arg, value)` accepts (value(flag) is the text after `flag` when `arg` starts with it, else empty).
template <class Take>
void take_flags(int& argc, char** argv, SuiteFlags& suite, Take&& take) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* flag) { return flag_value(arg, flag); };
    try {
      if (!suite.parse(arg) && !take(arg, value)) argv[out++] = argv[i];
    } catch (const std::exception& e) {  // named with its flag: a bare "stoi" does not say which
      throw std::invalid_argument(arg + ": " + e.what());
    }
  }
  argc = out;
}

/// Runs `parse` (a benchmark's flag parser); a malformed flag is reported as "program: why" and gives false,
/// so that main returns an error status rather than terminating on the exception.
template <class Parse>
bool flags_parsed(const char* program, Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return false;
  }
}

/// --rsh_timing=gated|stream: whether batches run behind the launch gate (RshSparse_benchmark_timing.hpp).
inline bool gated_timing(const std::string& value) {
  if (value != "gated" && value != "stream") throw std::invalid_argument("--rsh_timing=" + value + ": gated or stream");
  return value == "gated";
}

}  // namespace bench
}  // namespace rsh
