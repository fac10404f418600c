#pragma once
// Options of the spmm inspector (the handle). Every preprocessing choice is
// here, with the defaults the module uses when the user says nothing.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rsh {

/// How rows are split between the Tensor-Core tiles and the CUDA-core residual.
enum class Partition {
  kRowStructured,   ///< RSH-SpMM Alg. 1: short, low-impact rows go to the residual
  kTensorCoreOnly,  ///< every non-empty row in an 8-row window
  kCudaCoreOnly,    ///< every non-empty row in the CSR residual
  /// The whole matrix as 16 x 16 blocks stored dense (zeros included) on Tensor Cores (CUDA; the portable
  /// kernels run the CSR residual of CudaCoreOnly). For small layers that fill nearly every block.
  kDenseBlocks,
  /// Libra's 2D-aware distribution: windows of 8 consecutive rows; in each, a column held by at least
  /// ceil(Tuning::libra_eta x 8) of the rows goes to Tensor Cores, the other nonzeros to the residual, so a
  /// row may be split between both (its two parts add into C with atomics).
  kLibra,
  /// BRP-SpMM's balanced blocks: windows of 8 consecutive rows whose nonzeros, in column order, fill tiles
  /// of one nonzero per tile column, 4 tiles (32 nonzeros) a work item; what does not fill a whole item goes
  /// to the residual.
  kBalancedBlocks,
  kAuto,  ///< RowStructured, CudaCoreOnly or DenseBlocks, whichever a cost model fitted on the H100 predicts fastest
};

/// How Partition::kAuto picks the partition of a matrix.
enum class PlanSelector {
  /// The decision tree fitted for the multiply's arithmetic on H100 measurements (scripts/fit_selector.py),
  /// where one is fitted and predicted better on matrices it was not trained on; else kCostModel.
  kLearned,
  kCostModel,  ///< the fastest by the linear kernel-time models (RshSparse_partition_select_impl.cpp)
};

/// Row permutation applied before partitioning (C rows keep their positions).
/// The permutations of "Learning Sparse Matrix Row Permutations" are mapped
/// onto the Tensor-Core kernel: the paper's warp is an 8-row window (one
/// warp's work item), its CTA 8 consecutive windows (64 rows, one CTA of 8
/// warps); a row's warp load is its nonzero count and its bit mask the set
/// of column blocks it touches (ReorderOptions::mask_block_columns).
enum class Reorder {
  kNone,         ///< rows in their given order
  kLocality,     ///< RSH-SpMM Alg. 3: similar rows (weighted Jaccard) into the same window
  kPlainSort,    ///< rows by decreasing load: windows of similar loads
  kFlippedSort,  ///< decreasing load dealt to a CTA's 8 windows, direction flipped each round
  kLptSort,      ///< longest processing time first: each row to the least-loaded window with room
  kWarpAware,    ///< each window seeded with the lightest row, then the nearest mask (Hamming) to the last row
  kCtaAware,     ///< one chain, each row the nearest mask to the previous one (across windows)
  kHybrid1,      ///< plain sort, equal loads ordered by nearest mask
  kHybrid2_1,    ///< CTA-aware, equally near rows: the closest load
  kHybrid2_2,    ///< CTA-aware, equally near rows: the nearest to the window's first row
  kHybrid2_3,    ///< warp-aware, equally near rows: the closest load
  /// Rows sorted by a MinHash signature of their column sets (rows sharing columns side by side), on the
  /// handle's execution space: linear in the nonzeros plus one sort of the rows.
  kMinHash,
  /// The operator of a structured grid (every nonzero within a stencil's reach of its row, the grid read off A)
  /// with its rows in blocks of 4 x 4 x 2 grid points (8 x 4 in 2-D), whose 32 rows share few columns (the
  /// CUDA plan's staged Tensor-Core tiles); any other matrix keeps its order.
  kGridBlocks,
  /// On Kokkos::Cuda with 16-bit values and at least rsh::impl::kGridAutoMinRows rows, GridBlocks where A is
  /// a grid's operator; otherwise
  /// MinHash or the given order, whichever the work model predicts cheaper once MinHash's own cost is
  /// repaid over Options::expected_multiplies calls (rsh::impl::select_reorder).
  kAuto,
};

