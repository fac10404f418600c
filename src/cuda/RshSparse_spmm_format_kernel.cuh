#pragma once
// What a plan over a device format (SpmmPlan(const DeviceFormat&, ...))
// derives from it on the device: the residual items the kernels read (one
// 16-byte record each) and, for dense blocks, each residual value's slot.
#include <cstdint>

#include "cuda/RshSparse_spmm_residual_kernel.cuh"
#include "impl/RshSparse_dense_blocks.hpp"

namespace rsh {
namespace cuda {
namespace detail {

/// items[i] from the format's item arrays (rows named by their C row); then, where `extra_rows` > 0,
/// one item without nonzeros per scale row (it stores beta * C like any other).
static __global__ void __launch_bounds__(256)
    residual_items_kernel(const int* item_row, const int* item_begin, const int* item_end, const int* item_pieces,
                          const int* res_rows, int num_items, const int* scale_rows, int extra_rows,
                          ResidualItem* items) {
  const int64_t total = int64_t(num_items) + extra_rows;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    items[i] = i < num_items ? ResidualItem{item_begin[i], item_end[i], res_rows[item_row[i]], item_pieces[i]}
                             : ResidualItem{0, 0, scale_rows[i - num_items], 1};
}

/// slot[k] = the dense-block slot of residual nonzero k, for every item's nonzeros.
static __global__ void __launch_bounds__(256)
    dense_slot_kernel(const ResidualItem* items, int num_items, const int* res_cols, impl::DenseBlockLayout layout,
                      int value_bytes, int64_t* slot) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < num_items; i += int64_t(gridDim.x) * blockDim.x)
    for (int k = items[i].begin; k < items[i].end; ++k) slot[k] = layout.slot(items[i].row, res_cols[k], value_bytes);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
