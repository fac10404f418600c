#pragma once
// Layout of A for Partition::kDenseBlocks (the Tensor-Core block kernel,
// cuda/RshSparse_spmm_block_kernel.cuh): A cut into 16 x 16 blocks stored
// whole, zeros included; block (group of 64 rows, column block, 16-row
// panel) at ((group * col_blocks + column block) * 4 + panel) * 256, its
// values in the fragment order of the kernel's MMA. No index arrays: the
// kernel computes every address, so a call costs one memory round trip.
// Header-only and free of Kokkos: the CUDA plan and the tests use it.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_window_columns.hpp"  // RSH_HOST_DEVICE

namespace rsh {
namespace impl {

constexpr int kDenseBlockDim = 16;
constexpr int kDenseBlockPanels = 4;
constexpr int kDenseGroupRows = kDenseBlockDim * kDenseBlockPanels;

struct DenseBlockLayout {
  int num_rows = 0, num_cols = 0;
  int groups = 0, col_blocks = 0;

  DenseBlockLayout() = default;
  /// Throws std::invalid_argument past 2^31 value slots.
  DenseBlockLayout(int64_t rows, int64_t cols)
      : num_rows(static_cast<int>(rows)),
        num_cols(static_cast<int>(cols)),
        groups(static_cast<int>((rows + kDenseGroupRows - 1) / kDenseGroupRows)),
        col_blocks(static_cast<int>((cols + kDenseBlockDim - 1) / kDenseBlockDim)) {
    if (slots(rows, cols) > INT32_MAX)
      throw std::invalid_argument("rsh: dense blocks of a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " matrix need " + std::to_string(slots(rows, cols)) +
                                  " value slots, more than 2^31 (Partition::kDenseBlocks is for small dense layers)");
  }

  /// Value slots (zeros included) of an m x n matrix.
  static int64_t slots(int64_t rows, int64_t cols) {
    return ((rows + kDenseGroupRows - 1) / kDenseGroupRows) * kDenseGroupRows *
           ((cols + kDenseBlockDim - 1) / kDenseBlockDim) * kDenseBlockDim;
  }
  int64_t num_slots() const { return slots(num_rows, num_cols); }

  /// Where A(r, c) sits: the fragment order is that of mma.m16n8k16 for
  /// 2-byte values (8 halves a lane), of two mma.m16n8k8 (TF32) for 4-byte
  /// values (4 floats a lane per k half, the halves 32 lanes apart), and of
  /// mma.m16n8k16 (FP64) for 8-byte values (a lane's A(g, q) of each 8-row half and
  /// 4-column quarter: the two halves of a quarter in one 16-byte chunk, the
  /// quarters 32 lanes apart).
  RSH_HOST_DEVICE int64_t slot(int r, int c, int value_bytes) const {
    const int64_t block = (int64_t(r / kDenseGroupRows) * col_blocks + c / kDenseBlockDim) * kDenseBlockPanels +
                          (r % kDenseGroupRows) / kDenseBlockDim;
    const int br = r % kDenseBlockDim, bc = c % kDenseBlockDim, g = br % 8, hi_r = br / 8;
    int in_block;
    if (value_bytes == 2) {
      const int hi_c = bc / 8, q = (bc % 8) / 2;
      in_block = (4 * g + q) * 8 + (hi_r + 2 * hi_c) * 2 + bc % 2;
    } else if (value_bytes == 4) {
      const int h = bc / 8, q = bc % 4, hi_c = (bc % 8) / 4;
      in_block = (h * 32 + 4 * g + q) * 4 + hi_r + 2 * hi_c;
    } else {
      const int quarter = bc / 4, q = bc % 4;
      in_block = (quarter * 32 + 4 * g + q) * 2 + hi_r;
    }
    return block * kDenseBlockDim * kDenseBlockDim + in_block;
  }
};

}  // namespace impl
}  // namespace rsh
