// Typed errors shared by every backend: bad arguments vs properties of the matrix.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace solvebench {

// Root of everything solve_bench throws on purpose.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A programming or usage error: LAPACK info < 0, a bad size, an unknown option value.
class invalid_argument : public error {
 public:
  using error::error;
};

// LU found an exactly zero pivot: U(pivot, pivot) == 0 (1-based, as LAPACK reports it).
class singular_matrix : public error {
 public:
  singular_matrix(const std::string& routine, std::int64_t pivot);
  std::int64_t pivot() const noexcept { return pivot_; }

 private:
  std::int64_t pivot_;
};

// Cholesky failed: the leading minor of this order (1-based) is not positive definite.
class not_positive_definite : public error {
 public:
  not_positive_definite(const std::string& routine, std::int64_t minor);
  std::int64_t minor_order() const noexcept { return minor_; }

 private:
  std::int64_t minor_;
};

// A solve returned, but its answer fails the HPL scaled-residual check (or is NaN/Inf).
class residual_check_failed : public error {
 public:
  residual_check_failed(const std::string& what, double resid);
  double resid() const noexcept { return resid_; }

 private:
  double resid_;
};

// An input holds NaN or Inf, found before any solve is timed.
class non_finite_input : public error {
 public:
  non_finite_input(const std::string& name, std::int64_t row, std::int64_t col, double value);
};

// Not enough memory for a problem (host or device): what it needs vs what is there.
class out_of_memory : public error {
 public:
  out_of_memory(const std::string& where, std::uint64_t needed_bytes, std::uint64_t available_bytes);
  std::uint64_t needed_bytes() const noexcept { return needed_; }
  std::uint64_t available_bytes() const noexcept { return available_; }

 private:
  std::uint64_t needed_;
  std::uint64_t available_;
};

// A problem beyond what a library supports (cuSOLVER's iterative refinement above its largest
// n, say), refused by name before anything runs.
class beyond_limit : public error {
 public:
  using error::error;
};

enum class factorization { lu, cholesky };

// The one place where a LAPACK-style info becomes an exception (CPU, GPU, batched, MPI):
// info < 0 -> invalid_argument, info > 0 -> singular_matrix / not_positive_definite.
void throw_on_info(const std::string& routine, std::int64_t info, factorization kind);

// Rejects sizes that are zero, negative, or that overflow the index type of the backend
// (`max_index`, e.g. INT32_MAX for LAPACKE's lapack_int) or size_t when squared.
std::int64_t checked_size(const std::string& what, std::int64_t n, std::int64_t max_index);

// "1.50 GiB (1610612736 bytes)": how byte counts appear in messages.
std::string format_bytes(std::uint64_t bytes);

}  // namespace solvebench
