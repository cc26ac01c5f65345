// spread probe (issue 30 item 2, results/cpu-dev/spread.md): does where a row's buffers lie
// change its time? K buffer sets (A0, A, B0, B[, C]) held at once and timed interleaved, in a
// shuffled order each pass, in one process, so that the machine's load falls on every set alike.
// Prints one JSON line: per set its mode, samples (wall ms), thread CPU ms, the CPU each call ran
// on (-1: it migrated) and its buffers' addresses.
//   probe OP N SETS PASSES MODE[:OFFSET][,MODE[:OFFSET]...]     (set k takes the (k mod count)-th)
//   OP: gemm getrf getrs potrf (1 thread: OPENBLAS_NUM_THREADS=1)
//   MODE: vec     std::vector<double>, as host_matrix had it (malloc: 4 KiB pages)
//         page    its own mmap, 4 KiB-aligned + OFFSET bytes
//         stagger page, buffer k of a set at (k mod 5) * OFFSET (A, B, C at other 4 KiB offsets)
//         huge    2 MiB-aligned + OFFSET, MADV_HUGEPAGE (what host_matrix does now from 2 MiB)
//         nohuge  2 MiB-aligned + OFFSET, MADV_NOHUGEPAGE
// build: g++ -O2 -o probe probe.cpp -I/usr/include/x86_64-linux-gnu/openblas-pthread -llapacke -lopenblas
#include <cblas.h>
#include <lapacke.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

