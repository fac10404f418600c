// Work items of bounded size (DESIGN section 3, "Schedule"): long windows and
// long residual rows are cut into near-equal pieces. Pieces of a window, and
// of a residual row too long for one CTA, add into C with atomics; the
// pieces of other residual rows share an aligned group of items, so that
// one CTA runs them all and sums them in shared memory.
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

/// Cuts [begin, end) into n near-equal pieces.
void split_range(int owner, int begin, int end, int n, std::vector<Item>& pieces) {
  const int len = end - begin;
  for (int i = 0; i < n; ++i)
    pieces.push_back(
        {owner, begin + static_cast<int>(int64_t(len) * i / n), begin + static_cast<int>(int64_t(len) * (i + 1) / n)});
}

/// Items for each owner's range; unsplit ones first. Returns the unsplit count.
int make_items(int owners, const HostPattern::View1<int>& offsets, int max_len, HostPattern::View1<int>& owner_out,
               HostPattern::View1<int>& begin_out, HostPattern::View1<int>& end_out, std::vector<char>& split_owner,
               const char* label) {
  std::vector<Item> whole, pieces;
  split_owner.assign(owners, 0);
  for (int o = 0; o < owners; ++o) {
    const int b = offsets(o), e = offsets(o + 1);
    if (e - b <= max_len) {
      whole.push_back({o, b, e});
    } else {
      split_owner[o] = 1;
      split_range(o, b, e, (e - b + max_len - 1) / max_len, pieces);
    }
  }
  const int n = static_cast<int>(whole.size() + pieces.size());
  owner_out = HostPattern::View1<int>(std::string(label) + "_owner", n);
  begin_out = HostPattern::View1<int>(std::string(label) + "_begin", n);
  end_out = HostPattern::View1<int>(std::string(label) + "_end", n);
  int i = 0;
  for (const auto* list : {&whole, &pieces})
    for (const Item& it : *list) owner_out(i) = it.owner, begin_out(i) = it.begin, end_out(i++) = it.end;
  return static_cast<int>(whole.size());
}

/// Residual items: rows cut as residual_cut says; a row's local pieces sit
/// inside one aligned group of items, the gaps before a group filled with
/// whole rows, else with empty padding items; atomic pieces at the end.
/// Returns the count of items before the atomic ones.
int make_residual_items(HostPattern& p, int piece_nnz, int max_len, std::vector<char>& atomic_row) {
  const int rows = p.num_residual_rows();
  std::vector<Item> whole, local, atomic;
  std::vector<int> local_begin;  // first piece of each locally split row in `local`
  atomic_row.assign(rows, 0);
  for (int o = 0; o < rows; ++o) {
    const int b = p.res_ptr(o), e = p.res_ptr(o + 1);
    const ResidualCut cut = residual_cut(e - b, piece_nnz, max_len);
    if (cut.pieces == 1) {
      whole.push_back({o, b, e});
    } else if (!cut.atomic) {
      local_begin.push_back(static_cast<int>(local.size()));
      split_range(o, b, e, cut.pieces, local);
    } else {
      atomic_row[o] = 1;
      split_range(o, b, e, cut.pieces, atomic);
    }
  }
  local_begin.push_back(static_cast<int>(local.size()));
  std::vector<Item> items;
  std::vector<int> pieces;
  size_t next_whole = 0;
  auto push = [&](const Item& it, int count) { items.push_back(it), pieces.push_back(count); };
  for (size_t g = 0; g + 1 < local_begin.size(); ++g) {
    const int count = local_begin[g + 1] - local_begin[g];
    while (items.size() % kResidualPieceAlign + count > kResidualPieceAlign) {
      if (next_whole < whole.size())
        push(whole[next_whole++], 1);
      else
        push(Item{0, 0, 0}, 0);  // padding: no nonzeros, stores nothing
    }
    for (int i = 0; i < count; ++i) push(local[local_begin[g] + i], i == 0 ? count : 0);
  }
  while (next_whole < whole.size()) push(whole[next_whole++], 1);
  const int num_local = static_cast<int>(items.size());
  for (const Item& it : atomic) push(it, 1);

  const int n = static_cast<int>(items.size());
  p.res_item_row = HostPattern::View1<int>("rsh::res_item_row", n);
  p.res_item_begin = HostPattern::View1<int>("rsh::res_item_begin", n);
  p.res_item_end = HostPattern::View1<int>("rsh::res_item_end", n);
  p.res_item_pieces = HostPattern::View1<int>("rsh::res_item_pieces", n);
  for (int i = 0; i < n; ++i)
    p.res_item_row(i) = items[i].owner, p.res_item_begin(i) = items[i].begin, p.res_item_end(i) = items[i].end,
    p.res_item_pieces(i) = pieces[i];
  return num_local;
}

}  // namespace

ResidualCut residual_cut(int64_t len, int piece_nnz, int max_len) {
  if (len <= int64_t(kResidualPieceAlign) * max_len) {  // summed in one CTA
    const int64_t pieces = std::min<int64_t>((len + piece_nnz - 1) / piece_nnz, kResidualPieceAlign);
    return {static_cast<int>(pieces), false};
  }
  // Longer pieces for long rows (fewer, to stay in one CTA) measured slower
  // than atomic pieces on the H100: rows of 200-350 nonzeros in 8 pieces ran
  // up to 1.9x longer than in 13-22 (perf_tests/results/h100_2026-11-22d.md).
  return {static_cast<int>((len + max_len - 1) / max_len), true};
}

void check_item_bounds(const Options& options) {
  const int max_len = options.max_residual_nnz_per_item, piece = options.residual_piece_nnz;
  if (options.max_tiles_per_item < 1 || max_len < 1 || piece < 0)
    throw std::invalid_argument("rsh::Options: max_tiles_per_item = " + std::to_string(options.max_tiles_per_item) +
                                " and max_residual_nnz_per_item = " + std::to_string(max_len) +
                                " must be >= 1, residual_piece_nnz = " + std::to_string(piece) + " >= 0");
}

void build_schedule(HostPattern& p, const Options& options, int piece_nnz) {
  check_item_bounds(options);
  if (piece_nnz < 1)
    throw std::invalid_argument("rsh::build_schedule: residual piece of " + std::to_string(piece_nnz) + " nonzeros");
  std::vector<char> split_window, atomic_row;
  p.tc_num_unsplit = make_items(p.num_windows(), p.window_tile_offset, options.max_tiles_per_item, p.tc_item_window,
                                p.tc_item_tile_begin, p.tc_item_tile_end, split_window, "rsh::tc_item");
  p.res_num_local = make_residual_items(p, piece_nnz, options.max_residual_nnz_per_item, atomic_row);

  // Rows no unsplit item stores: pieces' rows and empty rows outside windows.
  std::vector<char> stored_once(p.num_rows, 0);
  for (int w = 0; w < p.num_windows(); ++w)
    for (int i = 0; i < kWindowRows; ++i) {
      const int r = p.window_rows(kWindowRows * w + i);
      if (r >= 0 && !split_window[w]) stored_once[r] = 1;
    }
  for (int j = 0; j < p.num_residual_rows(); ++j)
    if (!atomic_row[j]) stored_once[p.res_rows(j)] = 1;
  std::vector<int> scale;
  for (int r = 0; r < p.num_rows; ++r)
    if (!stored_once[r]) scale.push_back(r);
  p.scale_rows = HostPattern::View1<int>("rsh::scale_rows", scale.size());
  for (size_t i = 0; i < scale.size(); ++i) p.scale_rows(i) = scale[i];
}

}  // namespace impl
}  // namespace rsh
