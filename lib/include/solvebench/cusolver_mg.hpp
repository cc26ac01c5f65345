// Multi-GPU backend: cusolverMg LU (getrf + getrs) and Cholesky (potrf + potrs) over the GPUs of
// one host, A spread over them in 1-D column block-cyclic tiles and never held whole anywhere.
//
// cusolverMg is deprecated in CUDA 13 (every entry point is [[deprecated]]; the successor is
// cuSOLVERMp, see docs/multi-gpu.md). This header does not include <cusolverMg.h>: only
// lib/src/cuda/cusolver_mg.cpp sees those declarations, so -Werror holds everywhere else.
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
#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"

struct cusolverMgContext;  // what cusolverMgHandle_t points to

namespace solvebench::cuda::mg {

// ---- the tile rule -------------------------------------------------------------------------

// The largest column tile cusolverMg accepts: the cuSOLVER documentation states "tile size TA
// must be less or equal to 512" for cusolverMgGetrf, and a tile of 1024 gets
// CUSOLVER_STATUS_INVALID_VALUE (measured at n = 16384). Applied to every routine here.
inline constexpr std::int64_t max_tile = 512;

// Throws invalid_argument unless 1 <= tile <= max_tile, before cuSOLVER is called.
void check_tile(std::int64_t tile);

// ---- the layout ----------------------------------------------------------------------------

// 1-D column block-cyclic over G devices, as cusolverMg stores a matrix: global column block b
// (columns [b*tile, b*tile + tile)) lives on device position b % G as that device's local block
// b / G; a device's blocks are contiguous, leading dimension = the row count. The last block
// may be short. "Device position" p is the index into the context's device list.
class column_layout {
 public:
  column_layout(std::int64_t cols, std::int64_t tile, int devices);

  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t tile() const noexcept { return tile_; }
  int devices() const noexcept { return devices_; }
  std::int64_t blocks() const noexcept { return (cols_ + tile_ - 1) / tile_; }

  int owner(std::int64_t col) const noexcept;
  std::int64_t local_col(std::int64_t col) const noexcept;
  std::int64_t local_blocks(int p) const noexcept;
  std::int64_t local_cols(int p) const noexcept;  // real columns held by position p
  // Columns allocated on position p: whole tiles, as NVIDIA's own cusolverMg examples allocate
  // them, so the library never reaches past an allocation in a short last block.
  std::int64_t allocated_cols(int p) const noexcept { return local_blocks(p) * tile_; }

  struct block {
    std::int64_t first_col, cols, local_first_col;  // global first column, width, local first column
  };
  std::vector<block> blocks_of(int p) const;

 private:
  std::int64_t cols_, tile_;
  int devices_;
};

// ---- devices -------------------------------------------------------------------------------

// Devices 0 .. count-1; invalid_argument ("needs 2 GPUs, found 1") when fewer are present.
std::vector<int> first_devices(int count);

// CUDA-runtime facts about a set of devices (NVLink topology comes from NVML elsewhere).
struct device_topology {
  std::vector<int> devices;
  std::vector<std::string> names;
  // [i][j]: devices[i] can map devices[j]'s memory (cudaDeviceCanAccessPeer); false for i == j.
  std::vector<std::vector<bool>> peer_access;
};
device_topology query_topology(const std::vector<int>& devices);
// For the JSON context: mgpu_devices "0,1", mgpu_gpu0_name "NVIDIA H200", ...,
// mgpu_peer_access "0->1 yes, 1->0 yes" ("none" for one device).
std::vector<std::pair<std::string, std::string>> topology_facts(const device_topology& topology);

// Peer access between every ordered pair that allows it; "already enabled" is not an error.
void enable_peer_access(const std::vector<int>& devices);

// cudaMemGetInfo on `device` (the current device is restored).
device_memory memory_info_of(int device);

// Makes `device` current for its lifetime and restores the previous one after.
class scoped_device {
 public:
  explicit scoped_device(int device);
  ~scoped_device();
  scoped_device(const scoped_device&) = delete;
  scoped_device& operator=(const scoped_device&) = delete;

