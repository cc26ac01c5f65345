// Distributed CPU backend: ScaLAPACK over MPI for s/d gesv and posv on a BLACS process grid.
//
// Matrices are 2-D block-cyclic (square blocks of a given size) over a near-square P x Q
// grid, and each rank generates its own pieces in place from global indices, so the
// distributed matrix is the one generate_matrix() gives on a single node for the same seed.
// The HPL scaled residual is computed distributed, with PBLAS (no rank ever holds A).
//
// Every function here is collective over the grid unless it says otherwise: all ranks call
// it, in the same order, with the same global arguments. Errors are collective too: when a
// factorization fails, every rank throws the same typed error (errors.hpp), so a caller
// that catches it on one rank catches it on all, and nothing is left waiting in MPI.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"

namespace solvebench::scalapack {

using index_t = int;  // Fortran INTEGER of the LP64 ScaLAPACK Debian and Ubuntu ship

// Largest global n the 32-bit ScaLAPACK interface can index.
inline constexpr std::int64_t max_n = 2147483647;

// Owns the process's MPI (and BLACS) lifetime: MPI_Init unless MPI is already up,
// then Cblacs_exit and MPI_Finalize on destruction if this session started MPI.
class mpi_session {
 public:
  mpi_session(int& argc, char**& argv);
  ~mpi_session();
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// P x Q with P * Q == ranks, P <= Q and P as large as possible (HPL's advice: square or
// slightly wider than tall). 1 -> 1x1, 2 -> 1x2, 8 -> 2x4, 12 -> 3x4, 16 -> 4x4.
struct grid_shape {
  int rows = 1;
  int cols = 1;
};
grid_shape near_square_grid(int ranks);

// Move-only owner of a BLACS context placing every rank of `comm` row-major on a grid.
// It keeps a private duplicate of `comm` for its own agreement collectives, so they can
// never be matched against the caller's.
class process_grid {
 public:
  explicit process_grid(MPI_Comm comm);  // near_square_grid(size of comm)
  process_grid(MPI_Comm comm, grid_shape shape);
  ~process_grid();
  process_grid(process_grid&& other) noexcept;
  process_grid& operator=(process_grid&& other) noexcept;
  process_grid(const process_grid&) = delete;
  process_grid& operator=(const process_grid&) = delete;

  int context() const noexcept { return context_; }
  MPI_Comm comm() const noexcept { return comm_; }
  grid_shape shape() const noexcept { return shape_; }
  int my_row() const noexcept { return my_row_; }
  int my_col() const noexcept { return my_col_; }
  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return shape_.rows * shape_.cols; }

 private:
  void release() noexcept;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int system_handle_ = -1;
  int context_ = -1;
  grid_shape shape_;
  int my_row_ = -1, my_col_ = -1, rank_ = -1;
};

// This rank's pieces of a rows x cols matrix, block-cyclic in square blocks of `block`,
// first block on process (0, 0); local storage column-major with leading dimension ld().
template <class T>
class distributed_matrix {
 public:
  distributed_matrix() = default;
  distributed_matrix(const process_grid& grid, std::int64_t rows, std::int64_t cols, index_t block);

  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  index_t block() const noexcept { return block_; }
  std::int64_t local_rows() const noexcept { return local_rows_; }
  std::int64_t local_cols() const noexcept { return local_cols_; }
  std::int64_t ld() const noexcept { return desc_[8]; }
  // The ScaLAPACK array descriptor (DLEN_ = 9 integers).
  const index_t* descriptor() const noexcept { return desc_.data(); }

  T* data() noexcept { return data_.data(); }
  const T* data() const noexcept { return data_.data(); }
  std::size_t local_size() const noexcept { return data_.size(); }
  std::size_t local_size_bytes() const noexcept { return data_.size() * sizeof(T); }

  // Global (0-based) index of local row i / local column j of this rank.
  std::int64_t global_row(std::int64_t i) const noexcept { return to_global(i, my_row_, grid_rows_); }
  std::int64_t global_col(std::int64_t j) const noexcept { return to_global(j, my_col_, grid_cols_); }

  T& local(std::int64_t i, std::int64_t j) noexcept { return data_[offset(i, j)]; }
  const T& local(std::int64_t i, std::int64_t j) const noexcept { return data_[offset(i, j)]; }

  // Overwrites this rank's pieces with `other`'s (same layout) without reallocating: how
  // the benchmarks restore what a factorization overwrote. Local, not collective.
  void assign(const distributed_matrix& other);

