#pragma once
// Open-addressing table of candidate rows and their accumulated shared
// weights, shared by the reorderings that find near rows through an
// inverted index.
#include <cstdint>
#include <vector>

namespace rsh {
namespace impl {

/// Candidate rows of one row and their summed shared-column weights. The
/// candidates are few (at most max_scan) while their ids span the matrix, so
/// an open-addressing table sized to the scan keeps the random accesses in
/// cache (dense per-row arrays of n entries missed on every posting).
class CandidateTable {
 public:
  void reset(int64_t expected) {
    bits_ = 4;
    while ((int64_t(1) << bits_) < 2 * expected) ++bits_;
    if (keys_.size() < (size_t(1) << bits_)) {
      keys_.assign(size_t(1) << bits_, -1);
      weights_.resize(keys_.size());
    }
    for (uint32_t h : used_) keys_[h] = -1;
    used_.clear();
  }
  void add(int row, double weight) {
    const uint32_t mask = (uint32_t(1) << bits_) - 1;
    uint32_t h = (uint32_t(row) * 0x9E3779B1u) >> (32 - bits_);
    while (keys_[h] != -1 && keys_[h] != row) h = (h + 1) & mask;
    if (keys_[h] == -1) keys_[h] = row, weights_[h] = 0.0, used_.push_back(h);
    weights_[h] += weight;
  }
  bool empty() const { return used_.empty(); }
  template <class F>
  void for_each(F&& f) const {
    for (uint32_t h : used_) f(keys_[h], weights_[h]);
  }

 private:
  int bits_ = 4;
  std::vector<int> keys_;
  std::vector<double> weights_;
  std::vector<uint32_t> used_;
};

}  // namespace impl
}  // namespace rsh
