#pragma once
// The analyses behind handle-free rsh::spmm calls. A handle-free call cannot
// know whether more calls on the same matrix follow, so the first call on a
// matrix runs over A's own CSR arrays (no inspection), and the second call on
// the same views with the same pattern analyses A into a handle that every
// later call reuses: a matrix multiplied once costs no inspection, one
// multiplied many times gets the handle's format. A call trusts no view's
// identity: it hashes A's pattern and values on the execution space (a read of
// A, a small part of a multiply) and refreshes the handle's values, or
// re-analyses, when they changed in place. A few analyses are kept (least
// recently used first out), per scalar and device, and dropped at
// Kokkos::finalize() or by rsh::clear_analysis_cache().
#include <Kokkos_Core.hpp>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "RshSparse_spmm_handle.hpp"
#include "impl/RshSparse_matrix_access.hpp"
#include "impl/inspector/RshSparse_signature_on.hpp"

namespace rsh {
namespace impl {

/// Registers `clear` to run at Kokkos::finalize() (the cache holds views, which must go before it).
void clear_at_finalize(std::function<void()> clear);

template <class Scalar, class Device>
class AnalysisCache {
 public:
  static constexpr int kCapacity = 4;
  using Handle = SpmmHandle<Scalar, Device>;

  AnalysisCache() { entries_.reserve(kCapacity); }

  static AnalysisCache& instance() {
    static AnalysisCache* cache = [] {
      auto* c = new AnalysisCache();  // never destroyed: finalize empties it, exit leaves it
      clear_at_finalize([c] { c->clear(); });
      return c;
    }();
    return *cache;
  }

  /// Runs run_handle(handle) with A's analysis where this is a repeated call on A's views and pattern,
  /// else run_csr() (and remembers A for the next call).
  template <class ExecSpace, class Matrix, class RunHandle, class RunCsr>
  void multiply(const ExecSpace& exec, const Matrix& A, const RunHandle& run_handle, const RunCsr& run_csr) {
    using Acc = MatrixAccess<Matrix>;
    const Key key{Acc::row_map(A).data(), Acc::entries(A).data(), Acc::values(A).data(),
                  Acc::num_rows(A),       Acc::num_cols(A),       static_cast<int64_t>(Acc::entries(A).extent(0))};
    const CsrSignature signature =
        csr_signature_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A), Acc::values(A));
    const uint64_t pattern = signature.pattern, values = signature.values;
    std::lock_guard<std::mutex> lock(mutex_);
    Entry* e = find(key);
    if (!e || e->pattern != pattern) {  // a first call on these views, or their pattern changed in place
      if (!e) e = evict_one();
      *e = Entry{key, pattern, values, ++clock_, nullptr};
      return run_csr();
    }
    e->last_use = ++clock_;
    // run_handle analyses what its mode needs (A, or A^T) on first use; values changed in place reach
    // every analysis the handle holds.
    if (!e->handle)
      e->handle = std::make_unique<Handle>();
    else if (e->values != values && e->handle->has_analysis())
      e->handle->update_values(A);
    e->values = values;
    run_handle(*e->handle);
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  struct Key {
    const void *row_map, *entries, *values;
    int64_t rows, cols, nnz;
    bool operator==(const Key& o) const {
      return row_map == o.row_map && entries == o.entries && values == o.values && rows == o.rows && cols == o.cols &&
             nnz == o.nnz;
    }
  };
  struct Entry {
    Key key;
    uint64_t pattern, values, last_use;
    std::unique_ptr<Handle> handle;
  };

  Entry* find(const Key& key) {
    for (Entry& e : entries_)
      if (e.key == key) return &e;
    return nullptr;
  }
  Entry* evict_one() {
    if (entries_.size() < kCapacity) return &entries_.emplace_back();
    Entry* oldest = &entries_.front();
    for (Entry& e : entries_)
      if (e.last_use < oldest->last_use) oldest = &e;
    return oldest;
  }

  std::mutex mutex_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

}  // namespace impl

/// Drops the analyses that handle-free rsh::spmm calls keep (their device memory).
void clear_analysis_cache();

}  // namespace rsh