 private:
  std::int64_t to_global(std::int64_t local, int me, int procs) const noexcept {
    const std::int64_t nb = block_;
    return ((local / nb) * procs + me) * nb + local % nb;
  }
  std::size_t offset(std::int64_t i, std::int64_t j) const noexcept {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(desc_[8]) + static_cast<std::size_t>(i);
  }

  std::array<index_t, 9> desc_{};
  std::int64_t rows_ = 0, cols_ = 0, local_rows_ = 0, local_cols_ = 0;
  index_t block_ = 1;
  int my_row_ = 0, my_col_ = 0, grid_rows_ = 1, grid_cols_ = 1;
  std::vector<T> data_;
};

// The n x n matrix generate_matrix<T>(kind, n, seed) gives, distributed, each rank making
// its own pieces from global indices. Local, not collective.
template <class T>
distributed_matrix<T> generate_matrix(const process_grid& grid, matrix_kind kind, std::int64_t n, index_t block,
                                      std::uint64_t seed);
// The n x nrhs right-hand side generate_rhs<T>(n, nrhs, seed) gives, distributed. Local.
template <class T>
distributed_matrix<T> generate_rhs(const process_grid& grid, std::int64_t n, std::int64_t nrhs, index_t block,
                                   std::uint64_t seed);

// The local pivot vector p?gesv needs for `a`: LOCr(M_A) + MB_A entries. Local.
template <class T>
std::vector<index_t> pivots_for(const distributed_matrix<T>& a);

// The bare ScaLAPACK calls: the INFO this rank got, nothing thrown for INFO != 0 (for
// INFO < 0 ranks may disagree). For timing exactly the library call; pair each with
// throw_on_grid_info. Cholesky uses the lower triangle; the upper one is not referenced.
template <class T>
index_t gesv_info(distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b);
template <class T>
index_t posv_info(distributed_matrix<T>& a, distributed_matrix<T>& b);

// The ranks agree on one INFO (the most negative if any is negative, else the smallest
// positive), then every rank throws the same error via throw_on_info.
void throw_on_grid_info(const process_grid& grid, const std::string& routine, index_t local_info, factorization kind);

// p?gesv / p?posv with the agreed error: A X = B, X overwriting b.
template <class T>
void gesv(const process_grid& grid, distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b);
template <class T>
void posv(const process_grid& grid, distributed_matrix<T>& a, distributed_matrix<T>& b);

// "pdgesv", "psposv": the ScaLAPACK routine behind gesv/posv for T.
template <class T>
std::string routine_name(const char* op);

// The HPL scaled residual of X as a solution of A X = B (worst column), like the host
// hpl_scaled_residual: R = B - A X with PBLAS p?gemm, ||A||_inf with p?lange, in double
// (float inputs are widened first), eps the unit roundoff of T. Every rank returns the
// same value. `a` and `b` must be the original, unfactored inputs.
template <class T>
double hpl_scaled_residual(const process_grid& grid, const distributed_matrix<T>& a, const distributed_matrix<T>& x,
                           const distributed_matrix<T>& b);

// Runs `step` on every rank; if it throws on any rank, every rank throws the same error:
// the one of the lowest failing rank (invalid_argument stays invalid_argument, anything
// else becomes solvebench::error), its message prefixed with "rank K: ". For work that can
// fail on some ranks only (allocation, memory checks) before a collective follows.
void throw_if_any_rank_failed(MPI_Comm comm, const std::exception_ptr& local_failure);
template <class Step>
void on_every_rank(MPI_Comm comm, Step&& step) {
  std::exception_ptr failure;
  try {
    std::forward<Step>(step)();
  } catch (...) {
    failure = std::current_exception();
  }
  throw_if_any_rank_failed(comm, failure);
}

// The longest of the ranks' `seconds` (MPI_Allreduce MAX): a distributed call takes as
// long as its slowest rank.
double max_over_ranks(MPI_Comm comm, double seconds);

// Throws out_of_memory unless the ranks sharing this node, together, fit `local_bytes`
// each in the node's available memory. Every rank of `comm` throws the same error.
void require_node_memory(MPI_Comm comm, std::uint64_t local_bytes);

// What the MPI and ScaLAPACK underneath say about themselves, for the run's context.
struct runtime_info {
  std::string mpi_library;        // MPI_Get_library_version, first line
  std::string mpi_standard;       // MPI_Get_version, e.g. "3.1"
  std::string scalapack_library;  // the shared object that provides pdgesv_ (real path)
  std::string blas_library;       // the shared object whose dgemm_ ScaLAPACK calls
  std::string hosts;              // "host-a:8,host-b:8": ranks per host, in rank order
};
// Collective (gathers the host names).
runtime_info mpi_runtime_info(MPI_Comm comm);

}  // namespace solvebench::scalapack
