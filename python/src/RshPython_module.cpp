// rsh._rsh: the compiled half of the Python package (python/rsh wraps it). Exceptions cross as Python
// ones: std::invalid_argument as ValueError, other std::exceptions (rsh::ResourceError, CUDA errors) as
// RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "RshPython_bindings.hpp"
#include "RshPython_common.hpp"

namespace nb = nanobind;

namespace rsh {
namespace python {

void bind_options(nb::module_& m) {
  nb::class_<OptionArgs>(m, "Options")
      .def(nb::init<>())
      .def_rw("partition", &OptionArgs::partition, "RowStructured, TensorCoreOnly, CudaCoreOnly, DenseBlocks or Auto")
      .def_rw("reorder", &OptionArgs::reorder, "None, MinHash, Locality, ... or Auto")
      .def_rw("allow_tf32", &OptionArgs::allow_tf32, "float on the GPU: TF32 Tensor-Core operands (else 3xTF32)")
      .def_rw("deterministic", &OptionArgs::deterministic, "bitwise repeatable results (no atomics)")
      .def_rw("expected_multiplies", &OptionArgs::expected_multiplies, "multiplies a reordering must pay over")
      .def_rw("expected_num_vectors", &OptionArgs::expected_num_vectors,
              "columns of B the partition and residual pieces are chosen for (0: 128)")
      .def_rw("report_progress", &OptionArgs::report_progress, "print the inspector's phases")
      .def_rw("window_statistics", &OptionArgs::window_statistics,
              "describe() also counts the natural 8-row windows' columns (one more pass)");
}

}  // namespace python
}  // namespace rsh

NB_MODULE(_rsh, m) {
  m.doc() = "rsh: RS-Tile SpMM and SDDMM (compiled part; use rsh.torch or the rsh package)";
  // Matrices held by autograd graphs and module globals may still be alive when the interpreter tears the
  // module down; nanobind would report each as a leak.
  nb::set_leak_warnings(false);
  rsh::python::bind_options(m);
  rsh::python::bind_host(m);
#ifdef RSH_ENABLE_CUDA
  rsh::python::bind_cuda(m);
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
}
