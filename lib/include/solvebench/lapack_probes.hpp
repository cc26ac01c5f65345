// The pieces of blocked LU and Cholesky, timed apart for the bound of docs/ceilings.md: the
// trailing update, the panel's LU and the triangular solve of width nb, on the CPU (LAPACKE and
// the BLAS), and the host checks of their answers that the GPU's probes use too. Real T only
// (float, double). Column-major; nothing here allocates but the checks.
#pragma once

#include <cstdint>
#include <vector>

#include "solvebench/lapack.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench::lapack {

// C (m x m) -= A (m x k) B (k x m): the rank-k update of a blocked factorization's trailing matrix.
template <class T>
void gemm_update(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c);
// LU with partial pivoting of the m x k panel A (m >= k), in place, k pivots.
template <class T>
void getrf_panel(host_matrix<T>& a, std::vector<index_t>& ipiv);
// B (k x m) := L^-1 B, L the unit lower triangle of the k x k matrix l: U12 = L11^-1 A12.
template <class T>
void trsm_panel(const host_matrix<T>& l, host_matrix<T>& b);

// The unit lower triangular k x k matrix the trsm probes solve with: off-diagonal entries of
// at most 1/k in size, so that it is well conditioned (a random unit triangle is not).
template <class T>
host_matrix<T> probe_triangle(std::int64_t k, std::uint64_t seed);

// The columns of a probe's answer that its check looks at: the first, the middle and the last.
std::vector<std::int64_t> checked_columns(std::int64_t cols);
// Those columns of m, in that order.
template <class T>
host_matrix<T> checked_columns_of(const host_matrix<T>& m);

// Componentwise backward errors of the probes' answers on their checked columns, in units of
// k * eps (what the HPL threshold, residual.hpp, is then held to): |C0 - A B - C| against
// |A| |B|; |P A0 - L U| against |L| |U|; |L X - B0| against |L| |X|.
template <class T>
double gemm_update_residual(const host_matrix<T>& a, const host_matrix<T>& b, const host_matrix<T>& c0,
                            const host_matrix<T>& c);
// The same from the checked columns alone (checked_columns_of B, C0 and C), for a caller that
// copies back only those: at m = 16384 a GPU's C is 2 GB, its three columns 384 KB.
template <class T>
double gemm_update_columns_residual(const host_matrix<T>& a, const host_matrix<T>& b_columns,
                                    const host_matrix<T>& c0_columns, const host_matrix<T>& c_columns);
template <class T>
double getrf_panel_residual(const host_matrix<T>& a0, const host_matrix<T>& lu, const std::vector<index_t>& ipiv);
template <class T>
double trsm_panel_residual(const host_matrix<T>& l, const host_matrix<T>& b0, const host_matrix<T>& x);

}  // namespace solvebench::lapack
