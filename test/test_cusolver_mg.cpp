// cusolverMg backend: the context facts (host only, run everywhere; the tile rule and the column
// layout are in test_cusolver_mg_layout.cpp); on 1 and 2 GPUs: agreement with the single-GPU cuSOLVER backend, the
// residual that regenerates A against the one that reads it, typed errors, and the memory pre-check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "solvebench/cusolver.hpp"
#include "solvebench/cusolver_mg.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace cuda = solvebench::cuda;
namespace mg = solvebench::cuda::mg;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string fact(const std::vector<std::pair<std::string, std::string>>& facts, const std::string& key) {
  for (const auto& [k, v] : facts)
    if (k == key) return v;
  return "<missing " + key + ">";
}

}  // namespace

// ---- host only -----------------------------------------------------------------------------

TEST(MgpuTopologyFacts, NamesEveryDeviceAndEachDirectionOfPeerAccess) {
  mg::device_topology t{{0, 1}, {"NVIDIA H200", "NVIDIA H200"}, {{false, true}, {false, false}}};
  auto facts = mg::topology_facts(t);
  EXPECT_EQ(fact(facts, "mgpu_devices"), "0,1");
  EXPECT_EQ(fact(facts, "mgpu_gpu0_name"), "NVIDIA H200");
  EXPECT_EQ(fact(facts, "mgpu_gpu1_name"), "NVIDIA H200");
  EXPECT_EQ(fact(facts, "mgpu_peer_access"), "0->1 yes, 1->0 no");
  const mg::device_topology one{{3}, {"X"}, {{false}}};
  facts = mg::topology_facts(one);
  EXPECT_EQ(fact(facts, "mgpu_devices"), "3");
  EXPECT_EQ(fact(facts, "mgpu_peer_access"), "none (one device)");
}

// ---- on the devices ------------------------------------------------------------------------

namespace {

// The parameter is the number of GPUs; fewer present skips, saying how many there are.
class Mgpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string why;
    const int found = cuda::device_count(&why);
    if (found == 0) GTEST_SKIP() << "no GPU: " << why;
    if (found < GetParam()) GTEST_SKIP() << "needs " << GetParam() << " GPUs, found " << found;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
  int gpus() const { return GetParam(); }
};

std::string gpus_name(const ::testing::TestParamInfo<int>& info) {
  return std::to_string(info.param) + (info.param == 1 ? "gpu" : "gpus");
}

