#pragma once
// The inspector pipeline, compiled once: CSR -> statistics -> partition ->
// RS-Tile + residual -> schedule, with the time of each phase.
#include <string>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/RshSparse_stats_impl.hpp"

namespace rsh {
namespace impl {

struct PhaseTimes {
  double convert = 0, stats = 0, reorder = 0, partition = 0, build = 0, schedule = 0, upload = 0;
  std::string to_string() const;
};

struct Inspection {
  HostPattern pattern;
  MatrixStats stats;
  PhaseTimes times;
  uint64_t signature = 0;                           ///< hash of the user's row_map and entries
  Reorder reorder = Reorder::kNone;                 ///< the row order applied (kAuto's choice when asked for kAuto)
  Partition partition = Partition::kRowStructured;  ///< the partition applied (kAuto's choice when asked for kAuto)
};

/// Validates A (throws std::invalid_argument naming `who`), sorts its rows
/// and runs the pipeline. `value_bytes` with Options::allow_tf32 (arithmetic_of) selects the cost model of
/// Partition::kAuto.
Inspection inspect(HostCrs A, const Options& options, const char* who, int value_bytes = 4);

/// Hash of a CSR pattern in the user's order (dimensions, row_map, entries).
uint64_t pattern_signature(const HostCrs& A);

/// Value slots (tiles, then residual) from the user's CSR values.
std::vector<double> scatter_values(const HostPattern& p, const std::vector<double>& values);

}  // namespace impl
}  // namespace rsh
