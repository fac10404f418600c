#pragma once
// Small open-addressing tables keyed by row or column id, shared by the
// reorderings that find near rows through an inverted index.
#include <cstdint>
#include <vector>

namespace rsh {
namespace impl {

/// Non-negative int keys to Values, sized per use (reset) to about twice the
/// expected keys: the keys are few while their ids span the matrix, so the
/// random accesses stay in cache (dense arrays of n entries missed on every
/// access). Reset touches only the slots used since the last reset.
template <class Value>
class IntKeyTable {
 public:
  void reset(int64_t expected) {
    bits_ = 4;
    while ((int64_t(1) << bits_) < 2 * expected) ++bits_;
    if (slots_.size() < (size_t(1) << bits_)) slots_.assign(size_t(1) << bits_, Slot{});
    for (uint32_t h : used_) slots_[h].key = -1;
    used_.clear();
  }
  /// The value of `key`, value-initialised when `fresh` (first seen since reset).
  Value& find_or_insert(int key, bool& fresh) {
    const uint32_t mask = (uint32_t(1) << bits_) - 1;
    uint32_t h = (uint32_t(key) * 0x9E3779B1u) >> (32 - bits_);
    while (slots_[h].key != -1 && slots_[h].key != key) h = (h + 1) & mask;
    Slot& s = slots_[h];
    fresh = s.key == -1;
    if (fresh) s = Slot{key, Value{}}, used_.push_back(h);
    return s.value;
  }
  bool empty() const { return used_.empty(); }
  /// f(key, value) in insertion order.
  template <class F>
  void for_each(F&& f) const {
    for (uint32_t h : used_) f(slots_[h].key, slots_[h].value);
  }

 private:
  struct Slot {
    int key = -1;  ///< -1: free
    Value value{};
  };
  int bits_ = 4;
  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;
};

/// Candidate rows of one row, their summed shared-column weights and a value
/// recorded when a row is first added (its row weight, taken from the
/// posting so the scan never reads a per-row array).
class CandidateTable {
 public:
  void reset(int64_t expected) { table_.reset(expected); }
  void add(int row, float weight, float payload = 0.f) {
    bool fresh;
    Candidate& c = table_.find_or_insert(row, fresh);
    if (fresh) c.payload = payload;
    c.weight += weight;
  }
  bool empty() const { return table_.empty(); }
  template <class F>
  void for_each(F&& f) const {
    table_.for_each([&](int row, const Candidate& c) { f(row, c.weight, c.payload); });
  }

 private:
  struct Candidate {
    float weight, payload;
  };
  IntKeyTable<Candidate> table_;
};

}  // namespace impl
}  // namespace rsh