// The same problem on one GPU through lu_solver / cholesky_solver: X (n x nrhs) and its residual.
template <class T>
std::vector<T> single_gpu_solution(sb::factorization f, sb::matrix_kind kind, std::int64_t n, std::int64_t nrhs,
                                   std::uint64_t seed, double* resid) {
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  cuda::context c;
  const auto nn = static_cast<std::size_t>(n * n), nb = static_cast<std::size_t>(n * nrhs);
  cuda::device_buffer<T> a(nn), a0(nn), b(nb), b0(nb);
  cuda::generate_matrix(a.data(), kind, n, seed, c.stream());
  cuda::generate_matrix(a0.data(), kind, n, seed, c.stream());
  cuda::generate_rhs(b.data(), n, nrhs, seed, c.stream());
  cuda::generate_rhs(b0.data(), n, nrhs, seed, c.stream());
  if (f == sb::factorization::lu) {
    cuda::lu_solver<T> s(c, n, nrhs);
    s.factor(a.data());
    s.solve(a.data(), b.data());
    s.check_info();
  } else {
    cuda::cholesky_solver<T> s(c, n, nrhs);
    s.factor(a.data());
    s.solve(a.data(), b.data());
    s.check_info();
  }
  *resid = cuda::hpl_scaled_residual(a0.data(), b.data(), b0.data(), n, nrhs, c.stream());
  c.synchronize();
  std::vector<T> x(nb);
  EXPECT_EQ(cudaMemcpy(x.data(), b.data(), nb * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return x;
}

struct solve_case {
  sb::factorization f;
  sb::matrix_kind kind;
  std::int64_t n, nrhs, tile;
  bool compare_x;  // well conditioned: the two solutions must agree digit for digit, not just both pass
};

template <class T>
void agrees_with_single_gpu(int gpus, const solve_case& k) {
  SCOPED_TRACE(std::string(std::is_same_v<T, double> ? "double" : "float") + " " + sb::to_string(k.kind) +
               " n=" + std::to_string(k.n) + " nrhs=" + std::to_string(k.nrhs) + " tile=" + std::to_string(k.tile));
  const std::uint64_t seed = 41;
  mg::context ctx(mg::first_devices(gpus));
  mg::linear_system<T> s(ctx, k.f, k.n, k.nrhs, k.tile);
  s.generate(k.kind, seed);
  s.factor();
  s.solve();
  const double resid = s.scaled_residual();
  EXPECT_LT(resid, sb::residual_threshold);

  double single_resid = 0;
  const auto x1 = single_gpu_solution<T>(k.f, k.kind, k.n, k.nrhs, seed, &single_resid);
  EXPECT_LT(single_resid, sb::residual_threshold);
  double diff = 0, norm = 0;
  for (std::int64_t j = 0; j < k.nrhs; ++j) {
    const auto xj = s.solution_column(j);
    for (std::int64_t i = 0; i < k.n; ++i) {
      const double one = static_cast<double>(x1[static_cast<std::size_t>(j * k.n + i)]);
      diff = std::max(diff, std::fabs(xj[static_cast<std::size_t>(i)] - one));
      norm = std::max(norm, std::fabs(one));
    }
  }
  ASSERT_GT(norm, 0);
  const double tol = std::is_same_v<T, double> ? 1e-11 : 1e-4;
  if (k.compare_x) {
    EXPECT_LE(diff / norm, tol) << "resid " << resid;
  }
}

}  // namespace

TEST_P(Mgpu, AgreesWithTheSingleGpuBackend) {
  const std::vector<solve_case> cases = {
      {sb::factorization::lu, sb::matrix_kind::diagdom, 1000, 3, 128, true},
      {sb::factorization::lu, sb::matrix_kind::uniform, 1000, 2, 128, false},
      {sb::factorization::cholesky, sb::matrix_kind::spd, 1000, 3, 128, true},
      // B wider than a tile, so B's tiles are spread over the devices too.
      {sb::factorization::lu, sb::matrix_kind::diagdom, 256, 9, 4, true},
      {sb::factorization::cholesky, sb::matrix_kind::spd, 256, 9, 4, true},
      // The largest tile the rule allows, and one tile for the whole matrix.
      {sb::factorization::lu, sb::matrix_kind::diagdom, 1500, 1, 512, true},
      {sb::factorization::lu, sb::matrix_kind::diagdom, 300, 1, 512, true},
  };
  for (const auto& k : cases) {
    agrees_with_single_gpu<double>(gpus(), k);
    agrees_with_single_gpu<float>(gpus(), k);
  }
}

template <class T>
void generated_equals_stored(int gpus) {
  SCOPED_TRACE((std::is_same_v<T, double> ? "double" : "float"));
  const std::int64_t n = 700, tile = 64;
  const std::uint64_t seed = 9;
  mg::context ctx(mg::first_devices(gpus));
  mg::linear_system<T> s(ctx, sb::factorization::lu, n, 2, tile);
  s.generate(sb::matrix_kind::uniform, seed);

  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i) + 1.0);
  const auto stored = s.apply_a(x, mg::a_source::stored);
  const auto regenerated = s.apply_a(x, mg::a_source::regenerated);
  // The host's own A x over the same generated (and T-rounded) matrix: each column sits where the
  // layout says, and each regenerated entry is the stored one.
  const auto a = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, seed);
  for (std::int64_t i = 0; i < n; ++i) {
    double ax = 0, abs_row = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      ax += static_cast<double>(a(i, j)) * x[static_cast<std::size_t>(j)];
      abs_row += std::fabs(static_cast<double>(a(i, j)));
    }
    const auto k = static_cast<std::size_t>(i);
    const double tol = 1e-13 * abs_row;
    ASSERT_NEAR(stored.ax[k], ax, tol) << "row " << i;
    ASSERT_NEAR(regenerated.ax[k], ax, tol) << "row " << i;
    ASSERT_NEAR(stored.abs_rows[k], abs_row, tol) << "row " << i;
    ASSERT_NEAR(regenerated.abs_rows[k], abs_row, tol) << "row " << i;
  }

  s.factor();
  EXPECT_THROW(s.apply_a(x, mg::a_source::stored), sb::invalid_argument);  // A holds its factors now
  s.solve();
  const auto x0 = s.solution_column(0);
  const double from_regenerated = s.scaled_residual(x0, 0, mg::a_source::regenerated);
  const double worst =
      std::max(from_regenerated, s.scaled_residual(s.solution_column(1), 1, mg::a_source::regenerated));
  EXPECT_NEAR(s.scaled_residual(), worst, 0.1);  // the worst right-hand side, up to atomic-add order
  s.generate(sb::matrix_kind::uniform, seed);    // the restore: A and B as they were
  const double from_stored = s.scaled_residual(x0, 0, mg::a_source::stored);
  EXPECT_LT(from_regenerated, sb::residual_threshold);
  // Equal up to the order of a few atomic additions per row.
  EXPECT_NEAR(from_regenerated, from_stored, 0.1);
  const auto restored = s.apply_a(x, mg::a_source::stored);
  for (std::size_t k = 0; k < x.size(); ++k) ASSERT_NEAR(restored.ax[k], stored.ax[k], 1e-13 * stored.abs_rows[k]);
  // A wrong solution is caught by the regenerated residual too.
  auto bad = x0;
  bad[17] += 0.5 * (1.0 + std::abs(bad[17]));  // far outside rounding in fp32 too
  EXPECT_GT(s.scaled_residual(bad, 0, mg::a_source::regenerated), sb::residual_threshold);
}

