// Error types and the shared info -> exception mapping.
#include "solvebench/errors.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace solvebench {

singular_matrix::singular_matrix(const std::string& routine, std::int64_t pivot)
    : error(routine + ": singular matrix: U(" + std::to_string(pivot) + "," + std::to_string(pivot) +
            ") is exactly zero (LU pivot " + std::to_string(pivot) + ")"),
      pivot_(pivot) {}

not_positive_definite::not_positive_definite(const std::string& routine, std::int64_t minor)
    : error(routine + ": matrix is not positive definite: the leading minor of order " + std::to_string(minor) +
            " is not positive (Cholesky minor " + std::to_string(minor) + ")"),
      minor_(minor) {}

static std::string format_resid(double r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

residual_check_failed::residual_check_failed(const std::string& what, double resid)
    : error(what + ": residual check failed: HPL scaled residual " + format_resid(resid) +
            (std::isfinite(resid) ? " is not below 16" : " (the answer holds NaN or Inf)")),
      resid_(resid) {}

non_finite_input::non_finite_input(const std::string& name, std::int64_t row, std::int64_t col, double value)
    : error("input " + name + " holds " + (std::isnan(value) ? "NaN" : "Inf") + " at (" + std::to_string(row) + "," +
            std::to_string(col) + ") (0-based); refusing to solve") {}

out_of_memory::out_of_memory(const std::string& where, std::uint64_t needed_bytes, std::uint64_t available_bytes)
    : error("not enough " + where + " memory: needed " + format_bytes(needed_bytes) + ", available " +
            format_bytes(available_bytes)),
      needed_(needed_bytes),
      available_(available_bytes) {}

void throw_on_info(const std::string& routine, std::int64_t info, factorization kind) {
  if (info == 0) return;
  if (info < 0)
    throw invalid_argument(routine + ": argument " + std::to_string(-info) +
                           " had an illegal value (info = " + std::to_string(info) + ")");
  if (kind == factorization::lu) throw singular_matrix(routine, info);
  throw not_positive_definite(routine, info);
}

std::int64_t checked_size(const std::string& what, std::int64_t n, std::int64_t max_index) {
  if (n <= 0) throw invalid_argument(what + " must be positive, got " + std::to_string(n));
  if (n > max_index)
    throw invalid_argument(what + " = " + std::to_string(n) + " overflows the backend's index type (max " +
                           std::to_string(max_index) + ")");
  // n*n elements of 16 bytes must stay addressable.
  const auto limit =
      static_cast<std::int64_t>(std::sqrt(static_cast<double>(std::numeric_limits<std::size_t>::max()) / 16));
  if (n > limit)
    throw invalid_argument(what + " = " + std::to_string(n) + " makes an n x n matrix too large to address");
  return n;
}

std::string format_bytes(std::uint64_t bytes) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2f GiB (%llu bytes)", static_cast<double>(bytes) / (1024.0 * 1024 * 1024),
                static_cast<unsigned long long>(bytes));
  return buf;
}

}  // namespace solvebench
