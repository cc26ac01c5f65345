// A row's identity as data: which device and path it times, the operation, the precision and
// every axis. The row's name ("GPU-pinned/dgesv/n:4096/nrhs:1") is derived from it here, once;
// rules and tools test these fields, never the name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace solvebench::bench {

// What a backend's rows are for, as it declares it: the rules and the verdict hold rows by
// these fields, never by a backend's or a library's name.
enum class row_role {
  reference,  // the CPU's answer the others are held against (every CPU library's rows)
  candidate,  // one accelerator timed against the reference (GPU, GPU-pinned, GPU-loop ...)
  spread,     // the same operation spread across devices or ranks (MGPU, MPI)
};
enum class row_device { cpu, gpu };  // where the timed arithmetic runs
enum class row_placement {
  resident,
  pinned,
  pageable
};  // the data where the arithmetic is, or host data (transfers timed)
enum class row_path {
  halves,
  driver,
  call,
  batched,
  loop,
  probe
};  // factor + solve calls, one library call, a GEMM,
    // many systems in one call, or one call each; a piece of a blocked factorization (ops::probes)

// Their text in the id's JSON: "reference", "gpu", "pinned", "halves".
const char* text_of(row_role v);
const char* text_of(row_device v);
const char* text_of(row_placement v);
const char* text_of(row_path v);
// "CPU", "GPU": the device as sentences name it.
const char* device_name(row_device v);

struct row_id {
  std::string backend;  // the name's first element: CPU, CPU-driver, GPU, GPU-pinned, GPU-loop, MGPU, MPI, ...
  row_role role = row_role::reference;
  row_device device = row_device::cpu;
  row_placement placement = row_placement::resident;
  row_path path = row_path::halves;
  std::string library;   // whose calls are timed (lapack, blas, cusolver, ...): a label, which no rule tests
  std::string op;        // gesv, posv, getrf, getrs, potrf, potrs, gemm (batched rows: gesv, posv)
  char precision = 'd';  // of the data: s, d, c, z
  char factor = 0;       // mixed precision: the factorization's (s, x, h, b); 0 when it is the data's
  std::int64_t n = 0;
  std::optional<std::int64_t> nrhs;                       // operations that solve
  std::vector<std::pair<std::string, std::string>> axes;  // the others, in name order: batch, kind, cond, ...

  // The row's name, without Google Benchmark's /manual_time.
  std::string name() const;
  // "dgesv", "dhgesv", "dgesv_batched": the name's second element.
  std::string op_name() const;
  std::optional<std::string> axis(const std::string& key) const;
  std::optional<std::int64_t> int_axis(const std::string& key) const;
  bool mixed() const noexcept { return factor != 0; }
  bool batched() const noexcept { return path == row_path::batched || path == row_path::loop; }

  bool operator==(const row_id& o) const;
  bool operator!=(const row_id& o) const { return !(*this == o); }
};

// Axes whose values are integers: written as JSON numbers.
bool integer_axis(const std::string& key);
// Keys of the id's JSON that are its fields (backend, role, ..., n, nrhs), not axes.
bool id_field(const std::string& key);
// The value of a decimal written with digits only that fits in 64 bits; none otherwise.
std::optional<std::int64_t> decimal_integer(const std::string& s);
// What op_name() appends for a batched row ("dgesv_batched").
inline constexpr char batched_suffix[] = "_batched";

nlohmann::ordered_json to_json(const row_id& id);
// Throws std::invalid_argument naming the field that is missing or malformed.
row_id row_id_from_json(const nlohmann::ordered_json& j);

}  // namespace solvebench::bench
