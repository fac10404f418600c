#pragma once
// The spmm handle: the inspector of one sparsity pattern. analyze() runs
// statistics, partition, RS-Tile build and schedule once, on the handle's
// execution space where A's views live (only the host reorderings, Locality
// and the load / mask permutations, read a host copy of A's pattern); spmm
// calls reuse it. Mode "T" multiplies with a second analysis, of A^T, which
// the handle builds on the first such call (A transposed on the execution
// space, then analysed with the same options). Values are cached at
// analysis and update_values(): after changing A's values in place, call
// update_values(A) (a new values view is picked up by itself), which gathers
// them into both formats on the handle's execution space. A matrix with
// another pattern is rejected: at once where A's row_map and entries are the
// analysed views, after a hash of the pattern on the execution space where
// they are others. A matrix of more nonzeros than one format holds
// (Tuning::max_panel_nnz) is analysed as row panels, each with a handle of its
// own (impl/RshSparse_row_panels.hpp). Not copyable.
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <vector>

#include "RshSparse_Error.hpp"
#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_matrix_access.hpp"
#include "impl/RshSparse_row_panels.hpp"
#include "impl/inspector/RshSparse_inspect_on.hpp"
#include "impl/inspector/RshSparse_transpose_on.hpp"
#include "impl/inspector/RshSparse_value_map_on.hpp"
#include "impl/RshSparse_spmm_spec.hpp"

namespace rsh {

template <class Scalar, class Device = Kokkos::DefaultExecutionSpace>
class SpmmHandle {
 public:
  using scalar_type = Scalar;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using pattern_type = impl::RsTilePattern<memory_space>;
  using values_type = Kokkos::View<Scalar*, Kokkos::LayoutRight, memory_space>;

  explicit SpmmHandle(const Options& options = Options()) : options_(options) {}
  SpmmHandle(const SpmmHandle&) = delete;
  SpmmHandle& operator=(const SpmmHandle&) = delete;

  /// Builds the format of A (pattern and values) on the execution space, for any pattern (an analysis of
  /// A^T is dropped). Throws std::invalid_argument on a malformed CSR (every extent named).
  template <class Matrix>
  void analyze(const Matrix& A) {
    transposed_.reset();
    analyze_rows(A, options_);
  }

  /// Refreshes the cached values of A (same pattern): one gather on the execution space per analysis (A's,
  /// and A^T's after a gather into its order), each value slot summing A's values at its positions
  /// (duplicates share a slot); no host copy.
  template <class Matrix>
  void update_values(const Matrix& A) {
    check_pattern(A);
    if (analyzed_ && panels_.empty()) gather(A);
    for (Panel& p : panels_) p.handle->update_values(impl::panel_matrix<const Scalar>(A, p.rows));
    if (!panels_.empty()) remember(A);
    if (transposed_) {
      impl::transposed_values_on(execution_space(), transpose_, impl::MatrixAccess<Matrix>::values(A),
                                 transposed_matrix_.values);
      transposed_->update_values(transposed_matrix_);
      remember(A);
    }
    ++values_version_;
  }

  /// Analyzes on first use, for multiplies of num_vectors columns (Options::expected_num_vectors); afterwards
  /// accepts only A's pattern.
  template <class Matrix>
  void prepare(const Matrix& A, int num_vectors = 0) {
    if (transposed_) refresh_if_new_values(A);  // checks A against the analysis of A^T, if that came first
    if (!analyzed_) return analyze_rows(A, options_for(num_vectors));
    if (!transposed_) refresh_if_new_values(A);
  }

  /// The analysis of A's pattern alone, for SDDMM (which writes A's values, never reads them): analyses on
  /// first use, afterwards accepts only A's pattern; the cached values are left as they are.
  template <class Matrix>
  void prepare_pattern(const Matrix& A) {
    if (!analyzed_) return analyze_rows(A, options_);
    check_pattern(A);
  }

  /// SDDMM wrote the values at `values`: where they are the ones this handle multiplies with, the next
  /// multiply refreshes them (as for a new values view).
  void note_values_written(const void* values) {
    if (values == values_ptr_) values_ptr_ = nullptr;
  }

