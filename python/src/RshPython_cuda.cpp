// rsh._rsh.CudaMatrix{Float,Half,BFloat16}: the raw CUDA API (rsh::cuda::SpmmPlan) over DLPack arrays in device
// memory (PyTorch, CuPy, JAX) and a caller's stream. A's pattern is inspected once; its values live in the
// plan as value slots (tiles, then residual), which the caller fills through slot_of_entry.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "RshPython_bindings.hpp"
#include "RshPython_common.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_cuda_format.hpp"
#include "impl/RshSparse_inspector.hpp"

namespace rsh {
namespace python {
namespace {

constexpr int kCuda = nb::device::cuda::value;

cudaStream_t as_stream(uintptr_t stream) {
  return reinterpret_cast<cudaStream_t>(stream);
}

template <class T>
class CudaMatrix {
 public:
  static constexpr int kBits = 8 * sizeof(T);
  /// DLPack's type code of T (bfloat16 has a code of its own).
  static constexpr uint8_t kCode =
      std::is_same<T, __nv_bfloat16>::value ? static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) : kFloatCode;

  CudaMatrix(int64_t num_cols, const RowMapArray& row_map, const EntriesArray& entries, const OptionArgs& args,
             uintptr_t stream) {
    ensure_kokkos();
    const Options options = impl::deterministic_plan(options_from(args));
    const impl::HostCrs A = host_pattern(num_cols, row_map, entries);
    const impl::Inspection inspection = impl::inspect(A, options, "rsh.CudaMatrix", sizeof(T));
    const auto& p = inspection.pattern;
    slot_of_entry_.assign(p.value_dest.data(), p.value_dest.data() + p.value_dest.extent(0));
    const int64_t tile_slots = p.num_tiles() ? p.tile_val_offset(p.num_tiles()) : 0;
    const std::vector<double> zeros(static_cast<size_t>(tile_slots + p.res_cols.extent(0)), 0.0);
    RSH_CUDA_CHECK(cudaGetDevice(&device_));
    plan_ = std::make_unique<cuda::SpmmPlan<T>>(impl::host_format(p, zeros), as_stream(stream),
                                                options.allow_tf32 ? cuda::FloatMath::kTf32 : cuda::FloatMath::kFp32);
    description_ = std::string("partition ") + partition_name(inspection.partition) + ", reorder " +
                   reorder_name(inspection.reorder) + "; " + plan_->describe();
  }

  /// The plan's values from `slots` (device, T, num_slots: tile slots then residual slots).
  void set_slots(const nb::ndarray<>& slots, uintptr_t stream) {
    check_device_vector(slots, "slots", kBits, num_slots());
    plan_->update_values_device(static_cast<const T*>(slots.data()), as_stream(stream));
  }

  /// C = alpha * A * B + beta * C. B: num_cols x n of T; C: num_rows x n of T (or float32 for 16-bit plans);
  /// both in one storage order, any leading dimension.
  void spmm(double alpha, const nb::ndarray<>& B, double beta, const nb::ndarray<>& C, uintptr_t stream) const {
    const DenseOperand b = device_operand(B, "B", kBits);
    const bool float_out = C.dtype().bits == 32;
    const DenseOperand c = device_operand(C, "C", float_out ? 32 : kBits);
    if (b.rows != num_cols() || c.rows != num_rows() || b.cols != c.cols)
      throw std::invalid_argument("rsh: spmm shapes: A is " + shape(num_rows(), num_cols()) + ", B " +
                                  shape(b.rows, b.cols) + ", C " + shape(c.rows, c.cols));
    if (b.row_major != c.row_major) throw std::invalid_argument("rsh: B and C must share one storage order");
    const auto layout = b.row_major ? cuda::Layout::kRowMajor : cuda::Layout::kColMajor;
    const int n = static_cast<int>(b.cols);
    if (float_out)
      plan_->spmm(float(alpha), static_cast<const T*>(b.data), b.ld, float(beta), static_cast<float*>(c.data), c.ld, n,
                  layout, as_stream(stream));
    else
      plan_->spmm(float(alpha), static_cast<const T*>(b.data), b.ld, float(beta), static_cast<T*>(c.data), c.ld, n,
                  layout, as_stream(stream));
  }

