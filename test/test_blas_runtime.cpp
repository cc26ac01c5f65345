// The run context's account of the CPU library (blas_runtime.cpp): the vendor this build was
// configured for, its version as the library states it, LAPACK's version and home (the file,
// links resolved), its threading variant, and a thread count that can be set.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
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

// With another variant put first (test/CMakeLists.txt: Debian's openblas-serial through
// LD_LIBRARY_PATH, as tools/track confirm switches it), the context names it and its file.
TEST(BlasRuntime, VariantAndFileAreTheOnesLoaded) {
  const auto info = lapack::blas_runtime_info();
  namespace fs = std::filesystem;
  for (const auto& path : {info.blas_library, info.lapack_library}) {
    if (path.find("(linked statically)") != std::string::npos) continue;
    EXPECT_TRUE(fs::exists(path)) << path;
    EXPECT_FALSE(fs::is_symlink(path)) << path << ": a link, not the file it leads to";
  }
  if (info.vendor == "OpenBLAS") {
    EXPECT_TRUE(info.blas_variant == "openblas-serial" || info.blas_variant == "openblas-pthread" ||
                info.blas_variant == "openblas-openmp")
        << "'" << info.blas_variant << "'";
    const bool single = info.blas_config.find("SINGLE_THREADED") != std::string::npos;
    EXPECT_EQ(single, info.blas_variant == "openblas-serial") << info.blas_config;
  }
  const char* expected = std::getenv("SB_EXPECT_BLAS_VARIANT");
  if (expected == nullptr) return;
  const char* dir = std::getenv("SB_EXPECT_BLAS_DIR");
  if (dir != nullptr && !fs::exists(dir))
    GTEST_SKIP() << dir << " is not installed (Debian: apt install libopenblas0-serial)";
  EXPECT_EQ(info.blas_variant, expected) << info.blas_config;
  if (dir != nullptr) {
    EXPECT_EQ(fs::path(info.blas_library).parent_path(), fs::canonical(dir)) << info.blas_library;
  }
  if (info.blas_variant == "openblas-serial") {
    EXPECT_EQ(info.blas_threads, 1);
  }
}
