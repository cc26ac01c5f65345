// The solver choices a user names on the command line, without any CUDA header: which
// cuSOLVER API, which factorization precision and refinement solver for mixed precision.
// Each has one list of names, used for parsing, messages and row names alike.
#pragma once

#include <string>

namespace solvebench {

// The 64-bit generic API (cusolverDnX*, int64 sizes and pivots) is the default; the legacy
// 32-bit API (cusolverDn?getrf, int sizes and pivots) is there to compare against.
enum class cusolver_api { generic64, legacy32 };
const char* to_string(cusolver_api api) noexcept;
cusolver_api parse_cusolver_api(const std::string& text);  // invalid_argument naming the accepted values

// The precision a mixed-precision solve factors A in (data stay fp64).
enum class factor_precision { fp64, fp32, tf32, fp16, bf16 };
// LAPACK-style names: d + factor letter + gesv, e.g. dhgesv = fp64 data, fp16 factorization.
const char* op_name(factor_precision p) noexcept;  // "ddgesv", "dsgesv", "dxgesv", "dhgesv", "dbgesv"
// Its unit roundoff: 2^-53, 2^-24, 2^-11 (tf32 and fp16 keep 10 fraction bits), 2^-8 (bf16).
double unit_roundoff(factor_precision p) noexcept;

// cuSOLVER's iterative-refinement solvers. none: factor in the lowest precision and solve, no
// refinement (CUSOLVER_IRS_REFINE_NONE): not fp64-accurate; its time is the factorization's
// alone, the floor under every refined solve.
enum class refinement { classical, gmres, classical_gmres, gmres_gmres, none };
const char* to_string(refinement r) noexcept;  // "classical", "gmres", ..., "none"
refinement parse_refinement(const std::string& text);

// cuSOLVER's two interfaces to iterative refinement: expert = cusolverDnIRSXgesv with every
// setting explicit; simple = cusolverDn<t1><t2>gesv (DDgesv, DSgesv, DXgesv, DHgesv, DBgesv),
// which takes none.
enum class irs_api { expert, simple };
const char* to_string(irs_api a) noexcept;  // "expert", "simple"
irs_api parse_irs_api(const std::string& text);

}  // namespace solvebench
