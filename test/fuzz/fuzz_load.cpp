// libFuzzer target: load_text, the reader of saved runs (solve_bench_checks' inputs, and the
// rows log --resume reads through finished_rows), on arbitrary bytes. load_error is the only
// exception it may throw, and its message must start with the file's name; anything else
// escaping (another exception, a sanitizer report, a hang) stops the fuzzer as a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/load.hpp"

namespace {

namespace sb = solvebench::bench;

const std::string file_name = "fuzz.rows.jsonl";

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_load: %s\n", what.c_str());
  std::abort();
}

// What the checks do with a loaded run before they judge it: ids written to the sidecars and
// read back, integer axes, medians and noise.
void use(const sb::run_summary& run) {
  for (const auto& r : run.rows) {
    const sb::row_id back = sb::row_id_from_json(sb::to_json(r.id));
    if (back != r.id) bug("row '" + r.name + "': its id reads back from JSON as '" + back.name() + "'");
    for (const char* axis : {"batch", "gpus", "tile", "ranks", "nb"}) (void)r.int_axis(axis);
    (void)r.median_ms();
    (void)r.noise_pct();
    (void)r.passed();
  }
}

void load(const std::string& text) {
  sb::run_summary run;
  try {
    sb::load_text(run, file_name, text);
  } catch (const sb::load_error& e) {
    const std::string message = e.what();
    if (message.rfind(file_name + ":", 0) != 0) bug("a rejection that does not name the file: " + message);
    if (message.find_first_not_of(" 0123456789:", file_name.size()) == std::string::npos)
      bug("a rejection that names no problem: " + message);
    return;
  }
  use(run);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  load(text);
  // finished_rows (--resume) cuts a torn last line off, then loads what is left if anything.
  const auto last = text.rfind('\n');
  if (last != std::string::npos && last + 1 < text.size()) {
    const std::string kept = text.substr(0, last + 1);
    if (kept.find_first_not_of(" \t\r\n") != std::string::npos) load(kept);
  }
  return 0;
}
