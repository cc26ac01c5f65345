// Block-cyclic matrices, and the generators that fill each rank's pieces from global indices.
#include <algorithm>

#include "scalapack_calls.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

template <class T>
distributed_matrix<T>::distributed_matrix(const process_grid& grid, std::int64_t rows, std::int64_t cols, index_t block)
    : rows_(rows), cols_(cols), block_(block) {
  const index_t m = to_index("distributed matrix rows", rows), n = to_index("distributed matrix columns", cols);
  if (block < 1) throw invalid_argument("block size must be positive, got " + std::to_string(block));
  const grid_shape shape = grid.shape();
  grid_rows_ = shape.rows;
  grid_cols_ = shape.cols;
  my_row_ = grid.my_row();
  my_col_ = grid.my_col();
  const int source = 0;
  local_rows_ = numroc_(&m, &block, &my_row_, &source, &grid_rows_);
  local_cols_ = numroc_(&n, &block, &my_col_, &source, &grid_cols_);
  const index_t lld = static_cast<index_t>(std::max<std::int64_t>(1, local_rows_));
  const int context = grid.context();
  index_t info = 0;
  descinit_(desc_.data(), &m, &n, &block, &block, &source, &source, &context, &lld, &info);
  if (info != 0) throw invalid_argument("descinit: argument " + std::to_string(-info) + " had an illegal value");
  // At least one element, so that a rank owning nothing still passes a valid pointer.
  data_.resize(std::max<std::size_t>(1, static_cast<std::size_t>(lld) * static_cast<std::size_t>(local_cols_)));
}

template <class T>
void distributed_matrix<T>::assign(const distributed_matrix& other) {
  if (other.desc_ != desc_ || other.data_.size() != data_.size())
    throw invalid_argument("distributed_matrix::assign: layout mismatch");
  std::copy(other.data_.begin(), other.data_.end(), data_.begin());
}

template <class T>
distributed_matrix<T> generate_matrix(const process_grid& grid, matrix_kind kind, std::int64_t n, index_t block,
                                      std::uint64_t seed) {
  distributed_matrix<T> a(grid, n, n, block);
  const std::uint64_t key = rng::matrix_key(seed);
  for (std::int64_t j = 0; j < a.local_cols(); ++j) {
    const std::int64_t gj = a.global_col(j);
    for (std::int64_t i = 0; i < a.local_rows(); ++i)
      a.local(i, j) = static_cast<T>(matrix_entry(kind, key, n, a.global_row(i), gj));
  }
  return a;
}

template <class T>
distributed_matrix<T> generate_rhs(const process_grid& grid, std::int64_t n, std::int64_t nrhs, index_t block,
                                   std::uint64_t seed) {
  distributed_matrix<T> b(grid, n, nrhs, block);
  const std::uint64_t key = rng::rhs_key(seed);
  for (std::int64_t j = 0; j < b.local_cols(); ++j) {
    const std::int64_t gj = b.global_col(j);
    for (std::int64_t i = 0; i < b.local_rows(); ++i)
      b.local(i, j) = static_cast<T>(rhs_entry(key, n, b.global_row(i), gj));
  }
  return b;
}

template <class T>
std::vector<index_t> pivots_for(const distributed_matrix<T>& a) {
  return std::vector<index_t>(static_cast<std::size_t>(a.local_rows() + a.block()));
}

#define SB_INSTANTIATE(T)                                                                                 \
  template class distributed_matrix<T>;                                                                   \
  template distributed_matrix<T> generate_matrix(const process_grid&, matrix_kind, std::int64_t, index_t, \
                                                 std::uint64_t);                                          \
  template distributed_matrix<T> generate_rhs(const process_grid&, std::int64_t, std::int64_t, index_t,   \
                                              std::uint64_t);                                             \
  template std::vector<index_t> pivots_for(const distributed_matrix<T>&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::scalapack
