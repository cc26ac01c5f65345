// cusolverMg's tile rule and column layout: pure arithmetic, so these run on every machine (CI
// included), not only where there are GPUs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "solvebench/cusolver_mg_layout.hpp"
#include "solvebench/errors.hpp"

namespace sb = solvebench;
namespace mg = solvebench::cuda::mg;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST(MgpuTileRule, AcceptsOneToFiveTwelveAndNamesTheRuleOtherwise) {
  EXPECT_NO_THROW(mg::check_tile(1));
  EXPECT_NO_THROW(mg::check_tile(256));
  EXPECT_NO_THROW(mg::check_tile(512));
  for (std::int64_t bad : {0, -4, 513, 1024}) {
    try {
      mg::check_tile(bad);
      ADD_FAILURE() << "tile " << bad << " accepted";
    } catch (const sb::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), std::to_string(bad))) << e.what();
      EXPECT_TRUE(contains(e.what(), "less or equal to 512")) << e.what();
    }
  }
}

TEST(MgpuLayout, ColumnBlockCyclicAsCusolverMgStoresIt) {
  for (int g : {1, 2, 3}) {
    const std::int64_t n = 1000, tile = 64;  // 16 blocks, the last one 40 wide
    const mg::column_layout layout(n, tile, g);
    ASSERT_EQ(layout.blocks(), 16);
    std::vector<std::int64_t> seen(static_cast<std::size_t>(n), 0);
    std::int64_t total = 0;
    for (int p = 0; p < g; ++p) {
      std::int64_t expect_local = 0;
      for (const auto& blk : layout.blocks_of(p)) {
        EXPECT_EQ(blk.first_col / tile % g, p);
        EXPECT_EQ(blk.local_first_col, expect_local);
        expect_local += tile;
        for (std::int64_t c = 0; c < blk.cols; ++c) {
          const std::int64_t j = blk.first_col + c;
          ++seen[static_cast<std::size_t>(j)];
          EXPECT_EQ(layout.owner(j), p) << "column " << j;
          EXPECT_EQ(layout.local_col(j), blk.local_first_col + c) << "column " << j;
        }
      }
      EXPECT_EQ(layout.allocated_cols(p), static_cast<std::int64_t>(layout.blocks_of(p).size()) * tile);
      EXPECT_GE(layout.allocated_cols(p), layout.local_cols(p));
      total += layout.local_cols(p);
    }
    EXPECT_EQ(total, n) << g << " devices";
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](std::int64_t k) { return k == 1; })) << g << " devices";
  }
  // NVIDIA's rule spelled out for two devices: block b on device b % 2, local block b / 2.
  const mg::column_layout two(1000, 64, 2);
  EXPECT_EQ(two.owner(64 * 5 + 3), 1);
  EXPECT_EQ(two.local_col(64 * 5 + 3), 64 * 2 + 3);
  EXPECT_EQ(two.local_cols(0), 8 * 64);       // blocks 0, 2, ..., 14, all full
  EXPECT_EQ(two.local_cols(1), 7 * 64 + 40);  // blocks 1, 3, ..., 15; block 15 is 40 wide
  EXPECT_EQ(two.allocated_cols(1), 8 * 64);
  EXPECT_THROW(mg::column_layout(0, 64, 1), sb::invalid_argument);
}

TEST(MgpuLayout, MoreDevicesThanBlocksLeavesTheLastOnesEmpty) {
  const mg::column_layout layout(100, 64, 3);  // blocks of 64 and 36 on positions 0 and 1
  ASSERT_EQ(layout.blocks(), 2);
  EXPECT_EQ(layout.local_blocks(0), 1);
  EXPECT_EQ(layout.local_blocks(1), 1);
  EXPECT_EQ(layout.local_blocks(2), 0);
  EXPECT_TRUE(layout.blocks_of(2).empty());
  EXPECT_EQ(layout.local_cols(1), 36);
  EXPECT_EQ(layout.allocated_cols(1), 64);  // a whole tile, though only 36 columns are real
  EXPECT_EQ(layout.allocated_cols(2), 0);
  EXPECT_EQ(layout.owner(99), 1);
  EXPECT_EQ(layout.local_col(99), 35);
  const auto last = layout.blocks_of(1);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].first_col, 64);
  EXPECT_EQ(last[0].cols, 36);
  EXPECT_EQ(last[0].local_first_col, 0);
}

TEST(MgpuLayout, OneDeviceHoldsEveryColumnInPlace) {
  const mg::column_layout layout(1000, 512, 1);
  for (std::int64_t j : {0, 511, 512, 999}) {
    EXPECT_EQ(layout.owner(j), 0);
    EXPECT_EQ(layout.local_col(j), j);
  }
  EXPECT_EQ(layout.local_cols(0), 1000);
  EXPECT_EQ(layout.allocated_cols(0), 1024);
}
