// host_matrix<T> and input validation.
#include "solvebench/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <sys/mman.h>
#include <unistd.h>

#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench {

void* allocate_host(std::size_t bytes) {
  if (bytes < huge_page_bytes) return ::operator new (bytes, std::align_val_t{cache_line_bytes});
  const std::size_t len = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  // Map one huge page more than needed, then unmap the unaligned head and the tail.
  void* raw = mmap(nullptr, len + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  char* const base = static_cast<char*>(raw);
  const std::size_t head =
      (huge_page_bytes - reinterpret_cast<std::uintptr_t>(raw) % huge_page_bytes) % huge_page_bytes;
  char* const p = base + head;
  if (head > 0) munmap(base, head);
  munmap(p + len, huge_page_bytes - head);
  madvise(p, len, MADV_HUGEPAGE);  // a kernel without THP says EINVAL: 4 KiB pages, as before
  return p;
}

void free_host(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < huge_page_bytes) return ::operator delete (p, std::align_val_t{cache_line_bytes});
  munmap(p, (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes);
}

std::string sysfs_choice(const std::string& text) {
  const auto open = text.find('['), close = text.find(']');
  return open == std::string::npos || close == std::string::npos || close < open
             ? ""
             : text.substr(open + 1, close - open - 1);
}

std::vector<std::pair<std::string, std::string>> host_memory_facts(const std::string& thp_root) {
  auto read = [&](const char* name) {
    std::ifstream in(thp_root + "/" + name);
    std::string line;
    std::getline(in, line);
    return sysfs_choice(line);
  };
  return {{"host_thp", read("enabled")}, {"host_thp_defrag", read("defrag")}};
}

template <class T>
host_matrix<T>::host_matrix(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {
  if (rows <= 0 || cols <= 0)
    throw invalid_argument("matrix dimensions must be positive, got " + std::to_string(rows) + " x " +
                           std::to_string(cols));
  data_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
}

template <class T>
void host_matrix<T>::assign(const host_matrix& other) {
  if (other.rows_ != rows_ || other.cols_ != cols_) throw invalid_argument("host_matrix::assign: shape mismatch");
  std::copy(other.data_.begin(), other.data_.end(), data_.begin());
}

std::uint64_t host_memory_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

void require_host_memory(std::uint64_t needed_bytes) {
  const std::uint64_t available = host_memory_available_bytes();
  if (available != 0 && needed_bytes > available) throw out_of_memory("host", needed_bytes, available);
}

namespace {
template <class R>
bool finite(R v) {
  return std::isfinite(v);
}
template <class R>
bool finite(std::complex<R> v) {
  return std::isfinite(v.real()) && std::isfinite(v.imag());
}
// The part that is not finite, for the message (the real part when both are).
template <class R>
double offending(R v) {
  return static_cast<double>(v);
}
template <class R>
double offending(std::complex<R> v) {
  return static_cast<double>(std::isfinite(v.real()) ? v.imag() : v.real());
}
}  // namespace

template <class T>
void require_finite(const std::string& name, const host_matrix<T>& m) {
  const T* p = m.data();
  const auto it = std::find_if(p, p + m.size(), [](T v) { return !finite(v); });
  if (it == p + m.size()) return;
  const auto k = static_cast<std::int64_t>(it - p);
  throw non_finite_input(name, k % m.rows(), k / m.rows(), offending(*it));
}

#define SB_INSTANTIATE(T)        \
  template class host_matrix<T>; \
  template void require_finite(const std::string&, const host_matrix<T>&);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench
