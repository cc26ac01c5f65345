// host_matrix<T>: an owning, column-major host matrix (leading dimension = rows).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace solvebench {

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
  std::vector<T> data_;
};

// Bytes the OS can still hand out (MemAvailable), for "too large for host memory" checks.
std::uint64_t host_memory_available_bytes();
// Throws out_of_memory("host", needed, available) when `needed_bytes` cannot fit.
void require_host_memory(std::uint64_t needed_bytes);

// Throws non_finite_input naming the first NaN/Inf entry of `m` (complex: either part).
template <class T>
void require_finite(const std::string& name, const host_matrix<T>& m);

extern template class host_matrix<float>;
extern template class host_matrix<double>;
extern template class host_matrix<std::complex<float>>;
extern template class host_matrix<std::complex<double>>;

}  // namespace solvebench
