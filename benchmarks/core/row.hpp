// A row: its name and its parameters come from one list of axes (nvbench's way), so the two
// can never disagree. "CPU/dgesv/n:4096/nrhs:1" is backend CPU, operation dgesv, axes n, nrhs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/operation.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/precision.hpp"

namespace benchmark {
class State;
}

namespace solvebench::bench {

class row_spec {
 public:
  row_spec(std::string backend, std::string op) : backend_(std::move(backend)), op_(std::move(op)) {}
  // "CPU", 'd' + "gesv"
  template <class T>
  static row_spec of(std::string backend, const operation& op) {
    return row_spec(std::move(backend), precision<T>::letter + std::string(op.name));
  }

  row_spec& add(std::string key, std::int64_t value) { return add(std::move(key), std::to_string(value)); }
  row_spec& add(std::string key, std::string value) {
    axes_.emplace_back(std::move(key), std::move(value));
    return *this;
  }

  const std::string& backend() const noexcept { return backend_; }
  const std::string& op() const noexcept { return op_; }
  // The full name without Google Benchmark's /manual_time; also the key of the row's fixture.
  std::string name() const;
  std::optional<std::string> text(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;

 private:
  std::string backend_, op_;
  std::vector<std::pair<std::string, std::string>> axes_;
};

// One operation's rows of order n: one per right-hand-side count (axis nrhs) when it solves,
// a single row without that axis when it does not (getrf, potrf, gemm). Backends add their
// own axes after these.
template <class T>
std::vector<row_spec> solve_rows(const std::string& backend, const operation& op, std::int64_t n,
                                 const std::vector<std::int64_t>& nrhs) {
  if (!op.has_rhs()) return {row_spec::of<T>(backend, op).add("n", n)};
  std::vector<row_spec> out;
  for (auto k : nrhs) out.push_back(row_spec::of<T>(backend, op).add("n", n).add("nrhs", k));
  return out;
}

// What a backend adapter is asked to build: one system (or `count` of them) of order n.
struct problem {
  const operation* op;
  std::int64_t n;
  std::int64_t nrhs;     // 1 for operations without right-hand sides
  std::int64_t count;    // systems in a batch; 1 otherwise
  matrix_kind kind;
  std::uint64_t seed;
  std::string row;       // the row's name, for messages
  // > 0 (axis cond:C): A has this 2-norm condition number (conditioned.hpp: U S V^T, S geometric)
  // and B = A X for a known X, so the row also reports the forward error.
  double cond = 0;

  double flops() const { return op->flop_count(static_cast<double>(n), static_cast<double>(nrhs)) * static_cast<double>(count); }
};

// The matrix of a cond:C row: MAGMA's svd_geo shape (singular values geometric, ratio C),
// scaled to sigma_max = sqrt(n) so that A's entries, about sigma_max / n off the diagonal, stay
// within fp16's normal range at every n; the scale changes neither cond nor any fp64 result.
conditioned_spec conditioned_matrix(const problem& p);

// The problem a row's axes describe: n, nrhs, batch (count), kind and cond from the axes; the
// matrix kind otherwise from --kind, else the operation's default.
problem make_problem(const row_spec& spec, const operation& op, std::optional<matrix_kind> requested_kind,
                     std::uint64_t seed);

}  // namespace solvebench::bench
