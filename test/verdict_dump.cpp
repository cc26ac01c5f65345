// verdict_dump FIXTURE OUTDIR: the C++ verdict of every case in FIXTURE, as
// OUTDIR/<case>.cpp.verdict.json, .cpp.verdict.md (through write_verdict_files) and
// .cpp.console.txt, for tools/tests/test_verdict.py to hold against the Python verdict.
#include <exception>
#include <fstream>
#include <iostream>

#include "verdict_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: verdict_dump FIXTURE OUTDIR\n";
    return 2;
  }
  try {
    for (const auto& c : solvebench::bench::testing::read_verdict_cases(argv[1])) {
      const auto v = solvebench::bench::make_verdict(c.run, c.findings);
      const std::string stem = std::string(argv[2]) + "/" + c.name + ".cpp";
      solvebench::bench::write_verdict_files(v, stem + ".json");
      std::ofstream console(stem + ".console.txt", std::ios::binary);
      console << solvebench::bench::verdict_console(v);
      if (!console) throw std::runtime_error("cannot write " + stem + ".console.txt");
    }
  } catch (const std::exception& e) {
    std::cerr << "verdict_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
