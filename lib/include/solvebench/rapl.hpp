// RAPL (Running Average Power Limit): the energy counters of the CPU packages and their DRAM,
// as Linux's powercap driver shows them under /sys/class/powercap (intel-rapl zones; AMD's
// RAPL driver registers under the same name).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace solvebench::rapl {

// One counter the meter reads: a top-level package zone ("package-0") or a DRAM zone.
struct zone {
  std::string path;                       // .../intel-rapl:0 (its energy_uj is read)
  std::string name;                       // the zone's own `name` file
  bool dram = false;                      // DRAM energy; else a package's
  std::uint64_t max_energy_range_uj = 0;  // where energy_uj wraps to 0; 0 when unknown
};

// energy_uj of each zone, in zones() order.
struct reading {
  std::vector<std::uint64_t> energy_uj;
};

struct energy_joules {
  double package = 0;
  std::optional<double> dram;  // empty where no DRAM zone exists
  double total() const noexcept { return package + dram.value_or(0.0); }
};

// Finds the zones once; readable() when each one's energy_uj could be read then.
//
// Counted: top-level zones intel-rapl:N named package-*, and any zone named dram. Not counted,
// so nothing is counted twice: core/uncore sub-zones (inside their package), psys (the whole
// SoC, which contains the packages), and intel-rapl-mmio:* (a second interface to package-0).
// The counters are machine-wide: they include whatever else ran on the packages meanwhile.
class energy_meter {
 public:
  explicit energy_meter(std::string powercap_root = "/sys/class/powercap");

  bool readable() const noexcept { return reason_.empty(); }
  // "RAPL not readable: ..." when !readable(), else empty.
  const std::string& unavailable_reason() const noexcept { return reason_; }
  const std::vector<zone>& zones() const noexcept { return zones_; }

  // Reads every zone's counter; empty (and `why` set) when one cannot be read.
  std::optional<reading> read(std::string* why = nullptr) const;
  // Energy between two readings; empty (and `why` set) when a counter went backwards by more
  // than one wrap can explain (the zone's range is unknown) or the readings do not match.
  std::optional<energy_joules> joules_between(const reading& before, const reading& after,
                                              std::string* why = nullptr) const;

 private:
  std::string root_;
  std::vector<zone> zones_;
  std::string reason_;
};

// The run's context key cpu_energy: "RAPL: package-0, dram" (the zones counted) when the meter
// can read them, else why not ("RAPL not readable: ..."), so that a verdict without the CPU's
// energy can say why.
std::vector<std::pair<std::string, std::string>> energy_facts(const std::string& powercap_root = "/sys/class/powercap");

// Microjoules counted from `before` to `after` on a counter that wraps to 0 past
// `max_range_uj`, assuming at most one wrap (the usual range, about 262 kJ, lasts some 9 minutes
// at 500 W; a row's loop is far shorter). Empty when after < before and the range is unknown (0)
// or does not contain `before`.
std::optional<std::uint64_t> counter_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj);

// The sentence for an energy_uj that open()/read() refused with `errno_value`.
std::string why_unreadable(const std::string& path, int errno_value);

}  // namespace solvebench::rapl
