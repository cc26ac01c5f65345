// How cusolverMg lays a matrix over the GPUs of one host: its tile rule and the 1-D column
// block-cyclic layout (which device holds which global column, and where in its local array).
// Pure arithmetic, no CUDA: built and unit-tested everywhere (test/test_cusolver_mg_layout.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace solvebench::cuda::mg {

// ---- the tile rule -------------------------------------------------------------------------

// The largest column tile cusolverMg accepts: the cuSOLVER documentation states "tile size TA
// must be less or equal to 512" for cusolverMgGetrf, and a tile of 1024 gets
// CUSOLVER_STATUS_INVALID_VALUE (measured at n = 16384). Applied to every routine here.
inline constexpr std::int64_t max_tile = 512;

// Throws invalid_argument unless 1 <= tile <= max_tile, before cuSOLVER is called.
void check_tile(std::int64_t tile);

// ---- the layout ----------------------------------------------------------------------------

// 1-D column block-cyclic over G devices, as cusolverMg stores a matrix: global column block b
// (columns [b*tile, b*tile + tile)) lives on device position b % G as that device's local block
// b / G; a device's blocks are contiguous, leading dimension = the row count. The last block
// may be short. "Device position" p is the index into the context's device list.
class column_layout {
 public:
  column_layout(std::int64_t cols, std::int64_t tile, int devices);

  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t tile() const noexcept { return tile_; }
  int devices() const noexcept { return devices_; }
  std::int64_t blocks() const noexcept { return (cols_ + tile_ - 1) / tile_; }

  int owner(std::int64_t col) const noexcept;
  std::int64_t local_col(std::int64_t col) const noexcept;
  std::int64_t local_blocks(int p) const noexcept;
  std::int64_t local_cols(int p) const noexcept;  // real columns held by position p
  // Columns allocated on position p: whole tiles, as NVIDIA's own cusolverMg examples allocate
  // them, so the library never reaches past an allocation in a short last block.
  std::int64_t allocated_cols(int p) const noexcept { return local_blocks(p) * tile_; }

  struct block {
    std::int64_t first_col, cols, local_first_col;  // global first column, width, local first column
  };
  std::vector<block> blocks_of(int p) const;

 private:
  std::int64_t cols_, tile_;
  int devices_;
};

}  // namespace solvebench::cuda::mg
