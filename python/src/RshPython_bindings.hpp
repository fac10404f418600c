#pragma once
// The extension's parts, each registering its classes on the module.
#include <nanobind/nanobind.h>

namespace rsh {
namespace python {

void bind_options(nanobind::module_& m);
void bind_host(nanobind::module_& m);
#ifdef RSH_ENABLE_CUDA
void bind_cuda(nanobind::module_& m);
#endif

}  // namespace python
}  // namespace rsh
