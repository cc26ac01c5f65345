// An OpenMP loop of LAPACKE calls over 10000 small systems, as the CPU batched rows make it:
// `loop N gesv|posv`, best of 7 (run.sh runs it against each CPU library).
#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: loop N gesv|posv\n");
    return 2;
  }
  const int n = atoi(argv[1]), posv = argv[2][0] == 'p';
  const long count = 10000, nn = (long)n * n;
  double* a0 = malloc(sizeof(double) * nn * count);
  double* a = malloc(sizeof(double) * nn * count);
  double* b = malloc(sizeof(double) * n * count);
  lapack_int* ipiv = malloc(sizeof(lapack_int) * n * count);
  if (!a0 || !a || !b || !ipiv) return 1;
  // Symmetric and diagonally dominant: positive definite, so both solvers take it.
  for (long s = 0; s < count; s++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) a0[s * nn + i * n + j] = (i == j ? n : 0) + 1.0 / (1 + i + j);
  double best = 1e9;
  int failed = 0;
  for (int r = 0; r < 7; r++) {
    memcpy(a, a0, sizeof(double) * nn * count);
    for (long i = 0; i < n * count; i++) b[i] = 1;
    double t = omp_get_wtime();
#pragma omp parallel for schedule(static) reduction(| : failed)
    for (long s = 0; s < count; s++) {
      lapack_int info = posv ? LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, a + s * nn, n, b + s * n, n)
                             : LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a + s * nn, n, ipiv + s * n, b + s * n, n);
      failed |= info != 0;
    }
    t = omp_get_wtime() - t;
    if (t < best) best = t;
  }
  if (failed) {
    fprintf(stderr, "loop: a system failed\n");
    return 1;
  }
  printf("n=%d %s threads=%d best %.2f ms\n", n, posv ? "posv" : "gesv", omp_get_max_threads(), best * 1e3);
  return 0;
}
