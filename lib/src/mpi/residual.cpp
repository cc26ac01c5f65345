// The distributed HPL scaled residual: PBLAS p?gemm and p?lange, no rank ever holds A.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "scalapack_calls.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

namespace {

// Max |entry| of each global column (non-finite -> +Inf), over all ranks.
std::vector<double> column_inf_norms(MPI_Comm comm, const distributed_matrix<double>& m) {
  std::vector<double> norms(static_cast<std::size_t>(m.cols()), 0.0);
  for (std::int64_t j = 0; j < m.local_cols(); ++j) {
    double& norm = norms[static_cast<std::size_t>(m.global_col(j))];
    for (std::int64_t i = 0; i < m.local_rows(); ++i) {
      const double v = m.local(i, j);
      norm = std::isfinite(v) ? std::max(norm, std::fabs(v)) : std::numeric_limits<double>::infinity();
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, norms.data(), static_cast<int>(norms.size()), MPI_DOUBLE, MPI_MAX, comm);
  return norms;
}

// The residual is computed in fp64: fp32 inputs are widened first, fp64 ones used as they are.
const distributed_matrix<double>& widened(const process_grid&, const distributed_matrix<double>& m) { return m; }
distributed_matrix<double> widened(const process_grid& grid, const distributed_matrix<float>& m) {
  distributed_matrix<double> w(grid, m.rows(), m.cols(), m.block());
  for (std::int64_t j = 0; j < m.local_cols(); ++j)
    for (std::int64_t i = 0; i < m.local_rows(); ++i) w.local(i, j) = static_cast<double>(m.local(i, j));
  return w;
}

double scaled_residual_double(const process_grid& grid, const distributed_matrix<double>& a,
                              const distributed_matrix<double>& x, const distributed_matrix<double>& b, double eps) {
  const index_t n = to_index("residual: n", a.rows()), nrhs = to_index("residual: nrhs", b.cols());
  distributed_matrix<double> r = b;
  const double minus_one = -1.0, plus_one = 1.0;
  pdgemm_("N", "N", &n, &nrhs, &n, &minus_one, a.data(), &one, &one, a.descriptor(), x.data(), &one, &one,
          x.descriptor(), &plus_one, r.data(), &one, &one, r.descriptor());
  std::vector<double> work(static_cast<std::size_t>(std::max<std::int64_t>(1, a.local_rows())));
  const double a_norm = pdlange_("I", &n, &n, a.data(), &one, &one, a.descriptor(), work.data(), 1);
  const auto r_norms = column_inf_norms(grid.comm(), r), x_norms = column_inf_norms(grid.comm(), x),
             b_norms = column_inf_norms(grid.comm(), b);
  double worst = 0.0;
  for (std::size_t j = 0; j < r_norms.size(); ++j) {
    const double resid = solvebench::hpl_scaled_residual(r_norms[j], a_norm, x_norms[j], b_norms[j], n, eps);
    if (!(resid <= worst)) worst = resid;  // also propagates NaN/Inf
  }
  return worst;
}

}  // namespace

template <class T>
double hpl_scaled_residual(const process_grid& grid, const distributed_matrix<T>& a, const distributed_matrix<T>& x,
                           const distributed_matrix<T>& b) {
  detail::check_system("hpl_scaled_residual", a, b);
  if (x.rows() != b.rows() || x.cols() != b.cols() || x.block() != b.block())
    throw invalid_argument("hpl_scaled_residual: X must have the shape and blocking of B");
  return scaled_residual_double(grid, widened(grid, a), widened(grid, x), widened(grid, b), unit_roundoff<T>());
}

#define SB_INSTANTIATE(T)                                                                                              \
  template double hpl_scaled_residual(const process_grid&, const distributed_matrix<T>&, const distributed_matrix<T>&, \
                                      const distributed_matrix<T>&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::scalapack
