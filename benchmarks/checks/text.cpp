// Number and sentence formatting for the checks.
#include "checks/text.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace solvebench::bench {

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char buf[512];
  const int len = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (len < 0) return {};
  if (static_cast<std::size_t>(len) < sizeof buf) return std::string(buf, static_cast<std::size_t>(len));
  std::string out(static_cast<std::size_t>(len) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(out.data(), out.size(), fmt, args);
  va_end(args);
  out.pop_back();
  return out;
}

std::string sig3(std::optional<double> x) {
  if (!x || !std::isfinite(*x)) return "–";
  if (*x == 0) return "0";
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(*x)))));
  return format("%.*f", decimals, *x);
}

std::string whole(double x) { return format("%.0f", x); }

std::string times(double x) { return sig3(x) + "×"; }

std::string percent(double fraction) { return sig3(100.0 * fraction) + "%"; }

std::string plain(double x) {
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
  const double a = std::fabs(x);
  if (a != 0 && (a < 1e-3 || a >= 1e6)) return format("%.2g", x);
  return sig3(x);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  const std::size_t lead = text.find_first_not_of(' ');
  if (lead == std::string::npos) return text;
  std::string out, line = text.substr(0, lead);
  bool line_has_word = false;
  std::size_t start = lead;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!word.empty()) {
      if (line_has_word && line.size() + 1 + word.size() > width) {
        out += line + "\n";
        line = indent + word;
      } else {
        line += (line_has_word ? " " : "") + word;
      }
      line_has_word = true;
    }
    start = end + 1;
  }
  return out + line;
}

}  // namespace solvebench::bench