/// Parameters of the reorderings.
struct ReorderOptions {
  /// Locality: column weight d_j^-alpha (alpha > 0: rare columns count more). Every shared
  /// column saves a tile slot alike, so plain Jaccard (0) is the default: with hub windows and
  /// rescoring it predicted less kernel work than the paper's alpha = 1 on the shared graphs and
  /// meshes, and raised tile density on R-MAT where alpha = 1 lowered it.
  double alpha = 0.0;
  int neighbours = 8;       ///< Locality: k of the kNN graph
  int max_postings = 1024;  ///< columns (blocks) shared by more rows (hubs) are not scanned whole for candidates
  int max_scan = 8192;      ///< postings scanned per row (bounded work per row), hub windows apart
  /// Locality: of each hub column, the hub_window rows nearest in row id are candidates too
  /// (at most max_scan postings a row over all hubs). On power-law graphs (R-MAT) light rows
  /// share little but hubs, and rows sharing hubs are what fills their tiles.
  int hub_window = 16;
  /// Locality: where a row's scan counted only some of the columns it shares (hub windows, or
  /// max_scan reached), its `rescore` likeliest candidates are ranked by exact similarity.
  int rescore = 32;
  /// Locality keeps the given order when, on a sample of rows, fewer than this fraction have a
  /// most similar row that shares two columns or more with them: rows sharing at most one column
  /// with any other leave no tiles to fill (uniform random 1M x 1M, 12 per row: 0.8%; the shared
  /// graphs, meshes and pruned layers: 11% and up; R-MAT scale 20: 81%). 0 always reorders.
  double min_paired_rows = 0.05;
  bool two_opt = true;         ///< Locality: 2-opt segment reversals over two-window spans
  bool place_isolated = true;  ///< Locality: rows sharing no column with their neighbours move behind their nearest row
  /// Hamming policies: columns per mask bit. The paper uses 32 (one 128-byte
  /// line of a column-major B); with row-major B every column is its own B
  /// row, and tiles are built from exact columns, so the default is 1.
  int mask_block_columns = 1;
  /// MinHash on a square A (a graph): rounds of label propagation that refine its clusters, each row taking
  /// the cluster most of its columns' rows are in. 0 keeps the two-hop clusters. Each round reads every
  /// nonzero once.
  int minhash_label_rounds = 0;
  /// MinHash: rows of each chunk of this many positions (0 = off, or a multiple of 8 in [16, 64]) dealt into
  /// 8-row windows again, each window taking the rows sharing most columns with it (Locality's rule inside
  /// the chunk). Bounded work a row: the candidates are the chunk's rows.
  int minhash_window_chunk = 0;
};

/// Which executor runs the multiply.
enum class SpmmAlgorithm {
  kDefault,   ///< the best available for the execution space (CUDA kernels on Kokkos::Cuda)
  kPortable,  ///< the portable Kokkos kernels on any execution space
};

