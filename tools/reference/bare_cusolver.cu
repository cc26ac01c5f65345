// The yardstick for GPU/dgesv and GPU/dposv: a bare loop of cuSOLVER calls timed with CUDA
// events, no solve_bench harness in the timed path. A and b are restored by device-to-device
// copies outside the timed region, as solve_bench does; the median of the repetitions is
// printed as one JSON object per size.
//
// usage: bare_cusolver gesv|posv generic64|legacy32 N[,N...] [repetitions=10]
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "solvebench/device_generate.hpp"

#define CHECK(call)                                                                                            \
  do {                                                                                                         \
    const auto status_ = (call);                                                                               \
    if (static_cast<int>(status_) != 0) {                                                                      \
      std::fprintf(stderr, "%s failed (%d) at %s:%d\n", #call, static_cast<int>(status_), __FILE__, __LINE__); \
      std::exit(1);                                                                                            \
    }                                                                                                          \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bare_cusolver gesv|posv generic64|legacy32 N[,N...] [repetitions]\n");
    return 2;
  }
  const std::string op = argv[1], api = argv[2];
  const int reps = argc > 4 ? std::atoi(argv[4]) : 10;
  std::vector<long long> sizes;
  std::stringstream list(argv[3]);
  for (std::string item; std::getline(list, item, ',');) sizes.push_back(std::atoll(item.c_str()));
  const bool chol = op == "posv", legacy = api == "legacy32";

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cusolverDnHandle_t h;
  CHECK(cusolverDnCreate(&h));
  CHECK(cusolverDnSetStream(h, stream));
  cusolverDnParams_t params;
  CHECK(cusolverDnCreateParams(&params));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  for (const long long n : sizes) {
    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
    double *a0, *a, *b0, *b;
    CHECK(cudaMalloc(&a0, nn * sizeof(double)));
    CHECK(cudaMalloc(&a, nn * sizeof(double)));
    CHECK(cudaMalloc(&b0, static_cast<size_t>(n) * sizeof(double)));
    CHECK(cudaMalloc(&b, static_cast<size_t>(n) * sizeof(double)));
    solvebench::cuda::generate_matrix(a0, chol ? solvebench::matrix_kind::spd : solvebench::matrix_kind::uniform, n,
                                      solvebench::default_seed, stream);
    solvebench::cuda::generate_rhs(b0, n, 1, solvebench::default_seed, stream);

    size_t dbytes = 0, hbytes = 0;
    int lwork = 0;
    const int ni = static_cast<int>(n);
    if (legacy) {
      if (chol) CHECK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, ni, a, ni, &lwork));
      else CHECK(cusolverDnDgetrf_bufferSize(h, ni, ni, a, ni, &lwork));
      dbytes = static_cast<size_t>(lwork) * sizeof(double);
    } else if (chol) {
      CHECK(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, &dbytes,
                                        &hbytes));
    } else {
      CHECK(cusolverDnXgetrf_bufferSize(h, params, n, n, CUDA_R_64F, a, n, CUDA_R_64F, &dbytes, &hbytes));
    }
    void* dwork;
    CHECK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
    std::vector<char> hwork(std::max<size_t>(hbytes, 1));
    int64_t* ipiv64;
    int *ipiv32, *info;
    CHECK(cudaMalloc(&ipiv64, static_cast<size_t>(n) * sizeof(int64_t)));
    CHECK(cudaMalloc(&ipiv32, static_cast<size_t>(n) * sizeof(int)));
    CHECK(cudaMalloc(&info, 2 * sizeof(int)));

    std::vector<float> ms;
    for (int r = -2; r < reps; ++r) {  // two warm-up calls
      CHECK(cudaMemcpyAsync(a, a0, nn * sizeof(double), cudaMemcpyDeviceToDevice, stream));
      CHECK(cudaMemcpyAsync(b, b0, static_cast<size_t>(n) * sizeof(double), cudaMemcpyDeviceToDevice, stream));
      CHECK(cudaEventRecord(start, stream));
      if (legacy && chol) {
        CHECK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, ni, a, ni, static_cast<double*>(dwork), lwork, info));
        CHECK(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, ni, 1, a, ni, b, ni, info + 1));
      } else if (legacy) {
        CHECK(cusolverDnDgetrf(h, ni, ni, a, ni, static_cast<double*>(dwork), ipiv32, info));
        CHECK(cusolverDnDgetrs(h, CUBLAS_OP_N, ni, 1, a, ni, ipiv32, b, ni, info + 1));
      } else if (chol) {
        CHECK(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a, n, CUDA_R_64F, dwork, dbytes,
                               hwork.data(), hbytes, info));
        CHECK(cusolverDnXpotrs(h, params, CUBLAS_FILL_MODE_LOWER, n, 1, CUDA_R_64F, a, n, CUDA_R_64F, b, n, info + 1));
      } else {
        CHECK(cusolverDnXgetrf(h, params, n, n, CUDA_R_64F, a, n, ipiv64, CUDA_R_64F, dwork, dbytes, hwork.data(),
                               hbytes, info));
        CHECK(cusolverDnXgetrs(h, params, CUBLAS_OP_N, n, 1, CUDA_R_64F, a, n, ipiv64, CUDA_R_64F, b, n, info + 1));
      }
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (r >= 0) ms.push_back(t);
    }
    int hinfo[2];
    CHECK(cudaMemcpy(hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost));
    std::sort(ms.begin(), ms.end());
    const double median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
    std::printf(
        "{\"op\": \"d%s\", \"api\": \"%s\", \"n\": %lld, \"repetitions\": %d, \"median_ms\": %.4f, "
        "\"min_ms\": %.4f, \"max_ms\": %.4f, \"info\": [%d, %d]}\n",
        op.c_str(), api.c_str(), n, reps, median, ms.front(), ms.back(), hinfo[0], hinfo[1]);
    for (void* p : {static_cast<void*>(a0), static_cast<void*>(a), static_cast<void*>(b0), static_cast<void*>(b), dwork,
                    static_cast<void*>(ipiv64), static_cast<void*>(ipiv32), static_cast<void*>(info)})
      CHECK(cudaFree(p));
  }
  return 0;
}
