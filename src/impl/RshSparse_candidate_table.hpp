#pragma once
// Open-addressing table of candidate rows and their accumulated shared
// weights, shared by the reorderings that find near rows through an
// inverted index.
#include <cstdint>
#include <vector>

namespace rsh {
namespace impl {

/// Candidate rows of one row, their summed shared-column weights and a value
/// recorded when a row is first added (its row weight, taken from the
/// posting so the scan never reads a per-row array). The candidates are few
/// (at most max_scan) while their ids span the matrix, so an open-addressing
/// table sized to the scan keeps the random accesses in cache (dense per-row
/// arrays of n entries missed on every posting).
class CandidateTable {
 public:
  void reset(int64_t expected) {
    bits_ = 4;
    while ((int64_t(1) << bits_) < 2 * expected) ++bits_;
    if (slots_.size() < (size_t(1) << bits_)) slots_.assign(size_t(1) << bits_, Slot{});
    for (uint32_t h : used_) slots_[h].row = -1;
    used_.clear();
  }
  void add(int row, float weight, float payload = 0.f) {
    const uint32_t mask = (uint32_t(1) << bits_) - 1;
    uint32_t h = (uint32_t(row) * 0x9E3779B1u) >> (32 - bits_);
    while (slots_[h].row != -1 && slots_[h].row != row) h = (h + 1) & mask;
    Slot& s = slots_[h];
    if (s.row == -1) s = Slot{row, 0.f, payload}, used_.push_back(h);
    s.weight += weight;
  }
  bool empty() const { return used_.empty(); }
  template <class F>
  void for_each(F&& f) const {
    for (uint32_t h : used_) f(slots_[h].row, slots_[h].weight, slots_[h].payload);
  }

 private:
  struct Slot {
    int row = -1;  ///< -1: free
    float weight, payload;
  };
  int bits_ = 4;
  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;
};

}  // namespace impl
}  // namespace rsh
