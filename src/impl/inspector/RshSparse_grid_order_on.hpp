#pragma once
// Reorder::kGridBlocks on the inspector's execution space: the operator of a
// structured grid (a stencil: every row a grid point, its columns the points
// within a fixed reach) with its rows put in small blocks of the grid. In the
// grid's own order 32 consecutive rows are one line of x and reach about 300
// distinct columns in 3-D; as a 4 x 4 x 2 block they reach 6 x 6 x 4 = 144, few
// enough for the staged Tensor-Core ranges of the CUDA plan to stage them.
// The grid is read off A: its strides from the offsets col - row of its
// longest row (1..hx, then groups around nx, then around nx * ny), then
// checked over every nonzero, so any other matrix keeps its order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"
#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"

namespace rsh {
namespace impl {

/// The largest reach along y and z (and x) grid_shape_on looks for: the 5-, 9-, 13-, 25-point stencils and
/// their 3-D kin.
constexpr int kGridMaxReach = 2;
/// Rows a block of the order: 4 x 4 x 2 points in 3-D, 8 x 4 in 2-D (a staged range of the CUDA plan).
constexpr int kGridBlockRows = 32;

/// A structured grid's operator: row and column p = x + nx * (y + ny * z), every nonzero within reach
/// (hx, hy, hz) of its row. nx == 0: not a grid.
struct GridShape {
  int64_t nx = 0, ny = 0, nz = 0;
  int hx = 0, hy = 0, hz = 0;
  bool found() const { return nx > 0; }
};

/// The grid whose offsets a row's positive offsets show (sorted, ascending), for `rows` points; none where they
/// do not read as one (see the file's comment).
inline GridShape grid_from_offsets(const std::vector<int64_t>& offsets, int64_t rows) {
  GridShape g;
  int hx = 0;
  while (hx < int(offsets.size()) && offsets[hx] == hx + 1) ++hx;
  if (hx == 0 || hx > kGridMaxReach || hx == int(offsets.size())) return GridShape{};
  // Offsets within `reach` of k * stride, for k = 1.. while present: the reach along that stride.
  const auto reach_along = [&](int64_t stride, int64_t inner) {
    int k = 0;
    while (k < kGridMaxReach && std::any_of(offsets.begin(), offsets.end(), [&](int64_t d) {
             return d >= (k + 1) * stride - inner && d <= (k + 1) * stride + inner;
           }))
      ++k;
    return k;
  };
  // The group around nx spans nx - hx .. nx + hx (a box stencil) or is nx alone (a star stencil).
  const int64_t first = offsets[hx];
  int64_t last = first;
  for (int64_t d : offsets)
    if (d > first && d <= first + 2 * hx) last = std::max(last, d);
  g.nx = (first + last) / 2, g.hx = hx;
  if (g.nx <= 2 * hx + 1 || rows % g.nx != 0) return GridShape{};
  g.hy = reach_along(g.nx, hx);
  const int64_t plane_reach = g.hy * g.nx + hx;
  const auto beyond = std::find_if(offsets.begin(), offsets.end(), [&](int64_t d) { return d > plane_reach; });
  if (beyond == offsets.end()) {  // 2-D
    g.ny = rows / g.nx, g.nz = 1;
    return g.ny > 2 * g.hy + 1 ? g : GridShape{};
  }
  int64_t plane_last = *beyond;
  for (int64_t d : offsets)
    if (d > *beyond && d <= *beyond + 2 * plane_reach) plane_last = std::max(plane_last, d);
  const int64_t plane = (*beyond + plane_last) / 2;
  if (plane % g.nx != 0 || rows % plane != 0) return GridShape{};
  g.ny = plane / g.nx, g.nz = rows / plane;
  g.hz = reach_along(plane, plane_reach);
  if (g.ny <= 2 * g.hy + 1 || g.nz < 2) return GridShape{};
  return g;
}

/// The grid of a square A whose nonzeros all lie within a stencil's reach of their rows (GridShape); none
/// otherwise. Reads A's longest row on the host (at most a few hundred entries), then checks every nonzero on
/// `exec`.
template <class ExecSpace>
GridShape grid_shape_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A) {
  constexpr int64_t kMaxStencilPoints = (2 * kGridMaxReach + 1) * (2 * kGridMaxReach + 1) * (2 * kGridMaxReach + 1);
  if (A.num_rows != A.num_cols || A.num_rows < 2 * kGridBlockRows || A.nnz == 0) return GridShape{};
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  using Loc = Kokkos::MaxLoc<int64_t, int64_t>;
  typename Loc::value_type longest;
  Kokkos::parallel_reduce(
      "rsh::inspect::grid_longest_row", Range64<ExecSpace>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const int64_t r, typename Loc::value_type& best) {
        const int64_t len = row_map(r + 1) - row_map(r);
        if (len > best.val) best.val = len, best.loc = r;
      },
      Loc(longest));
  if (longest.val > kMaxStencilPoints) return GridShape{};
  int64_t bounds[2];
  Kokkos::deep_copy(exec, HostArray<int64_t>(bounds, 2),
                    Kokkos::subview(row_map, Kokkos::make_pair(longest.loc, longest.loc + 2)));
  exec.fence();
  std::vector<int> cols(static_cast<size_t>(bounds[1] - bounds[0]));
  Kokkos::deep_copy(exec, HostArray<int>(cols.data(), cols.size()),
                    Kokkos::subview(entries, Kokkos::make_pair(bounds[0], bounds[1])));
  exec.fence();
  std::vector<int64_t> offsets;
  for (int c : cols)
    if (c > longest.loc) offsets.push_back(c - longest.loc);
  std::sort(offsets.begin(), offsets.end());
  const GridShape g = grid_from_offsets(offsets, A.num_rows);
  if (!g.found()) return g;
  int64_t outside = 0;
  Kokkos::parallel_reduce(
      "rsh::inspect::grid_check", Range64<ExecSpace>(exec, 0, A.num_rows),
      KOKKOS_LAMBDA(const int64_t r, int64_t& bad) {
        const int64_t x = r % g.nx, y = r / g.nx % g.ny, z = r / (g.nx * g.ny);
        for (int64_t k = row_map(r); k < row_map(r + 1); ++k) {
          const int64_t c = entries(k);
          const int64_t dx = c % g.nx - x, dy = c / g.nx % g.ny - y, dz = c / (g.nx * g.ny) - z;
          bad += (dx < -g.hx || dx > g.hx || dy < -g.hy || dy > g.hy || dz < -g.hz || dz > g.hz) ? 1 : 0;
        }
      },
      outside);
  return outside == 0 ? g : GridShape{};
}

