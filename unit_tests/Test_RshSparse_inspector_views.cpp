// The inspector's scratch arena: what it hands out, where it stops, and that
// scratch views are ordinary views outside an inspection. (Every inspection in
// the other tests runs its temporaries through it.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Mem = Exec::memory_space;
using rsh::impl::current_scratch_arena;
using rsh::impl::InspectorScratch;
using rsh::impl::scratch_view;
using rsh::impl::scratch_zeros;
using rsh::impl::ScratchArena;

uintptr_t address(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

TEST(InspectorViews, ArenaHandsOutAlignedDisjointPiecesUpToItsCap) {
  const Exec exec;
  ScratchArena<Mem> arena(4096, 3 * 4096);
  std::vector<std::pair<uintptr_t, size_t>> pieces;
  for (size_t bytes : {1, 300, 256, 1000, 3000, 4096, 10}) {  // the 3000 opens a second block
    void* p = arena.take(exec, bytes);
    ASSERT_NE(p, nullptr) << bytes << " bytes";
    EXPECT_EQ(address(p) % 64, 0u) << "pieces start 256 bytes apart in a block Kokkos aligns to 64 bytes";
    for (const auto& q : pieces)
      EXPECT_TRUE(address(p) + bytes <= q.first || q.first + q.second <= address(p)) << "pieces overlap";
    pieces.emplace_back(address(p), bytes);
  }
  // Blocks of 4096 and 8192 bytes are reserved; a new one of 16384 would pass the cap of 12288.
  EXPECT_EQ(arena.take(exec, 8192), nullptr);
}

TEST(InspectorViews, ScratchIsFromTheArenaOnlyInsideAScope) {
  const Exec exec;
  EXPECT_EQ(current_scratch_arena<Mem>(), nullptr);
  const auto outside = scratch_view<int>(exec, "outside", 100);
  EXPECT_EQ(outside.use_count(), 1) << "an ordinary, managed view";
  {
    const InspectorScratch<Exec> outer(exec, 1000);
    ScratchArena<Mem>* const outer_arena = current_scratch_arena<Mem>();
    ASSERT_NE(outer_arena, nullptr);
    const auto a = scratch_view<int64_t>(exec, "a", 1000);
    EXPECT_EQ(a.use_count(), 0) << "an unmanaged piece of the arena";
    EXPECT_EQ(a.extent(0), 1000u);
    {
      const InspectorScratch<Exec> inner(exec, 10);
      EXPECT_NE(current_scratch_arena<Mem>(), outer_arena);
      const auto zeros = scratch_zeros<int>(exec, "zeros", 5000);
      exec.fence();
      for (int i = 0; i < 5000; ++i) ASSERT_EQ(zeros(i), 0) << i;
    }
    EXPECT_EQ(current_scratch_arena<Mem>(), outer_arena) << "the inner scope restores the outer arena";
    // 16 bytes a nonzero give the minimum first block (1 MiB) and a cap of 4 MiB: past it, ordinary views.
    const auto big = scratch_view<char>(exec, "big", int64_t(8) << 20);
    EXPECT_EQ(big.use_count(), 1);
    EXPECT_EQ(scratch_view<int>(exec, "empty", 0).extent(0), 0u);
  }
  EXPECT_EQ(current_scratch_arena<Mem>(), nullptr);
}

}  // namespace