namespace Experimental {

/// Tuning knobs of the inspector that no planner chooses: for experiments and the benchmarks; their
/// defaults are what the planner was fitted with.
/// The most nonzeros one RS-Tile format holds (Tuning::max_panel_nnz).
constexpr int64_t kMaxPanelNnz = int64_t(1) << 30;

/// Which kernels a handle's SDDMM runs on the CUDA backend.
enum class SddmmKernels {
  kAuto,        ///< kCsr or kDenseTiles by C's shape and fill (cuda::sddmm_csr_auto_kernel)
  kCsr,         ///< CUDA cores over C's CSR arrays, spans of 8 nonzeros, written in C's order (one launch)
  kDenseTiles,  ///< Tensor Cores over C's CSR in dense tiles of 64 columns (sddmm_tile_rows rows; kCsr where C's rows
                ///< are unsorted)
  kFormat,      ///< the handle's format: Tensor-Core tiles and residual rows into value slots, then gathered
  kPanels,      ///< kCsr's spans over C's nonzeros in row panels, each panel's by column (sddmm_panel_rows)
};

struct Tuning {
  /// RowStructured: a row with nnz <= tau_nnz that adds fewer than tau_inc
  /// new columns to its window goes to the residual (RSH-SpMM Alg. 1). The
  /// paper's plateau (Fig. 14) is tau_nnz in [2, 4].
  int tau_nnz = 4;
  int tau_inc = 5;
  /// Work-item bounds: longer windows / residual rows are split. Pieces of a
  /// residual row of up to 8 pieces are summed in one CTA; pieces of windows
  /// and of longer rows add with atomics. A residual item is one lane group
  /// walking its nonzeros in sequence, and a row's time is its longest item's
  /// chain of dependent loads, so long rows are cut short (16 measured best
  /// where the partition is chosen per matrix).
  int max_tiles_per_item = 64;
  int max_residual_nnz_per_item = 16;
  /// Residual item length for rows of up to 8 x max_residual_nnz_per_item
  /// nonzeros (cut into at most 8 pieces, summed in one CTA); longer rows go
  /// in atomic pieces of max_residual_nnz_per_item. 0: chosen per matrix;
  /// CudaCoreOnly takes 4, 8, max_residual_nnz_per_item or twice that by
  /// kAuto's time model (a small matrix leaves the GPU idle, and its time is
  /// the longest item's chain of dependent loads; on a large one fewer items
  /// fill the last wave of CTAs better), the other partitions the maximum.
  int residual_piece_nnz = 0;
  /// Partition::kLibra: a window's column goes to Tensor Cores when at least ceil(libra_eta x 8) of its
  /// rows hold it (Libra's eta; its paper's default). In (0, 1].
  double libra_eta = 0.375;
  /// A handle analyses A as one format while A holds at most max_panel_nnz nonzeros, else as consecutive
  /// row panels of at most that many, each a format of its own that writes its rows of C: the format's
  /// offsets and work items are 32-bit, and a panel of 2^30 stays clear of that with room for padding.
  /// In [1, kMaxPanelNnz]; a row longer than a panel is rejected.
  int64_t max_panel_nnz = kMaxPanelNnz;
  /// Row windows of more nonzeros than this have their distinct columns ranked an entry a thread (binary
  /// searches in the window's rows) instead of merged by one thread. On a GPU one thread merging a window of
  /// hub rows would be the whole inspection's critical path; on host spaces the merge, linear in the
  /// window's nonzeros, does less work than a few binary searches an entry. -1: the execution space's
  /// choice (on GPUs twice the nonzeros a resident thread, at least 128: a longer window would outlast the
  /// rest of its merge pass; no window on host spaces); else >= 0.
  int64_t long_window_nnz = -1;
  /// Reorder::kAuto counts the B rows each candidate order fetches past a cache of this many B rows
  /// (rsh::impl::b_row_misses_on), where A has more columns than that: a given order that scatters the rows
  /// sharing columns across far-apart windows misses the cache that a MinHash order hits. -1: the execution
  /// space's choice (on a GPU its L2 over a B row of 128 FP16 features, the reference width; on host spaces
  /// 0); 0: no such term (the tile-count model alone); else >= 1. Not counted past 2^28 nonzeros
  /// (rsh::impl::kBRowMissesMaxNnz: the term's sort needs memory a nonzero).
  int64_t reorder_cache_rows = -1;
  /// The CUDA backend's SDDMM kernels (the portable backends have one).
  SddmmKernels sddmm_kernels = SddmmKernels::kAuto;
  /// Rows of a panel of SddmmKernels::kPanels: a panel's nonzeros are walked by column, so that those of a column
  /// share its row of Y, while the panel's rows of X stay in L1. >= 1.
  int sddmm_panel_rows = 64;
  /// Rows of a block of SddmmKernels::kDenseTiles: 64 or 32; 0 (the default): by the grid
  /// (cuda::sddmm_tile_rows).
  int sddmm_tile_rows = 0;
};

}  // namespace Experimental

struct Options {
  /// kAuto: RowStructured, CudaCoreOnly or DenseBlocks per matrix by predicted kernel time; past the
  /// model's range (2.2M nonzeros) CudaCoreOnly for every precision, as measured.
  Partition partition = Partition::kAuto;
  PlanSelector plan_selector = PlanSelector::kLearned;  ///< how kAuto picks the partition
  Reorder reorder = Reorder::kAuto;
  ReorderOptions reorder_options;
  /// How many multiplies the handle expects to run with one analysis: what kAuto weighs a reordering's
  /// cost against (a reordering that saves 5% of each multiply and costs 4 multiplies pays after 80).
  /// On a GPU kAuto does not even try MinHash where its trial, milliseconds of launches, could not pay
  /// over this many multiplies at the largest gain (rsh::impl::minhash_trial_pays): at the default, FP16
  /// at N = 128 tries it from about 5M nonzeros. The default suits a solver or a
  /// training run; a handful of calls should say so, a long training run too (a larger count lets
  /// smaller matrices try MinHash).
  double expected_multiplies = 100;
  /// The columns of B (N) the multiplies will have: what kAuto weighs the partitions' predicted times at, and
  /// CudaCoreOnly its residual piece lengths' (unless tuning.residual_piece_nnz fixes one).
  /// 0 (the default): the N of the call that analyses A (rsh::spmm), or 128 where A is analysed without a
  /// multiply (SpmmHandle::analyze, a raw CUDA plan). A handle keeps its analysis for every N.
  int expected_num_vectors = 0;
  /// Thresholds and work-item sizes no planner chooses (their defaults are the measured best).
  Experimental::Tuning tuning;
  SpmmAlgorithm algorithm = SpmmAlgorithm::kDefault;
  /// float on the CUDA backend: false (the default) keeps FP32-level accuracy, as KokkosSparse::spmv
  /// gives (Tensor-Core tiles split each operand into two TF32 parts, 3xTF32; CUDA cores run FP32);
  /// true lets the Tensor-Core tiles take TF32 operands (10 mantissa bits, relative error near 1e-3),
  /// which is faster. Other scalars and the portable kernels ignore it.
  bool allow_tf32 = false;
  /// Results bitwise identical from run to run (same device, inputs and options): no work item adds into C
  /// with atomics, whose order varies; windows and residual rows are then never split across work items, so
  /// matrices with very long rows run slower, and Libra and BalancedBlocks keep each row whole (on Tensor
  /// Cores where any of its nonzeros would be: a split row's two parts add with atomics). Covers a handle's multiplies
  /// in both modes (SDDMM has no atomics either way); the handle-free call takes no Options and is not covered.
  bool deterministic = false;
  /// Report each inspector phase and its time on std::clog (large matrices take seconds).
  bool report_progress = false;
  /// describe() also reports the natural 8-row windows' distinct columns and nonzeros per tile, counted by a
  /// pass that ranks every window's columns. No plan reads them, and on a small graph that pass takes as
  /// long as the rest of the analysis, so they are counted only when asked for.
  bool window_statistics = false;
};

