// What the MPI stack and ScaLAPACK underneath report about themselves.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include "scalapack_calls.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

namespace {

std::string real_path(const char* path) {
  if (!path) return "";
  char* resolved = realpath(path, nullptr);
  if (!resolved) return path;
  std::string out = resolved;
  std::free(resolved);
  return out;
}

std::string library_of(void* symbol) {
  Dl_info where{};
  if (symbol && dladdr(symbol, &where) != 0) return real_path(where.dli_fname);
  return "";
}

}  // namespace

runtime_info mpi_runtime_info(MPI_Comm comm) {
  runtime_info info;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  info.mpi_library.assign(version, static_cast<std::size_t>(std::max(0, length)));
  info.mpi_library = info.mpi_library.substr(0, info.mpi_library.find('\n'));
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  info.mpi_standard = std::to_string(major) + "." + std::to_string(minor);
  info.scalapack_library = library_of(reinterpret_cast<void*>(&pdgesv_));
  info.blas_library = library_of(dlsym(RTLD_DEFAULT, "dgemm_"));

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int name_length = 0;
  MPI_Get_processor_name(name, &name_length);
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::vector<std::string> order;
  std::map<std::string, int> ranks_on;
  for (int r = 0; r < size; ++r) {
    const std::string host(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    if (ranks_on[host]++ == 0) order.push_back(host);
  }
  for (const auto& host : order)
    info.hosts += (info.hosts.empty() ? "" : ",") + host + ":" + std::to_string(ranks_on[host]);
  return info;
}

}  // namespace solvebench::scalapack
