// RAPL through sysfs: zone discovery, counter reads with their errno, wrap-around.
#include "solvebench/rapl.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <system_error>
#include <utility>

namespace solvebench::rapl {
namespace {

namespace fs = std::filesystem;

// The whole of a small sysfs file, or empty with errno_out set. POSIX calls rather than
// iostreams: the errno (EACCES since Linux 5.10 for non-root) is what the reason is made of.
std::optional<std::string> read_small_file(const std::string& path, int* errno_out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *errno_out = errno;
    return std::nullopt;
  }
  char buf[128];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  const int read_errno = errno;
  ::close(fd);
  if (got < 0) {
    *errno_out = read_errno;
    return std::nullopt;
  }
  std::string text(buf, static_cast<std::size_t>(got));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::optional<std::uint64_t> read_counter(const std::string& path, std::string* why) {
  int err = 0;
  const auto text = read_small_file(path, &err);
  if (!text) {
    if (why) *why = why_unreadable(path, err);
    return std::nullopt;
  }
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(*text, &used);
    if (used == text->size()) return v;
  } catch (const std::exception&) {
  }
  if (why) *why = "RAPL not readable: " + path + " holds '" + *text + "', not a counter";
  return std::nullopt;
}

struct found_zone {
  zone z;
  std::vector<unsigned long> order;  // intel-rapl:0:1 -> {0, 1}: reading order
};

}  // namespace

std::string why_unreadable(const std::string& path, int errno_value) {
  if (errno_value == EACCES || errno_value == EPERM)
    return "RAPL not readable: permission denied on " + path + " (root only since Linux 5.10)";
  return "RAPL not readable: cannot read " + path + ": " + std::strerror(errno_value);
}

std::optional<std::uint64_t> counter_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj) {
  if (after >= before) return after - before;
  if (max_range_uj == 0 || before > max_range_uj) return std::nullopt;
  return (max_range_uj - before) + after;
}

energy_meter::energy_meter(std::string powercap_root) : root_(std::move(powercap_root)) {
  // Names in /sys/class/powercap are flat: intel-rapl:0, intel-rapl:0:0, intel-rapl:1, ...
  static const std::regex zone_name(R"(intel-rapl:(\d+)(?::(\d+))?)");
  std::vector<found_zone> found;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    std::smatch m;
    if (!std::regex_match(entry, m, zone_name)) continue;
    const bool top_level = !m[2].matched;
    int err = 0;
    const std::string name = read_small_file(it->path().string() + "/name", &err).value_or("");
    const bool package = top_level && name.rfind("package-", 0) == 0;
    const bool dram = name == "dram";
    if (!package && !dram) continue;  // core, uncore, psys: contained in (or containing) a package
    found_zone f;
    f.z.path = it->path().string();
    f.z.name = name;
    f.z.dram = dram;
    f.z.max_energy_range_uj = read_counter(f.z.path + "/max_energy_range_uj", nullptr).value_or(0);
    f.order.push_back(std::stoul(m[1].str()));
    if (!top_level) f.order.push_back(std::stoul(m[2].str()));
    found.push_back(std::move(f));
  }
  std::sort(found.begin(), found.end(), [](const found_zone& a, const found_zone& b) { return a.order < b.order; });
  for (auto& f : found) zones_.push_back(std::move(f.z));

  if (std::none_of(zones_.begin(), zones_.end(), [](const zone& z) { return !z.dram; })) {
    zones_.clear();
    reason_ = "RAPL not readable: " + root_ + " has no intel-rapl zones";
    return;
  }
  std::string why;
  if (!read(&why)) {
    zones_.clear();
    reason_ = why;
  }
}

std::optional<reading> energy_meter::read(std::string* why) const {
  if (zones_.empty()) {
    if (why) *why = reason_;
    return std::nullopt;
  }
  reading r;
  r.energy_uj.reserve(zones_.size());
  for (const zone& z : zones_) {
    const auto v = read_counter(z.path + "/energy_uj", why);
    if (!v) return std::nullopt;
    r.energy_uj.push_back(*v);
  }
  return r;
}

std::optional<energy_joules> energy_meter::joules_between(const reading& before, const reading& after,
                                                          std::string* why) const {
  if (before.energy_uj.size() != zones_.size() || after.energy_uj.size() != zones_.size()) {
    if (why) *why = "RAPL readings do not match the meter's zones";
    return std::nullopt;
  }
  energy_joules e;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    const zone& z = zones_[i];
    const auto uj = counter_delta_uj(before.energy_uj[i], after.energy_uj[i], z.max_energy_range_uj);
    if (!uj) {
      if (why) *why = "RAPL counter " + z.path + "/energy_uj went backwards and its max_energy_range_uj is unknown";
      return std::nullopt;
    }
    const double joules = static_cast<double>(*uj) * 1e-6;
    if (z.dram) e.dram = e.dram.value_or(0.0) + joules;
    else e.package += joules;
  }
  return e;
}

std::vector<std::pair<std::string, std::string>> energy_facts(const std::string& powercap_root) {
  const energy_meter meter(powercap_root);
  if (!meter.readable()) return {{"cpu_energy", meter.unavailable_reason()}};
  std::string names;
  for (const auto& z : meter.zones()) names += (names.empty() ? "" : ", ") + z.name;
  return {{"cpu_energy", "RAPL: " + names}};
}

}  // namespace solvebench::rapl
