#include "impl/RshSparse_plan_selector_impl.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rsh {
namespace impl {

namespace {
#include "impl/RshSparse_plan_selector_trees.inc"
}  // namespace

const char* const kSelectorFeatureNames[kSelectorFeatures] = {
    "log_nnz",        "row_mean",       "longest_item", "residual_fraction", "tiles_per_window", "nnz_per_window_row",
    "log_tc_over_cc", "log_dense_over", "density",      "cuda_split"};

SelectorFeatures selector_features(const PartitionCost& c, Arithmetic arith) {
  // Ratios and logarithms, so that a threshold carries across matrix sizes; an infinite model time (a partition
  // an arithmetic has no model for) becomes a large finite ratio.
  const double nnz = std::max<double>(double(c.nnz), 1.0), rows = std::max<double>(double(c.rows), 1.0);
  const double windows = std::max<double>(double(c.windows), 1.0);
  const double tc = c.tensor_core_us(arith), cc = c.cuda_core_us(arith);
  const double dense = std::min(c.dense_blocks_us(arith), 1e9);
  return {std::log(nnz),
          double(c.nnz) / rows,
          double(c.cuda.longest),
          double(c.residual_nnz) / nnz,
          double(c.cta_max_tiles) / windows,
          double(c.nnz - c.residual_nnz) / (8.0 * windows),
          std::log(tc / cc),
          std::log(dense / std::min(tc, cc)),
          c.dense_slots > 0 ? double(c.nnz) / double(c.dense_slots) : 0.0,
          c.cuda.split ? 1.0 : 0.0};
}

SelectorTree selector_tree(Arithmetic arith) {
  for (const auto& t : kSelectorTrees)
    if (t.arith == arith) return {t.nodes, t.size};
  return {};
}

Partition walk_selector_tree(const SelectorTree& tree, const SelectorFeatures& features) {
  int node = 0;
  for (int steps = 0; steps <= tree.size; ++steps) {
    if (node < 0 || node >= tree.size) break;
    const SelectorNode& n = tree.nodes[node];
    if (n.left < 0) return n.leaf;
    if (n.feature < 0 || n.feature >= kSelectorFeatures) break;
    node = features[n.feature] < n.threshold ? n.left : n.right;
  }
  throw std::logic_error("rsh: malformed plan-selector tree (node " + std::to_string(node) + " of " +
                         std::to_string(tree.size) + ")");
}

}  // namespace impl
}  // namespace rsh
