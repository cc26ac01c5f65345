// The reader of saved runs on hard inputs: each rejection is a load_error that names the file
// (and the line, in a rows log) and the problem; what it reads, it reads right. Also the inputs
// the fuzzers found (test/fuzz/corpus/*/regress-*), each pinned to what it must do now.
#include "checks/load.hpp"
#include "legacy/row_names.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sb = solvebench::bench;

namespace {

const std::string ctx_line = R"({"context": {"solve_bench_version": "0.1.0", "host_name": "h"}})";

std::string row_line(const std::string& name, const std::string& time = "1000", const std::string& more = "") {
  return R"({"name": ")" + name + R"(/manual_time", "run_type": "iteration", "real_time": )" + time +
         R"(, "time_unit": "ns")" + more + "}";
}

std::string document(const std::string& rows) {
  return R"({"context": {"solve_bench_version": "0.1.0"}, "benchmarks": [)" + rows + "]}";
}

sb::run_summary load(const std::string& path, const std::string& text) {
  sb::run_summary run;
  sb::load_text(run, path, text);
  return run;
}

// The message of the load_error the text gets; fails the test when it loads.
std::string rejection(const std::string& path, const std::string& text) {
  try {
    load(path, text);
  } catch (const sb::load_error& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded: " << text.substr(0, 200);
  return "";
}

#define EXPECT_REJECTED(path, text, prefix, problem)    \
  do {                                                  \
    const std::string m = rejection(path, text);        \
    EXPECT_EQ(m.rfind(prefix, 0), 0U) << m;             \
    EXPECT_NE(m.find(problem), std::string::npos) << m; \
  } while (false)

TEST(LoadText, EmptyFileIsNamedEmpty) {
  EXPECT_REJECTED("e.json", "", "e.json: ", "empty file");
  EXPECT_REJECTED("e.json", " \n\t\r\n", "e.json: ", "empty file");
}

TEST(LoadText, NonUtf8BytesAreNotJson) {
  EXPECT_REJECTED("b.json", document(row_line("CPU/dgesv/n:4/nrhs:1", "1", ", \"label\": \"\xff\xfe\"")),
                  "b.json: ", "UTF-8");
}

TEST(LoadText, Utf16IsNamed) {
  EXPECT_REJECTED("w.json", std::string("\xff\xfe{\0\"\0", 6), "w.json: ", "UTF-16");
  EXPECT_REJECTED("w.json", std::string("\xfe\xff\0{\0\"", 6), "w.json: ", "UTF-16");
}

TEST(LoadText, RowsThatAreNotObjects) {
  EXPECT_REJECTED("r.json", document("1, \"x\""), "r.json: ", "a row that is not an object");
  EXPECT_REJECTED("r.json", R"({"benchmarks": {"name": "x"}})", "r.json: ", "\"benchmarks\" is not a list");
  EXPECT_REJECTED("r.json", "[1, 2]", "r.json: ", "not a JSON object");
}

TEST(LoadText, TimesAsStringsNameTheRowAndTheField) {
  EXPECT_REJECTED("t.json", document(row_line("CPU/dgesv/n:4/nrhs:1", "\"12.5\"")),
                  "t.json: ", "row 'CPU/dgesv/n:4/nrhs:1/manual_time': \"real_time\" is not a number");
  EXPECT_REJECTED("t.json", document(row_line("CPU/dgesv/n:4/nrhs:1", "1", ", \"samples_ms\": [\"1\"]")),
                  "t.json: ", "a sample is not a time");
}

TEST(LoadText, NumericNames) {
  EXPECT_REJECTED("n.json", document(R"({"name": 5, "real_time": 1})"), "n.json: ", "\"name\" is not text");
  EXPECT_REJECTED("n.json", document(R"({"name": "5", "real_time": 1})"), "n.json: ", "not a solve_bench row name");
}

TEST(LoadText, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = R"({"context": {"a": )" + std::string(100000, '[') + std::string(100000, ']') + "}}";
  EXPECT_REJECTED("d.json", deep, "d.json: ", "nested deeper than 32 levels");
  // Brackets inside strings are text, not nesting.
  const auto run =
      load("d.json", R"({"context": {"solve_bench_version": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}})");
  EXPECT_EQ(run.context_value("solve_bench_version"), std::string(40, '['));
}

TEST(LoadText, ContextThatIsAString) {
  EXPECT_REJECTED("c.json", R"({"context": "x", "benchmarks": []})", "c.json: ", "\"context\" is not an object");
}

TEST(LoadText, BadMiddleLineOfARowsLogAtItsLineNumber) {
  const std::string good = row_line("CPU/dgesv/n:4/nrhs:1");
  EXPECT_REJECTED("r.rows.jsonl", ctx_line + "\n" + good + "\n{\"name\": oops\n" + good + "\n",
                  "r.rows.jsonl:3: ", "not JSON");
  // Blank lines count; a line that is JSON but not a row is named at its line too.
  EXPECT_REJECTED("r.rows.jsonl",
                  ctx_line + "\n\n" + good + "\n" + row_line("CPU/dgesv/n:8/nrhs:1", "-1") + "\n" + good,
                  "r.rows.jsonl:4: ", "a negative or non-finite time");
}

TEST(LoadText, TornLastLineIsNotedAndSkipped) {
  const std::string text =
      ctx_line + "\n" + row_line("CPU/dgesv/n:4/nrhs:1") + "\n" + row_line("CPU/dgesv/n:8/nrhs:1").substr(0, 40);
  const auto run = load("k.rows.jsonl.partial", text);
  ASSERT_EQ(run.rows.size(), 1U);
  EXPECT_EQ(run.rows[0].name, "CPU/dgesv/n:4/nrhs:1");
  ASSERT_EQ(run.rows[0].times_ms.size(), 1U);
  EXPECT_DOUBLE_EQ(run.rows[0].times_ms[0], 1e-3);
  ASSERT_EQ(run.notes.size(), 1U);
  EXPECT_EQ(run.notes[0], "k.rows.jsonl.partial:3: ignoring the unfinished last line");
}

TEST(LoadText, AnotherProgramsGoogleBenchmarkOutputIsNotASolveBenchRun) {
  const std::string foreign = R"({"context": {"date": "2016-08-02", "num_cpus": 4, "library_build_type": "release"},
    "benchmarks": [{"name": "BM_memcpy/8/64", "iterations": 10, "real_time": 10, "cpu_time": 10, "time_unit": "ns"}]})";
  EXPECT_REJECTED("other.json", foreign, "other.json: ", "not a solve_bench run");
  // A solve_bench run with a row it cannot read says which row, not that the run is foreign.
  const std::string ours = document(R"({"name": "BM_memcpy/8/64", "real_time": 10})");
  const std::string m = rejection("ours.json", ours);
  EXPECT_EQ(m.find("not a solve_bench run"), std::string::npos) << m;
  EXPECT_NE(m.find("row 'BM_memcpy/8/64'"), std::string::npos) << m;
}

