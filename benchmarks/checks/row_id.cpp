// Row identities: the name derived from the fields, the JSON form, and the reading of names
// written before ids existed.
#include "checks/row_id.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace solvebench::bench {
namespace {

const char* const integer_axes[] = {"n", "nrhs", "batch", "gpus", "tile", "ranks", "nb"};
const char* const id_fields[] = {"backend", "device",    "placement", "path", "library",
                                 "op",      "precision", "factor",    "n",    "nrhs"};
const char* const timing_suffixes[] = {"manual_time", "real_time", "process_time"};  // Google Benchmark's, not axes
const char* const plain_ops[] = {"gesv", "posv", "getrf", "getrs", "potrf", "potrs", "gemm"};
constexpr const char* batched_suffix = "_batched";

template <std::size_t size>
bool one_of(const std::string& s, const char* const (&list)[size]) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

// The value of a decimal written with digits only that fits in 64 bits; none otherwise.
std::optional<std::int64_t> decimal(const std::string& s) {
  std::int64_t v = 0;
  const char* end = s.data() + s.size();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (const auto r = std::from_chars(s.data(), end, v); r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

std::string text_of(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();  // exact, unsigned ones beyond int64 included
  throw std::invalid_argument("an axis value is neither text nor an integer: " + v.dump());
}

}  // namespace

bool integer_axis(const std::string& key) { return one_of(key, integer_axes); }

std::string row_id::op_name() const {
  std::string out(1, precision);
  if (factor) out += factor;
  out += op;
  if (batched()) out += batched_suffix;
  return out;
}

std::string row_id::name() const {
  std::string out = backend + "/" + op_name() + "/n:" + std::to_string(n);
  if (nrhs) out += "/nrhs:" + std::to_string(*nrhs);
  for (const auto& [key, value] : axes) out += "/" + key + (value.empty() ? "" : ":" + value);
  return out;
}

std::optional<std::string> row_id::axis(const std::string& key) const {
  for (const auto& [k, v] : axes)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::int64_t> row_id::int_axis(const std::string& key) const {
  if (key == "n") return n;
  if (key == "nrhs") return nrhs;
  const auto v = axis(key);
  return v ? decimal(*v) : std::nullopt;
}

bool row_id::operator==(const row_id& o) const {
  return backend == o.backend && device == o.device && placement == o.placement && path == o.path &&
         library == o.library && op == o.op && precision == o.precision && factor == o.factor && n == o.n &&
         nrhs == o.nrhs && axes == o.axes;
}

nlohmann::ordered_json to_json(const row_id& id) {
  nlohmann::ordered_json j;
  j["backend"] = id.backend;
  j["device"] = id.device;
  j["placement"] = id.placement;
  j["path"] = id.path;
  j["library"] = id.library;
  j["op"] = id.op;
  j["precision"] = std::string(1, id.precision);
  if (id.factor) j["factor"] = std::string(1, id.factor);
  j["n"] = id.n;
  if (id.nrhs) j["nrhs"] = *id.nrhs;
  for (const auto& [key, value] : id.axes) {  // a number only where it reads back as the same text ("007" stays text)
    const auto v = integer_axis(key) ? decimal(value) : std::nullopt;
    if (v && std::to_string(*v) == value) j[key] = *v;
    else j[key] = value;
  }
  return j;
}

row_id row_id_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object()) throw std::invalid_argument("the id is not an object");
  const auto text = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
      throw std::invalid_argument(std::string("the id has no \"") + key + "\" text");
    return it->get<std::string>();
  };
  const auto letter = [&](const char* key, const char* allowed) {
    const std::string s = text(key);
    if (s.size() != 1 || std::string(allowed).find(s[0]) == std::string::npos)
      throw std::invalid_argument(std::string("the id's \"") + key + "\" is '" + s + "', not one of " + allowed);
    return s[0];
  };
  const auto count = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<std::int64_t>() < 1)
      throw std::invalid_argument(std::string("the id's \"") + key + "\" is not a positive integer");
    return it->get<std::int64_t>();
  };
  row_id id;
  id.backend = text("backend");
  id.device = text("device");
  id.placement = text("placement");
  id.path = text("path");
  id.library = text("library");
  id.op = text("op");
  id.precision = letter("precision", "sdcz");
  if (j.contains("factor")) id.factor = letter("factor", "sdxhb");
  id.n = count("n");
  if (j.contains("nrhs")) id.nrhs = count("nrhs");
  for (const auto& [key, value] : j.items())
    if (!one_of(key, id_fields)) id.axes.emplace_back(key, text_of(value));
  return id;
}

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
  if (!one_of(op, plain_ops) && op.size() > 1 && std::string("sdxhb").find(op[0]) != std::string::npos &&
      one_of(op.substr(1), plain_ops)) {
    id.factor = op[0];
    op.erase(0, 1);
  }
  if (!one_of(op, plain_ops)) throw std::invalid_argument("'" + name + "': unknown operation '" + parts[1] + "'");
  id.op = op;
  const std::string family = id.backend.substr(0, id.backend.find('-'));
  id.device = family == "GPU" || family == "MGPU" ? "gpu" : "cpu";
  id.placement = id.backend == "GPU-pinned" ? "pinned" : id.backend == "GPU-pageable" ? "pageable" : "resident";
  if (op == "gemm") id.path = "call";
  else if (batched) id.path = id.backend == "GPU-loop" ? "loop" : "batched";
  else if (id.backend == "CPU-driver" || id.factor || family == "MPI") id.path = "driver";
  else id.path = "halves";
  if (family == "MGPU") id.library = "cusolverMg";
  else if (family == "MPI") id.library = "scalapack";
  else if (id.device == "gpu") id.library = op == "gemm" ? "cublas" : "cusolver";
  else id.library = op == "gemm" ? "blas" : "lapack";
  // Each element once, n and nrhs as the id reads them (positive integers), no other field of the
  // id as an axis: else the id written to JSON would not be the id read from the name.
  bool have_n = false;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    if (one_of(parts[i], timing_suffixes)) continue;
    const auto colon = parts[i].find(':');
    const std::string key = parts[i].substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : parts[i].substr(colon + 1);
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument("'" + name + "': '" + parts[i] + "' " + why);
    };
    if (key.empty()) throw bad("has no key");
    if ((key == "n" && have_n) || (key == "nrhs" && id.nrhs) || id.axis(key)) throw bad("repeats an element");
    if (key == "n" || key == "nrhs") {
      const auto v = decimal(value);
      if (!v || *v < 1) throw bad("is not a positive integer");
      if (key == "nrhs") {
        id.nrhs = *v;
      } else {
        id.n = *v;
        have_n = true;
      }
    } else if (one_of(key, id_fields) || one_of(key, timing_suffixes)) {
      throw bad("is a field of the id or Google Benchmark's, not an axis");
    } else {
      id.axes.emplace_back(key, value);
    }
  }
  if (!have_n) throw std::invalid_argument("'" + name + "' has no n:N element");
  return id;
}

}  // namespace solvebench::bench
