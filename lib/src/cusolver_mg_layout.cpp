// cusolverMg's tile rule and column layout: arithmetic only (see cusolver_mg_layout.hpp).
#include "solvebench/cusolver_mg_layout.hpp"

#include <algorithm>
#include <string>

#include "solvebench/errors.hpp"

namespace solvebench::cuda::mg {

// ---- the tile rule -------------------------------------------------------------------------

void check_tile(std::int64_t tile) {
  if (tile < 1 || tile > max_tile)
    throw invalid_argument("cusolverMg tile (column block) size " + std::to_string(tile) + " is outside 1.." +
                           std::to_string(max_tile) +
                           ": cuSOLVER documents 'tile size TA must be less or equal to 512' for cusolverMgGetrf, "
                           "and a larger tile returns CUSOLVER_STATUS_INVALID_VALUE");
}

// ---- the layout ----------------------------------------------------------------------------

column_layout::column_layout(std::int64_t cols, std::int64_t tile, int devices)
    : cols_(cols), tile_(tile), devices_(devices) {
  if (cols < 1 || tile < 1 || devices < 1)
    throw invalid_argument("column layout needs positive columns, tile and devices, got " + std::to_string(cols) +
                           ", " + std::to_string(tile) + ", " + std::to_string(devices));
}

int column_layout::owner(std::int64_t col) const noexcept { return static_cast<int>((col / tile_) % devices_); }

std::int64_t column_layout::local_col(std::int64_t col) const noexcept {
  return (col / tile_) / devices_ * tile_ + col % tile_;
}

std::int64_t column_layout::local_blocks(int p) const noexcept {
  const std::int64_t b = blocks();
  return b > p ? (b - p + devices_ - 1) / devices_ : 0;
}

std::int64_t column_layout::local_cols(int p) const noexcept {
  std::int64_t c = 0;
  for (const auto& blk : blocks_of(p)) c += blk.cols;
  return c;
}

std::vector<column_layout::block> column_layout::blocks_of(int p) const {
  std::vector<block> out;
  for (std::int64_t b = p, l = 0; b < blocks(); b += devices_, ++l)
    out.push_back({b * tile_, std::min(tile_, cols_ - b * tile_), l * tile_});
  return out;
}

}  // namespace solvebench::cuda::mg