struct buf {
  double* p = nullptr;
  std::vector<double> v;
};
static std::string mode;
static size_t offset = 0;
static int nbuf = 0;
static std::vector<std::string> modes;
static std::vector<size_t> offsets;
static double* alloc(size_t count, buf& b) {
  const size_t bytes = count * sizeof(double);
  if (mode == "vec") {
    b.v.assign(count, 0.0);
    return b.p = b.v.data();
  }
  const size_t align = (mode == "huge" || mode == "nohuge") ? (2u << 20) : 4096;
  size_t off = mode == "stagger" ? (nbuf % 5) * offset : offset;
  ++nbuf;
  const size_t len = bytes + off + 2 * align;
  char* raw = static_cast<char*>(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (raw == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  char* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + align - 1) / align * align);
  if (mode == "huge") madvise(base, len - (base - raw) - align, MADV_HUGEPAGE);
  if (mode == "nohuge") madvise(base, len - (base - raw) - align, MADV_NOHUGEPAGE);
  b.p = reinterpret_cast<double*>(base + off);
  std::memset(b.p, 0, bytes);
  return b.p;
}
static long huge_kb() {  // AnonHugePages of this process
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "AnonHugePages:", 14)) kb = atol(line + 14);
  if (f) fclose(f);
  return kb;
}
struct set {
  buf a0, a, b0, b, c;
  std::vector<lapack_int> ipiv;
  std::vector<double> ms, cpu;
  std::vector<int> where;
};
int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage\n");
    return 2;
  }
  const std::string op = argv[1];
  const int n = atoi(argv[2]), K = atoi(argv[3]), passes = atoi(argv[4]);
  // MODE[:OFFSET][,MODE[:OFFSET]...]: set k uses the (k mod count)-th
  for (std::string spec = argv[5]; !spec.empty();) {
    const auto comma = spec.find(',');
    std::string one = spec.substr(0, comma);
    spec = comma == std::string::npos ? "" : spec.substr(comma + 1);
    const auto colon = one.find(':');
    modes.push_back(one.substr(0, colon));
    offsets.push_back(colon == std::string::npos ? 0 : strtoul(one.c_str() + colon + 1, nullptr, 0));
  }
  LAPACKE_set_nancheck(0);
  const size_t nn = size_t(n) * n;
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> src(nn), rhs(n);
  for (auto& x : src) x = u(rng);
  for (auto& x : rhs) x = u(rng);
  if (op == "potrf") {  // A A^T + n I
    std::vector<double> s(nn);
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, src.data(), n, 0.0, s.data(), n);
    for (int i = 0; i < n; ++i) s[size_t(i) * n + i] += n;
    src = s;
  }
  std::vector<set> sets(K);
  for (int k = 0; k < K; ++k) {
    auto& s = sets[k];
    mode = modes[k % modes.size()];
    offset = offsets[k % modes.size()];
    nbuf = 0;
    double* a0 = alloc(nn, s.a0);
    double* a = alloc(nn, s.a);
    alloc(op == "gemm" ? nn : n, s.b0);
    alloc(op == "gemm" ? nn : n, s.b);
    if (op == "gemm") alloc(nn, s.c);
    std::copy(src.begin(), src.end(), a0);
    if (op == "gemm") std::copy(src.begin(), src.end(), s.b0.p);
    else std::copy(rhs.begin(), rhs.end(), s.b0.p);
    std::copy(a0, a0 + nn, a);
    s.ipiv.resize(n);
    if (op == "getrs") LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, s.ipiv.data());
  }
  auto once = [&](set& s) {
    if (op == "getrf" || op == "potrf") std::copy(s.a0.p, s.a0.p + nn, s.a.p);
    if (op == "getrs") std::copy(s.b0.p, s.b0.p + n, s.b.p);
    const int cpu0 = sched_getcpu();
    timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    const auto t0 = std::chrono::steady_clock::now();
    if (op == "gemm")
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, s.a0.p, n, s.b0.p, n, 0.0, s.c.p, n);
    else if (op == "getrf") LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, s.a.p, n, s.ipiv.data());
    else if (op == "potrf") LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, s.a.p, n);
    else LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, s.a.p, n, s.ipiv.data(), s.b.p, n);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    s.where.push_back(cpu0 == sched_getcpu() ? cpu0 : -1);
    s.cpu.push_back((c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) / 1e6);
    return wall;
  };
  for (auto& s : sets) once(s), s.cpu.clear(), s.where.clear();  // warm-up
  std::vector<int> order(K);
  std::iota(order.begin(), order.end(), 0);
  for (int p = 0; p < passes; ++p) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int k : order) sets[k].ms.push_back(once(sets[k]));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::vector<double> meds;
  printf("{\"op\":\"%s\",\"n\":%d,\"mode\":\"%s\",\"huge_kb\":%ld,\"sets\":[", op.c_str(), n, argv[5], huge_kb());
  for (int k = 0; k < K; ++k) {
    auto& s = sets[k];
    const double m = median(s.ms);
    meds.push_back(m);
    auto ad = [](const buf& b) { return (unsigned long)(reinterpret_cast<uintptr_t>(b.p)); };
    printf("%s{\"ms\":[", k ? "," : "");
    for (size_t i = 0; i < s.ms.size(); ++i) printf("%s%.5g", i ? "," : "", s.ms[i]);
    printf("],\"cpu\":[");
    for (size_t i = 0; i < s.cpu.size(); ++i) printf("%s%.5g", i ? "," : "", s.cpu[i]);
    printf("],\"where\":[");
    for (size_t i = 0; i < s.where.size(); ++i) printf("%s%d", i ? "," : "", s.where[i]);
    printf("],\"cpu_median_ms\":%.5g", median(s.cpu));
    printf(",\"mode\":\"%s:%zu\",\"median_ms\":%.5g,\"a0\":%lu,\"a\":%lu,\"b0\":%lu,\"b\":%lu,\"c\":%lu}",
           modes[k % modes.size()].c_str(), offsets[k % modes.size()], m, ad(s.a0), ad(s.a), ad(s.b0), ad(s.b),
           ad(s.c));
  }
  printf("],\"spread_pct\":%.3g}\n",
         100 * (*std::max_element(meds.begin(), meds.end()) / *std::min_element(meds.begin(), meds.end()) - 1));
}