 private:
  int previous_ = 0;
};

// Memory on one given device: cudaMalloc there, cudaFree there. Move-only, no zero-fill; at least
// one element, so that every device of a distributed matrix passes a real pointer to cusolverMg.
template <class T>
class device_array {
 public:
  device_array() = default;
  device_array(int device, std::size_t count);
  device_array(device_array&& other) noexcept
      : device_(other.device_), p_(std::exchange(other.p_, nullptr)), n_(std::exchange(other.n_, 0)) {}
  device_array& operator=(device_array&& other) noexcept {
    if (this != &other) {
      release();
      device_ = other.device_;
      p_ = std::exchange(other.p_, nullptr);
      n_ = std::exchange(other.n_, 0);
    }
    return *this;
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() { release(); }

  int device() const noexcept { return device_; }
  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 private:
  void release() noexcept;
  int device_ = 0;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// A non-blocking stream created on, and destroyed on, one device.
class device_stream {
 public:
  explicit device_stream(int device);
  device_stream(device_stream&& other) noexcept
      : device_(other.device_), s_(std::exchange(other.s_, nullptr)) {}
  device_stream& operator=(device_stream&&) = delete;
  device_stream(const device_stream&) = delete;
  device_stream& operator=(const device_stream&) = delete;
  ~device_stream();
  cudaStream_t get() const noexcept { return s_; }

 private:
  int device_;
  cudaStream_t s_ = nullptr;
};

namespace detail {
// Defined in the one translation unit that includes <cusolverMg.h>.
cusolverStatus_t destroy_handle(cusolverMgContext* handle) noexcept;
cusolverStatus_t destroy_grid(void* grid) noexcept;
cusolverStatus_t destroy_matrix_desc(void* desc) noexcept;
}  // namespace detail

using mg_handle = unique_handle<cusolverMgContext*, detail::destroy_handle>;
using grid_handle = unique_handle<void*, detail::destroy_grid>;          // cudaLibMgGrid_t
using matrix_desc = unique_handle<void*, detail::destroy_matrix_desc>;  // cudaLibMgMatrixDesc_t

// One cusolverMg handle with `devices` selected, peer access enabled between them, a 1 x G device
// grid (column-major mapping) over them, and a stream per device for our own kernels.
class context {
 public:
  explicit context(std::vector<int> devices);

  const std::vector<int>& devices() const noexcept { return devices_; }
  int device_count() const noexcept { return static_cast<int>(devices_.size()); }
  cusolverMgContext* handle() const noexcept { return handle_.get(); }
  void* grid() const noexcept { return grid_.get(); }
  cudaStream_t stream(int p) const noexcept { return streams_[static_cast<std::size_t>(p)].get(); }
  // cudaDeviceSynchronize on every device: waits for the Mg library's own streams too.
  void synchronize() const;

 private:
  std::vector<int> devices_;
  std::vector<device_stream> streams_;
  mg_handle handle_;
  grid_handle grid_;
};

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
  std::vector<device_array<T>> parts_;
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
  std::vector<device_array<int>> ipiv_;
  std::vector<int*> ipiv_pointers_;
  std::int64_t lwork_ = 0;  // elements of T per device
  std::vector<device_array<T>> work_;
  std::vector<void*> work_pointers_;
  matrix_kind matrix_kind_ = matrix_kind::uniform;
  std::uint64_t seed_ = 0;
  bool generated_ = false, a_holds_factors_ = false, factored_ = false;

  void fill(bool a, bool b);  // each device's column blocks of A and/or B, then every device synchronised
};

extern template class device_array<float>;
extern template class device_array<double>;
extern template class device_array<int>;
extern template class distributed_matrix<float>;
extern template class distributed_matrix<double>;
extern template class linear_system<float>;
extern template class linear_system<double>;

}  // namespace solvebench::cuda::mg