  /// The handle that mode "T" multiplies with: A^T's analysis, built on first use (A transposed on the
  /// execution space, then analysed with this handle's options, for multiplies of num_vectors columns);
  /// afterwards accepts only A's pattern.
  template <class Matrix>
  SpmmHandle& prepare_transpose(const Matrix& A, int num_vectors = 0) {
    using Acc = impl::MatrixAccess<Matrix>;
    if (transposed_) {
      refresh_if_new_values(A);
      return *transposed_;
    }
    if (analyzed_) refresh_if_new_values(A);  // checks A against A's analysis
    const execution_space exec;
    transpose_ = impl::transpose_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A),
                                    static_cast<int64_t>(Acc::values(A).extent(0)), "rsh::spmm (mode \"T\")");
    transposed_matrix_ = impl::transposed_bundle_on<Scalar>(exec, transpose_, Acc::values(A));
    auto t = std::make_unique<SpmmHandle>(options_for(num_vectors));
    t->analyze(transposed_matrix_);
    transposed_ = std::move(t);
    if (!analyzed_)
      identity_ = PatternId{
          Acc::num_rows(A), Acc::num_cols(A), static_cast<int64_t>(Acc::entries(A).extent(0)),
          impl::pattern_signature_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A))};
    remember(A);
    return *transposed_;
  }

 private:
  /// The handle's options with expected_num_vectors set to num_vectors where the user left it to the call.
  Options options_for(int num_vectors) const {
    Options o = options_;
    if (o.expected_num_vectors == 0) o.expected_num_vectors = num_vectors;
    return o;
  }

  /// A's own analysis (mode "N") under `options` (the handle's, with expected_num_vectors set by the call).
  template <class Matrix>
  void analyze_rows(const Matrix& A, const Options& options) {
    using Acc = impl::MatrixAccess<Matrix>;
    impl::check_tuning(options);
    panels_.clear();
    if (static_cast<int64_t>(Acc::entries(A).extent(0)) > options.tuning.max_panel_nnz)
      return analyze_panels(A, options);
    // Spaces without a hand-written backend run the portable kernels, which plan their own way.
    const Options plan = impl::deterministic_plan(
        impl::SpmmBackendAvail<execution_space>::value ? options : impl::portable_plan(options));
    backend_state_.reset();  // a backend's state reads the format about to be replaced
    analyzed_ = false;
    const execution_space exec;
    inspection_ = impl::inspect_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A),
                                   static_cast<int64_t>(Acc::values(A).extent(0)), plan, "rsh::SpmmHandle::analyze",
                                   sizeof(Scalar));
    Kokkos::Timer timer;
    const pattern_type& p = inspection_.pattern;
    tile_nnz_ = p.num_tiles() ? impl::read_back(exec, p.tile_val_offset, p.num_tiles()) : 0;
    gather_ = impl::value_gather_on(exec, p.value_dest, tile_nnz_ + static_cast<int64_t>(p.res_cols.extent(0)));
    {  // From the format's pool where the space has one, as its views (every slot is written by the gather).
      const impl::PooledViewScope<execution_space> pooled(exec);
      values_ = impl::uninitialized_view<Scalar>(exec, "rsh::values", gather_.num_slots());
      values_storage_ = pooled.storage();
    }
    values_version_ = 0;
    gather(A);
    exec.fence();
    inspection_.times.upload = timer.seconds();
    identity_ = PatternId{p.num_rows, p.num_cols, p.nnz, inspection_.signature};
    analyzed_ = true;
  }

  /// A's analysis as row panels, each analysed by a handle of its own with `options`.
  template <class Matrix>
  void analyze_panels(const Matrix& A, const Options& options) {
    using Acc = impl::MatrixAccess<Matrix>;
    backend_state_.reset();
    analyzed_ = false;
    const execution_space exec;
    for (auto& rows :
         impl::row_panels_on<memory_space>(exec, A, options.tuning.max_panel_nnz, "rsh::SpmmHandle::analyze")) {
      auto handle = std::make_unique<SpmmHandle>(options);
      handle->analyze(impl::panel_matrix<const Scalar>(A, rows));
      panels_.push_back(Panel{rows, std::move(handle)});
    }
    inspection_ = impl::InspectionOf<memory_space>();
    values_ = values_type();
    values_storage_.reset();
    identity_ = PatternId{
        Acc::num_rows(A), Acc::num_cols(A), static_cast<int64_t>(Acc::entries(A).extent(0)),
        impl::pattern_signature_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A))};
    remember(A);
    analyzed_ = true;
  }

  /// A new values view is taken as new values (update_values); the same views only need A's pattern.
  template <class Matrix>
  void refresh_if_new_values(const Matrix& A) {
    if (impl::MatrixAccess<Matrix>::values(A).data() != values_ptr_) return update_values(A);  // checks the pattern
    check_pattern(A);
  }

 public:
  /// True once A's own analysis (mode "N") exists.
  bool is_analyzed() const { return analyzed_; }
  /// True once any analysis (of A, or of A^T for mode "T") exists: update_values(A) applies.
  bool has_analysis() const { return analyzed_ || transposed_ != nullptr; }
  /// Row panels of A's analysis: none where A fits one format, else each panel's rows and its handle, which
  /// multiplies A's rows [rows.row_begin, rows.row_end) into the same rows of C.
  size_t num_row_panels() const { return panels_.size(); }
  const impl::RowPanel<memory_space>& row_panel(size_t i) const { return panels_.at(i).rows; }
  SpmmHandle& row_panel_handle(size_t i) { return *panels_.at(i).handle; }
  /// A^T's analysis (mode "T"), or null before the first such call.
  const SpmmHandle* transposed() const { return transposed_.get(); }
  const Options& options() const { return options_; }
  /// The format, in the handle's memory space.
  const pattern_type& pattern() const { return inspection_.pattern; }
  /// Value slots: tile values [0, tile_nnz()), residual values after.
  const values_type& values() const { return values_; }
  /// Counts the value refreshes since analyze(): a backend's copy of values() is current while its count is.
  uint64_t values_version() const { return values_version_; }
  int64_t tile_nnz() const { return tile_nnz_; }
  const impl::PhaseTimes& phase_times() const { return inspection_.times; }
  /// The row order applied: Options::reorder, what kAuto chose, or kNone where Locality kept the given order.
  Reorder applied_reorder() const { return inspection_.reorder; }
  /// The partition the format was built for: Options::partition, or what kAuto chose.
  Partition applied_partition() const { return inspection_.partition; }
  /// What describe() reports about the format (from a host copy of it).
  impl::FormatStats format_stats() const {
    return impl::format_stats(impl::mirror_pattern<Kokkos::HostSpace>(inspection_.pattern), sizeof(Scalar));
  }

  /// Statistics of the matrix and of its RS-Tile format, for people.
  std::string describe() const {
    const std::string of_transpose = transposed_ ? "A^T (mode \"T\"):\n" + transposed_->describe() : "";
    if (!analyzed_) return transposed_ ? of_transpose : "rsh::SpmmHandle: not analyzed\n";
    if (!panels_.empty())
      return std::to_string(panels_.size()) + " row panels of at most " +
             std::to_string(options_.tuning.max_panel_nnz) + " nonzeros; the first:\n" +
             panels_.front().handle->describe() + of_transpose;
    return std::string("partition: ") + partition_name(options_.partition) +
           (options_.partition == Partition::kAuto
                ? std::string(" (chose ") + partition_name(inspection_.partition) + ")"
                : "") +
           ", reorder: " + reorder_name(options_.reorder) +
           (options_.reorder == Reorder::kAuto ? std::string(" (chose ") + reorder_name(inspection_.reorder) + ")"
                                               : "") +
           "\n" + impl::to_string(inspection_.stats) + impl::to_string(format_stats()) + inspection_.times.to_string() +
           "executor: " + executor() + "\n" + of_transpose;
  }

  /// The kernels of the last multiply and their precision (e.g. "CUDA: Tensor-Core tiles in 3xTF32 +
  /// CUDA-core residual in FP32", or the portable kernels' execution space and precision).
  std::string executor() const {
    if (!panels_.empty()) return panels_.front().handle->executor();
    switch (last_run_) {
      case Executor::kNone:
        return "none yet";
      case Executor::kPortable:
        return std::string("portable Kokkos kernels on ") + execution_space::name() + " in " +
               impl::portable_precision<Scalar>();
      case Executor::kBackend:
        return backend_description_;
    }
    return "unknown";
  }
  /// Set by the executor of each multiply (a cheap store on the hot path); a backend describes its
  /// kernels once, when it builds its state.
  void note_portable_run() { last_run_ = Executor::kPortable; }
  void note_backend_run() { last_run_ = Executor::kBackend; }
  void set_backend_description(const std::string& description) { backend_description_ = description; }

  /// The backend's state (the CUDA plan), owned by the handle; built by the backend on first use.
  impl::SpmmBackendState<execution_space, Scalar>& backend_state() { return backend_state_; }

 private:
  /// Gathers A's values into values_ and remembers A's views.
  template <class Matrix>
  void gather(const Matrix& A) {
    using Acc = impl::MatrixAccess<Matrix>;
    impl::gather_values<typename impl::Accumulator<Scalar>::type>(execution_space(), gather_, Acc::values(A), values_);
    remember(A);
  }

  template <class Matrix>
  void remember(const Matrix& A) {
    using Acc = impl::MatrixAccess<Matrix>;
    row_map_ptr_ = Acc::row_map(A).data();
    entries_ptr_ = Acc::entries(A).data();
    values_ptr_ = Acc::values(A).data();
  }

  /// Throws unless A has the analysed pattern.
  template <class Matrix>
  void check_pattern(const Matrix& A) const {
    using Acc = impl::MatrixAccess<Matrix>;
    const PatternId& p = identity_;
    const int64_t nnz = static_cast<int64_t>(Acc::entries(A).extent(0));
    if (!has_analysis())
      throw std::invalid_argument("rsh::SpmmHandle: update_values before any analysis (call analyze or spmm first)");
    if (Acc::num_rows(A) != p.num_rows || Acc::num_cols(A) != p.num_cols || nnz != p.nnz)
      throw std::invalid_argument("rsh::SpmmHandle: matrix " + std::to_string(Acc::num_rows(A)) + " x " +
                                  std::to_string(Acc::num_cols(A)) + " with " + std::to_string(nnz) +
                                  " nonzeros does not match the analyzed " + std::to_string(p.num_rows) + " x " +
                                  std::to_string(p.num_cols) + " with " + std::to_string(p.nnz));
    const bool same_views = Acc::row_map(A).data() == row_map_ptr_ && Acc::entries(A).data() == entries_ptr_;
    if (same_views) return;
    const uint64_t signature = impl::pattern_signature_on(execution_space(), Acc::num_rows(A), Acc::num_cols(A),
                                                          Acc::row_map(A), Acc::entries(A));
    if (signature != p.signature)
      throw std::invalid_argument("rsh::SpmmHandle: matrix has a different sparsity pattern than the analyzed one");
  }

  /// A row panel's rows and their analysis.
  struct Panel {
    impl::RowPanel<memory_space> rows;
    std::unique_ptr<SpmmHandle> handle;
  };

  /// The analysed pattern's dimensions and hash, from whichever analysis came first.
  struct PatternId {
    int64_t num_rows = 0, num_cols = 0, nnz = 0;
    uint64_t signature = 0;
  };

  Options options_;
  PatternId identity_;
  bool analyzed_ = false;
  impl::InspectionOf<memory_space> inspection_;
  values_type values_;
  std::shared_ptr<const impl::ViewStorage> values_storage_;  ///< what values_ lives in where it owns nothing
  uint64_t values_version_ = 0;
  impl::ValueGather<memory_space> gather_;
  int64_t tile_nnz_ = 0;
  const void* row_map_ptr_ = nullptr;
  const void* entries_ptr_ = nullptr;
  const void* values_ptr_ = nullptr;
  impl::SpmmBackendState<execution_space, Scalar> backend_state_;
  impl::TransposeOf<memory_space> transpose_;                   ///< A^T's pattern and its sources in A
  CrsBundle<Scalar, int64_t, memory_space> transposed_matrix_;  ///< A^T with A's current values
  std::unique_ptr<SpmmHandle> transposed_;                      ///< A^T's analysis
  std::vector<Panel> panels_;                                   ///< A's analysis as row panels (or none)
  enum class Executor { kNone, kPortable, kBackend };
  Executor last_run_ = Executor::kNone;
  std::string backend_description_;
};

}  // namespace rsh
