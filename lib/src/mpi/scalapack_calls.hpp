// What the MPI backend's sources share: ScaLAPACK/BLACS/PBLAS declarations and index checks.
#pragma once

#include <string>

#include "solvebench/errors.hpp"
#include "solvebench/scalapack.hpp"

// ScaLAPACK ships no C header. BLACS's C interface and PBLAS are C; the ScaLAPACK drivers
// and auxiliaries are Fortran (gfortran), whose CHARACTER arguments take a hidden length
// at the end of the argument list (size_t since gfortran 8), passed here explicitly.
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int not_done);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* context, const int* lld, int* info);

void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void psgesv_(const int* n, const int* nrhs, float* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             float* b, const int* ib, const int* jb, const int* descb, int* info);
void pdposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca,
             double* b, const int* ib, const int* jb, const int* descb, int* info, std::size_t uplo_len);
void psposv_(const char* uplo, const int* n, const int* nrhs, float* a, const int* ia, const int* ja, const int* desca,
             float* b, const int* ib, const int* jb, const int* descb, int* info, std::size_t uplo_len);
double pdlange_(const char* norm, const int* m, const int* n, const double* a, const int* ia, const int* ja,
                const int* desca, double* work, std::size_t norm_len);
// PBLAS (C): no hidden lengths.
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
}

namespace solvebench::scalapack::detail {

inline constexpr int one = 1;

inline index_t to_index(const std::string& what, std::int64_t v) {
  return static_cast<index_t>(checked_size(what, v, max_n));
}

// Same grid, same square block, n x n A and n x nrhs B: what p?gesv/p?posv require.
template <class T>
void check_system(const char* routine, const distributed_matrix<T>& a, const distributed_matrix<T>& b) {
  const std::string r = routine;
  if (a.rows() != a.cols())
    throw invalid_argument(r + ": A must be square, got " + std::to_string(a.rows()) + " x " +
                           std::to_string(a.cols()));
  if (b.rows() != a.rows())
    throw invalid_argument(r + ": B has " + std::to_string(b.rows()) + " rows, A has " + std::to_string(a.rows()));
  if (a.block() != b.block())
    throw invalid_argument(r + ": A and B must share one block size, got " + std::to_string(a.block()) + " and " +
                           std::to_string(b.block()));
  if (a.descriptor()[1] != b.descriptor()[1]) throw invalid_argument(r + ": A and B live on different grids");
}

}  // namespace solvebench::scalapack::detail
