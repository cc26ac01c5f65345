// Does a fresh mmap after munmap get the same physical pages? (/proc/self/pagemap PFNs: root only)
// usage: pfn KIB   build: g++ -O2 -o pfn pfn.cpp
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>
std::vector<uint64_t> pfns(char* p, size_t bytes) {
  int fd = open("/proc/self/pagemap", O_RDONLY);
  std::vector<uint64_t> out;
  for (size_t off = 0; off < bytes; off += 4096) {
    uint64_t e = 0;
    pread(fd, &e, 8, ((uintptr_t)(p + off) / 4096) * 8);
    out.push_back(e & ((1ull << 55) - 1));
  }
  close(fd);
  return out;
}
int main(int argc, char** argv) {
  const size_t bytes = (argc > 1 ? atol(argv[1]) : 512) * 1024;
  std::vector<uint64_t> prev;
  for (int round = 0; round < 4; ++round) {
    char* p = (char*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(p, 1, bytes);
    auto now = pfns(p, bytes);
    std::set<uint64_t> a(prev.begin(), prev.end());
    size_t same = 0;
    for (auto x : now) same += a.count(x);
    printf("round %d: %zu pages, %zu of them held by the previous round, first pfn %llx\n", round, now.size(), same,
           (unsigned long long)now[0]);
    prev = now;
    munmap(p, bytes);
    // malloc'd in between: what a row's other work does
    void* q = malloc(64 << 10);
    memset(q, 0, 64 << 10);
    free(q);
  }
  // heap: malloc/free/malloc of the same size
  for (int round = 0; round < 3; ++round) {
    char* p = (char*)malloc(bytes);
    memset(p, 1, bytes);
    auto now = pfns(p, bytes);
    std::set<uint64_t> a(prev.begin(), prev.end());
    size_t same = 0;
    for (auto x : now) same += a.count(x);
    printf("malloc round %d at %p: %zu of %zu pages held by the previous round\n", round, p, same, now.size());
    prev = now;
    free(p);
  }
}
