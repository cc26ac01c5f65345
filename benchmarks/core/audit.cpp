// The audit's rules, one function each, and the table that runs them.
#include "core/audit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace solvebench::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Reading rows and context

// "dgesv" -> {'d', "gesv"}; nothing for mixed precision ("dhgesv"), batched ("dgesv_batched")
// or anything else the rules below do not compare.
struct plain_op {
  char precision;
  std::string base;
};

std::optional<plain_op> parse_plain_op(const row_record& r) {
  static const std::set<std::string> bases = {"gesv", "posv", "getrf", "getrs", "potrf", "potrs", "gemm"};
  if (r.op.size() < 2 || std::string("sdcz").find(r.op[0]) == std::string::npos) return std::nullopt;
  if (!bases.count(r.op.substr(1)) || r.axis("batch")) return std::nullopt;
  return plain_op{r.op[0], r.op.substr(1)};
}

// "GPU-pinned" -> "GPU", "CPU-driver" -> "CPU": the device a row's numbers come from.
std::string device_family(const std::string& backend) { return backend.substr(0, backend.find('-')); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The axes beyond n and nrhs (ranks, nb, gpus, tile, ...): rows compare only when these agree.
std::vector<std::pair<std::string, std::string>> other_axes(const row_record& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& a : r.axes)
    if (a.first != "n" && a.first != "nrhs") out.push_back(a);
  std::sort(out.begin(), out.end());
  return out;
}

bool cpu_side(const row_record& r) {
  const std::string f = device_family(r.backend);
  return f == "CPU" || f == "MPI";
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<double> to_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::istringstream in(s);
  double v = 0;
  if (!(in >> v) || !std::isfinite(v)) return std::nullopt;
  return v;
}