TEST(LoadText, RowWithoutATime) {
  EXPECT_REJECTED("z.json", document(R"({"name": "CPU/dgesv/n:4/nrhs:1/manual_time", "run_type": "iteration"})"),
                  "z.json: ", "row 'CPU/dgesv/n:4/nrhs:1/manual_time': no real_time");
}

TEST(LoadText, NegativeTimeIsRefusedInRowsAndAggregates) {
  EXPECT_REJECTED("m.json", document(row_line("CPU/dgesv/n:4/nrhs:1", "-5")),
                  "m.json: ", "a negative or non-finite time");
  // --benchmark_report_aggregates_only: the median stands for the row, so it is held to the same.
  const std::string median = R"({"name": "CPU/dgesv/n:4/nrhs:1/manual_time_median", "run_name":
    "CPU/dgesv/n:4/nrhs:1/manual_time", "run_type": "aggregate", "aggregate_name": "median", "real_time": -5})";
  EXPECT_REJECTED("m.json", document(median), "m.json: ", "a negative or non-finite time");
  // A time that overflows when converted to ms is not a time either.
  EXPECT_REJECTED("m.json", document(R"({"name": "CPU/dgesv/n:4/nrhs:1", "real_time": 1e308, "time_unit": "s"})"),
                  "m.json: ", "a negative or non-finite time");
}

TEST(LoadText, AnAggregatesOnlyMedianIsTheRowAndTakesTheDefaultUnit) {
  const std::string median = R"({"name": "CPU/dgesv/n:4/nrhs:1/manual_time_median", "run_name":
    "CPU/dgesv/n:4/nrhs:1/manual_time", "run_type": "aggregate", "aggregate_name": "median", "real_time": 2000})";
  const auto run = load("a.json", document(median));
  ASSERT_EQ(run.rows.size(), 1U);
  ASSERT_EQ(run.rows[0].times_ms.size(), 1U);
  EXPECT_DOUBLE_EQ(run.rows[0].times_ms[0], 2e-3);
}

