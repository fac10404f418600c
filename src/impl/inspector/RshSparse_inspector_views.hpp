#pragma once
// How the inspector allocates its views. On a GPU a small inspection is
// bounded by fixed costs, not by work: each view Kokkos allocates without an
// execution space fences twice (after copying its header, after zeroing it),
// each cudaMalloc and cudaFree takes tens of microseconds, and cudaFree waits
// for the device. So:
// - every view is allocated in the inspector's stream order (view_alloc with
//   `exec`: no fence) and zeroed, where it must be, by an asynchronous
//   deep_copy on `exec`;
// - the temporaries of one inspection (scratch_view) are carved from a few
//   large blocks of a ScratchArena that an InspectorScratch scope holds and
//   frees at its end, instead of one allocation and one free each. The arena
//   serves requests up to a byte cap and then falls back to ordinary views, so
//   a large matrix's scratch never grows past what the cap allows. Host spaces
//   use it too: one code path, which the host tests (and their sanitizers) run;
// - on Kokkos::Cuda the arena's blocks, and the views of the format itself
//   (PooledViewScope), come from a stream-ordered pool the library owns, which
//   keeps freed blocks for the next inspection.
// A scratch view is unmanaged: it must not outlive the scope. A pooled view is
// unmanaged too: it lives as long as the format that holds its storage.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
#include "cuda/RshSparse_stream_pool_cuda.hpp"
#endif

namespace rsh {
namespace impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
/// The views of an inspection on Kokkos::Cuda: blocks of the library's pool, freed when the last format
/// holding them goes.
struct PooledViewStorage : ViewStorage {
  cuda::PooledBlocks blocks;
};

/// The pooled storage of the inspection running on this thread (PooledViewScope), or nullptr.
inline PooledViewStorage*& current_pooled_views() {
  static thread_local PooledViewStorage* storage = nullptr;
  return storage;
}
#endif

/// A view of n elements of T on exec's memory space, not initialized, allocated in exec's stream order:
/// inside a PooledViewScope on Kokkos::Cuda a block of the scope's storage, else a view of its own.
template <class T, class ExecSpace>
View1<T, typename ExecSpace::memory_space> uninitialized_view(const ExecSpace& exec, const char* label, int64_t n) {
  using Mem = typename ExecSpace::memory_space;
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value)
    if (PooledViewStorage* pooled = current_pooled_views())
      return View1<T, Mem>(
          static_cast<T*>(pooled->blocks.allocate(sizeof(T) * static_cast<size_t>(n > 0 ? n : 1), exec.cuda_stream())),
          n);
#endif
  // (The label as a std::string: Kokkos 3.4's view_alloc takes a const char* for a pointer to wrap.)
  return View1<T, Mem>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(label)), n);
}

/// v zeroed on exec (asynchronously). An empty view is left alone: Kokkos fences to fill one.
template <class V, class ExecSpace>
V zero_on(const ExecSpace& exec, V v) {
  if (v.extent(0) > 0) Kokkos::deep_copy(exec, v, typename V::non_const_value_type());
  return v;
}

/// The same, zeroed on exec (asynchronously).
template <class T, class ExecSpace>
View1<T, typename ExecSpace::memory_space> zeroed_view(const ExecSpace& exec, const char* label, int64_t n) {
  return zero_on(exec, uninitialized_view<T>(exec, label, n));
}

/// Within its scope, on Kokkos::Cuda, the views an inspection allocates (uninitialized_view, zeroed_view;
/// scratch apart) are blocks of one storage() from the library's pool: a cudaMalloc costs tens of
/// microseconds, a block the pool holds about one, and a format has a score of views. The inspection's
/// format holds the storage; the few temporaries among those views live as long. Elsewhere the scope does
/// nothing. Scopes nest, the inner one serving until it ends.
template <class ExecSpace>
class PooledViewScope {
 public:
  explicit PooledViewScope(const ExecSpace&) {}
  std::shared_ptr<const ViewStorage> storage() const { return nullptr; }
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
template <>
class PooledViewScope<Kokkos::Cuda> {
 public:
  explicit PooledViewScope(const Kokkos::Cuda&)
      : storage_(std::make_shared<PooledViewStorage>()), outer_(current_pooled_views()) {
    current_pooled_views() = storage_.get();
  }
  ~PooledViewScope() { current_pooled_views() = outer_; }
  PooledViewScope(const PooledViewScope&) = delete;
  PooledViewScope& operator=(const PooledViewScope&) = delete;
  std::shared_ptr<const ViewStorage> storage() const { return storage_; }

