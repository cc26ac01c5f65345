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

struct row_id {
  std::string backend;  // the name's first element: CPU, CPU-driver, GPU, GPU-pinned, GPU-loop, MGPU, MPI, ...
  std::string device;   // "cpu" or "gpu": where the timed arithmetic runs
  std::string
      placement;     // "resident" (data where the arithmetic is), "pinned" or "pageable" (host data, transfers timed)
  std::string path;  // "halves" (factor + solve calls), "driver" (one library call), "batched", "loop"
  std::string library;   // whose calls are timed: lapack, blas, cusolver, cublas, cusolverMg, scalapack
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
  bool batched() const noexcept { return path == "batched" || path == "loop"; }

  bool operator==(const row_id& o) const;
  bool operator!=(const row_id& o) const { return !(*this == o); }
};

// Axes whose values are integers: written as JSON numbers.
bool integer_axis(const std::string& key);

nlohmann::ordered_json to_json(const row_id& id);
// Throws std::invalid_argument naming the field that is missing or malformed.
row_id row_id_from_json(const nlohmann::ordered_json& j);

// For results written before rows carried an id (results of earlier versions): the id their
// name implies. The only place a name is read back into fields.
row_id legacy_row_id(const std::string& name);

}  // namespace solvebench::bench
