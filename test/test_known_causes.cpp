// The library layer's table of known defects (solvebench/known_causes.hpp): a cause is claimed
// only for the vendor, versions and sizes it explains, and its text is the same for every size.
#include <gtest/gtest.h>

#include <string>

#include "solvebench/known_causes.hpp"

namespace {

std::string cause(const std::string& vendor, const std::string& version, char p, long long n, long long k) {
  return solvebench::cpu::known_driver_cause(vendor, version, p, n, k);
}

TEST(KnownCauses, OpenBlasGesvOnlyForMatchingVersionsAndSizes) {
  EXPECT_NE(cause("OpenBLAS", "0.3.26", 'd', 4096, 1).find("Known cause"), std::string::npos);
  EXPECT_NE(cause("OpenBLAS", "0.3.29", 'd', 9999, 1).find("Known cause"), std::string::npos);
  EXPECT_NE(cause("OpenBLAS", "0.3.26", 's', 20000, 1).find("40000"), std::string::npos);  // single: 40000
  EXPECT_EQ(cause("OpenBLAS", "0.3.26", 's', 20000, 2), "");                               // 40000: threaded
  EXPECT_NE(cause("OpenBLAS", "0.3.31", 'd', 4096, 1).find("Likely cause"), std::string::npos);
  EXPECT_NE(cause("OpenBLAS", "0.3.31", 'd', 4096, 1).find("not established for 0.3.31"), std::string::npos);
  EXPECT_NE(cause("openblas-pthread OpenBLAS", "0.3.27", 'z', 4096, 1).find("Known cause"), std::string::npos);
  EXPECT_EQ(cause("OpenBLAS", "0.3.21", 'd', 4096, 1), "");   // before the threshold existed
  EXPECT_EQ(cause("OpenBLAS", "0.3.34", 'd', 4096, 1), "");   // fixed
  EXPECT_EQ(cause("OpenBLAS", "0.3.26", 'd', 10000, 1), "");  // n * nrhs at the threshold: threaded
  EXPECT_EQ(cause("OpenBLAS", "0.3.26", 'd', 4096, 4), "");   // 16384 >= 10000
  EXPECT_EQ(cause("OpenBLAS", "0.3.26", 'd', 64, 1), "");     // n * n < 10000: one thread by design
  EXPECT_EQ(cause("Intel MKL", "0.3.26", 'd', 4096, 1), "");
  EXPECT_EQ(cause("OpenBLAS", "", 'd', 4096, 1), "");
  EXPECT_EQ(cause("OpenBLAS", "0.3", 'd', 4096, 1), "");
}

// The findings a cause explains share it word for word (finding::cause is said once).
TEST(KnownCauses, TheTextDependsOnTheVersionOnly) {
  const std::string text = cause("OpenBLAS", "0.3.26", 'd', 4096, 1);
  EXPECT_EQ(cause("OpenBLAS", "0.3.28", 'd', 9000, 1), text);
  EXPECT_EQ(cause("OpenBLAS", "0.3.26", 's', 8192, 2), text);
  EXPECT_EQ(text.rfind("Known cause: OpenBLAS 0.3.26 to at least 0.3.29 runs ?gesv on one thread when n * nrhs < 10000 "
                       "(dgesv, zgesv) or 40000 (sgesv, cgesv): interface/lapack/gesv.c",
                       0),
            0u)
      << text;
}

std::string batch(const std::string& version, const std::string& variant, const std::string& config = "") {
  return solvebench::cpu::known_batch_cause("OpenBLAS", version, variant, config);
}

// The allocator's lock: OpenBLAS's own threads only, from the versions measured to the fix.
TEST(KnownCauses, OpenBlasAllocatorLockOnlyForThreadedNonOpenMpBuildsBeforeTheFix) {
  EXPECT_EQ(batch("0.3.21", "openblas-pthread")
                .rfind("Known cause: OpenBLAS 0.3.21 to 0.3.26 built with its own "
                       "threads",
                       0),
            0u);
  EXPECT_NE(batch("0.3.26", "").find("PR 4693"), std::string::npos);  // a build without a variant fact
  EXPECT_NE(batch("0.3.27", "openblas-pthread").find("Likely cause"), std::string::npos);
  EXPECT_EQ(batch("0.3.28", "openblas-pthread"), "");  // fixed
  EXPECT_EQ(batch("0.3.20", "openblas-pthread"), "");  // not measured
  EXPECT_EQ(batch("0.3.21", "openblas-openmp"), "");
  EXPECT_EQ(batch("0.3.21", "openblas-serial"), "");
  EXPECT_EQ(batch("0.3.21", "", "OpenBLAS 0.3.21 USE_OPENMP DYNAMIC_ARCH"), "");
  EXPECT_EQ(solvebench::cpu::known_batch_cause("Intel MKL", "0.3.21", "", ""), "");
  EXPECT_EQ(batch("", "openblas-pthread"), "");
}

}  // namespace
