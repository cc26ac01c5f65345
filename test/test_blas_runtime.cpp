// The run context's account of the CPU library (blas_runtime.cpp): the vendor this build was
// configured for, its version as the library states it, LAPACK's version and home, and a
// thread count that can be set.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "solvebench/lapack.hpp"

namespace lapack = solvebench::lapack;

// From CMake (cmake/SolveBenchBlas.cmake): what BLA_VENDOR promised, "" where it did not say.
#ifndef SB_EXPECTED_BLAS_VENDOR
#error "SB_EXPECTED_BLAS_VENDOR must come from CMake"
#endif

namespace {

const std::string expected_vendor = SB_EXPECTED_BLAS_VENDOR;
const std::string expected_version = SB_EXPECTED_BLAS_VERSION;
const std::string configured_as = SB_BLA_VENDOR;

// "0.3.21", "3.11.0", "2024.0": digits, with one or two dots between them.
bool is_version(const std::string& v) {
  int dots = 0;
  bool digit_before = false;
  for (const char c : v) {
    if (c == '.') {
      if (!digit_before) return false;
      ++dots;
      digit_before = false;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digit_before = true;
    } else {
      return false;
    }
  }
  return digit_before && (dots == 1 || dots == 2);
}

}  // namespace

TEST(BlasRuntime, NamesTheVendorThisBuildWasConfiguredFor) {
  const auto info = lapack::blas_runtime_info();
  if (expected_vendor.empty())
    GTEST_SKIP() << "BLA_VENDOR=" << configured_as << " names no vendor; the run found " << info.vendor << " ("
                 << info.blas_config << ")";
  EXPECT_EQ(info.vendor, expected_vendor)
      << "BLA_VENDOR=" << configured_as << "; dgemm_ from " << info.blas_library << ": " << info.blas_config;
}

TEST(BlasRuntime, VersionIsTheOneTheLibraryStates) {
  const auto info = lapack::blas_runtime_info();
  ASSERT_NE(info.vendor, "unknown") << info.blas_config;
  EXPECT_TRUE(is_version(info.version)) << "'" << info.version << "' from " << info.blas_config;
  EXPECT_NE(info.blas_config.find(info.version), std::string::npos) << info.blas_config;
  if (info.vendor == "OpenBLAS") {
    EXPECT_EQ(info.blas_config.rfind("OpenBLAS " + info.version, 0), 0u) << info.blas_config;
  }
  // Where the system described the linked library at configure time (pkg-config), they agree.
  if (!expected_version.empty()) {
    EXPECT_EQ(info.version, expected_version);
  }
}

TEST(BlasRuntime, NamesLapackItsVersionAndWhereBothLive) {
  const auto info = lapack::blas_runtime_info();
  EXPECT_TRUE(is_version(info.lapack_version)) << info.lapack_version;
  EXPECT_EQ(info.lapack_version.rfind("3.", 0), 0u) << "LAPACK 3.x: " << info.lapack_version;
  EXPECT_FALSE(info.lapack_library.empty());
  EXPECT_EQ(info.lapack_library.find("unknown"), std::string::npos) << info.lapack_library;
  EXPECT_FALSE(info.blas_library.empty());
  EXPECT_EQ(info.blas_library.find("unknown"), std::string::npos) << info.blas_library;
}

TEST(BlasRuntime, ThreadsCanBeSet) {
  const auto info = lapack::blas_runtime_info();
  ASSERT_EQ(info.why_threads_fixed, "") << info.vendor;
  EXPECT_GE(info.blas_threads, 1);
  const int before = lapack::blas_threads();
  lapack::set_blas_threads(1);
  EXPECT_EQ(lapack::blas_threads(), 1);
  lapack::set_blas_threads(2);
  EXPECT_EQ(lapack::blas_threads(), 2);
  EXPECT_EQ(lapack::blas_runtime_info().blas_threads, 2);
  lapack::set_blas_threads(before);
  EXPECT_EQ(lapack::blas_threads(), before);
}
