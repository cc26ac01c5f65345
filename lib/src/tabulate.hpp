// Private to lib/src: the host side of every deterministic generator (A, B, the known x).
#pragma once

#include <cstdint>

#include "solvebench/matrix.hpp"

namespace solvebench {

// A rows x cols matrix whose (i, j) entry is entry(i, j), a double rounded to T; columns in
// parallel (each entry depends on its indices alone, so the result is the same for any thread count).
template <class T, class Entry>
host_matrix<T> tabulate(std::int64_t rows, std::int64_t cols, Entry entry) {
  host_matrix<T> m(rows, cols);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) m(i, j) = static_cast<T>(entry(i, j));
  return m;
}

}  // namespace solvebench