/// The rows of grid g in blocks of kGridBlockRows points (4 x 4 x 2 in 3-D, 8 x 4 in 2-D), blocks in the grid's
/// order of their corners, points inside a block x fastest (position -> row). Blocks cut by the grid's edges
/// hold fewer points.
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> grid_blocks_order_on(const ExecSpace& exec, const GridShape& g) {
  const int64_t n = g.nx * g.ny * g.nz;
  const int bx = g.nz > 1 ? 4 : 8, by = 4, bz = g.nz > 1 ? 2 : 1;
  const int64_t blocks_x = (g.nx + bx - 1) / bx, blocks_y = (g.ny + by - 1) / by;
  const auto key = scratch_view<uint64_t>(exec, "rsh::grid_blocks::key", n);
  const auto order = uninitialized_view<int>(exec, "rsh::grid_blocks::order", n);
  Kokkos::parallel_for(
      "rsh::inspect::grid_blocks", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        const int64_t x = r % g.nx, y = r / g.nx % g.ny, z = r / (g.nx * g.ny);
        const int64_t block = (z / bz * blocks_y + y / by) * blocks_x + x / bx;
        const int64_t inside = (z % bz * by + y % by) * bx + x % bx;
        key(r) = uint64_t(block) * kGridBlockRows + uint64_t(inside);
        order(r) = static_cast<int>(r);
      });
  sort_pairs(exec, key, order);
  return order;
}

}  // namespace impl
}  // namespace rsh
