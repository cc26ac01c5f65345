// Problems from row ids.
#include "core/row.hpp"

#include <cmath>
#include <functional>

#include "solvebench/conditioned.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {

conditioned_spec conditioned_matrix(const problem& p) {
  return make_conditioned(p.n, p.cond, p.seed, conditioned_default_reflectors, std::sqrt(static_cast<double>(p.n)));
}

problem make_problem(const row_id& id, const operation& op, std::optional<matrix_kind> requested_kind,
                     std::uint64_t seed) {
  problem p{&op, id, id.n, id.nrhs.value_or(1), id.int_axis("batch").value_or(1), op.default_kind(), seed, id.name()};
  if (op.probe) p.nrhs = id.int_axis("nb").value_or(1);  // a probe's counts take (m, nb)
  if (const auto kind = id.axis("kind")) p.kind = parse_matrix_kind(*kind);
  else if (requested_kind) p.kind = *requested_kind;
  if (const auto cond = id.axis("cond")) p.cond = parse_condition_number(*cond);
  return p;
}

std::optional<std::int64_t> largest_fitting_n(const std::function<std::uint64_t(std::int64_t)>& bytes,
                                              std::uint64_t available, std::int64_t limit) {
  // An order the size check or a library's workspace query refuses (too large to address, past
  // its index type) does not fit either: every such refusal is monotone in n. At n = 1 a refusal
  // is a bug, and escapes.
  const auto fits = [&](std::int64_t n) {
    try {
      return bytes(n) <= available;
    } catch (const solvebench::error&) {
      return false;
    }
  };
  if (limit < 1 || bytes(1) > available) return std::nullopt;
  std::int64_t lo = 1, hi = limit;  // lo fits
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo > 1024 ? lo - lo % 64 : lo;
}

}  // namespace solvebench::bench
