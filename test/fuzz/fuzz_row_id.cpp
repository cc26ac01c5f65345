// libFuzzer target: row identities read from data, on arbitrary bytes. As a name
// (legacy_row_id, for results written before ids) and, when the bytes are JSON, as an id object
// (row_id_from_json). Both may throw std::invalid_argument and nothing else; an id they accept
// must survive being written to JSON and read back, and a name read from a name must name the
// same id again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/row_id.hpp"
#include "legacy/row_names.hpp"

namespace {

namespace sb = solvebench::bench;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_row_id: %s\n", what.c_str());
  std::abort();
}

void check_round_trip(const sb::row_id& id) {
  const sb::row_id back = sb::row_id_from_json(sb::to_json(id));
  if (back != id) bug("'" + id.name() + "' reads back from its JSON as '" + back.name() + "'");
  for (const char* axis : {"n", "nrhs", "batch", "gpus", "tile", "ranks", "nb"}) (void)id.int_axis(axis);
}

// The readers' own rejection; what follows an accepted id (writing it, reading it back) must not throw.
template <class Read>
std::optional<sb::row_id> accepted(Read read) {
  try {
    return read();
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (const auto id = accepted([&] { return sb::legacy_row_id(text); })) {
    check_round_trip(*id);
    const sb::row_id again = sb::legacy_row_id(id->name());
    if (again != *id) bug("'" + text + "' names '" + id->name() + "', which names '" + again.name() + "'");
  }
  const auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  if (const auto id = accepted([&] { return sb::row_id_from_json(j); })) check_round_trip(*id);
  return 0;
}
