// How the checks write numbers and sentences: one formatting of each kind, used by the audit,
// the verdict and the comparison alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace solvebench::bench {

// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Three significant digits without an exponent: 1235, 12.3, 0.0123; "–" for nothing or non-finite.
std::string sig3(std::optional<double> x);
// A count: 2, 16, 1024.
std::string whole(double x);
// "2.38×"
std::string times(double x);
// 0.125 -> "12.5%"
std::string percent(double fraction);
// A plain decimal for residuals and errors: 0.0041, 1.2e-13 (no SI suffixes).
std::string plain(double x);
std::string join(const std::vector<std::string>& parts, const std::string& sep);
// Breaks `text` into lines of at most `width` characters, the later ones indented by `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent);

}  // namespace solvebench::bench
