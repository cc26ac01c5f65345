// Multi-GPU backend: cusolverMg LU (getrf + getrs) and Cholesky (potrf + potrs) over the GPUs of
// one host, A spread over them in 1-D column block-cyclic tiles and never held whole anywhere.
//
// Three parts: the layout (cusolver_mg_layout.hpp: the tile rule and which device holds which
// column; no CUDA), the context (cusolver_mg_context.hpp: devices, handle, grid, streams), and
// here the distributed matrix, the memory check and the solver.
//
// cusolverMg is deprecated in CUDA 13 (every entry point is [[deprecated]]; the successor is
// cuSOLVERMp, see docs/multi-gpu.md). These headers do not include <cusolverMg.h>: only
// lib/src/cuda/cusolver_mg.cpp and cusolver_mg_context.cpp see those declarations, so -Werror
// holds everywhere else.
//
// Timing: the Mg calls block the host and run on streams of their own, so factor() and solve()
// return only after every device has synchronised. Time them with a host clock; CUDA events on
// one of our streams would not see the work.
#pragma once

#include <cuda_runtime_api.h>
#include <cusolver_common.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "solvebench/cuda_owners.hpp"
#include "solvebench/cusolver_mg_context.hpp"
#include "solvebench/cusolver_mg_layout.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda::mg {

// ---- distributed matrices ------------------------------------------------------------------

// A rows x cols matrix spread over a context's devices by column_layout, with its descriptor.
template <class T>
class distributed_matrix {
 public:
  distributed_matrix(const context& ctx, std::int64_t rows, std::int64_t cols, std::int64_t tile);

  std::int64_t rows() const noexcept { return rows_; }
  const column_layout& layout() const noexcept { return layout_; }
  void* desc() const noexcept { return desc_.get(); }
  T* part(int p) const noexcept { return parts_[static_cast<std::size_t>(p)].data(); }
  // The per-device pointers in the form the Mg calls take.
  void** parts() noexcept { return pointers_.data(); }
  // Global column j, copied to the host and widened to double.
  std::vector<double> column(std::int64_t j) const;

  static std::uint64_t bytes_on(std::int64_t rows, const column_layout& layout, int p);

 private:
  const context* ctx_;
  std::int64_t rows_;
  column_layout layout_;
  matrix_desc desc_;
  std::vector<device_buffer_on<T>> parts_;
  std::vector<void*> pointers_;
};

// ---- memory --------------------------------------------------------------------------------

// What one device must hold for a problem, each part in bytes.
struct device_need {
  int device = 0;
  std::uint64_t matrix_bytes = 0;     // A's column tiles
  std::uint64_t rhs_bytes = 0;        // B's column tiles
  std::uint64_t workspace_bytes = 0;  // cusolverMg workspace (lwork elements of T)
  std::uint64_t pivot_bytes = 0;      // LU pivots, one int per local column of A
  std::uint64_t reserve_bytes = 0;    // the cuBLAS/cuSOLVER handles cusolverMg makes on each device
  std::uint64_t total_bytes() const noexcept {
    return matrix_bytes + rhs_bytes + workspace_bytes + pivot_bytes + reserve_bytes;
  }
};
inline constexpr std::uint64_t library_reserve_bytes = std::uint64_t{256} << 20;

// Device memory only: no host copy of A exists, so host memory needs no check (and on the
// two-GPU VM MemTotal would mislead: it starts near 31 GiB and grows as memory is used).
// Throws out_of_memory("GPU <id> (<name>)", needed, free) for the first device that falls short.
void require_memory(const std::vector<device_need>& needs);

// ---- the solver ----------------------------------------------------------------------------

// Where apply_a() reads A from: its stored tiles (only while they hold A, between generate()
// and factor()) or entries regenerated from the (kind, seed) of the last generate().
enum class a_source { stored, regenerated };

// A x and |A| 1 over all devices' column blocks, summed on the host (each n long).
struct row_sums {
  std::vector<double> ax, abs_rows;
};

// A x = B for one (factorization, n, nrhs, tile) on a context's devices: A n x n in column tiles
// of `tile`, B n x nrhs in tiles of min(tile, nrhs), one workspace of max(factor, solve) per
// device; everything allocated once, in the constructor.
template <class T>
class linear_system {
 public:
  // Each device's need, found without allocating anything of size n: the workspace sizes come
  // from cusolverMg's _bufferSize calls on the real descriptors and one-element placeholder arrays.
  static std::vector<device_need> needs(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs,
                                        std::int64_t tile);

  // Checks the tile rule, then needs() against each device's free memory, then allocates. When
  // it throws, nothing is left allocated.
  linear_system(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs, std::int64_t tile);

  // A and B from (kind, seed), each device generating its own column blocks from global indices
  // (no host copy). The set-up, and the restore between timed repetitions: factor() overwrites A
  // with its factors and solve() overwrites B with X. Returns synchronised.
  void generate(matrix_kind kind, std::uint64_t seed);
  // B alone, from the (kind, seed) of the last generate(): the factors in A stay, so solve()
  // can be timed again against them (the getrs/potrs rows). Returns synchronised.
  void generate_rhs();

  // Blocking, every device synchronised on return. Mg returns info on the host, so a singular
  // matrix (singular_matrix(k)) or a non-SPD one (not_positive_definite(k)) throws at once.
  void factor();
  void solve();  // B := A^-1 B from the factors

  // Column j of B (after solve(): of X), widened to double.
  std::vector<double> solution_column(std::int64_t j) const;
  // HPL scaled residual of the X in B, worst over the right-hand sides, with A regenerated on
  // each device over its own column blocks and b on the host: A is never gathered or copied.
  double scaled_residual() const;
  // The same for one right-hand side j and a given x (n long).
  double scaled_residual(const std::vector<double>& x, std::int64_t j, a_source source) const;
  row_sums apply_a(const std::vector<double>& x, a_source source) const;

  const std::vector<device_need>& device_needs() const noexcept { return needs_; }
  factorization kind() const noexcept { return kind_; }
  std::int64_t n() const noexcept { return n_; }
  std::int64_t nrhs() const noexcept { return nrhs_; }
  std::int64_t tile() const noexcept { return tile_; }

 private:
  const context& ctx_;
  factorization kind_;
  std::int64_t n_, nrhs_, tile_;
  std::vector<device_need> needs_;
  distributed_matrix<T> a_, b_;
  std::vector<device_buffer_on<int>> ipiv_;
  std::vector<int*> ipiv_pointers_;
  std::int64_t lwork_ = 0;  // elements of T per device
  std::vector<device_buffer_on<T>> work_;
  std::vector<void*> work_pointers_;
  matrix_kind matrix_kind_ = matrix_kind::uniform;
  std::uint64_t seed_ = 0;
  bool generated_ = false, a_holds_factors_ = false, factored_ = false;

  void fill(bool a, bool b);  // each device's column blocks of A and/or B, then every device synchronised
};

#define SB_EXTERN_INSTANTIATE(T)               \
  extern template class distributed_matrix<T>; \
  extern template class linear_system<T>;
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_EXTERN_INSTANTIATE)
#undef SB_EXTERN_INSTANTIATE

}  // namespace solvebench::cuda::mg
