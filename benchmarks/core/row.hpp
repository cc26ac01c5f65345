// A row: its identity (checks/row_id.hpp) built from a backend's description, an operation, a
// precision and its axes, and the problem an adapter is asked to build from it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/operation.hpp"
#include "checks/row_id.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::bench {

// A backend as data: the name's first element, what its rows are for and where and how they time.
struct backend_desc {
  const char* name;  // "CPU", "CPU-driver", "GPU-pinned", ...
  row_role role;     // the CPU's reference, a candidate against it, or a spread across devices or ranks
  row_device device;
  row_placement placement;
  row_path path;                  // of its solves and factorizations (a GEMM row's is `call`)
  const char* library;            // "lapack", "cusolver", ...: a label the rules never test
  const char* gemm_library = "";  // the library of its GEMM rows ("blas", "cublas"); "" when it has none
};

// The id of a row of `op` in precision T at order n (nrhs only for operations with right-hand sides).
template <class T>
row_id make_row_id(const backend_desc& b, const operation& op, std::int64_t n, std::optional<std::int64_t> nrhs = {}) {
  row_id id;
  id.backend = b.name;
  id.role = b.role;
  id.device = b.device;
  id.placement = b.placement;
  id.path = op.multiplies ? row_path::call : b.path;
  id.library = op.multiplies && *b.gemm_library ? b.gemm_library : b.library;
  id.op = op.name;
  id.precision = precision<T>::letter;
  id.n = n;
  if (op.has_rhs()) id.nrhs = nrhs.value_or(1);
  return id;
}

inline row_id& add_axis(row_id& id, std::string key, std::string value) {
  id.axes.emplace_back(std::move(key), std::move(value));
  return id;
}
inline row_id& add_axis(row_id& id, std::string key, std::int64_t value) {
  return add_axis(id, std::move(key), std::to_string(value));
}

// What a backend adapter is asked to build: one system (or `count` of them) of order n.
struct problem {
  const operation* op;
  row_id id;
  std::int64_t n;
  std::int64_t nrhs;   // 1 for operations without right-hand sides; a probe's nb (ops::probes)
  std::int64_t count;  // systems in a batch; 1 otherwise
  matrix_kind kind;
  std::uint64_t seed;
  std::string row;  // the row's name, for messages
  // > 0 (axis cond:C): A has this 2-norm condition number (conditioned.hpp: U S V^T, S geometric)
  // and B = A X for a known X, so the row also reports the forward error.
  double cond = 0;

  // LAWN 41, weighted for the row's precision (complex: 6 per multiplication, 2 per addition).
  double flops() const {
    const flop_counts c = op->counts(static_cast<double>(n), static_cast<double>(nrhs));
    const bool complex = id.precision == 'c' || id.precision == 'z';
    return (complex ? solvebench::flops<std::complex<double>>(c) : solvebench::flops<double>(c)) *
           static_cast<double>(count);
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback) const {
    return id.int_axis(key).value_or(fallback);
  }
};

// The matrix of a cond:C row: MAGMA's svd_geo shape (singular values geometric, ratio C),
// scaled to sigma_max = sqrt(n) so that A's entries, about sigma_max / n off the diagonal, stay
// within fp16's normal range at every n; the scale changes neither cond nor any fp64 result.
conditioned_spec conditioned_matrix(const problem& p);

// The problem a row's id describes: n, nrhs, batch (count), kind and cond from its axes; the
// matrix kind otherwise from --kind, else the operation's default.
problem make_problem(const row_id& id, const operation& op, std::optional<matrix_kind> requested_kind,
                     std::uint64_t seed);

// The largest n in [1, limit] whose `bytes(n)` fits in `available` (bisection; bytes grows with
// n), rounded down to a multiple of 64 past 1024; none when not even n = 1 fits. An n for which
// `bytes` throws a solvebench::error (an order the size check or a library refuses) does not fit.
std::optional<std::int64_t> largest_fitting_n(const std::function<std::uint64_t(std::int64_t)>& bytes,
                                              std::uint64_t available, std::int64_t limit = 1LL << 24);
}  // namespace solvebench::bench
