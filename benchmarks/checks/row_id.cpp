// Row identities: the name derived from the fields and the JSON form (names written before ids
// existed are read in benchmarks/legacy/).
#include "checks/row_id.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace solvebench::bench {
namespace {

const char* const integer_axes[] = {"n", "nrhs", "batch", "gpus", "tile", "ranks", "nb"};
const char* const id_fields[] = {"backend", "role",      "device", "placement", "path", "library",
                                 "op",      "precision", "factor", "n",         "nrhs"};

const char* const role_texts[] = {"reference", "candidate", "spread"};
const char* const device_texts[] = {"cpu", "gpu"};
const char* const placement_texts[] = {"resident", "pinned", "pageable"};
const char* const path_texts[] = {"halves", "driver", "call", "batched", "loop", "probe"};

template <std::size_t size>
bool one_of(const std::string& s, const char* const (&list)[size]) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

std::string text_of(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();  // exact, unsigned ones beyond int64 included
  throw std::invalid_argument("an axis value is neither text nor an integer: " + v.dump());
}

}  // namespace

bool integer_axis(const std::string& key) { return one_of(key, integer_axes); }
bool id_field(const std::string& key) { return one_of(key, id_fields); }

std::optional<std::int64_t> decimal_integer(const std::string& s) {
  std::int64_t v = 0;
  const char* end = s.data() + s.size();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (const auto r = std::from_chars(s.data(), end, v); r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

const char* text_of(row_role v) { return role_texts[static_cast<int>(v)]; }
const char* text_of(row_device v) { return device_texts[static_cast<int>(v)]; }
const char* text_of(row_placement v) { return placement_texts[static_cast<int>(v)]; }
const char* text_of(row_path v) { return path_texts[static_cast<int>(v)]; }
const char* device_name(row_device v) { return v == row_device::cpu ? "CPU" : "GPU"; }

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
  return v ? decimal_integer(*v) : std::nullopt;
}

bool row_id::operator==(const row_id& o) const {
  return backend == o.backend && role == o.role && device == o.device && placement == o.placement && path == o.path &&
         library == o.library && op == o.op && precision == o.precision && factor == o.factor && n == o.n &&
         nrhs == o.nrhs && axes == o.axes;
}

nlohmann::ordered_json to_json(const row_id& id) {
  nlohmann::ordered_json j;
  j["backend"] = id.backend;
  j["role"] = text_of(id.role);
  j["device"] = text_of(id.device);
  j["placement"] = text_of(id.placement);
  j["path"] = text_of(id.path);
  j["library"] = id.library;
  j["op"] = id.op;
  j["precision"] = std::string(1, id.precision);
  if (id.factor) j["factor"] = std::string(1, id.factor);
  j["n"] = id.n;
  if (id.nrhs) j["nrhs"] = *id.nrhs;
  for (const auto& [key, value] : id.axes) {  // a number only where it reads back as the same text ("007" stays text)
    const auto v = integer_axis(key) ? decimal_integer(value) : std::nullopt;
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
  const auto field = [&](const char* key, const auto& texts) {
    const std::string t = text(key);
    for (std::size_t i = 0; i < std::size(texts); ++i)
      if (t == texts[i]) return i;
    std::string list;
    for (const char* allowed : texts) list += (list.empty() ? "" : ", ") + std::string(allowed);
    throw std::invalid_argument(std::string("the id's \"") + key + "\" is '" + t + "', not one of " + list);
  };
  row_id id;
  id.backend = text("backend");
  id.device = static_cast<row_device>(field("device", device_texts));
  id.placement = static_cast<row_placement>(field("placement", placement_texts));
  id.path = static_cast<row_path>(field("path", path_texts));
  // Ids written before roles: a row spread across devices or ranks has their axis; the others
  // are the CPU's reference or an accelerator's candidate.
  if (j.contains("role")) id.role = static_cast<row_role>(field("role", role_texts));
  else if (j.contains("gpus") || j.contains("ranks")) id.role = row_role::spread;
  else id.role = id.device == row_device::cpu ? row_role::reference : row_role::candidate;
  id.library = text("library");
  id.op = text("op");
  id.precision = letter("precision", "sdcz");
  if (j.contains("factor")) id.factor = letter("factor", "sdxhb");
  id.n = count("n");
  if (j.contains("nrhs")) id.nrhs = count("nrhs");
  for (const auto& [key, value] : j.items())
    if (!id_field(key)) id.axes.emplace_back(key, text_of(value));
  return id;
}

}  // namespace solvebench::bench
