// p?gesv and p?posv, with the INFO every rank agrees on.
#include <climits>

#include "scalapack_calls.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

namespace {
// One line per routine and precision (lower triangle for Cholesky).
void pgesv(int n, int k, double* a, const int* da, int* p, double* b, const int* db, int* info) {
  pdgesv_(&n, &k, a, &one, &one, da, p, b, &one, &one, db, info);
}
void pgesv(int n, int k, float* a, const int* da, int* p, float* b, const int* db, int* info) {
  psgesv_(&n, &k, a, &one, &one, da, p, b, &one, &one, db, info);
}
void pposv(int n, int k, double* a, const int* da, double* b, const int* db, int* info) {
  pdposv_("L", &n, &k, a, &one, &one, da, b, &one, &one, db, info, 1);
}
void pposv(int n, int k, float* a, const int* da, float* b, const int* db, int* info) {
  psposv_("L", &n, &k, a, &one, &one, da, b, &one, &one, db, info, 1);
}
}  // namespace

template <class T>
std::string routine_name(const char* op) {
  return solvebench::routine_name<T>("p", op);
}

template <class T>
index_t gesv_info(distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b) {
  detail::check_system("gesv", a, b);
  if (ipiv.size() < static_cast<std::size_t>(a.local_rows() + a.block()))
    throw invalid_argument("gesv: ipiv holds " + std::to_string(ipiv.size()) + " entries, needs LOCr(n) + nb = " +
                           std::to_string(a.local_rows() + a.block()) + " (use pivots_for)");
  const index_t n = static_cast<index_t>(a.rows()), nrhs = to_index("gesv: nrhs", b.cols());
  index_t info = 0;
  pgesv(n, nrhs, a.data(), a.descriptor(), ipiv.data(), b.data(), b.descriptor(), &info);
  return info;
}

template <class T>
index_t posv_info(distributed_matrix<T>& a, distributed_matrix<T>& b) {
  detail::check_system("posv", a, b);
  const index_t n = static_cast<index_t>(a.rows()), nrhs = to_index("posv: nrhs", b.cols());
  index_t info = 0;
  pposv(n, nrhs, a.data(), a.descriptor(), b.data(), b.descriptor(), &info);
  return info;
}

void throw_on_grid_info(const process_grid& grid, const std::string& routine, index_t local_info, factorization kind) {
  // MAX of {|most negative INFO|, -(smallest positive INFO)}: one collective for both.
  int agreed[2] = {local_info < 0 ? -local_info : 0, local_info > 0 ? -local_info : -INT_MAX};
  MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MAX, grid.comm());
  const index_t info = agreed[0] > 0 ? -agreed[0] : (agreed[1] != -INT_MAX ? -agreed[1] : 0);
  throw_on_info(routine, info, kind);
}

template <class T>
void gesv(const process_grid& grid, distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b) {
  throw_on_grid_info(grid, routine_name<T>("gesv"), gesv_info(a, ipiv, b), factorization::lu);
}

template <class T>
void posv(const process_grid& grid, distributed_matrix<T>& a, distributed_matrix<T>& b) {
  throw_on_grid_info(grid, routine_name<T>("posv"), posv_info(a, b), factorization::cholesky);
}

#define SB_INSTANTIATE(T)                                                                                         \
  template std::string routine_name<T>(const char*);                                                              \
  template index_t gesv_info(distributed_matrix<T>&, std::vector<index_t>&, distributed_matrix<T>&);              \
  template index_t posv_info(distributed_matrix<T>&, distributed_matrix<T>&);                                     \
  template void gesv(const process_grid&, distributed_matrix<T>&, std::vector<index_t>&, distributed_matrix<T>&); \
  template void posv(const process_grid&, distributed_matrix<T>&, distributed_matrix<T>&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::scalapack