TEST(LoadText, ARowsLogReadsAsItsRows) {
  const std::string text =
      ctx_line + "\n" + row_line("CPU/dgesv/n:4/nrhs:1", "1000", ", \"samples_ms\": [0.001, 0.002]") + "\n" +
      row_line("CPU/dgesv/n:4/nrhs:1", "3000") + "\n" +
      R"({"name": "CPU/dgetrf/n:4/manual_time", "error_occurred": true, "error_message": "skipped: too big"})";
  const auto run = load("l.rows.jsonl", text);
  EXPECT_EQ(run.context_value("host_name"), "h");
  ASSERT_EQ(run.rows.size(), 2U);
  ASSERT_EQ(run.rows[0].times_ms.size(), 2U);
  EXPECT_DOUBLE_EQ(run.rows[0].times_ms[0], 1e-3);
  EXPECT_DOUBLE_EQ(run.rows[0].times_ms[1], 3e-3);
  EXPECT_EQ(run.rows[0].samples_ms, (std::vector<double>{0.001, 0.002}));
  EXPECT_TRUE(run.rows[1].skipped);
  EXPECT_EQ(run.rows[1].error, "too big");
}

// ------------------------------------------------------------------ pooling

// A run's context with one key set (the others as on every run of the same machine).
std::string pooled_doc(const std::string& key, const std::string& value,
                       const std::string& name = "CPU/dgesv/n:4/nrhs:1") {
  nlohmann::ordered_json context = {
      {"solve_bench_version", "0.1.0"}, {"host_name", "h"},         {"cpu_model", "EPYC"},
      {"blas_vendor", "OpenBLAS"},      {"blas_version", "0.3.26"}, {"gpu_name", "NVIDIA H200"},
      {"cusolver_version", "12.0.4"}};
  context[key] = value;
  return R"({"context": )" + context.dump() + R"(, "benchmarks": [)" + row_line(name) + "]}";
}

// Each key that says which stack ran the rows: two files that differ in it are not repetitions
// of the same rows, and the refusal names the key, both values and both files.
TEST(Pooling, FilesFromAnotherStackAreRefusedNamingTheDifference) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> keys = {
      {"host_name", {"h", "other"}},
      {"cpu_model", {"EPYC", "Xeon"}},
      {"blas_vendor", {"OpenBLAS", "BLIS"}},
      {"blas_version", {"0.3.26", "0.3.21"}},
      {"gpu_name", {"NVIDIA H200", "NVIDIA A100"}},
      {"cusolver_version", {"12.0.4", "11.5.0"}}};
  for (const auto& [key, values] : keys) {
    sb::run_summary run;
    sb::load_text(run, "A.json", pooled_doc(key, values.first));
    try {
      sb::load_text(run, "B.json", pooled_doc(key, values.second));
      ADD_FAILURE() << key << ": B.json was pooled with A.json";
    } catch (const sb::load_error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("B.json: cannot pool it with A.json: " + key + " is '" + values.second + "' here and '" +
                            values.first + "' there",
                        0),
                0U)
          << m;
    }
  }
}

TEST(Pooling, TheSameStackPoolsAndAMissingKeyIsNoDifference) {
  sb::run_summary run;
  sb::load_text(run, "A.json", pooled_doc("host_name", "h"));
  sb::load_text(run, "B.json", pooled_doc("host_name", "h"));
  sb::load_text(run, "C.json", document(row_line("CPU/dgesv/n:4/nrhs:1")));  // older results: no such keys
  ASSERT_EQ(run.rows.size(), 1U);
  EXPECT_EQ(run.rows[0].times_ms.size(), 3U);
  EXPECT_EQ(run.context_source, "A.json");
  // Each file's start stays, though the first context speaks for the pool: the comparison
  // reads from them whether two runs took turns.
  sb::run_summary dated;
  sb::load_text(dated, "A.json", pooled_doc("date", "2026-12-06T22:55:26+00:00"));
  sb::load_text(dated, "B.json", pooled_doc("date", "2026-12-06T22:59:28+00:00"));
  sb::load_text(dated, "C.json", document(row_line("CPU/dgesv/n:4/nrhs:1")));
  EXPECT_EQ(dated.dates, (std::vector<std::string>{"2026-12-06T22:55:26+00:00", "2026-12-06T22:59:28+00:00", ""}));
}

// A rows log whose later context line (a resumed run) came from another machine: its line is named.
TEST(Pooling, AResumedLogFromAnotherMachineIsRefusedAtItsLine) {
  const std::string other = R"({"context": {"solve_bench_version": "0.1.0", "host_name": "elsewhere"}})";
  EXPECT_REJECTED(
      "r.rows.jsonl",
      ctx_line + "\n" + row_line("CPU/dgesv/n:4/nrhs:1") + "\n" + other + "\n" + row_line("CPU/dgesv/n:4/nrhs:1"),
      "r.rows.jsonl:3: cannot pool it with r.rows.jsonl:1: host_name is 'elsewhere' here and 'h' there", "");
}

