// Problems from row ids.
#include "core/row.hpp"

#include <cmath>

#include "solvebench/conditioned.hpp"

namespace solvebench::bench {

conditioned_spec conditioned_matrix(const problem& p) {
  return make_conditioned(p.n, p.cond, p.seed, conditioned_default_reflectors, std::sqrt(static_cast<double>(p.n)));
}

problem make_problem(const row_id& id, const operation& op, std::optional<matrix_kind> requested_kind, std::uint64_t seed) {
  problem p{&op, id, id.n, id.nrhs.value_or(1), id.int_axis("batch").value_or(1), op.default_kind(), seed, id.name()};
  if (const auto kind = id.axis("kind")) p.kind = parse_matrix_kind(*kind);
  else if (requested_kind) p.kind = *requested_kind;
  if (const auto cond = id.axis("cond")) p.cond = parse_condition_number(*cond);
  return p;
}

}  // namespace solvebench::bench
