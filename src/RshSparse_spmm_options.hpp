#pragma once
// Options of the spmm inspector (the handle). Every preprocessing choice is
// here, with the defaults the module uses when the user says nothing.

namespace rsh {

/// How rows are split between the Tensor-Core tiles and the CUDA-core residual.
enum class Partition {
  kRowStructured,   ///< RSH-SpMM Alg. 1: short, low-impact rows go to the residual
  kTensorCoreOnly,  ///< every non-empty row in an 8-row window
  kCudaCoreOnly,    ///< every non-empty row in the CSR residual
};

/// Row permutation applied before partitioning (C rows keep their positions).
enum class Reorder {
  kNone,      ///< rows in their given order
  kLocality,  ///< RSH-SpMM Alg. 3: similar rows into the same window
};

/// Parameters of Reorder::kLocality.
struct ReorderOptions {
  double alpha = 1.0;       ///< column weight d_j^-alpha: rare columns count more
  int neighbours = 8;       ///< k of the kNN graph
  int max_postings = 1024;  ///< columns shared by more rows are not used to find candidates
  int max_scan = 8192;      ///< postings scanned per row (bounded work per row)
  bool two_opt = true;      ///< 2-opt segment reversals over two-window spans
};

/// Which executor runs the multiply.
enum class SpmmAlgorithm {
  kDefault,   ///< the best available for the execution space (CUDA kernels on Kokkos::Cuda)
  kPortable,  ///< the portable Kokkos kernels on any execution space
};

struct Options {
  Partition partition = Partition::kRowStructured;
  Reorder reorder = Reorder::kNone;
  ReorderOptions reorder_options;
  /// RowStructured: a row with nnz <= tau_nnz that adds fewer than tau_inc
  /// new columns to its window goes to the residual (RSH-SpMM Alg. 1). The
  /// paper's plateau (Fig. 14) is tau_nnz in [2, 4].
  int tau_nnz = 4;
  int tau_inc = 5;
  /// Work-item bounds: longer windows / residual rows are split and combined
  /// with atomics (only split items use atomics).
  int max_tiles_per_item = 64;
  int max_residual_nnz_per_item = 1024;
  SpmmAlgorithm algorithm = SpmmAlgorithm::kDefault;
  /// Report each inspector phase and its time on std::clog (large matrices take seconds).
  bool report_progress = false;
};

inline const char* reorder_name(Reorder r) {
  return r == Reorder::kLocality ? "Locality" : "None";
}

inline const char* partition_name(Partition p) {
  switch (p) {
    case Partition::kRowStructured:
      return "RowStructured";
    case Partition::kTensorCoreOnly:
      return "TensorCoreOnly";
    case Partition::kCudaCoreOnly:
      return "CudaCoreOnly";
  }
  return "unknown";
}

}  // namespace rsh