// 936, 10.6, 0.36: three significant figures without an exponent.
std::string num(double x) {
  char buf[64];
  const double a = std::fabs(x);
  const bool whole = a < 1e15 && x == std::floor(x);
  std::snprintf(buf, sizeof buf, whole || a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", x);
  return buf;
}

std::string percent(double fraction) { return num(100.0 * fraction) + "%"; }

struct rule_input {
  const run_summary& run;
  std::vector<const row_record*> rows;  // the rows that finished; errored rows feed no rule

  std::string context(const std::string& key) const {
    const auto it = run.context.find(key);
    return it == run.context.end() ? std::string() : it->second;
  }
  std::vector<const row_record*> cpu_rows() const {
    std::vector<const row_record*> out;
    for (const auto* r : rows)
      if (cpu_side(*r)) out.push_back(r);
    return out;
  }
  // The row with this backend, op, n and other axes, and nrhs when given.
  const row_record* find(const std::string& backend, const std::string& op, long long n,
                         std::optional<long long> nrhs,
                         const std::vector<std::pair<std::string, std::string>>& others) const {
    for (const auto* r : rows)
      if (r->backend == backend && r->op == op && r->int_axis("n") == n &&
          (!nrhs || r->int_axis("nrhs") == nrhs) && other_axes(*r) == others)
        return r;
    return nullptr;
  }
};

// A rule adds its findings, or returns why it could not look at this run.
using rule_check = std::optional<std::string> (*)(const rule_input&, std::vector<finding>&);

// ---------------------------------------------------------------------------------------------
// Rules: the rows against each other

// ?gesv (or X-driver/?gesv) against ?getrf + ?getrs on backend X; ?posv against ?potrf + ?potrs.
std::optional<std::string> driver_vs_halves(const rule_input& in, std::vector<finding>& out) {
  constexpr double limit = 1.25;
  for (const auto* d : in.rows) {
    const auto op = parse_plain_op(*d);
    if (!op || (op->base != "gesv" && op->base != "posv")) continue;
    const auto n = d->int_axis("n"), nrhs = d->int_axis("nrhs");
    if (!n || !nrhs) continue;
    const std::string halves_backend =
        ends_with(d->backend, "-driver") ? d->backend.substr(0, d->backend.size() - 7) : d->backend;
    const bool lu = op->base == "gesv";
    const std::string p(1, op->precision);
    const auto others = other_axes(*d);
    const auto* f = in.find(halves_backend, p + (lu ? "getrf" : "potrf"), *n, std::nullopt, others);
    const auto* s = in.find(halves_backend, p + (lu ? "getrs" : "potrs"), *n, *nrhs, others);
    if (!f || !s) continue;
    const double halves_ms = f->median_ms() + s->median_ms(), driver_ms = d->median_ms();
    if (!(driver_ms > limit * halves_ms)) continue;

    std::string msg = d->name + " takes " + num(driver_ms) + " ms, " + num(driver_ms / halves_ms) +
                      "x the " + num(halves_ms) + " ms of its halves " + f->name + " (" + num(f->median_ms()) +
                      " ms) + " + s->name + " (" + num(s->median_ms()) + " ms).";
    if (device_family(halves_backend) == "CPU") {
      const std::string vendor = in.context("blas_vendor"), version = in.context("blas_version");
      msg += " Library: " + (vendor.empty() ? std::string("unknown BLAS") : vendor) +
             (version.empty() ? std::string(" (version unknown)") : " " + version) + ".";
      // The library's driver can only be the cause where the row calls it (CPU-driver/...):
      // CPU/?gesv calls the two halves itself, back to back.
      const bool calls_driver = ends_with(d->backend, "-driver");
      const std::string cause =
          lu && calls_driver ? known_driver_cause(vendor, version, op->precision, *n, *nrhs) : "";
      msg += !calls_driver ? " This row calls the two halves itself, back to back, so the library's driver is not "
                             "the cause: the gap is between timing them together and apart."
             : cause.empty() ? " No known cause for this library and size."
                             : " " + cause;
    }
    out.push_back({"driver_vs_halves", severity_warning, {d->name, f->name, s->name}, msg});
  }
  return std::nullopt;
}

// A solve or factorization cannot outrun the GEMM it is made of on the same device.
std::optional<std::string> faster_than_gemm(const rule_input& in, std::vector<finding>& out) {
  constexpr double tolerance = 1.05;
  for (const auto* r : in.rows) {
    const auto op = parse_plain_op(*r);
    if (!op || op->base == "gemm") continue;
    const auto n = r->int_axis("n");
    const auto rate = r->counter("GFLOP/s");
    if (!n || !rate) continue;
    auto others = other_axes(*r);  // the matrix kind changes no ceiling
    others.erase(std::remove_if(others.begin(), others.end(), [](const auto& a) { return a.first == "kind"; }),
                 others.end());
    const auto* g = in.find(device_family(r->backend), std::string(1, op->precision) + "gemm", *n, std::nullopt,
                            others);
    const auto gemm_rate = g ? g->counter("GFLOP/s") : std::nullopt;
    if (!gemm_rate || !(*rate > tolerance * *gemm_rate)) continue;
    out.push_back({"faster_than_gemm", severity_timing_bug, {r->name, g->name},
                   r->name + " reports " + num(*rate) + " GFLOP/s, " + percent(*rate / *gemm_rate - 1) +
                       " above " + g->name + " (" + num(*gemm_rate) +
                       " GFLOP/s): a solve or factorization cannot outrun the GEMM it is built on, so "
                       "the timed region or the flop count is wrong."});
  }
  return std::nullopt;
}

std::optional<std::string> transfer_faster_than_bus(const rule_input& in, std::vector<finding>& out) {
  std::vector<const row_record*> transfers;
  for (const auto* r : in.rows)
    if (r->counter("xfer_GB/s")) transfers.push_back(r);
  if (transfers.empty()) return std::nullopt;
  const auto ceiling = to_number(in.context("gpu_pcie_max_GBps"));
  if (!ceiling || *ceiling <= 0)
    return "the bus ceiling is unknown (context gpu_pcie_max_GBps is empty); " +
           std::to_string(transfers.size()) + " transfer row" + (transfers.size() == 1 ? "" : "s") + " not checked";
  for (const auto* r : transfers) {
    const double rate = *r->counter("xfer_GB/s");
    if (rate > *ceiling)
      out.push_back({"transfer_faster_than_bus", severity_timing_bug, {r->name},
                     r->name + " moves " + num(rate) + " GB/s, above the bus's one-direction ceiling of " +
                         num(*ceiling) + " GB/s (" + in.context("gpu_name") +
                         "): the transfer was not all timed, or its byte count is wrong."});
  }
  return std::nullopt;
}

// GPU-pinned / GPU-pageable rows do the device-resident row's work plus transfers.
std::optional<std::string> transfer_faster_than_resident(const rule_input& in, std::vector<finding>& out) {
  constexpr double noise = 1.03;
  for (const auto* r : in.rows) {
    if (r->backend.rfind("GPU-", 0) != 0) continue;
    const auto n = r->int_axis("n");
    if (!n) continue;
    const auto* twin = in.find("GPU", r->op, *n, r->int_axis("nrhs"), other_axes(*r));
    if (!twin || twin->axis("nrhs").has_value() != r->axis("nrhs").has_value()) continue;
    const double t = r->median_ms(), resident = twin->median_ms();
    if (!(resident > noise * t)) continue;
    out.push_back({"transfer_faster_than_resident", severity_timing_bug, {r->name, twin->name},
                   r->name + " takes " + num(t) + " ms, " + percent(1 - t / resident) + " less than its device-resident twin " +
                       twin->name + " (" + num(resident) +
                       " ms), although it does the same work plus the transfers: one of the two is timed wrong."});
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Rules: the machine. Their findings name no rows: they concern every CPU number of the run,
// which tools/report and the verdict show as caveats on the whole run.

std::string rows_phrase(std::size_t n) { return std::to_string(n) + " CPU row" + (n == 1 ? "" : "s"); }

std::optional<std::string> blas_threads(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  if (rows.empty()) return std::nullopt;
  const auto threads = to_number(in.context("blas_threads")), cores = to_number(in.context("cores_available"));
  if (!threads || !cores) return std::string("blas_threads or cores_available is missing from the context");
  if (*threads < *cores)
    out.push_back({"blas_threads", severity_warning, {},
                   "The BLAS runs " + num(*threads) + " thread" + (*threads == 1 ? "" : "s") + " but " + num(*cores) +
                       " cores are available to this process: the " + rows_phrase(rows.size()) +
                       " measure part of the machine."});
  return std::nullopt;
}

std::optional<std::string> thread_env(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  const std::string vars = in.context("thread_env");
  if (rows.empty() || vars.empty()) return std::nullopt;
  std::string listed = vars;
  std::replace(listed.begin(), listed.end(), ';', ' ');
  out.push_back({"thread_env", severity_warning, {},
                 "Set in the environment: " + listed + ". " +
                     (listed.find(' ') == std::string::npos ? "It overrides" : "They override") +
                     " the thread count or core type the BLAS would choose for itself, for the " +
                     rows_phrase(rows.size()) + "."});
  return std::nullopt;
}

std::optional<std::string> cpu_frequency_scaling(const rule_input& in, std::vector<finding>& out) {
  const auto rows = in.cpu_rows();
  if (rows.empty()) return std::nullopt;
  const std::string scaling = in.context("cpu_scaling_enabled"), governors = in.context("cpu_governor");
  std::vector<std::string> why;
  if (scaling == "true") why.push_back("Google Benchmark reports CPU frequency scaling enabled");
  std::string other;
  std::istringstream list(governors);
  for (std::string g; std::getline(list, g, ',');)
    if (!g.empty() && g != "performance") other += (other.empty() ? "" : ", ") + g;
  if (!other.empty()) why.push_back("the cpufreq governor is " + other + ", not performance");
  if (why.empty()) return std::nullopt;
  std::string msg = why[0];
  for (std::size_t i = 1; i < why.size(); ++i) msg += "; " + why[i];
  msg[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(msg[0])));
  out.push_back({"cpu_frequency_scaling", severity_warning, {},
                 msg + ": the clock may change under the " + rows_phrase(rows.size()) + "."});
  return std::nullopt;
}

std::optional<std::string> gbench_debug_build(const rule_input& in, std::vector<finding>& out) {
  if (lower(in.context("library_build_type")) != "debug") return std::nullopt;
  out.push_back({"gbench_debug_build", severity_note, {},
                 "The Google Benchmark library is a debug build. solve_bench's rows use manual timing (CUDA "
                 "events or a steady clock around the solver call only), so Google Benchmark's own code never "
                 "runs inside a timed region and its build type does not change the numbers; it can only slow "
                 "the bookkeeping between iterations."});
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Rules: the GPU's state and the noise, row by row

std::uint64_t all_bits(const row_record& r, const std::string& key) {
  std::uint64_t bits = 0;
  const auto it = r.counters.find(key);
  if (it != r.counters.end())
    for (double v : it->second)
      if (v >= 0 && std::isfinite(v)) bits |= static_cast<std::uint64_t>(v);
  return bits;
}

std::optional<std::string> gpu_throttled(const rule_input& in, std::vector<finding>& out) {
  // NVML clocks-event reasons that slow the SM clock; the others (idle, sync boost, ...) do not.
  struct reason {
    std::uint64_t bit;
    const char* name;
    bool warning;
  };
  static const reason reasons[] = {{0x4, "SwPowerCap", false},
                                   {0x8, "HwSlowdown", true},
                                   {0x20, "SwThermalSlowdown", true},
                                   {0x40, "HwThermalSlowdown", true},
                                   {0x80, "HwPowerBrakeSlowdown", true}};
  constexpr double max_clock_drop = 0.10;
  for (const auto* r : in.rows) {
    const std::uint64_t bits = all_bits(*r, "throttle_start") | all_bits(*r, "throttle_end");
    std::vector<std::string> parts;
    bool warning = false;
    for (const auto& why : reasons)
      if (bits & why.bit) {
        parts.push_back(why.name);
        warning = warning || why.warning;
      }
    const auto start = r->counter("sm_clock_start_MHz"), end = r->counter("sm_clock_end_MHz");
    std::string clocks;
    if (start && end && *start > 0) {
      clocks = "SM clock " + num(*start) + " -> " + num(*end) + " MHz";
      if (*end < (1 - max_clock_drop) * *start) {
        parts.push_back(clocks + " (" + percent(*end / *start - 1) + ")");
        warning = true;
        clocks.clear();
      }
    }
    if (parts.empty()) continue;
    std::string msg = r->name + (warning ? " was slowed: " : " was power-capped: ");
    for (std::size_t i = 0; i < parts.size(); ++i) msg += (i ? ", " : "") + parts[i];
    if (!clocks.empty()) msg += "; " + clocks;
    out.push_back({"gpu_throttled", warning ? severity_warning : severity_note, {r->name}, msg + "."});
  }
  return std::nullopt;
}

std::optional<std::string> gpu_shared(const rule_input& in, std::vector<finding>& out) {
  for (const auto* r : in.rows) {
    const auto it = r->counters.find("other_processes");
    if (it == r->counters.end() || it->second.empty()) continue;
    const double most = *std::max_element(it->second.begin(), it->second.end());
    if (most > 0)
      out.push_back({"gpu_shared", severity_warning, {r->name},
                     r->name + " shared the GPU with " + num(most) + " other process" + (most == 1 ? "" : "es") +
                         ": its time may include theirs."});
  }
  return std::nullopt;
}

std::optional<std::string> noisy_row(const rule_input& in, std::vector<finding>& out) {
  constexpr double max_cv = 0.05;
  for (const auto* r : in.rows) {
    const auto& t = r->times_ms;
    if (t.size() < 3) continue;
    double mean = 0;
    for (double x : t) mean += x;
    mean /= static_cast<double>(t.size());
    double ss = 0;
    for (double x : t) ss += (x - mean) * (x - mean);
    const double cv = std::sqrt(ss / static_cast<double>(t.size() - 1)) / mean;
    if (!(cv > max_cv)) continue;
    const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
    out.push_back({"noisy_row", severity_warning, {r->name},
                   r->name + " varies by " + percent(cv) + " (coefficient of variation over " +
                       std::to_string(t.size()) + " repetitions, " + num(*lo) + " to " + num(*hi) + " ms)."});
  }
  return std::nullopt;
}

struct rule {
  const char* id;
  rule_check check;
};

const rule rules[] = {
    {"driver_vs_halves", driver_vs_halves},
    {"faster_than_gemm", faster_than_gemm},
    {"transfer_faster_than_bus", transfer_faster_than_bus},
    {"transfer_faster_than_resident", transfer_faster_than_resident},
    {"blas_threads", blas_threads},
    {"thread_env", thread_env},
    {"cpu_frequency_scaling", cpu_frequency_scaling},
    {"gbench_debug_build", gbench_debug_build},
    {"gpu_throttled", gpu_throttled},
    {"gpu_shared", gpu_shared},
    {"noisy_row", noisy_row},
};

// ---------------------------------------------------------------------------------------------
// Output

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + json_string(v[i]);
  return out + "]";
}

std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

std::string known_driver_cause(const std::string& vendor, const std::string& version, char precision, long long n,
                               long long nrhs) {
  if (lower(vendor).find("openblas") == std::string::npos) return "";
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return "";
  const auto v = std::make_tuple(major, minor, patch);
  const bool confirmed = v >= std::make_tuple(0, 3, 26) && v <= std::make_tuple(0, 3, 29);
  const bool likely = v >= std::make_tuple(0, 3, 30) && v < std::make_tuple(0, 3, 34);
  // interface/lapack/gesv.c: one thread below 10000 (double, double complex) or 40000 (single).
  const long long threshold = (precision == 'd' || precision == 'z') ? 10000 : 40000;
  if (!(confirmed || likely) || n * nrhs >= threshold || n * n < threshold) return "";
  const std::string p(1, precision);
  return std::string(confirmed ? "Known cause: " : "Likely cause: ") + "OpenBLAS " +
         (confirmed ? "0.3.26 to at least 0.3.29" : "0.3.26 to at least 0.3.29 (not established for " + version + ")") +
         " runs " + p + "gesv on one thread when n * nrhs < " + std::to_string(threshold) +
         ": interface/lapack/gesv.c multiplies n by the number of right-hand sides where it means n * n; here n * "
         "nrhs = " +
         std::to_string(n * nrhs) + ". The threshold came in 0.3.26 (OpenBLAS PR 4388); fixed by 0.3.34. " + p +
         "getrf + " + p + "getrs keep all threads, which is why solve_bench's CPU/" + p + "gesv row times them.";
}

bool audit_report::clean() const {
  return std::none_of(findings.begin(), findings.end(), [](const finding& f) { return f.severity != severity_note; });
}

std::vector<std::string> audit_rule_ids() {
  std::vector<std::string> ids;
  for (const auto& r : rules) ids.emplace_back(r.id);
  return ids;
}

audit_report run_audit(const run_summary& run) {
  rule_input in{run, {}};
  for (const auto& r : run.rows)
    if (r.ok()) in.rows.push_back(&r);
  audit_report report;
  report.rows_checked = in.rows.size();
  for (const auto& r : rules) {
    if (auto why_not = r.check(in, report.findings)) report.rules_skipped.push_back({r.id, *why_not});
    else report.rules_checked.emplace_back(r.id);
  }
  return report;
}

std::string audit_console(const audit_report& report) {
  constexpr std::size_t shown_per_rule = 5;
  std::map<std::string, std::size_t> by_severity;
  for (const auto& f : report.findings) ++by_severity[f.severity];
  const std::string scope =
      count(report.rules_checked.size(), "rule") + " checked on " + count(report.rows_checked, "row");
  std::string out = "audit: ";
  if (report.clean()) {
    out += "clean: " + scope;
    if (by_severity[severity_note]) out += "; " + count(by_severity[severity_note], "note");
  } else {
    std::vector<std::string> tally;
    if (by_severity[severity_timing_bug]) tally.push_back(count(by_severity[severity_timing_bug], "timing bug"));
    if (by_severity[severity_warning]) tally.push_back(count(by_severity[severity_warning], "warning"));
    if (by_severity[severity_note]) tally.push_back(count(by_severity[severity_note], "note"));
    for (std::size_t i = 0; i < tally.size(); ++i) out += (i ? ", " : "") + tally[i];
    out += " (" + scope + ")";
  }
  out += "\n";
  std::map<std::string, std::size_t> per_rule, shown;
  for (const auto& f : report.findings) ++per_rule[f.rule];
  for (const auto& f : report.findings) {
    const std::size_t k = ++shown[f.rule];
    if (k <= shown_per_rule) out += "  " + f.severity + " " + f.rule + ": " + f.message + "\n";
    if (k == shown_per_rule + 1)
      out += "  ... " + count(per_rule[f.rule] - shown_per_rule, "more " + f.rule + " finding") + " in the JSON\n";
  }
  for (const auto& s : report.rules_skipped) out += "  not checked: " + s.rule + ": " + s.reason + "\n";
  return out;
}

std::string audit_json_object(const audit_report& report) {
  std::string out = "{\"clean\": ";
  out += report.clean() ? "true" : "false";
  out += ", \"rules_checked\": " + json_strings(report.rules_checked) + ", \"rules_skipped\": [";
  for (std::size_t i = 0; i < report.rules_skipped.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"rule\": " + json_string(report.rules_skipped[i].rule) +
           ", \"reason\": " + json_string(report.rules_skipped[i].reason) + "}";
  out += "], \"rows_checked\": " + std::to_string(report.rows_checked) + ", \"findings\": [";
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const auto& f = report.findings[i];
    out += std::string(i ? ", " : "") + "{\"rule\": " + json_string(f.rule) + ", \"severity\": " +
           json_string(f.severity) + ", \"rows\": " + json_strings(f.rows) + ", \"message\": " +
           json_string(f.message) + "}";
  }
  return out + "]}";
}

std::string audit_json(const audit_report& report) { return "{\"audit\": " + audit_json_object(report) + "}"; }

}  // namespace solvebench::bench