namespace impl {

/// The options a handle plans with under Options::deterministic: work items never split (a split piece
/// adds into C with atomics).
inline Options deterministic_plan(Options options) {
  if (!options.deterministic) return options;
  options.tuning.max_tiles_per_item = options.tuning.max_residual_nnz_per_item = 1 << 28;
  return options;
}

}  // namespace impl

/// Every policy and its name, in the order of the enum (kAuto last).
constexpr Reorder kAllReorders[] = {
    Reorder::kNone,      Reorder::kLocality, Reorder::kPlainSort,  Reorder::kFlippedSort, Reorder::kLptSort,
    Reorder::kWarpAware, Reorder::kCtaAware, Reorder::kHybrid1,    Reorder::kHybrid2_1,   Reorder::kHybrid2_2,
    Reorder::kHybrid2_3, Reorder::kMinHash,  Reorder::kGridBlocks, Reorder::kAuto};

inline const char* reorder_name(Reorder r) {
  switch (r) {
    case Reorder::kNone:
      return "None";
    case Reorder::kLocality:
      return "Locality";
    case Reorder::kPlainSort:
      return "PlainSort";
    case Reorder::kFlippedSort:
      return "FlippedSort";
    case Reorder::kLptSort:
      return "LptSort";
    case Reorder::kWarpAware:
      return "WarpAware";
    case Reorder::kCtaAware:
      return "CtaAware";
    case Reorder::kHybrid1:
      return "Hybrid1";
    case Reorder::kHybrid2_1:
      return "Hybrid2.1";
    case Reorder::kHybrid2_2:
      return "Hybrid2.2";
    case Reorder::kHybrid2_3:
      return "Hybrid2.3";
    case Reorder::kMinHash:
      return "MinHash";
    case Reorder::kGridBlocks:
      return "GridBlocks";
    case Reorder::kAuto:
      return "Auto";
  }
  return "unknown";
}

/// The policy named `name` (as reorder_name prints it); throws std::invalid_argument otherwise.
inline Reorder parse_reorder(const std::string& name) {
  for (Reorder r : kAllReorders)
    if (name == reorder_name(r)) return r;
  throw std::invalid_argument("rsh::parse_reorder: unknown reordering '" + name + "'");
}

inline const char* partition_name(Partition p) {
  switch (p) {
    case Partition::kRowStructured:
      return "RowStructured";
    case Partition::kTensorCoreOnly:
      return "TensorCoreOnly";
    case Partition::kCudaCoreOnly:
      return "CudaCoreOnly";
    case Partition::kDenseBlocks:
      return "DenseBlocks";
    case Partition::kLibra:
      return "Libra";
    case Partition::kBalancedBlocks:
      return "BalancedBlocks";
    case Partition::kAuto:
      return "Auto";
  }
  return "unknown";
}

/// Every partition, in the order of the enum (kAuto last).
constexpr Partition kAllPartitions[] = {
    Partition::kRowStructured, Partition::kTensorCoreOnly, Partition::kCudaCoreOnly, Partition::kDenseBlocks,
    Partition::kLibra,         Partition::kBalancedBlocks, Partition::kAuto};

/// The partition named `name` (as partition_name prints it); throws std::invalid_argument otherwise.
inline Partition parse_partition(const std::string& name) {
  for (Partition p : kAllPartitions)
    if (name == partition_name(p)) return p;
  throw std::invalid_argument("rsh::parse_partition: unknown partition '" + name + "'");
}

}  // namespace rsh
