// host_matrix<T>: an owning, column-major host matrix (leading dimension = rows), and the
// host memory it lives in.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "solvebench/precision.hpp"

namespace solvebench {

// Where host matrices live. A buffer of 2 MiB or more gets a mapping of its own, 2 MiB-aligned
// and advised MADV_HUGEPAGE (as NumPy advises its large arrays), written when it is made. On
// the 4 KiB pages that malloc gave, a row's time depended on where each allocation landed:
// dgetrs n = 1024 ran 16-23% slower than on huge pages and 1-4.5% apart between allocations of
// one process (results/cpu-dev/spread.md); and with THP "always" the share of a malloc'd
// buffer that huge pages can back changes with its address. Smaller buffers: operator new,
// aligned to a cache line. malloc's 16 bytes put a buffer on a line boundary or not by the
// heap's history, so a row's time took one of two modes from process to process: dgetrs
// n = 256 ran 9.0-9.6 us with A on a line boundary and 11.4-11.9 us 16 bytes past one
// (results/cpu-dev/spread.md, section 4b).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t cache_line_bytes = 64;
void* allocate_host(std::size_t bytes);
void free_host(void* p, std::size_t bytes) noexcept;

template <class T>
struct host_allocator {
  using value_type = T;
  host_allocator() = default;
  template <class U>
  host_allocator(const host_allocator<U>&) noexcept {}  // implicit: the rebinding std::vector needs
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_host(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { free_host(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const host_allocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const host_allocator<U>&) const noexcept {
    return false;
  }
};

// The host's transparent huge page settings, for the run's context: {"host_thp", "madvise"}
// (/sys/kernel/mm/transparent_hugepage/enabled: always, madvise or never; "" when unreadable)
// and {"host_thp_defrag", ...}. With "never" the buffers above stay on 4 KiB pages.
std::vector<std::pair<std::string, std::string>> host_memory_facts(
    const std::string& thp_root = "/sys/kernel/mm/transparent_hugepage");
// The bracketed choice of a sysfs setting: "always [madvise] never" -> "madvise"; "" when none.
std::string sysfs_choice(const std::string& text);

template <class T>
class host_matrix {
 public:
  using value_type = T;

  host_matrix() = default;
  host_matrix(std::int64_t rows, std::int64_t cols);

  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t ld() const noexcept { return rows_; }
  std::size_t size() const noexcept { return data_.size(); }
  std::size_t size_bytes() const noexcept { return data_.size() * sizeof(T); }

  T* data() noexcept { return data_.data(); }
  const T* data() const noexcept { return data_.data(); }

  T& operator()(std::int64_t i, std::int64_t j) noexcept { return data_[index(i, j)]; }
  const T& operator()(std::int64_t i, std::int64_t j) const noexcept { return data_[index(i, j)]; }

  // Overwrites this matrix with `other` (same shape) without reallocating: how the
  // benchmarks restore inputs that a factorization overwrote.
  void assign(const host_matrix& other);

 private:
  std::size_t index(std::int64_t i, std::int64_t j) const noexcept {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(rows_) + static_cast<std::size_t>(i);
  }

  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::vector<T, host_allocator<T>> data_;
};

// Bytes the OS can still hand out (MemAvailable), for "too large for host memory" checks.
std::uint64_t host_memory_available_bytes();
// Throws out_of_memory("host", needed, available) when `needed_bytes` cannot fit.
void require_host_memory(std::uint64_t needed_bytes);

// Throws non_finite_input naming the first NaN/Inf entry of `m` (complex: either part).
template <class T>
void require_finite(const std::string& name, const host_matrix<T>& m);

#define SB_EXTERN_INSTANTIATE(T) extern template class host_matrix<T>;
SOLVE_BENCH_FOR_EACH_PRECISION(SB_EXTERN_INSTANTIATE)
#undef SB_EXTERN_INSTANTIATE

}  // namespace solvebench
