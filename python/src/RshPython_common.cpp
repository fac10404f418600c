#include "RshPython_common.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <stdexcept>

#ifdef RSH_ENABLE_CUDA
#include "cuda/RshSparse_spmm_cuda.hpp"
#endif

namespace rsh {
namespace python {

void ensure_kokkos() {
  if (Kokkos::is_initialized()) return;
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  // A CUDA-enabled Kokkos aborts the process when it starts without a device: say so instead.
  if (!cuda::device_available())
    throw std::runtime_error("rsh: this build's Kokkos needs a CUDA device and none is usable");
#endif
  int argc = 1;
  char name[] = "rsh";
  char* argv[] = {name, nullptr};
  Kokkos::initialize(argc, argv);
  // At process exit, after Python has freed what it frees (objects still alive then are never freed), and
  // before the CUDA runtime's own exit handler (registered earlier, so run later).
  std::atexit([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
}

Options options_from(const OptionArgs& args) {
  Options options;
  options.partition = parse_partition(args.partition);
  options.reorder = parse_reorder(args.reorder);
  options.allow_tf32 = args.allow_tf32;
  options.deterministic = args.deterministic;
  options.expected_multiplies = args.expected_multiplies;
  options.expected_num_vectors = args.expected_num_vectors;
  options.report_progress = args.report_progress;
  options.window_statistics = args.window_statistics;
  return options;
}

impl::HostCrs host_pattern(int64_t num_cols, const RowMapArray& row_map, const EntriesArray& entries) {
  if (row_map.shape(0) < 1) throw std::invalid_argument("rsh: row_map needs num_rows + 1 >= 1 entries");
  const int64_t num_rows = static_cast<int64_t>(row_map.shape(0)) - 1;
  const int64_t nnz = static_cast<int64_t>(entries.shape(0));
  if (row_map.data()[num_rows] != nnz)
    throw std::invalid_argument("rsh: row_map[num_rows] = " + std::to_string(row_map.data()[num_rows]) + " but " +
                                std::to_string(nnz) + " column indices were given");
  if (num_cols < 0) throw std::invalid_argument("rsh: negative number of columns");
  impl::check_host_bytes(impl::crs_bytes(num_rows, nnz, 8, 8), "rsh: the host copy of the pattern");
  impl::HostCrs A;
  A.num_rows = num_rows, A.num_cols = num_cols;
  A.row_map.assign(row_map.data(), row_map.data() + num_rows + 1);
  A.entries.assign(entries.data(), entries.data() + nnz);
  A.values.assign(nnz, 0.0);
  return A;
}

namespace {

void check_type(const nb::ndarray<>& a, const char* name, int device_type, uint8_t code, int bits) {
  if (a.device_type() != device_type)
    throw std::invalid_argument(std::string("rsh: ") + name + " is on another device type than expected (" +
                                (device_type == nb::device::cuda::value ? "CUDA" : "CPU") + ")");
  if (a.dtype().code != code || a.dtype().bits != bits || a.dtype().lanes != 1)
    throw std::invalid_argument(std::string("rsh: ") + name + " has element type (code " +
                                std::to_string(a.dtype().code) + ", " + std::to_string(a.dtype().bits) +
                                " bits), expected (code " + std::to_string(code) + ", " + std::to_string(bits) +
                                " bits)");
}

}  // namespace

DenseOperand dense_operand(const nb::ndarray<>& a, const char* name, int device_type, uint8_t code, int bits) {
  if (a.ndim() != 2) throw std::invalid_argument(std::string("rsh: ") + name + " must be rank 2");
  check_type(a, name, device_type, code, bits);
  DenseOperand d;
  d.data = a.data();
  d.rows = static_cast<int64_t>(a.shape(0)), d.cols = static_cast<int64_t>(a.shape(1));
  const int64_t s0 = a.stride(0), s1 = a.stride(1);
  // A dimension of extent 1 has no meaningful stride: either order fits along it.
  if ((s1 == 1 || d.cols <= 1) && s0 >= std::max<int64_t>(d.cols, 1)) {
    d.row_major = true, d.ld = std::max<int64_t>(s0, 1);
  } else if ((s0 == 1 || d.rows <= 1) && s1 >= std::max<int64_t>(d.rows, 1)) {
    d.row_major = false, d.ld = std::max<int64_t>(s1, 1);
  } else {
    throw std::invalid_argument(std::string("rsh: ") + name +
                                " needs unit stride along one dimension (row- or column-major); make it contiguous");
  }
  return d;
}

void check_vector(const nb::ndarray<>& a, const char* name, int device_type, uint8_t code, int bits, int64_t expected) {
  if (a.ndim() != 1) throw std::invalid_argument(std::string("rsh: ") + name + " must be rank 1");
  check_type(a, name, device_type, code, bits);
  if (static_cast<int64_t>(a.shape(0)) != expected)
    throw std::invalid_argument(std::string("rsh: ") + name + " has " + std::to_string(a.shape(0)) +
                                " elements, expected " + std::to_string(expected));
  if (a.shape(0) > 1 && a.stride(0) != 1)
    throw std::invalid_argument(std::string("rsh: ") + name + " must be contiguous");
}

}  // namespace python
}  // namespace rsh
