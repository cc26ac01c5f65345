// CPU libraries loaded beside the linked one (lapack_loaded.hpp): two of them solve in one
// process, each through its own objects, each answer checked; what cannot load is named.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/lapack_loaded.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace lapack = solvebench::lapack;

namespace {

const lapack::library_files& known(const std::string& name) {
  for (const auto& l : lapack::known_libraries())
    if (l.name == name) return l;
  throw std::logic_error("no known library " + name);
}

bool installed(const lapack::library_files& f) {
  return std::filesystem::exists(f.blas) && (f.lapack.empty() || std::filesystem::exists(f.lapack));
}

// One library's dgesv on a random system, checked as the rows check it.
template <class T>
double solve_residual(const lapack::loaded_library& lib, std::int64_t n) {
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 7);
  const auto b0 = sb::generate_rhs<T>(n, 2, 7);
  auto a = a0;
  auto b = b0;
  std::vector<lapack::index_t> ipiv(static_cast<std::size_t>(n));
  lib.gesv(a, ipiv, b);
  return sb::hpl_scaled_residual(a0, b, b0);
}

}  // namespace

TEST(LoadedLibrary, TwoLibrariesSolveInOneProcessEachWithItsOwnObjects) {
  const auto blis = known("blis");
  const auto reference = known("reference");
  if (!installed(blis) || !installed(reference))
    GTEST_SKIP() << "needs BLIS and reference BLAS + LAPACK (libblis4-pthread libblas3 liblapack3)";
  const lapack::loaded_library a(blis), b(reference);
  EXPECT_LT(solve_residual<double>(a, 301), 16.0);
  EXPECT_LT(solve_residual<double>(b, 301), 16.0);
  EXPECT_LT(solve_residual<std::complex<float>>(a, 65), 16.0);
  const lapack::runtime_info ia = a.info(), ib = b.info(), linked = lapack::blas_runtime_info();
  // Each library's dgemm_ is its own file, not the linked library's.
  EXPECT_NE(ia.blas_library, ib.blas_library);
  EXPECT_NE(ia.blas_library, linked.blas_library);
  EXPECT_NE(ib.blas_library, linked.blas_library);
  EXPECT_NE(ia.blas_library.find("blis"), std::string::npos) << ia.blas_library;
  EXPECT_NE(ib.lapack_library.find("/lapack/liblapack.so.3"), std::string::npos) << ib.lapack_library;
  EXPECT_EQ(ia.vendor, "BLIS");
  EXPECT_FALSE(ia.version.empty());
  EXPECT_EQ(ib.vendor, "Netlib");
  EXPECT_EQ(ib.blas_threads, 1);
  EXPECT_EQ(ib.lapack_version, ia.lapack_version);
  // The linked library still answers, after the others were loaded.
  auto m = sb::generate_matrix<double>(sb::matrix_kind::uniform, 64, 3);
  const auto m0 = m;
  auto r = sb::generate_rhs<double>(64, 1, 3);
  const auto r0 = r;
  std::vector<lapack::index_t> ipiv(64);
  lapack::gesv(m, ipiv, r);
  EXPECT_LT(sb::hpl_scaled_residual(m0, r, r0), 16.0);
}

TEST(LoadedLibrary, FactorsSolveAndMultiplyThroughTheLibrary) {
  const auto reference = known("reference");
  if (!installed(reference)) GTEST_SKIP() << "needs reference BLAS + LAPACK (libblas3 liblapack3)";
  const lapack::loaded_library lib(reference);
  const std::int64_t n = 97;
  const auto s0 = sb::generate_matrix<float>(sb::matrix_kind::spd, n, 11);
  const auto b0 = sb::generate_rhs<float>(n, 3, 11);
  auto l = s0;
  auto b = b0;
  lib.potrf(l);
  lib.potrs(l, b);
  EXPECT_LT(sb::hpl_scaled_residual(s0, b, b0), 16.0);
  const auto x = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, 12);
  const auto y = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, 13);
  sb::host_matrix<double> c(n, n);
  lib.gemm(x, y, c);
  EXPECT_LT(sb::gemm_scaled_residual(x, y, c), 16.0);
}

TEST(LoadedLibrary, SingularMatrixNamesThePivot) {
  const auto reference = known("reference");
  if (!installed(reference)) GTEST_SKIP() << "needs reference BLAS + LAPACK (libblas3 liblapack3)";
  const lapack::loaded_library lib(reference);
  sb::host_matrix<double> zero(4, 4);
  std::vector<lapack::index_t> ipiv(4);
  try {
    lib.getrf(zero, ipiv);
    FAIL() << "a zero matrix factored";
  } catch (const sb::singular_matrix& e) {
    EXPECT_NE(std::string(e.what()).find("dgetrf_"), std::string::npos) << e.what();
  }
}

TEST(LoadedLibrary, AMissingFileIsAnErrorNamingIt) {
  lapack::library_files missing = known("reference");
  missing.name = "nowhere";
  missing.blas = "/nonexistent/libblas.so.3";
  try {
    const lapack::loaded_library lib(missing);
    FAIL() << "a library that is not there loaded";
  } catch (const sb::error& e) {
    EXPECT_NE(std::string(e.what()).find("nowhere: cannot load /nonexistent/libblas.so.3"), std::string::npos)
        << e.what();
  }
}
