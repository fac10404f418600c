#pragma once
// Kokkos::Cuda has a hand-written backend (selected at compile time).
#include <Kokkos_Core.hpp>

#include "impl/RshSparse_spmm_spec.hpp"

namespace rsh {
namespace impl {
template <>
struct SpmmBackendAvail<Kokkos::Cuda> {
  static constexpr bool value = true;
};
}  // namespace impl
}  // namespace rsh
