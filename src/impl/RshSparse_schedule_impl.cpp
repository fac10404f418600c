// Work items of bounded size (DESIGN section 3, "Schedule"): long windows and
// long residual rows are cut into near-equal pieces; only pieces use atomics.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {
namespace {

struct Item {
  int owner, begin, end;
};

/// Cuts [begin, end) into ceil(len / max_len) near-equal pieces.
void split_range(int owner, int begin, int end, int max_len, std::vector<Item>& pieces) {
  const int len = end - begin;
  const int n = (len + max_len - 1) / max_len;
  for (int i = 0; i < n; ++i)
    pieces.push_back(
        {owner, begin + static_cast<int>(int64_t(len) * i / n), begin + static_cast<int>(int64_t(len) * (i + 1) / n)});
}

/// Items for each owner's range; unsplit ones first. Returns the unsplit count.
template <class Offsets, class View>
int make_items(int owners, const Offsets& offsets, int max_len, View& owner_out, View& begin_out, View& end_out,
               std::vector<char>& split_owner, const char* label) {
  std::vector<Item> whole, pieces;
  split_owner.assign(owners, 0);
  for (int o = 0; o < owners; ++o) {
    const int b = offsets(o), e = offsets(o + 1);
    if (e - b <= max_len) {
      whole.push_back({o, b, e});
    } else {
      split_owner[o] = 1;
      split_range(o, b, e, max_len, pieces);
    }
  }
  const int n = static_cast<int>(whole.size() + pieces.size());
  owner_out = View(std::string(label) + "_owner", n);
  begin_out = View(std::string(label) + "_begin", n);
  end_out = View(std::string(label) + "_end", n);
  int i = 0;
  for (const auto* list : {&whole, &pieces})
    for (const Item& it : *list) owner_out(i) = it.owner, begin_out(i) = it.begin, end_out(i++) = it.end;
  return static_cast<int>(whole.size());
}

}  // namespace

void build_schedule(HostPattern& p, const Options& options) {
  if (options.max_tiles_per_item < 1 || options.max_residual_nnz_per_item < 1)
    throw std::invalid_argument(
        "rsh::Options: max_tiles_per_item = " + std::to_string(options.max_tiles_per_item) +
        " and max_residual_nnz_per_item = " + std::to_string(options.max_residual_nnz_per_item) + " must be >= 1");
  std::vector<char> split_window, split_row;
  p.tc_num_unsplit = make_items(p.num_windows(), p.window_tile_offset, options.max_tiles_per_item, p.tc_item_window,
                                p.tc_item_tile_begin, p.tc_item_tile_end, split_window, "rsh::tc_item");
  p.res_num_unsplit = make_items(p.num_residual_rows(), p.res_ptr, options.max_residual_nnz_per_item, p.res_item_row,
                                 p.res_item_begin, p.res_item_end, split_row, "rsh::res_item");

  // Rows no unsplit item stores: pieces' rows and empty rows outside windows.
  std::vector<char> stored_once(p.num_rows, 0);
  for (int w = 0; w < p.num_windows(); ++w)
    for (int i = 0; i < kWindowRows; ++i) {
      const int r = p.window_rows(kWindowRows * w + i);
      if (r >= 0 && !split_window[w]) stored_once[r] = 1;
    }
  for (int j = 0; j < p.num_residual_rows(); ++j)
    if (!split_row[j]) stored_once[p.res_rows(j)] = 1;
  std::vector<int> scale;
  for (int r = 0; r < p.num_rows; ++r)
    if (!stored_once[r]) scale.push_back(r);
  p.scale_rows = HostPattern::View1<int>("rsh::scale_rows", scale.size());
  for (size_t i = 0; i < scale.size(); ++i) p.scale_rows(i) = scale[i];
}

}  // namespace impl
}  // namespace rsh
