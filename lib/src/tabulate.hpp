// Private to lib/src: the host side of every deterministic generator (A, B, the known x).
#pragma once

#include <cstdint>

#include "parallel.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench {

// An entry function's value rounded to T: a double to a real T, a complex_entry part by part
// to std::complex<R>.
template <class T>
T rounded(double v) {
  return static_cast<T>(v);
}
template <class T>
T rounded(complex_entry v) {
  using real = typename T::value_type;
  return T(static_cast<real>(v.re), static_cast<real>(v.im));
}

// A rows x cols matrix whose (i, j) entry is entry(i, j) rounded to T; columns in parallel (each
// entry depends on its indices alone, so the result is the same for any thread count).
template <class T, class Entry>
host_matrix<T> tabulate(std::int64_t rows, std::int64_t cols, Entry entry) {
  host_matrix<T> m(rows, cols);
#pragma omp parallel for schedule(static) if (worth_threads(rows * cols))
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) m(i, j) = rounded<T>(entry(i, j));
  return m;
}

}  // namespace solvebench