 private:
  std::shared_ptr<PooledViewStorage> storage_;
  PooledViewStorage* outer_;
};
#endif

/// `bytes` of exec's memory space for a scratch arena, freed when the last copy of the pointer goes: a view
/// of its own on every space but Kokkos::Cuda, which takes the CUDA backend's pool (below).
template <class ExecSpace>
std::shared_ptr<char> scratch_block(const ExecSpace& exec, size_t bytes) {
  const auto block = uninitialized_view<char>(exec, "rsh::inspect::scratch", static_cast<int64_t>(bytes));
  return std::shared_ptr<char>(block.data(), [block](char*) {});
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
/// On Kokkos::Cuda a block comes from the library's stream-ordered pool and goes back to it in exec's
/// stream order: no cudaMalloc once the pool holds enough, and no device-wide wait to free it.
inline std::shared_ptr<char> scratch_block(const Kokkos::Cuda& exec, size_t bytes) {
  const cudaStream_t stream = exec.cuda_stream();
  return std::shared_ptr<char>(static_cast<char*>(cuda::stream_pool_allocate(bytes, stream)),
                               [stream](char* block) { cuda::stream_pool_free(block, stream); });
}
#endif

/// Blocks of memory handed out in pieces 256 bytes apart (as aligned as the block), all freed with the
/// arena.
template <class MemorySpace>
class ScratchArena {
 public:
  static constexpr size_t kAlign = 256;

  /// `first_block` bytes are allocated at the first request; requests stop being served once the blocks
  /// would pass `cap` bytes.
  ScratchArena(size_t first_block, size_t cap) : next_block_(first_block), cap_(cap) {}

  /// `bytes` of scratch, or nullptr where the cap leaves no room (the caller allocates on its own).
  template <class ExecSpace>
  void* take(const ExecSpace& exec, size_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    if (blocks_.empty() || used_ + bytes > last_size_) {
      const size_t size = bytes > next_block_ ? bytes : next_block_;
      if (reserved_ + size > cap_) return nullptr;
      blocks_.push_back(scratch_block(exec, size));
      reserved_ += size, used_ = 0, last_size_ = size, next_block_ = 2 * size;
    }
    void* p = blocks_.back().get() + used_;
    used_ += bytes;
    return p;
  }

 private:
  std::vector<std::shared_ptr<char>> blocks_;
  size_t used_ = 0, last_size_ = 0, reserved_ = 0, next_block_, cap_;
};

/// The arena of the inspection running on this thread for MemorySpace, or nullptr.
template <class MemorySpace>
ScratchArena<MemorySpace>*& current_scratch_arena() {
  static thread_local ScratchArena<MemorySpace>* arena = nullptr;
  return arena;
}

/// Holds the scratch arena of one inspection on ExecSpace for its lifetime; scopes nest, the inner one
/// serving until it ends.
template <class ExecSpace>
class InspectorScratch {
  using Mem = typename ExecSpace::memory_space;

 public:
  /// An inspection of `nnz` nonzeros: the first block holds 16 bytes a nonzero (most small inspections fit
  /// in it) between 1 and 64 MiB, the arena four times that. Past it a large matrix's temporaries are
  /// ordinary views: their allocations are small beside its work, and its scratch stays bounded.
  InspectorScratch(const ExecSpace& exec, int64_t nnz)
      : exec_(exec), outer_(current_scratch_arena<Mem>()), arena_(first_block(nnz), 4 * first_block(nnz)) {
    current_scratch_arena<Mem>() = &arena_;
  }
  ~InspectorScratch() {
    current_scratch_arena<Mem>() = outer_;
    exec_.fence();  // the blocks' last readers are done before the arena frees them
  }
  InspectorScratch(const InspectorScratch&) = delete;
  InspectorScratch& operator=(const InspectorScratch&) = delete;

 private:
  static size_t first_block(int64_t nnz) {
    constexpr size_t kMin = size_t(1) << 20, kMax = size_t(64) << 20;
    const size_t want = 16 * static_cast<size_t>(nnz < 0 ? 0 : nnz);
    return want < kMin ? kMin : want > kMax ? kMax : want;
  }
  ExecSpace exec_;
  ScratchArena<Mem>* outer_;
  ScratchArena<Mem> arena_;
};

/// A temporary of n elements of T, not initialized: from the current inspection's arena where there is
/// one with room, else an ordinary view. It must not outlive the inspection.
template <class T, class ExecSpace>
View1<T, typename ExecSpace::memory_space> scratch_view(const ExecSpace& exec, const char* label, int64_t n) {
  static_assert(std::is_trivially_destructible<T>::value, "scratch holds plain data");
  using Mem = typename ExecSpace::memory_space;
  if (n == 0) return View1<T, Mem>(static_cast<T*>(nullptr), 0);
  if (ScratchArena<Mem>* arena = current_scratch_arena<Mem>())
    if (void* p = arena->take(exec, static_cast<size_t>(n) * sizeof(T))) return View1<T, Mem>(static_cast<T*>(p), n);
  return uninitialized_view<T>(exec, label, n);
}

/// The same, zeroed on exec (asynchronously).
template <class T, class ExecSpace>
View1<T, typename ExecSpace::memory_space> scratch_zeros(const ExecSpace& exec, const char* label, int64_t n) {
  return zero_on(exec, scratch_view<T>(exec, label, n));
}

}  // namespace impl
}  // namespace rsh
