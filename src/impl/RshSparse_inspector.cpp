#include "impl/RshSparse_inspector.hpp"

#include <sstream>

#include "impl/inspector/RshSparse_host_views.hpp"

namespace rsh {
namespace impl {

std::string PhaseTimes::to_string() const {
  std::ostringstream os;
  os << "inspector phases [ms]: convert " << 1e3 * convert << ", stats " << 1e3 * stats << ", reorder " << 1e3 * reorder
     << ", partition " << 1e3 * partition << ", build " << 1e3 * build << ", schedule " << 1e3 * schedule << ", upload "
     << 1e3 * upload << "\n";
  return os.str();
}

uint64_t pattern_signature(const HostCrs& A) {
  return pattern_signature_on(Kokkos::DefaultHostExecutionSpace(), A.num_rows, A.num_cols, host_array(A.row_map),
                              host_array(A.entries));
}

Inspection inspect(const HostCrs& A, const Options& options, const char* who, int value_bytes) {
  return inspect_on(Kokkos::DefaultHostExecutionSpace(), A.num_rows, A.num_cols, host_array(A.row_map),
                    host_array(A.entries), static_cast<int64_t>(A.values.size()), options, who, value_bytes);
}

std::vector<double> scatter_values(const HostPattern& p, const std::vector<double>& values) {
  const int64_t tile_nnz = p.num_tiles() ? p.tile_val_offset(p.num_tiles()) : 0;
  std::vector<double> slots(tile_nnz + p.res_cols.extent(0), 0.0);
  for (size_t k = 0; k < values.size(); ++k) slots[p.value_dest(k)] += values[k];  // duplicates summed
  return slots;
}

}  // namespace impl
}  // namespace rsh