TEST_P(Mgpu, RegeneratedResidualEqualsStoredResidual) {
  generated_equals_stored<double>(gpus());
  generated_equals_stored<float>(gpus());
}

TEST_P(Mgpu, RestoreMakesTimedRepetitionsRepeatable) {
  mg::context ctx(mg::first_devices(gpus()));
  mg::linear_system<double> s(ctx, sb::factorization::lu, 600, 1, 64);
  s.generate(sb::matrix_kind::uniform, 3);
  s.factor();
  EXPECT_THROW(s.factor(), sb::invalid_argument);  // A holds factors: refactoring them is not a repetition
  s.solve();
  const auto first = s.solution_column(0);
  s.generate(sb::matrix_kind::uniform, 3);
  s.factor();
  s.solve();
  const auto second = s.solution_column(0);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    diff = std::max(diff, std::fabs(first[i] - second[i]));
    norm = std::max(norm, std::fabs(first[i]));
  }
  EXPECT_LE(diff, 1e-12 * norm);
  EXPECT_LT(s.scaled_residual(), sb::residual_threshold);
}

// The getrs/potrs rows: B regenerated alone, solved again against factors made once.
TEST_P(Mgpu, RhsRestoreKeepsTheFactorsForRepeatedSolves) {
  mg::context ctx(mg::first_devices(gpus()));
  for (auto [f, kind] : {std::pair{sb::factorization::lu, sb::matrix_kind::uniform},
                         std::pair{sb::factorization::cholesky, sb::matrix_kind::spd}}) {
    SCOPED_TRACE(sb::to_string(kind));
    mg::linear_system<double> s(ctx, f, 500, 2, 64);
    EXPECT_THROW(s.generate_rhs(), sb::invalid_argument);  // no (kind, seed) yet
    s.generate(kind, 5);
    s.factor();
    s.solve();
    const auto first = s.solution_column(1);
    const double resid = s.scaled_residual();
    EXPECT_LT(resid, sb::residual_threshold);
    s.solve();  // B holds X: solving again gives A^-1 X, not X
    const auto twice = s.solution_column(1);
    s.generate_rhs();
    s.solve();  // with the same factors: the same X, bit for bit
    EXPECT_EQ(s.solution_column(1), first);
    EXPECT_NE(twice, first);
    EXPECT_NEAR(s.scaled_residual(), resid, 0.1 * resid);  // up to atomic-add order in the residual
    EXPECT_THROW(s.factor(), sb::invalid_argument);        // the factors are still in A
  }
}

TEST_P(Mgpu, SingularMatrixNamesItsPivot) {
  mg::context ctx(mg::first_devices(gpus()));
  const std::int64_t n = 300;
  mg::linear_system<double> s(ctx, sb::factorization::lu, n, 1, 64);
  s.generate(sb::matrix_kind::singular, 1);
  try {
    s.factor();
    FAIL() << "a matrix with a zero column factored";
  } catch (const sb::singular_matrix& e) {
    EXPECT_EQ(e.pivot(), n / 2 + 1) << e.what();
    EXPECT_TRUE(contains(e.what(), "cusolverMgGetrf")) << e.what();
  }
  EXPECT_THROW(s.solve(), sb::invalid_argument);  // no factors to solve with
}

// cusolverMgPotrf answers an indefinite matrix with CUSOLVER_STATUS_INTERNAL_ERROR (seen on two
// H200s, CUDA 13.0), not with info > 0: the wrapper says so by name, where one GPU names the minor.
TEST_P(Mgpu, NotPositiveDefiniteIsNamedWhereOneGpuNamesTheMinor) {
  mg::context ctx(mg::first_devices(gpus()));
  const std::int64_t n = 300;
  mg::linear_system<double> s(ctx, sb::factorization::cholesky, n, 1, 64);
  s.generate(sb::matrix_kind::uniform, 5);  // symmetric part of a uniform matrix: indefinite
  try {
    s.factor();
    FAIL() << "an indefinite matrix passed Cholesky";
  } catch (const sb::error& e) {
    EXPECT_TRUE(contains(e.what(), "cusolverMgPotrf")) << e.what();
    EXPECT_TRUE(contains(e.what(), "not positive definite")) << e.what();
  }
  EXPECT_THROW(s.solve(), sb::invalid_argument);  // no factors to solve with
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cuda::context c;
  cuda::device_buffer<double> a(static_cast<std::size_t>(n * n));
  cuda::generate_matrix(a.data(), sb::matrix_kind::uniform, n, 5, c.stream());
  cuda::cholesky_solver<double> one(c, n, 1);
  one.factor(a.data());
  EXPECT_THROW(one.check_info(), sb::not_positive_definite);
}

