// host_matrix's memory: large buffers 2 MiB-aligned on huge pages where the kernel gives them,
// small ones from operator new; copies and moves keep their entries; the THP facts are read.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <unistd.h>

#include "solvebench/matrix.hpp"

namespace sb = solvebench;

namespace {
// AnonHugePages (kB) of the mappings of this process that overlap [p, p + bytes).
long huge_kb_over(const void* p, std::size_t bytes) {
  const auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  long kb = 0;
  while (std::getline(smaps, line)) {
    const std::string first = line.substr(0, line.find(' '));
    if (!first.empty() && first.back() != ':') {  // a mapping's header: "lo-hi perms offset dev inode path"
      std::uintptr_t a = 0, b = 0;
      inside = std::sscanf(first.c_str(), "%lx-%lx", &a, &b) == 2 && a < hi && b > lo;
    } else if (inside && first == "AnonHugePages:") {
      kb += std::stol(line.substr(first.size()));
    }
  }
  return kb;
}
}  // namespace

TEST(HostMatrix, LargeBuffersAre2MiBAlignedAndSmallOnesOnACacheLine) {
  const sb::host_matrix<double> big(1024, 1024);  // 8 MiB
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % sb::huge_page_bytes, 0u);
  const sb::host_matrix<float> small(100, 3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % sb::cache_line_bytes, 0u);
  for (int k = 0; k < 16; ++k) {  // whatever the heap's history: malloc alone gives 16 bytes
    const sb::host_matrix<double> a(256, 256 + k), b(256, 1);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % sb::cache_line_bytes, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % sb::cache_line_bytes, 0u);
  }
  for (std::size_t k = 0; k < big.size(); k += 4099) EXPECT_EQ(big.data()[k], 0.0);  // value-initialized
  for (std::size_t k = 0; k < small.size(); ++k) EXPECT_EQ(small.data()[k], 0.0f);
}

TEST(HostMatrix, CopiesAndMovesKeepTheEntries) {
  sb::host_matrix<double> a(700, 600);  // 3.2 MiB: its own mapping, rounded up to 4 MiB
  for (std::int64_t j = 0; j < a.cols(); ++j)
    for (std::int64_t i = 0; i < a.rows(); ++i) a(i, j) = static_cast<double>(i + 1000 * j);
  const sb::host_matrix<double> copy = a;
  EXPECT_NE(copy.data(), a.data());
  EXPECT_EQ(copy(699, 599), a(699, 599));
  sb::host_matrix<double> b(700, 600);
  b.assign(a);
  EXPECT_EQ(b(12, 34), 12.0 + 34000.0);
  const double* where = a.data();
  const sb::host_matrix<double> moved = std::move(a);
  EXPECT_EQ(moved.data(), where);
  EXPECT_EQ(moved(699, 599), 699.0 + 599000.0);
}

TEST(HostMatrix, LargeBuffersGetHugePagesWhereTheKernelGivesThem) {
  const auto facts = sb::host_memory_facts();
  ASSERT_EQ(facts.size(), 2u);
  const std::string thp = facts[0].second;
  if (thp != "always" && thp != "madvise")
    GTEST_SKIP() << "transparent huge pages are '" << thp << "' here: the buffers stay on 4 KiB pages";
  const sb::host_matrix<double> m(1024, 1024);  // 8 MiB, written (zeroed) when made
  const long kb = huge_kb_over(m.data(), m.size_bytes());
  // The kernel may lack a free 2 MiB block now and then; most of the buffer must be huge.
  EXPECT_GE(kb, 4096) << "AnonHugePages over the 8 MiB buffer: " << kb << " kB";
}

TEST(HostMemoryFacts, ReadTheBracketedChoices) {
  EXPECT_EQ(sb::sysfs_choice("always [madvise] never"), "madvise");
  EXPECT_EQ(sb::sysfs_choice("[always] madvise never\n"), "always");
  EXPECT_EQ(sb::sysfs_choice("always defer defer+madvise [madvise] never"), "madvise");
  EXPECT_EQ(sb::sysfs_choice(""), "");
  EXPECT_EQ(sb::sysfs_choice("never"), "");
  const auto dir = std::filesystem::temp_directory_path() / ("sb_thp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "enabled") << "always madvise [never]\n";
  const auto facts = sb::host_memory_facts(dir.string());  // no defrag file: ""
  std::filesystem::remove_all(dir);
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0], (std::pair<std::string, std::string>{"host_thp", "never"}));
  EXPECT_EQ(facts[1], (std::pair<std::string, std::string>{"host_thp_defrag", ""}));
}