// ------------------------------------------------------------------ what the fuzzers found

// A number beyond a double made nlohmann-json throw out_of_range, not parse_error: it escaped
// load_text (and solve_bench_checks died of it). Found by fuzz_load (regress-number-overflow).
TEST(LoadText, ANumberBeyondADoubleIsNotJson) {
  EXPECT_REJECTED("o.json", document(row_line("CPU/dgesv/n:4/nrhs:1", "3e2768")),
                  "o.json: ", "not JSON: number overflow parsing '3e2768'");
  EXPECT_REJECTED("o.rows.jsonl", ctx_line + "\n" + row_line("CPU/dgesv/n:4/nrhs:1", "-1e999") + "\n" + ctx_line,
                  "o.rows.jsonl:2: ", "number overflow");
}

// Legacy names (results written before ids) whose id, written back to JSON, was not the id read:
// the audit and compare sidecars carry ids, and to_json / row_id_from_json then threw or lost an axis.
TEST(LegacyRowId, RefusesWhatItsJsonCouldNotCarry) {
  const auto refused = [](const std::string& name, const std::string& why) {
    try {
      sb::legacy_row_id(name);
      ADD_FAILURE() << name << " was read";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("GPU/dgesv/n:10000/nrhs:1$manual_time", "'nrhs:1$manual_time' is not a positive integer");  // fuzz_load
  refused("GPU-loop/zgesv_batched/n:4/nrhs:1/batch:/batch:1000", "'batch:1000' repeats an element");  // fuzz_row_id
  refused("CPU/dgesv/n:4/n:8", "'n:8' repeats an element");
  refused("CPU/dgesv/n:99999999999999999999", "is not a positive integer");  // was std::out_of_range
  refused("CPU/dgesv/n:0", "'n:0' is not a positive integer");
  refused("CPU/dgesv/n:4/op:gemm", "is a field of the id");
  // Its name would end in /manual_time, which reads back as no axis at all (fuzz_row_id, in CI's 60 s).
  refused("CPU/dposv/n:4/manual_time:", "not an axis");
  refused("CPU/dgesv/n:4/:x", "has no key");
}

TEST(LegacyRowId, ATooLargeIntegerInANameIsALoadErrorNotACrash) {
  EXPECT_REJECTED("big.json", document(R"({"name": "CPU/dgesv/n:99999999999999999999/manual_time", "real_time": 1})"),
                  "big.json: ", "is not a positive integer");
}

TEST(LegacyRowId, GoogleBenchmarkSuffixesAreNotAxesAnywhere) {
  EXPECT_EQ(sb::legacy_row_id("CPU/dgesv/manual_time/n:4").name(), "CPU/dgesv/n:4");
  EXPECT_EQ(sb::legacy_row_id("CPU/dgesv/n:4/nrhs:1/kind:diagdom/manual_time").name(),
            "CPU/dgesv/n:4/nrhs:1/kind:diagdom");
}

TEST(RowIdJson, IntegerAxesReadBackAsTheSameText) {
  for (const std::string value : {"007", "99999999999999999999", "1000", "-3"}) {
    const auto id = sb::legacy_row_id("CPU/dgesv_batched/n:4/batch:" + value);
    const auto back = sb::row_id_from_json(sb::to_json(id));
    EXPECT_EQ(back, id) << value << " read back as " << back.name();
    const auto expected = value == "1000"  ? std::optional<std::int64_t>(1000)
                          : value == "007" ? std::optional<std::int64_t>(7)
                                           : std::nullopt;  // beyond int64, or not digits
    EXPECT_EQ(id.int_axis("batch"), expected) << value;
  }
  EXPECT_TRUE(sb::to_json(sb::legacy_row_id("CPU/dgesv_batched/n:4/batch:1000"))["batch"].is_number_integer());
  // An unsigned integer beyond int64 is kept exactly, not wrapped to a negative number.
  const auto id = sb::row_id_from_json(nlohmann::ordered_json::parse(
      R"({"backend": "CPU", "device": "cpu", "placement": "resident", "path": "batched", "library": "lapack",
          "op": "gesv", "precision": "d", "n": 4, "batch": 18446744073709551615})"));
  EXPECT_EQ(id.axis("batch"), "18446744073709551615");
}

// Every committed seed and regression input: read, or refused naming the file.
TEST(FuzzCorpus, EveryInputLoadsOrIsRefusedByName) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SOLVE_BENCH_FUZZ_CORPUS "/load")) {
    const std::string path = entry.path().string();
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    ++files;
    try {
      load(path, text.str());
    } catch (const sb::load_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ":", 0), 0U) << e.what();
    }
  }
  EXPECT_GE(files, 10U);
}

}  // namespace