  /// out[s] = dot(X(r, :), Y(c, :)) for every value slot s at (r, c). X: num_rows x k, Y: num_cols x k, both
  /// row-major of T; out: float32 device vector of num_slots.
  void sddmm(const nb::ndarray<>& X, const nb::ndarray<>& Y, const nb::ndarray<>& out, uintptr_t stream) const {
    const DenseOperand x = device_operand(X, "X", kBits), y = device_operand(Y, "Y", kBits);
    if (x.rows != num_rows() || y.rows != num_cols() || x.cols != y.cols)
      throw std::invalid_argument("rsh: sddmm shapes: A is " + shape(num_rows(), num_cols()) + ", X " +
                                  shape(x.rows, x.cols) + ", Y " + shape(y.rows, y.cols));
    if ((!x.row_major && x.cols > 1) || (!y.row_major && y.cols > 1))
      throw std::invalid_argument("rsh: sddmm takes row-major X and Y");
    check_device_vector(out, "out", 32, num_slots());
    plan_->sddmm(static_cast<const T*>(x.data), x.ld, static_cast<const T*>(y.data), y.ld, static_cast<int>(x.cols),
                 static_cast<float*>(out.data()), as_stream(stream));
  }

  /// Value slot of each CSR position of A (a duplicated position shares its slot), as a NumPy array.
  nb::ndarray<nb::numpy, int64_t, nb::ndim<1>> slot_of_entry() const {
    auto* copy = new std::vector<int64_t>(slot_of_entry_);
    nb::capsule owner(copy, [](void* v) noexcept { delete static_cast<std::vector<int64_t>*>(v); });
    return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(copy->data(), {copy->size()}, owner);
  }

  int64_t num_rows() const { return plan_->num_rows(); }
  int64_t num_cols() const { return plan_->num_cols(); }
  int64_t num_slots() const { return plan_->num_value_slots(); }
  int device() const { return device_; }
  const std::string& describe() const { return description_; }

 private:
  /// T, or float32 (bits 32) where a 16-bit plan takes it.
  static uint8_t code_of(int bits) { return bits == kBits ? kCode : kFloatCode; }
  DenseOperand device_operand(const nb::ndarray<>& a, const char* name, int bits) const {
    check_on_device(a, name);
    return dense_operand(a, name, kCuda, code_of(bits), bits);
  }
  void check_device_vector(const nb::ndarray<>& a, const char* name, int bits, int64_t expected) const {
    check_on_device(a, name);
    check_vector(a, name, kCuda, code_of(bits), bits, expected);
  }
  void check_on_device(const nb::ndarray<>& a, const char* name) const {
    if (a.device_type() == kCuda && a.device_id() != device_)
      throw std::invalid_argument(std::string("rsh: ") + name + " is on CUDA device " + std::to_string(a.device_id()) +
                                  ", the matrix on " + std::to_string(device_));
  }
  static std::string shape(int64_t r, int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

  std::unique_ptr<cuda::SpmmPlan<T>> plan_;
  std::vector<int64_t> slot_of_entry_;
  int device_ = 0;
  std::string description_;
};

template <class T>
void bind_cuda_matrix(nb::module_& m, const char* name) {
  using M = CudaMatrix<T>;
  nb::class_<M>(m, name)
      .def(nb::init<int64_t, const RowMapArray&, const EntriesArray&, const OptionArgs&, uintptr_t>(),
           nb::arg("num_cols"), nb::arg("row_map"), nb::arg("entries"), nb::arg("options"), nb::arg("stream"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_slots", &M::set_slots, nb::arg("slots"), nb::arg("stream"))
      .def("spmm", &M::spmm, nb::arg("alpha"), nb::arg("B"), nb::arg("beta"), nb::arg("C"), nb::arg("stream"))
      .def("sddmm", &M::sddmm, nb::arg("X"), nb::arg("Y"), nb::arg("out"), nb::arg("stream"))
      .def("slot_of_entry", &M::slot_of_entry)
      .def_prop_ro("num_rows", &M::num_rows)
      .def_prop_ro("num_cols", &M::num_cols)
      .def_prop_ro("num_slots", &M::num_slots)
      .def_prop_ro("device", &M::device)
      .def("describe", &M::describe);
}

}  // namespace

void bind_cuda(nb::module_& m) {
  bind_cuda_matrix<float>(m, "CudaMatrixFloat");
  bind_cuda_matrix<__half>(m, "CudaMatrixHalf");
  bind_cuda_matrix<__nv_bfloat16>(m, "CudaMatrixBFloat16");
  m.def("cuda_device_available", &cuda::device_available);
}

}  // namespace python
}  // namespace rsh
