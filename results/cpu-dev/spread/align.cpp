// Cache-line alignment of A and b against dgetrs n = 256, one right-hand side (issue 30 item 2,
// results/cpu-dev/spread.md section 4b): A factored once, then 2000 timed LAPACKE_dgetrs_work
// calls for each offset of A and of b past a page boundary; prints each pair's median.
// Build: g++ -O2 align.cpp -o align -llapacke -lopenblas
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
  const int n = 256;
  std::vector<double> base(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) base[i + j * n] = (i == j ? n : 0) + static_cast<double>(rand()) / RAND_MAX;
  for (int off_a : {0, 64, 128, 512, 1024, 2048, 16, 4096 - 64})
    for (int off_b : {0, 64, 1024, 2048, 3072, 16, 8, 4032}) {
      char* ra = static_cast<char*>(aligned_alloc(4096, n * n * 8 + 8192));
      char* rb = static_cast<char*>(aligned_alloc(4096, n * 8 + 8192));
      double* a = reinterpret_cast<double*>(ra + off_a);
      double* b = reinterpret_cast<double*>(rb + off_b);
      std::copy(base.begin(), base.end(), a);
      std::vector<lapack_int> ipiv(n);
      LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv.data());
      std::vector<double> us;
      for (int rep = 0; rep < 2000; ++rep) {
        std::fill(b, b + n, 1.0);
        const auto t0 = std::chrono::steady_clock::now();
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, a, n, ipiv.data(), b, n);
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(us.begin(), us.end());
      std::printf("offA %4d offb %4d  median %.2f us\n", off_a, off_b, us[us.size() / 2]);
      free(ra);
      free(rb);
    }
}
