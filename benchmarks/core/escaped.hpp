// The last resort of every binary's main: an exception that escaped the program becomes one line
// on stderr and exit status 1, instead of std::terminate's "terminate called after ..." and an
// abort (exit 134). Bad input never gets here (it is refused by name, exit 2): what does is a bug,
// and the line says so.
#pragma once

#include <exception>
#include <functional>
#include <iostream>
#include <string>

namespace solvebench::bench {

// The exit status of an escaped exception: "something failed" (--help's 1), never a usage error.
inline constexpr int escaped_exception_status = 1;

// main()'s body, run so that nothing escapes it; `after` runs once the line is written (MPI: abort
// the job, whose other ranks may wait in a collective).
template <class Body>
int run_guarded(const std::string& program, Body&& body, const std::function<void()>& after = {}) noexcept {
  std::string what;
  try {
    return body();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception of unknown type";
  }
  try {
    std::cerr << program << ": internal error: " << what << " (a bug, not a usage error: please report it)\n";
    if (after) after();
  } catch (...) {
  }
  return escaped_exception_status;
}

}  // namespace solvebench::bench
