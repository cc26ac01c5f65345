// The reading of row names written before ids: the backends of those versions as data, and the
// name's elements read into the id's fields.
#include "legacy/row_names.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "checks/operation.hpp"

namespace solvebench::bench {
namespace {

const char* const timing_suffixes[] = {"manual_time", "real_time", "process_time"};  // Google Benchmark's, not axes

// The backends of the versions that wrote names without ids, as those versions declared them:
// what their names meant (a lookup of data, the only place a backend's name is read).
struct legacy_backend {
  const char* name;
  row_role role;
  row_device device;
  row_placement placement;
  row_path path;
  const char* library;
  const char* gemm_library;
};
const legacy_backend legacy_backends[] = {
    {"CPU", row_role::reference, row_device::cpu, row_placement::resident, row_path::halves, "lapack", "blas"},
    {"CPU-driver", row_role::reference, row_device::cpu, row_placement::resident, row_path::driver, "lapack", "blas"},
    {"GPU", row_role::candidate, row_device::gpu, row_placement::resident, row_path::halves, "cusolver", "cublas"},
    {"GPU-pinned", row_role::candidate, row_device::gpu, row_placement::pinned, row_path::halves, "cusolver", "cublas"},
    {"GPU-pageable", row_role::candidate, row_device::gpu, row_placement::pageable, row_path::halves, "cusolver",
     "cublas"},
    {"GPU-loop", row_role::candidate, row_device::gpu, row_placement::resident, row_path::loop, "cusolver", "cublas"},
    {"MGPU", row_role::spread, row_device::gpu, row_placement::resident, row_path::halves, "cusolverMg", "cublas"},
    {"MPI", row_role::spread, row_device::cpu, row_placement::resident, row_path::driver, "scalapack", "blas"},
};

// The backend a legacy name's first element names: itself, else its family (before '-'), else the CPU's.
const legacy_backend& legacy_of(const std::string& backend) {
  for (const auto& b : legacy_backends)
    if (backend == b.name) return b;
  const std::string family = backend.substr(0, backend.find('-'));
  for (const auto& b : legacy_backends)
    if (family == b.name) return b;
  return legacy_backends[0];
}

bool timing_suffix(const std::string& s) {
  return std::find(std::begin(timing_suffixes), std::end(timing_suffixes), s) != std::end(timing_suffixes);
}

}  // namespace

row_id legacy_row_id(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = name.find('/', start);
    const std::size_t end = slash == std::string::npos ? name.size() : slash;
    if (end > start) parts.push_back(name.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 3) throw std::invalid_argument("'" + name + "' is not a solve_bench row name");
  row_id id;
  id.backend = parts[0];
  std::string op = parts[1];
  const bool batched =
      op.size() > std::string(batched_suffix).size() &&
      op.compare(op.size() - std::string(batched_suffix).size(), std::string::npos, batched_suffix) == 0;
  if (batched) op.resize(op.size() - std::string(batched_suffix).size());
  if (op.size() < 2 || std::string("sdcz").find(op[0]) == std::string::npos)
    throw std::invalid_argument("'" + name + "': '" + parts[1] + "' does not start with a precision letter");
  id.precision = op[0];
  op.erase(0, 1);
  const auto known = [](const std::string& o) { return find_operation(o) != nullptr; };
  if (!known(op) && op.size() > 1 && std::string("sdxhb").find(op[0]) != std::string::npos && known(op.substr(1))) {
    id.factor = op[0];
    op.erase(0, 1);
  }
  if (!known(op)) throw std::invalid_argument("'" + name + "': unknown operation '" + parts[1] + "'");
  id.op = op;
  const legacy_backend& b = legacy_of(id.backend);
  const bool multiplies = find_operation(op)->multiplies;
  id.role = b.role;
  id.device = b.device;
  id.placement = b.placement;
  if (multiplies) id.path = row_path::call;
  else if (batched) id.path = b.path == row_path::loop ? row_path::loop : row_path::batched;
  else if (id.factor) id.path = row_path::driver;
  else id.path = b.path == row_path::loop ? row_path::halves : b.path;
  id.library = multiplies ? b.gemm_library : b.library;
  // Each element once, n and nrhs as the id reads them (positive integers), no other field of the
  // id as an axis: else the id written to JSON would not be the id read from the name.
  bool have_n = false;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    if (timing_suffix(parts[i])) continue;
    const auto colon = parts[i].find(':');
    const std::string key = parts[i].substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : parts[i].substr(colon + 1);
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument("'" + name + "': '" + parts[i] + "' " + why);
    };
    if (key.empty()) throw bad("has no key");
    if ((key == "n" && have_n) || (key == "nrhs" && id.nrhs) || id.axis(key)) throw bad("repeats an element");
    if (key == "n" || key == "nrhs") {
      const auto v = decimal_integer(value);
      if (!v || *v < 1) throw bad("is not a positive integer");
      if (key == "nrhs") {
        id.nrhs = *v;
      } else {
        id.n = *v;
        have_n = true;
      }
    } else if (id_field(key) || timing_suffix(key)) {
      throw bad("is a field of the id or Google Benchmark's, not an axis");
    } else {
      id.axes.emplace_back(key, value);
    }
  }
  if (!have_n) throw std::invalid_argument("'" + name + "' has no n:N element");
  return id;
}

}  // namespace solvebench::bench
