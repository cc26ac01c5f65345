// The operations rows time, as data: what each one's timed region does, what it overwrites,
// how its answer is checked, its LAWN 41 flop count and, for a driver, the two halves it is made
// of (gesv = getrf + getrs). The one table of operations: the rows layer builds rows from it,
// the checks (below the rows layer) and, through each row's id, the tools read it. Nothing
// switches over operation names; a new operation is one more descriptor here.
#pragma once

#include <string>

#include "solvebench/errors.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/solver_choices.hpp"

namespace solvebench::bench {

struct operation {
  const char* name;      // the id's operation: "gesv" (batched rows: also "gesv", with path batched)
  factorization family;  // which factorization its steps use (GEMM: none; marked by `multiplies`)
  bool factors;          // the timed region factors A, so A is restored before each call
  bool solves;           // the timed region solves with the factors, so B is restored before each call
  bool multiplies;       // the timed region is C = A B
  bool batched;          // many small systems in one call (counts are per system)
  flop_counts (*counts)(double n, double nrhs);  // LAWN 41 multiplications and additions of one system
  // A driver (gesv, posv): the operations of its factorization and of its solve, which rows of
  // the same backend time apart; none for the others.
  const operation* factor_half = nullptr;
  const operation* solve_half = nullptr;
  // A piece of a blocked factorization timed apart, for the bound (docs/ceilings.md): a row of
  // path probe with axis nb; its counts take (m, nb).
  bool probe = false;

  // getrs/potrs: the factors are made once at set-up, the timed region only solves.
  bool reuses_factors() const { return solves && !factors; }
  // getrf/potrf: checked by solving with the factors the timed call produced.
  bool checked_by_solving() const { return factors && !solves; }
  // Rows of operations with right-hand sides carry /nrhs:K (batched rows solve one each).
  bool has_rhs() const { return solves && !batched; }
  bool is_driver() const { return factor_half != nullptr && solve_half != nullptr; }
  matrix_kind default_kind() const {
    return family == factorization::cholesky ? matrix_kind::spd : matrix_kind::uniform;
  }
};

namespace ops {
inline constexpr operation getrf{
    "getrf", factorization::lu, true, false, false, false, [](double n, double) { return getrf_counts(n); }};
inline constexpr operation getrs{
    "getrs", factorization::lu, false, true, false, false, [](double n, double k) { return getrs_counts(n, k); }};
inline constexpr operation potrf{
    "potrf", factorization::cholesky, true, false, false, false, [](double n, double) { return potrf_counts(n); }};
inline constexpr operation potrs{
    "potrs", factorization::cholesky, false, true, false, false, [](double n, double k) { return potrs_counts(n, k); }};
inline constexpr operation gemm{
    "gemm", factorization::lu, false, false, true, false, [](double n, double) { return gemm_counts(n, n, n); }};
inline constexpr operation gesv{
    "gesv", factorization::lu, true, true, false, false, [](double n, double k) { return gesv_counts(n, k); }, &getrf,
    &getrs};
inline constexpr operation posv{"posv",
                                factorization::cholesky,
                                true,
                                true,
                                false,
                                false,
                                [](double n, double k) { return posv_counts(n, k); },
                                &potrf,
                                &potrs};
// Many small systems solved in one call (one right-hand side each; counts are per system).
inline constexpr operation gesv_batched{
    "gesv", factorization::lu, true, true, false, true, [](double n, double) { return gesv_counts(n, 1); }};
inline constexpr operation posv_batched{
    "posv", factorization::cholesky, true, true, false, true, [](double n, double) { return posv_counts(n, 1); }};

// The pieces of blocked LU and Cholesky at block size nb, timed apart (rows of path probe, axis
// nb, registered only with --ceilings=on): the trailing update C -= A B at m x nb x m, the LU
// of an m x nb panel, the triangular solve of width nb against m columns (U12 = L11^-1 A12),
// and the Cholesky of one nb x nb diagonal block (its row's n is nb).
inline constexpr operation gemm_update{"gemm_update",
                                       factorization::lu,
                                       false,
                                       false,
                                       false,
                                       false,
                                       [](double m, double nb) { return gemm_counts(m, m, nb); },
                                       nullptr,
                                       nullptr,
                                       true};
inline constexpr operation getrf_panel{"getrf_panel",
                                       factorization::lu,
                                       false,
                                       false,
                                       false,
                                       false,
                                       [](double m, double nb) { return getrf_counts(m, nb); },
                                       nullptr,
                                       nullptr,
                                       true};
inline constexpr operation trsm_panel{
    "trsm_panel", factorization::lu, false, false, false, false, [](double m, double nb) { return trsm_counts(nb, m); },
    nullptr,      nullptr,           true};
inline constexpr operation potrf_block{"potrf_block",
                                       factorization::cholesky,
                                       false,
                                       false,
                                       false,
                                       false,
                                       [](double nb, double) { return potrf_counts(nb); },
                                       nullptr,
                                       nullptr,
                                       true};
inline constexpr const operation* probes[] = {&gemm_update, &getrf_panel, &trsm_panel, &potrf_block};

// The dense solve family, in the order its rows are registered.
inline constexpr const operation* solve_family[] = {&gesv, &posv, &getrf, &getrs, &potrf, &potrs, &gemm};
// Every operation a row may time, batched ones included.
inline constexpr const operation* all[] = {&gesv,        &posv,       &getrf,        &getrs,        &potrf,
                                           &potrs,       &gemm,       &gesv_batched, &posv_batched, &gemm_update,
                                           &getrf_panel, &trsm_panel, &potrf_block};
}  // namespace ops

// The operation a row's id names (its op and whether its path is batched); none for a name no
// row of this version times.
inline const operation* find_operation(const std::string& name, bool batched = false) {
  for (const operation* op : ops::all)
    if (name == op->name && batched == op->batched) return op;
  return nullptr;
}

// Mixed precision: fp64 data, A factored in a lower precision, x refined to fp64 accuracy. The
// operation is gesv; the factorization's precision is the row id's `factor` letter (dsgesv,
// dhgesv ...). The lower precisions in the order their rows are registered:
inline constexpr factor_precision mixed_factors[] = {factor_precision::fp32, factor_precision::tf32,
                                                     factor_precision::fp16, factor_precision::bf16};
// 's', 'x', 'h', 'b': the letter after the data's in the row name.
inline char factor_letter(factor_precision p) { return op_name(p)[1]; }

}  // namespace solvebench::bench
