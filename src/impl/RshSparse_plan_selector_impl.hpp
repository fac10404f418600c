#pragma once
// The learned plan selector of Partition::kAuto ("Learning Sparse Matrix Row
// Permutations" applied to the choice of partition): a decision tree per
// Arithmetic over features of the matrix that the inspector has already
// computed for the cost models (PartitionCost), fitted offline from H100
// benchmark runs by scripts/fit_selector.py and shipped as data
// (RshSparse_plan_selector_trees.inc). Where no tree is fitted for an
// arithmetic, or Options::plan_selector asks for them, the cost models decide.
#include <array>
#include <cstdint>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"

namespace rsh {
namespace impl {

/// The selector's features, in the order of kSelectorFeatureNames (the benchmark reports each as a
/// counter named feature_<name>, which is what the training script reads).
constexpr int kSelectorFeatures = 10;
extern const char* const kSelectorFeatureNames[kSelectorFeatures];
using SelectorFeatures = std::array<double, kSelectorFeatures>;

/// The features of a matrix from its PartitionCost (RowStructured terms) under `arith`.
SelectorFeatures selector_features(const PartitionCost& cost, Arithmetic arith);

/// One node of a fitted tree: an inner node sends a matrix to `left` when its feature < threshold, else to
/// `right`; a leaf (left < 0) names the partition.
struct SelectorNode {
  int feature;
  double threshold;
  int left, right;
  Partition leaf;
};

/// The tree fitted for `arith` (nodes, root first), or an empty one.
struct SelectorTree {
  const SelectorNode* nodes = nullptr;
  int size = 0;
};
SelectorTree selector_tree(Arithmetic arith);

/// The partition the tree picks for `features`; throws std::logic_error on a malformed tree.
Partition walk_selector_tree(const SelectorTree& tree, const SelectorFeatures& features);

}  // namespace impl
}  // namespace rsh
