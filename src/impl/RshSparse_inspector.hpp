#pragma once
// The inspector on the host, compiled once: inspect_on (impl/inspector) on the
// default host execution space over a HostCrs, for the raw CUDA API, the
// benchmarks and the tests.
#include <string>
#include <vector>

#include "impl/RshSparse_HostCrs.hpp"
#include "impl/inspector/RshSparse_inspect_on.hpp"

namespace rsh {
namespace impl {

using Inspection = InspectionOf<Kokkos::HostSpace>;

/// Validates A (throws std::invalid_argument naming `who`), sorts its rows
/// and runs the pipeline. `value_bytes` with Options::allow_tf32 (arithmetic_of) selects the cost model of
/// Partition::kAuto.
Inspection inspect(const HostCrs& A, const Options& options, const char* who, int value_bytes = 4);

/// Hash of a CSR pattern in the user's order (dimensions, row_map, entries), as pattern_signature_on.
uint64_t pattern_signature(const HostCrs& A);

/// Value slots (tiles, then residual) from the user's CSR values.
std::vector<double> scatter_values(const HostPattern& p, const std::vector<double>& values);

}  // namespace impl
}  // namespace rsh
