// Progress on stderr, as nvbench says it: "Run:" when a row's round starts, "Pass:" (or "Fail:",
// "Skip:") when it ends, with [k/N] over the run's row-rounds, the elapsed time and an ETA from
// the rounds' expected times (core/rounds.hpp). On a terminal one line is redrawn in place.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "checks/load.hpp"
#include "checks/text.hpp"
#include "core/printers.hpp"

namespace solvebench::bench {
namespace {

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);  // seconds >= 0: half up
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// A row-round that should take at least this many seconds says when it starts, in lines mode too.
constexpr double announced_s = 1.0;

class progress_printer final : public printer {
 public:
  progress_printer(const progress_options& o, std::function<progress_count()> count,
                   std::function<double(const std::string&)> expected)
      : o_(o), count_(std::move(count)), expected_(std::move(expected)) {
    const bool tty = isatty(STDERR_FILENO) != 0;
    redraw_ = o_.mode == "auto" && tty;
    lines_ = o_.mode == "lines" || (o_.mode == "auto" && !tty);
  }
  void starts(const std::string& row) override {
    if (!redraw_ && !lines_) return;
    const progress_count c = count_();
    const std::string head = "[" + std::to_string(c.done + 1) + "/" + std::to_string(c.total) + "] ";
    if (redraw_) draw(head + timing(c) + "  Run:  " + row);
    else if (expected_(row) >= announced_s)
      std::cerr << "Run:  " << head << row << " (about " << clock_text(expected_(row)) << ")\n" << std::flush;
  }
  void rows(const std::vector<row_entry>& runs) override {
    for (const auto& r : runs) {
      if (r.aggregate) continue;
      const progress_count c = count_();
      const json& e = r.entry;
      std::string where = "[" + std::to_string(c.done) + "/" + std::to_string(c.total) + "] " + r.name + ", round " +
                          std::to_string(e.value("round", 0) + 1) + "/" + std::to_string(e.value("rounds", 1));
      if (e.value("processes", 1) > 1)
        where +=
            " of process " + std::to_string(e.value("process", 0) + 1) + "/" + std::to_string(e.value("processes", 1));
      if (r.failed) {  // said in every mode: an error is never hidden with the progress
        const std::string message = e.value("error_message", std::string("failed"));
        const bool refused = message.rfind(refusal_prefix, 0) == 0;
        clear();
        std::cerr << (refused ? "Skip: " : "Fail: ") << where << ": " << message << "\n" << std::flush;
        continue;
      }
      if (!redraw_ && !lines_) continue;
      std::string result = time_text(e.value("real_time", 0.0));
      if (e.contains("noise_within_pct") && e.at("noise_within_pct").is_number())
        result += " (±" + sig3(e.at("noise_within_pct").get<double>()) + "% within the round)";
      const std::string text = "Pass: " + where + ": " + result + ", " + timing(c);
      if (redraw_) draw(text);
      else std::cerr << text << "\n" << std::flush;
    }
  }
  void finish() override { clear(); }

 private:
  std::string timing(const progress_count& c) const {
    const double elapsed = epoch_now() - o_.started_epoch_s;
    return clock_text(elapsed) + " elapsed, ETA " + (c.remaining_s >= 0 ? clock_text(c.remaining_s) : "?");
  }
  // One line, in place: cut to the terminal's width so that it never wraps.
  void draw(std::string text) {
    winsize w{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 1 && text.size() >= w.ws_col) text.resize(w.ws_col - 1);
    std::cerr << "\r" << text << "\033[K" << std::flush;
    drawn_ = true;
  }
  void clear() {
    if (drawn_) std::cerr << "\r\033[K" << std::flush;
    drawn_ = false;
  }

  progress_options o_;
  std::function<progress_count()> count_;
  std::function<double(const std::string&)> expected_;
  bool redraw_ = false, lines_ = false, drawn_ = false;
};

}  // namespace

double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<printer> make_progress(const progress_options& o, std::function<progress_count()> count,
                                       std::function<double(const std::string& row)> expected_s) {
  return std::make_unique<progress_printer>(o, std::move(count), std::move(expected_s));
}

}  // namespace solvebench::bench
