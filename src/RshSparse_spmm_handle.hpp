#pragma once
// The spmm handle: the inspector of one sparsity pattern. analyze() runs
// statistics, partition, RS-Tile build and schedule once; spmm calls reuse
// it. Values are cached at analyze()/update_values(): after changing A's
// values in place, call update_values(A) (a new values view is picked up by
// itself), which gathers them into the format on the handle's execution
// space. A matrix with another pattern is rejected: at once where A's
// row_map and entries are the analysed views, after a host comparison of
// the pattern where they are others. Not copyable.
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>

#include "RshSparse_Error.hpp"
#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_matrix_access.hpp"
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

  /// Builds the format of A (pattern and values). Throws std::invalid_argument
  /// on a malformed CSR (every extent named).
  template <class Matrix>
  void analyze(const Matrix& A) {
    impl::HostCrs host = impl::host_crs_of(A);
    const std::vector<double> user_values = host.values;
    // Spaces without a hand-written backend run the portable kernels, which plan their own way.
    const Options plan = impl::SpmmCudaSpecAvail<execution_space>::value ? options_ : impl::portable_plan(options_);
    inspection_ = impl::inspect(std::move(host), plan, "rsh::SpmmHandle::analyze", sizeof(Scalar));
    Kokkos::Timer timer;
    pattern_ = impl::mirror_pattern<memory_space>(inspection_.pattern);
    set_values(user_values);
    build_gather();
    inspection_.times.upload = timer.seconds();
    remember(A);
    analyzed_ = true;
  }

  /// Refreshes the cached values of A (same pattern): one gather on the execution space, each value slot
  /// summing A's values at its positions (duplicates share a slot); no host copy.
  template <class Matrix>
  void update_values(const Matrix& A) {
    check_pattern(A);
    using Acc = impl::MatrixAccess<Matrix>;
    using Policy = Kokkos::RangePolicy<execution_space, Kokkos::IndexType<int64_t>>;
    using Sum = typename impl::Accumulator<Scalar>::type;
    const auto user = Acc::values(A);
    const auto first = gather_first_, from = gather_from_;
    const values_type slots = values_;
    Kokkos::parallel_for(
        "rsh::SpmmHandle::update_values", Policy(execution_space(), 0, static_cast<int64_t>(slots.extent(0))),
        KOKKOS_LAMBDA(const int64_t s) {
          Sum sum = 0;
          for (int64_t j = first(s); j < first(s + 1); ++j) sum += static_cast<Sum>(user(from(j)));
          slots(s) = static_cast<Scalar>(sum);
        });
    ++values_version_;
    remember(A);
  }

  /// Analyzes on first use; afterwards accepts only A's pattern.
  template <class Matrix>
  void prepare(const Matrix& A) {
    if (!analyzed_) return analyze(A);
    using Acc = impl::MatrixAccess<Matrix>;
    if (Acc::values(A).data() != values_ptr_) return update_values(A);  // checks the pattern too
    check_pattern(A);
  }

  bool is_analyzed() const { return analyzed_; }
  const Options& options() const { return options_; }
  const pattern_type& pattern() const { return pattern_; }
  const impl::HostPattern& host_pattern() const { return inspection_.pattern; }
  /// Value slots: tile values [0, tile_nnz()), residual values after.
  const values_type& values() const { return values_; }
  /// The value slots as analyze() built them (update_values refreshes values() alone).
  const std::vector<double>& analyzed_values() const { return host_values_; }
  /// Counts the value refreshes since analyze(): a backend's copy of values() is current while its count is.
  uint64_t values_version() const { return values_version_; }
  int64_t tile_nnz() const { return tile_nnz_; }
  const impl::PhaseTimes& phase_times() const { return inspection_.times; }
  /// The row order applied: Options::reorder, what kAuto chose, or kNone where Locality kept the given order.
  Reorder applied_reorder() const { return inspection_.reorder; }
  impl::FormatStats format_stats() const { return impl::format_stats(inspection_.pattern, sizeof(Scalar)); }

  /// Statistics of the matrix and of its RS-Tile format, for people.
  std::string describe() const {
    if (!analyzed_) return "rsh::SpmmHandle: not analyzed\n";
    return std::string("partition: ") + partition_name(options_.partition) +
           (options_.partition == Partition::kAuto
                ? std::string(" (chose ") + partition_name(inspection_.partition) + ")"
                : "") +
           ", reorder: " + reorder_name(options_.reorder) +
           (options_.reorder == Reorder::kAuto ? std::string(" (chose ") + reorder_name(inspection_.reorder) + ")"
                                               : "") +
           "\n" + impl::to_string(inspection_.stats) + impl::to_string(format_stats()) + inspection_.times.to_string() +
           "executor: " + executor() + "\n";
  }

  /// The kernels of the last multiply and their precision (e.g. "CUDA: Tensor-Core tiles in 3xTF32 +
  /// CUDA-core residual in FP32", or the portable kernels' execution space and precision).
  std::string executor() const {
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

  /// Backend state (e.g. the CUDA plan), owned by the handle; built lazily by the backend.
  std::shared_ptr<void>& backend_state() { return backend_state_; }

 private:
  void set_values(const std::vector<double>& user_values) {
    host_values_ = impl::scatter_values(inspection_.pattern, user_values);
    const int T = inspection_.pattern.num_tiles();
    tile_nnz_ = T ? inspection_.pattern.tile_val_offset(T) : 0;
    typename values_type::HostMirror h("rsh::values_host", host_values_.size());
    for (size_t i = 0; i < host_values_.size(); ++i) h(i) = static_cast<Scalar>(host_values_[i]);
    values_ = Kokkos::create_mirror_view_and_copy(memory_space(), h);
    values_version_ = 0;
    backend_state_.reset();  // backends re-upload values
  }

  /// The map update_values gathers through: slot s sums A's values at positions
  /// gather_from_[gather_first_(s) .. gather_first_(s + 1)) (a counting sort of value_dest).
  void build_gather() {
    const auto& dest = inspection_.pattern.value_dest;
    const int64_t slots = static_cast<int64_t>(host_values_.size()), nnz = static_cast<int64_t>(dest.extent(0));
    Kokkos::View<int64_t*, Kokkos::HostSpace> first("rsh::gather_first", slots + 1), from("rsh::gather_from", nnz);
    for (int64_t k = 0; k < nnz; ++k) ++first(dest(k) + 1);
    for (int64_t s = 0; s < slots; ++s) first(s + 1) += first(s);
    std::vector<int64_t> next(first.data(), first.data() + slots);
    for (int64_t k = 0; k < nnz; ++k) from(next[dest(k)]++) = k;
    gather_first_ = Kokkos::create_mirror_view_and_copy(memory_space(), first);
    gather_from_ = Kokkos::create_mirror_view_and_copy(memory_space(), from);
  }

  template <class Matrix>
  void remember(const Matrix& A) {
    using Acc = impl::MatrixAccess<Matrix>;
    row_map_ptr_ = Acc::row_map(A).data();
    entries_ptr_ = Acc::entries(A).data();
    values_ptr_ = Acc::values(A).data();
  }

  /// Throws unless A has the analysed pattern; `host` is A's host copy when the caller has one.
  template <class Matrix>
  void check_pattern(const Matrix& A, const impl::HostCrs* host = nullptr) const {
    using Acc = impl::MatrixAccess<Matrix>;
    const auto& p = inspection_.pattern;
    const int64_t nnz = static_cast<int64_t>(Acc::entries(A).extent(0));
    if (!analyzed_ || Acc::num_rows(A) != p.num_rows || Acc::num_cols(A) != p.num_cols || nnz != p.nnz)
      throw std::invalid_argument("rsh::SpmmHandle: matrix " + std::to_string(Acc::num_rows(A)) + " x " +
                                  std::to_string(Acc::num_cols(A)) + " with " + std::to_string(nnz) +
                                  " nonzeros does not match the analyzed " + std::to_string(p.num_rows) + " x " +
                                  std::to_string(p.num_cols) + " with " + std::to_string(p.nnz));
    const bool same_views = Acc::row_map(A).data() == row_map_ptr_ && Acc::entries(A).data() == entries_ptr_;
    if (same_views) return;
    const uint64_t signature = host ? impl::pattern_signature(*host) : impl::pattern_signature(impl::host_crs_of(A));
    if (signature != inspection_.signature)
      throw std::invalid_argument("rsh::SpmmHandle: matrix has a different sparsity pattern than the analyzed one");
  }

  Options options_;
  bool analyzed_ = false;
  impl::Inspection inspection_;
  pattern_type pattern_;
  values_type values_;
  std::vector<double> host_values_;
  uint64_t values_version_ = 0;
  Kokkos::View<int64_t*, Kokkos::LayoutRight, memory_space> gather_first_, gather_from_;
  int64_t tile_nnz_ = 0;
  const void* row_map_ptr_ = nullptr;
  const void* entries_ptr_ = nullptr;
  const void* values_ptr_ = nullptr;
  std::shared_ptr<void> backend_state_;
  enum class Executor { kNone, kPortable, kBackend };
  Executor last_run_ = Executor::kNone;
  std::string backend_description_;
};

}  // namespace rsh