TEST_P(Mgpu, TileAboveTheRuleIsRefusedBeforeCusolver) {
  mg::context ctx(mg::first_devices(gpus()));
  for (auto f : {sb::factorization::lu, sb::factorization::cholesky}) {
    try {
      mg::linear_system<double> s(ctx, f, 16384, 1, 1024);
      FAIL() << "tile 1024 accepted";
    } catch (const sb::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), "1024")) << e.what();
      EXPECT_TRUE(contains(e.what(), "512")) << e.what();
    }
    EXPECT_THROW(mg::linear_system<float>::needs(ctx, f, 16384, 1, 1024), sb::invalid_argument);
  }
}

TEST_P(Mgpu, MemoryPreCheckRefusesWithNeededAndFreeAndAllocatesNothing) {
  mg::context ctx(mg::first_devices(gpus()));
  const std::int64_t n = 300000;  // fp64: 720 GB of A, more than any two GPUs hold
  const auto needs = mg::linear_system<double>::needs(ctx, sb::factorization::lu, n, 1, 512);
  ASSERT_EQ(needs.size(), static_cast<std::size_t>(gpus()));
  const mg::column_layout layout(n, 512, gpus());
  std::uint64_t a_total = 0;
  for (int p = 0; p < gpus(); ++p) {
    const auto& need = needs[static_cast<std::size_t>(p)];
    const auto cols = static_cast<std::uint64_t>(layout.allocated_cols(p));
    EXPECT_EQ(need.device, p);
    EXPECT_EQ(need.matrix_bytes, static_cast<std::uint64_t>(n) * cols * sizeof(double));  // about 1/G of A
    EXPECT_EQ(need.rhs_bytes, p == 0 ? static_cast<std::uint64_t>(n) * sizeof(double) : sizeof(double));
    EXPECT_EQ(need.pivot_bytes, cols * sizeof(int));
    EXPECT_GT(need.workspace_bytes, 0u);
    a_total += need.matrix_bytes;
  }
  EXPECT_GE(a_total, static_cast<std::uint64_t>(n) * n * sizeof(double));

  std::vector<std::uint64_t> free_before;
  for (int d : ctx.devices()) free_before.push_back(mg::memory_info_of(d).free_bytes);
  try {
    mg::linear_system<double> s(ctx, sb::factorization::lu, n, 1, 512);
    FAIL() << "a 720 GB matrix was allocated";
  } catch (const sb::out_of_memory& e) {
    EXPECT_GT(e.needed_bytes(), e.available_bytes()) << e.what();
    EXPECT_TRUE(contains(e.what(), "GPU 0")) << e.what();
    EXPECT_EQ(e.needed_bytes(), needs.front().total_bytes()) << e.what();
  }
  for (std::size_t p = 0; p < free_before.size(); ++p) {
    const auto after = mg::memory_info_of(ctx.devices()[p]).free_bytes;
    EXPECT_GE(after + (std::uint64_t{16} << 20), free_before[p]) << "device " << ctx.devices()[p];
  }
}

TEST_P(Mgpu, TopologyListsEachDeviceAndPeerAccess) {
  const auto devices = mg::first_devices(gpus());
  const auto t = mg::query_topology(devices);
  ASSERT_EQ(t.names.size(), devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_FALSE(t.names[i].empty());
    EXPECT_FALSE(t.peer_access[i][i]);
  }
  const auto facts = mg::topology_facts(t);
  EXPECT_EQ(fact(facts, "mgpu_devices"), gpus() == 1 ? "0" : "0,1");
  if (gpus() == 2) {
    // Two H200s joined by NVLink map each other's memory both ways.
    EXPECT_TRUE(t.peer_access[0][1] && t.peer_access[1][0]) << fact(facts, "mgpu_peer_access");
  }
  EXPECT_THROW(mg::first_devices(cuda::device_count(nullptr) + 1), sb::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Gpus, Mgpu, ::testing::Values(1, 2), gpus_name);
