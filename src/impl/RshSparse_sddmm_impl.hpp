#pragma once
// Portable SDDMM kernels, for every execution space: a team a row of the
// user's CSR, a thread a stored position, its vector lanes the features of
// the dot product. And the gather that brings the CUDA backend's dot
// products, computed per value slot of the format, into the CSR's order.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "impl/RshSparse_matrix_access.hpp"
#include "impl/RshSparse_spmm_impl.hpp"

namespace rsh {
namespace impl {

/// Vector lanes a portable SDDMM thread splits the features over: one on host spaces (the loop
/// vectorises), a quarter warp on devices.
template <class ExecSpace>
constexpr int portable_sddmm_vector() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 1 : 8;
}

/// C's values(j) = alpha * dot(X(r, :), Y(c, :)) + beta * values(j) at every stored position j = (r, c) of C
/// (beta == 0 ignores the values), over C's own CSR arrays (checked by the caller).
template <class ExecSpace, class XView, class YView, class Matrix>
void sddmm_portable(const ExecSpace& exec, typename XView::const_value_type alpha, const XView& X, const YView& Y,
                    typename XView::const_value_type beta, const Matrix& C) {
  using M = MatrixAccess<Matrix>;
  using Scalar = typename XView::non_const_value_type;
  using Acc = typename Accumulator<Scalar>::type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto row_map = M::row_map(C);
  const auto entries = M::entries(C);
  const auto values = M::values(C);
  const int k = static_cast<int>(X.extent(1));
  const Acc a = static_cast<Acc>(alpha), b = static_cast<Acc>(beta);
  Kokkos::parallel_for(
      "rsh::sddmm[portable]", Policy(exec, M::num_rows(C), Kokkos::AUTO, portable_sddmm_vector<ExecSpace>()),
      KOKKOS_LAMBDA(const Member& team) {
        const int r = team.league_rank();
        const int64_t begin = static_cast<int64_t>(row_map(r)), end = static_cast<int64_t>(row_map(r + 1));
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const int64_t j) {
          const int c = entries(j);
          Acc dot = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, k),
              [&](const int f, Acc& sum) { sum += static_cast<Acc>(X(r, f)) * static_cast<Acc>(Y(c, f)); }, dot);
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            values(j) = static_cast<Scalar>(b == Acc(0) ? a * dot : a * dot + b * static_cast<Acc>(values(j)));
          });
        });
      });
}

/// values(j) = alpha * slots(dest(j)) + beta * values(j) (beta == 0 ignores the values): dot products per value
/// slot of a format back to the CSR's positions (a duplicated position reads its slot's product).
template <class ExecSpace, class Dest, class Slots, class Values>
void gather_sddmm(const ExecSpace& exec, const Dest& dest, const Slots& slots, float alpha, float beta,
                  const Values& values) {
  using Scalar = typename Values::non_const_value_type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  Kokkos::parallel_for(
      "rsh::sddmm::gather", Policy(exec, 0, static_cast<int64_t>(values.extent(0))), KOKKOS_LAMBDA(const int64_t j) {
        const float dot = alpha * slots(dest(j));
        values(j) = static_cast<Scalar>(beta == 0.f ? dot : dot + beta * static_cast<float>(values(j)));
      });
}

}  // namespace impl
}  // namespace rsh
