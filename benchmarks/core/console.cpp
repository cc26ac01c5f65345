// The display on stdout: a table with one header (console) or Google Benchmark's JSON document.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "checks/output.hpp"
#include "checks/text.hpp"
#include "core/printers.hpp"

namespace solvebench::bench {
namespace {

std::optional<double> get(const json& e, const char* key) {
  const auto it = e.find(key);
  if (it == e.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// 1.23 s, 45.6 ms, 789 us, 12.3 ns: a unit that shows three digits.
std::string time_text(double ns) {
  if (!(ns >= 0)) return "–";
  if (ns >= 1e9) return sig3(ns / 1e9) + " s";
  if (ns >= 1e6) return sig3(ns / 1e6) + " ms";
  if (ns >= 1e3) return sig3(ns / 1e3) + " us";
  return sig3(ns) + " ns";
}

double to_ns(const json& e) {
  const auto t = get(e, "real_time");
  if (!t) return std::nan("");
  static const std::map<std::string, double> ns_per = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const auto unit = e.value("time_unit", std::string("ns"));
  return *t * (ns_per.count(unit) ? ns_per.at(unit) : 1);
}

// Lines stay within this many characters, more only where a row's name is longer than its column.
constexpr std::size_t console_width = 100;

// `line` followed by `words`, one space apart; a word that would take the line past `first_limit`
// (later lines: console_width) starts a new line indented by `indent`.
std::string flow(std::string line, const std::vector<std::string>& words, std::size_t first_limit, std::size_t indent) {
  std::string out;
  bool bare = true;  // the line holds none of `words` yet
  for (const auto& w : words) {
    const std::size_t limit = out.empty() ? first_limit : console_width;
    if (line.size() + 1 + w.size() > limit && !(bare && !out.empty())) {
      out += line + "\n";
      line = std::string(indent, ' ');
      bare = true;
    }
    line += (bare && !out.empty() ? "" : " ") + w;
    bare = false;
  }
  return out + line;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What a row measures beside its time, in a few words each.
std::vector<std::string> notes_of(const json& e) {
  std::vector<std::string> out;
  if (const auto v = get(e, "fwd_err")) out.push_back("fwd_err " + plain(*v));
  if (const auto v = get(e, "niters")) out.push_back("iters " + format("%.0f", *v));
  if (const auto v = get(e, "fell_back"); v && *v >= 1) out.push_back("fell back to fp64");
  if (const auto v = get(e, "xfer_share")) out.push_back("transfers " + percent(*v));
  if (const auto v = get(e, "systems/s")) out.push_back(sig3(*v / 1e6) + " Msystems/s");
  if (const auto v = get(e, "worst_system")) out.push_back("worst system " + format("%.0f", *v));
  if (const auto v = get(e, "J/solve")) out.push_back(sig3(*v) + " J/solve");
  if (const auto v = get(e, "restore_pct"); v && *v > 50) out.push_back("restore " + sig3(*v) + "% of wall");
  for (std::size_t i = 0; i + 1 < out.size(); ++i) out[i] += ",";
  return out;
}

class console_printer final : public printer {
 public:
  console_printer(const display_options& o, std::ostream& out) : o_(o), out_(out), header_(o.continued) {}
  void rows(const std::vector<row_entry>& runs) override {
    for (const auto& r : runs) {
      if (o_.aggregates_only && !r.aggregate && !r.failed) continue;
      if (!header_) print_header();
      out_ << line(r) << "\n";
    }
    out_.flush();
  }

 private:
  void print_header() {
    header_ = true;
    const std::string head = pad("row", o_.name_width) + " " + right("time", 9) + " " + right("±noise", 8) + " " +
                             right("calls", 6) + " " + right("GFLOP/s", 9) + " " + right("resid", 8) + "  notes";
    out_ << head << "\n" << std::string(console_width, '-') << "\n";
  }
  static std::string pad(std::string s, std::size_t w) {
    if (s.size() < w) s.resize(w, ' ');
    return s;
  }
  static std::string right(const std::string& s, std::size_t w) {
    return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
  }
  std::string line(const row_entry& r) const {
    const json& e = r.entry;
    std::string name = r.name;
    if (r.aggregate) name += " " + e.value("aggregate_name", std::string());
    const std::string shown = name.size() > o_.name_width ? name : pad(name, o_.name_width);
    const std::size_t limit = console_width + shown.size() - o_.name_width;
    if (r.failed) {
      const std::string msg = e.value("error_message", std::string("failed"));
      return flow(shown + " " + (o_.color ? "\033[31m" : "") + "ERROR", words_of(msg), limit, o_.name_width + 7) +
             (o_.color ? "\033[0m" : "");
    }
    if (r.aggregate && e.value("aggregate_unit", std::string()) == "percentage") {
      const auto cv = get(e, "real_time");
      return shown + " " + right(cv ? percent(*cv) : "–", 9);
    }
    const auto noise = get(e, "noise_pct");
    const auto rate = get(e, "GFLOP/s");
    const auto resid = get(e, "resid");
    const auto calls = get(e, "iterations");
    const std::string columns =
        shown + " " + right(time_text(to_ns(e)), 9) + " " + right(noise ? "±" + sig3(*noise) + "%" : "", 8) + " " +
        right(calls && !r.aggregate ? format("%.0f", *calls) : "", 6) + " " + right(rate ? sig3(*rate) : "", 9) + " " +
        right(resid && !r.aggregate ? plain(*resid) : "", 8) + " ";
    // The notes may take a row's line 20 characters further, so that its numbers and its notes
    // mostly share one line; what is left of them continues below. ±: one column, two bytes.
    return flow(columns, notes_of(e), limit + 20 + (noise ? 1 : 0), o_.name_width + 1);
  }

  display_options o_;
  std::ostream& out_;
  bool header_ = false;
};

// --benchmark_format=json: Google Benchmark's document on stdout, once the run is over.
class json_printer final : public printer {
 public:
  json_printer(const display_options& o, std::ostream& out) : o_(o), out_(out) {}
  void context(const json& c) override { doc_["context"] = c; }
  void rows(const std::vector<row_entry>& runs) override {
    for (const auto& r : runs)
      if (!o_.aggregates_only || r.aggregate || r.failed) benchmarks_.push_back(r.entry);
  }
  void finish() override {
    doc_["benchmarks"] = benchmarks_;
    out_ << json_text(doc_, 2) << std::endl;
  }

 private:
  display_options o_;
  std::ostream& out_;
  json doc_ = json::object();
  json benchmarks_ = json::array();
};

}  // namespace

std::unique_ptr<printer> make_display(const display_options& o, std::ostream& out) {
  if (o.format == "json") return std::make_unique<json_printer>(o, out);
  return std::make_unique<console_printer>(o, out);
}

}  // namespace solvebench::bench
