// rsh._rsh.HostMatrix{Float,Double}: rsh::spmm and rsh::sddmm with a handle on Kokkos' default host
// execution space, over NumPy/DLPack arrays in host memory (the portable kernels; double included).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <nanobind/stl/string.h>

#include "RshPython_bindings.hpp"
#include "RshPython_common.hpp"
#include "RshSparse_sddmm.hpp"
#include "RshSparse_spmm.hpp"

namespace rsh {
namespace python {
namespace {

template <class Scalar>
class HostMatrix {
 public:
  using ExecSpace = Kokkos::DefaultHostExecutionSpace;
  using Device = Kokkos::Device<ExecSpace, Kokkos::HostSpace>;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;

  HostMatrix(int64_t num_cols, const RowMapArray& row_map, const EntriesArray& entries, const OptionArgs& args)
      : handle_(options_from(args)) {
    ensure_kokkos();
    const auto b =
        impl::to_bundle<Scalar, int, Kokkos::HostSpace>(host_pattern(num_cols, row_map, entries), "rsh.HostMatrix");
    A_ = Matrix("rsh::python::A", b.num_rows, b.num_cols, b.nnz(), b.values, b.row_map, b.entries);
  }

  /// Copies A's values (CSR order); the handle's next multiply uses them.
  void set_values(const nb::ndarray<>& values) {
    check_vector(values, "values", nb::device::cpu::value, kFloatCode, 8 * sizeof(Scalar), A_.nnz());
    const Scalar* v = static_cast<const Scalar*>(values.data());
    std::copy(v, v + A_.nnz(), A_.values.data());
    if (handle_.has_analysis()) handle_.update_values(A_);
  }

  /// C = alpha * op(A) * B + beta * C, op by `mode` ("N" or "T"); B and C contiguous in one storage order.
  void spmm(const std::string& mode, double alpha, const nb::ndarray<>& B, double beta, const nb::ndarray<>& C) {
    const DenseOperand b = operand(B, "B"), c = operand(C, "C");
    same_order(b, c, "B and C");
    if (b.row_major)
      rsh::spmm(ExecSpace(), &handle_, mode.c_str(), Scalar(alpha), A_, view<Kokkos::LayoutRight>(b), Scalar(beta),
                mutable_view<Kokkos::LayoutRight>(c));
    else
      rsh::spmm(ExecSpace(), &handle_, mode.c_str(), Scalar(alpha), A_, view<Kokkos::LayoutLeft>(b), Scalar(beta),
                mutable_view<Kokkos::LayoutLeft>(c));
    ExecSpace().fence();
  }

  /// out = alpha * (X Y^T) on A's pattern + beta * out, in A's CSR order.
  void sddmm(double alpha, const nb::ndarray<>& X, const nb::ndarray<>& Y, double beta, const nb::ndarray<>& out) {
    const DenseOperand x = operand(X, "X"), y = operand(Y, "Y");
    same_order(x, y, "X and Y");
    check_vector(out, "out", nb::device::cpu::value, kFloatCode, 8 * sizeof(Scalar), A_.nnz());
    typename Matrix::values_type values(static_cast<Scalar*>(out.data()), A_.nnz());
    const Matrix C("rsh::python::C", A_.numRows(), A_.numCols(), A_.nnz(), values, A_.graph.row_map, A_.graph.entries);
    if (x.row_major)
      rsh::sddmm(ExecSpace(), &handle_, Scalar(alpha), view<Kokkos::LayoutRight>(x), view<Kokkos::LayoutRight>(y),
                 Scalar(beta), C);
    else
      rsh::sddmm(ExecSpace(), &handle_, Scalar(alpha), view<Kokkos::LayoutLeft>(x), view<Kokkos::LayoutLeft>(y),
                 Scalar(beta), C);
    ExecSpace().fence();
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }
  int64_t nnz() const { return A_.nnz(); }
  std::string describe() const { return handle_.describe(); }

 private:
  static DenseOperand operand(const nb::ndarray<>& a, const char* name) {
    const DenseOperand d = dense_operand(a, name, nb::device::cpu::value, kFloatCode, 8 * sizeof(Scalar));
    if (d.ld != (d.row_major ? d.cols : d.rows) && d.rows > 1 && d.cols > 1)
      throw std::invalid_argument(std::string("rsh: ") + name + " must be contiguous on the host path");
    return d;
  }
  static void same_order(const DenseOperand& a, const DenseOperand& b, const char* what) {
    if (a.row_major != b.row_major)
      throw std::invalid_argument(std::string("rsh: ") + what + " must share one storage order");
  }
  template <class Layout>
  static Kokkos::View<const Scalar**, Layout, Device> view(const DenseOperand& d) {
    return Kokkos::View<const Scalar**, Layout, Device>(static_cast<const Scalar*>(d.data), d.rows, d.cols);
  }
  template <class Layout>
  static Kokkos::View<Scalar**, Layout, Device> mutable_view(const DenseOperand& d) {
    return Kokkos::View<Scalar**, Layout, Device>(static_cast<Scalar*>(d.data), d.rows, d.cols);
  }

  SpmmHandle<Scalar, Device> handle_;
  Matrix A_;
};

template <class Scalar>
void bind_host_matrix(nb::module_& m, const char* name) {
  using M = HostMatrix<Scalar>;
  nb::class_<M>(m, name)
      .def(nb::init<int64_t, const RowMapArray&, const EntriesArray&, const OptionArgs&>(), nb::arg("num_cols"),
           nb::arg("row_map"), nb::arg("entries"), nb::arg("options"))
      .def("set_values", &M::set_values, nb::arg("values"))
      .def("spmm", &M::spmm, nb::arg("mode"), nb::arg("alpha"), nb::arg("B"), nb::arg("beta"), nb::arg("C"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("sddmm", &M::sddmm, nb::arg("alpha"), nb::arg("X"), nb::arg("Y"), nb::arg("beta"), nb::arg("out"),
           nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("num_rows", &M::num_rows)
      .def_prop_ro("num_cols", &M::num_cols)
      .def_prop_ro("nnz", &M::nnz)
      .def("describe", &M::describe);
}

}  // namespace

void bind_host(nb::module_& m) {
  bind_host_matrix<float>(m, "HostMatrixFloat");
  bind_host_matrix<double>(m, "HostMatrixDouble");
}

}  // namespace python
}  // namespace rsh
