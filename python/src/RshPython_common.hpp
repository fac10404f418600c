#pragma once
// What the extension's host and CUDA halves share: Kokkos start-up, Options from keyword arguments, CSR
// arrays from DLPack/NumPy, and dense operands described by their strides.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace python {

namespace nb = nanobind;

/// Starts Kokkos on first use (the inspector and the host kernels run on its host space) and finalizes it
/// at process exit. Not from a Python exit handler: Python frees module objects after those, so views would
/// outlive the finalize.
void ensure_kokkos();

/// Inspector options as the Python keywords name them.
struct OptionArgs {
  std::string partition = "Auto";  ///< rsh::partition_name of a Partition
  std::string reorder = "Auto";    ///< rsh::reorder_name of a Reorder
  bool allow_tf32 = false;
  bool deterministic = false;
  double expected_multiplies = 100;
  int expected_num_vectors = 0;  ///< 0: the model's N (128); the extension's plans are built before a multiply
  bool report_progress = false;
  bool window_statistics = false;
};
Options options_from(const OptionArgs& args);

/// A CSR pattern's arrays on the host: row_map (int64, num_rows + 1) and entries (int32, nnz).
using RowMapArray = nb::ndarray<const int64_t, nb::ndim<1>, nb::device::cpu, nb::c_contig>;
using EntriesArray = nb::ndarray<const int32_t, nb::ndim<1>, nb::device::cpu, nb::c_contig>;

/// The pattern as a HostCrs with zero values (what the inspector reads); checks the array sizes against
/// each other (the inspector checks the contents).
impl::HostCrs host_pattern(int64_t num_cols, const RowMapArray& row_map, const EntriesArray& entries);

/// A rank-2 operand with unit stride along one dimension.
struct DenseOperand {
  void* data = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t ld = 0;         ///< elements between rows (row-major) or columns (column-major)
  bool row_major = true;  ///< element (i, j) at data[i * ld + j]; else at data[j * ld + i]
};

/// `a` as a DenseOperand, after checking its rank, device type and element type (DLPack code, bits);
/// `name` is what error messages call it. Either storage order, with any leading dimension.
DenseOperand dense_operand(const nb::ndarray<>& a, const char* name, int device_type, uint8_t code, int bits);

/// Checks a rank-1 array of `expected` elements of the given type on the given device type.
void check_vector(const nb::ndarray<>& a, const char* name, int device_type, uint8_t code, int bits, int64_t expected);

constexpr uint8_t kFloatCode = static_cast<uint8_t>(nb::dlpack::dtype_code::Float);

}  // namespace python
}  // namespace rsh
